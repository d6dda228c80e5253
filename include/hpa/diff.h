/*
 * Base profiles (--base).  The base is read into the same model as an input
 * whose samples count negatively (weight -1), so every report subtracts it
 * frame by frame.  Its frames meet the profile's by module and file offset
 * (hpa_unify_locations: other runs, ASLR, unnamed frames), and then by
 * symbols (function, file, line at every inline level: another build).
 */
#ifndef HPA_DIFF_H
#define HPA_DIFF_H

#include "hpa/profile.h"
#include "hpa/view.h"

/* What the base pass needs of the command line. */
struct hpa_base_opts {
	struct hpa_view_opts view;   /* the value and thread --normalize scales by; --drop_negative's samples */
	const char *name;            /* --base as given, for messages */
	bool normalize;              /* scale the base to the profile's total */
	bool drop_negative;          /* leave out stacks whose difference is negative */
};

/* What the base pass gives the views (hpa_view_opts.weights, .dropped). */
struct hpa_base_out {
	double *weights;             /* per input (index input - 1) */
	uint8_t *dropped;            /* per sample: 1 when --drop_negative leaves it out; or NULL */
};

/*
 * The base pass, after symbolizing and naming (and the base's frames
 * matched by symbol, hpa_match_base_by_symbols: the view's frames), into *out (release it
 * with hpa_base_out_release): each input's weight in the reports, its own
 * (1, or -1 for the base), the base's scaled to the profile's total (of
 * the selected value and thread) with --normalize; with --drop_negative
 * the samples of every stack whose difference is negative (grouped as
 * --collapse groups, with those weights), which the views then leave out.
 * The profile is not changed.  Returns 0 (problems are warnings).
 */
int hpa_apply_base(const struct hpa_profile *prof, const struct hpa_base_opts *opts, struct hpa_base_out *out);
void hpa_base_out_release(struct hpa_base_out *out);

#endif
