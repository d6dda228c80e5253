/*
 * Base profiles (--base).  The base is read into the same model as an input
 * whose samples count negatively (weight -1), so every report subtracts it
 * frame by frame.  Reports aggregate by names, so a frame of the base and
 * one of the profile meet when they have the same symbols (module,
 * function, file, line) even at different addresses: dumps of different
 * runs diff correctly despite ASLR.  Unsymbolized frames meet by address.
 */
#ifndef HPA_DIFF_H
#define HPA_DIFF_H

#include "hpa/opts.h"
#include "hpa/profile.h"

/*
 * After reading and symbolizing: with --normalize scale the base to the
 * profile's total (of the selected value and thread); with --drop_negative
 * remove every stack whose difference is negative.  Stacks are compared by
 * their symbolic frames.  Returns 0 (problems are warnings).
 */
int hpa_apply_base(struct hpa_profile *prof, const struct hpa_opts *opts);

#endif
