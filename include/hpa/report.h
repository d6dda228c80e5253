/*
 * Report writers.  Each takes the model and the options and writes one
 * format to `fp`; none re-parses another writer's output.
 */
#ifndef HPA_REPORT_H
#define HPA_REPORT_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/view.h"

/*
 * jeprof --text: "Total:" line, then flat, flat%, sum%, cum, cum%, name rows.
 * Returns 0, or -1 after reporting (e.g. --alloc_* without such data).
 */
int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --alloc_* on a profile without accumulated data: an error (-1) saying so. */
int hpa_check_value_data(const struct hpa_profile *prof, const struct hpa_opts *opts);

/* "0xADDR (module)", the name of a frame hpa could not symbolize; malloc'ed. */
char *hpa_frame_label(const struct hpa_profile *prof, struct hpa_frame f);

/* Format a value as jeprof's Unparse: "%d" truncation, or MB with one decimal. */
void hpa_format_value(char *buf, size_t size, double v, const struct hpa_opts *opts);

/* jeprof's Percent: "%.1f%%" of x*100/total; nan, +inf, -inf when total is 0. */
void hpa_format_percent(char *buf, size_t size, double x, double total);

/* "objects", "B" or "MB". */
const char *hpa_units(const struct hpa_opts *opts);

#endif
