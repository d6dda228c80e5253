/*
 * The pipeline: read every profile, check inputs against each other, write
 * the selected report.
 */
#ifndef HPA_RUN_H
#define HPA_RUN_H

struct hpa_opts;

/* Returns 0, or -1 after reporting; main() turns -1 into exit status 1. */
int hpa_run(const struct hpa_opts *opts);

/* --watch: poll a server, keep profiles as memory grows (watch.c). */
int hpa_watch(const struct hpa_opts *opts);

#endif
