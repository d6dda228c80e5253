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
	bool drop_negative;          /* remove stacks whose difference is negative */
};

/*
 * The base pass, after symbolizing and naming (and the base's frames
 * unified by symbols, hpa_unify_base_by_symbols): each input's weight in the reports
 * into weights[input - 1] (inputs_nr of them): its own (1, or -1 for the
 * base), the base's scaled to the profile's total (of the selected value
 * and thread) with --normalize; with --drop_negative remove every stack
 * whose difference is negative (grouped as --collapse groups, with those
 * weights).  The views of the reports take the weights (hpa_view_opts).
 * Returns 0 (problems are warnings).
 */
int hpa_apply_base(struct hpa_profile *prof, const struct hpa_base_opts *opts, double *weights);

#endif
