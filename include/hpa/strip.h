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

/* Set `internal` and `internal_levels` on every location (and cache each stack's cut). */
void hpa_mark_internal(struct hpa_profile *prof);

/* Work out each stack's cut again, for hpa_visible_stack(): after stacks change. */
void hpa_cache_stack_cuts(struct hpa_profile *prof);

/* True if a (short) function name is an allocator entry point or internal. */
bool hpa_is_allocator_name(const char *short_name);

/*
 * The frames of stack `stack` that a report shows, leaf first: sets *frames
 * to the first of them (inside the profile's frame table) and returns their
 * number.  With `keep_internal` nothing is cut.  *skip is set to the number
 * of inline levels of frame 0 that are cut too (an allocator function
 * inlined into a caller that stays).
 */
size_t hpa_visible_stack(const struct hpa_profile *prof, uint32_t stack, bool keep_internal,
			 const uint32_t **frames, unsigned *skip);

/*
 * Warn when at least 95% of `v` (all-threads samples, every input) is in
 * stacks made only of allocator frames: the unwinder stopped inside the
 * allocator, and no report can say who allocated.
 */
void hpa_warn_allocator_only(const struct hpa_profile *prof, enum hpa_value v);

#endif
