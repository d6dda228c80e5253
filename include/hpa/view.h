/*
 * What a report sees of the profile: the samples of the selected thread
 * that pass --focus/--ignore, each with the frames left after the allocator
 * cut (strip.h) and --hide/--show, innermost first, and its value weighted
 * by its input (a --base input counts negatively).  Every writer goes
 * through this, so Total, percentages and rows come from the same samples.
 */
#ifndef HPA_VIEW_H
#define HPA_VIEW_H

#include "hpa/compat.h"

#include <regex.h>

#include "hpa/names.h"
#include "hpa/profile.h"
#include "hpa/strip.h"
#include "hpa/symbols.h"

/* A compiled --focus/--ignore/--show/--hide expression. */
struct hpa_filter_re {
	bool set;
	regex_t re;
	const char *src;             /* the expression as given */
};

/* hpa_view_opts.thread for a view of every thread's samples and the t* ones, told apart by the caller. */
#define HPA_VIEW_EVERY_THREAD INT32_MIN

/* The view's parameters, filled by the driver from the command line. */
struct hpa_view_opts {
	enum hpa_value value;        /* the value summed */
	int32_t thread;              /* HPA_THREAD_ALL, one jemalloc thread, or HPA_VIEW_EVERY_THREAD */
	const struct hpa_symbols *symbols;   /* the profile's symbols (symbols.h) */
	const struct hpa_names *names;   /* every frame's names (names.h), made of those symbols */
	const struct hpa_cuts *cuts; /* the allocator cut (strip.h), or NULL: keep allocator frames */
	const uint32_t *frames;      /* the stacks' frames with the base matched by symbol, or NULL: the profile's */
	int part;                    /* 0 every input; 1 the profiles only, -1 the --base only */
	const struct hpa_filter_re *focus, *ignore, *show, *hide;   /* may be unset, never NULL */
	/*
	 * When set, the only samples that can be in the view, ascending (one
	 * thread's, say): passes over the view visit these, not every sample.
	 */
	const uint32_t *only;
	size_t only_nr;
	/*
	 * When set, per input (index input - 1): its weight in this view (0:
	 * left out) and whether it is the base side; NULL: each input's own
	 * (hpa_input.weight, .is_base).  --outdir views one dump, or a dump
	 * against the one before, this way, the profile unchanged.
	 */
	const double *weights;
	const bool *bases;
	/* When set, per sample: 1 for those --drop_negative left out (the base pass's). */
	const uint8_t *dropped;
	/* When set, per sample: its value in this view instead of v[value] (--stats --svg: empty bytes charged). */
	const double *values;
};

/* Input `input`'s weight by `weights` (a view's, or NULL: the inputs' own). */
static inline double hpa_input_weight(const double *weights, const struct hpa_profile *prof,
				      uint32_t input)
{
	return weights ? weights[input - 1] : prof->inputs[input - 1].weight;
}

/* Input `input`'s weight in a view with these parameters. */
static inline double hpa_view_weight(const struct hpa_view_opts *o, const struct hpa_profile *prof,
				     uint32_t input)
{
	return hpa_input_weight(o->weights, prof, input);
}

/* Whether input `input` is the base side in a view with these parameters. */
static inline bool hpa_view_base(const struct hpa_view_opts *o, const struct hpa_profile *prof,
				 uint32_t input)
{
	return o->bases ? o->bases[input - 1] : prof->inputs[input - 1].is_base;
}

/* Whether any input is the base side (a diff). */
bool hpa_view_has_base(const struct hpa_view_opts *o, const struct hpa_profile *prof);

struct hpa_view {
	const struct hpa_profile *prof;
	const struct hpa_symbols *syms;  /* opts.symbols */
	struct hpa_view_opts opts;
	uint8_t *bits;               /* per frame slot: filter matches, once known */
	uint16_t *levels;            /* per location: its frames (inline levels, at least 1) */
	uint32_t *slot0;             /* per location: the slot of its level 0 (hpa_view_slot) */
	struct hpa_frame *buf;
	size_t buf_alloc;
};

void hpa_view_init(struct hpa_view *v, const struct hpa_profile *prof,
		   const struct hpa_view_opts *opts);
void hpa_view_release(struct hpa_view *v);

/* The k-th sample a pass over the view visits (k < hpa_view_candidates()). */
static inline size_t hpa_view_candidate(const struct hpa_view *v, size_t k)
{
	return v->opts.only ? v->opts.only[k] : k;
}

static inline size_t hpa_view_candidates(const struct hpa_view *v)
{
	return v->opts.only ? v->opts.only_nr : v->prof->samples_nr;
}

/* hpa_frame_slot() from the view's small arrays: no location read per frame. */
static inline size_t hpa_view_slot(const struct hpa_view *v, struct hpa_frame f)
{
	return v->slot0[f.loc] + f.level;
}

/*
 * The frames of sample `i`, leaf first, into *frames (valid until the next
 * call) and *nr; false if the sample is not in the view (other thread,
 * --focus without a match, --ignore with one).
 */
bool hpa_view_sample(struct hpa_view *v, size_t i, const struct hpa_frame **frames, size_t *nr);

/*
 * The two halves of hpa_view_sample: whether sample `i` is of the view's
 * thread and side; the frames of a stack (the same for every sample of
 * stacks with the same locations), false if the filters drop it.
 */
bool hpa_view_keeps(const struct hpa_view *v, size_t i);
bool hpa_view_stack(struct hpa_view *v, uint32_t stack, const struct hpa_frame **frames,
		    size_t *nr);

/* Whether any of --focus, --ignore, --show and --hide is set. */
bool hpa_view_filters(const struct hpa_view_opts *opts);

/*
 * The locations under hpa_view_stack()'s frames, leaf first, before the
 * filters: each location's inline levels in a row, the first location's
 * from level *first on, the others' whole (a caller that keys whole
 * locations reads these, not the frames one level at a time).
 */
size_t hpa_view_locations(const struct hpa_view *v, uint32_t stack, const uint32_t **locs,
			  unsigned *first);

/*
 * Warn about a --thread without samples and each of --focus, --ignore,
 * --show and --hide that matches no frame of the selected thread's
 * samples: such a report is empty or unfiltered, never what was meant.
 */
void hpa_view_check_filters(const struct hpa_profile *prof, const struct hpa_view_opts *opts);

/* "focus=RE ignore=RE ..." of the filters set, for a report's "Active filters:" line; NULL if none. */
char *hpa_view_filters_text(const struct hpa_view_opts *opts);

/* The selected value of sample `i`, weighted by its input. */
static inline double hpa_view_value(const struct hpa_view *v, size_t i)
{
	const struct hpa_sample *s = &v->prof->samples[i];
	return (v->opts.values ? v->opts.values[i] : s->v[v->opts.value]) *
	       hpa_view_weight(&v->opts, v->prof, s->input);
}

#endif
