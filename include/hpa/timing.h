/*
 * --timing: how long each pass took, to stderr, so a user with a slow case
 * can tell which pass it is:  "hpa: timing: WHAT  12.3 ms".
 */
#ifndef HPA_TIMING_H
#define HPA_TIMING_H

#include "hpa/compat.h"

extern bool hpa_timing_on;

/* Monotonic seconds. */
double hpa_now(void);

/* With --timing, print WHAT (printf) and the milliseconds since `since` (hpa_now()). */
void hpa_timing(double since, const char *fmt, ...) HPA_PRINTF(2, 3);

/* The same for a time already summed, in seconds. */
void hpa_timing_secs(double secs, const char *fmt, ...) HPA_PRINTF(2, 3);

/*
 * With --timing, the most memory the process has held so far (its peak
 * resident set, threads included), after the total: "hpa: timing: peak
 * RSS  44.5 MiB".
 */
void hpa_timing_peak_rss(void);

#endif
