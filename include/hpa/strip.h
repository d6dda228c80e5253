/*
 * Allocator-internal frames.  A location is internal when it lies in the
 * allocator's own library (libjemalloc, libtcmalloc: by module, so a
 * stripped library goes too) or its function is an allocation entry point or
 * allocator internal (malloc, operator new, je_*, tcmalloc::, __rust_alloc,
 * ...).  A stack is cut just rootward of its rootmost internal frame, as
 * jeprof does, so what remains starts at the code that asked for memory.
 */
#ifndef HPA_STRIP_H
#define HPA_STRIP_H

#include "hpa/compat.h"
#include "hpa/profile.h"
#include "hpa/symbols.h"

/*
 * The allocator cut, the output of hpa_mark_internal(), which the passes
 * after it take as an argument (views: hpa_view_opts.cuts).
 */
struct hpa_cuts {
	/* Per location: HPA_CUT_ALL (wholly allocator code), or its innermost inline levels that are. */
	uint16_t *loc;
	uint32_t *stack;             /* per stack: how many leaf frames a report cuts */
	uint16_t *stack_levels;      /* and the inline levels of the next one it cuts too */
	size_t locs_nr, stacks_nr;
};

#define HPA_CUT_ALL UINT16_MAX

/*
 * Mark every location of a symbolized profile, and each stack's cut, into
 * *out: the stacks as `frames` holds them (the base matched by symbol), or
 * NULL: as the profile does.
 */
void hpa_mark_internal(const struct hpa_profile *prof, const struct hpa_symbols *syms,
		       const uint32_t *frames, struct hpa_cuts *out);
void hpa_cuts_release(struct hpa_cuts *cuts);

/* True if a (short) function name is an allocator entry point or internal. */
bool hpa_is_allocator_name(const char *short_name);

/*
 * The frames of stack `stack` that a report shows, leaf first: sets *frames
 * to the first of them (inside `table`, the frames table: the base matched
 * by symbol, or NULL: the profile's own) and returns their number.  With
 * `cuts` NULL (--keep-internal, or no symbols) nothing is cut.  *skip is
 * set to the number of inline levels of frame 0 that are cut too (an
 * allocator function inlined into a caller that stays).
 */
size_t hpa_visible_stack(const struct hpa_profile *prof, const uint32_t *table, const struct hpa_cuts *cuts,
			 uint32_t stack, const uint32_t **frames, unsigned *skip);

/*
 * Warn when at least 95% of `v` (all-threads samples, every input) is in
 * stacks made only of allocator frames: the unwinder stopped inside the
 * allocator, and no report can say who allocated.
 */
void hpa_warn_allocator_only(const struct hpa_profile *prof, const struct hpa_cuts *cuts, enum hpa_value v);

#endif
