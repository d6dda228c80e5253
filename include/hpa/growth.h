/*
 * The growth pass: what grows steadily across a series of dumps.
 *
 * Each input is one dump, in order.  For every stack (as the view shows it)
 * and every function (its flat value, i.e. where it allocated) the pass
 * keeps the value in each dump, then: gain = last - first, slope =
 * least-squares slope per dump, steadiness = share of steps that grew, and
 * its class (enum hpa_growth_class).  Rows rank by class, leaks first, then
 * by score: gain times steadiness, so a stack that grows in every dump
 * comes above one that spikes once and falls back (gain ~0) or churns
 * (steadiness ~0.5, gain ~0), and above a one-time jump (steadiness
 * 1/(N-1)); of equal score and gain (those that did not grow), the larger
 * in the last dump first.  Writers print the series (--growth text, --csv, --collapse);
 * the flame graph colours its call tree by the same steadiness.
 */
#ifndef HPA_GROWTH_H
#define HPA_GROWTH_H

#include "hpa/compat.h"
#include "hpa/group.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

/*
 * What a series did, in rank order: a leak grows in most steps (two thirds
 * of them or more, on a line: R^2 0.5 or more from four dumps on; or half
 * of them or more, never falling); a plateau grew, then stayed (its last
 * two steps or more within 5% of its end: caches, pools); a shrink falls
 * as a leak grows; churn went up and down with no trend; flat moved less
 * than 5% of its largest value.  Steps under 1% of the largest value count
 * as neither up nor down.
 */
enum hpa_growth_class {
	HPA_GROWTH_LEAK,
	HPA_GROWTH_PLATEAU,
	HPA_GROWTH_CHURN,
	HPA_GROWTH_SHRINK,
	HPA_GROWTH_FLAT
};

/* "leak", "plateau", ... */
const char *hpa_growth_class_name(enum hpa_growth_class c);

/* The class of v[0 .. n); *r2 the R^2 of its least-squares line (1 when it is flat). */
enum hpa_growth_class hpa_growth_classify(const double *v, size_t n, double *r2);

struct hpa_series {
	const char *name;    /* without the trailing separator, or NULL: hpa_growth_name() */
	int name_len;        /* print with %.*s */
	uint32_t order;      /* in text order: ties keep it */
	uint32_t sample;     /* a sample of this stack, to name it */
	const struct hpa_stack_format *fmt;
	double *v;           /* one value per dump, in the growth's values */
	double gain, slope, steady, score;
	double r2;           /* of the least-squares line through v[] */
	uint8_t cls;         /* enum hpa_growth_class: ranks first, leaks first */
	double last;         /* the value in the last dump: of equal score and gain, the larger ranks first */
};

struct hpa_growth {
	size_t dumps;
	struct hpa_series *stacks, *funcs;   /* ranked, best first (hpa_growth: the first `ranked`) */
	struct hpa_series total;             /* the whole view (the process), per dump */
	size_t nstacks, nfuncs;
	struct hpa_strtab stack_texts, func_texts;   /* texts, when they had to be kept */
	double *stack_values, *func_values;          /* its per-dump values, kept */
	struct hpa_stack_namer stack_namer, func_namer;   /* naming from a sample */
};

/*
 * A series' name, without the trailing separator: made from its sample
 * when the pass kept no text (valid until the next call).
 */
const char *hpa_growth_name(struct hpa_growth *g, const struct hpa_series *s, int *len);

/*
 * Series of every stack ("leaf < caller < ...", or folded root first when
 * `folded`) and every function, ranked: the first `ranked` of each in rank
 * order, best first (ranked 0: all of them in order).  nstacks and nfuncs
 * count every series; past the first `ranked`, the arrays may end (where
 * each text is its own, only those are made) or hold the others in no
 * particular order.
 */
void hpa_growth(const struct hpa_profile *prof, const struct hpa_view_opts *opts, bool folded,
		size_t ranked, struct hpa_growth *out);
void hpa_growth_release(struct hpa_growth *g);

/* Share of the n - 1 steps of v[] that grew (dir 1) or shrank (dir -1). */
double hpa_steadiness(const double *v, size_t n, int dir);

#endif
