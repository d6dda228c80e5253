/*
 * --push: a fleet's profiles into ClickHouse (clickhouse.h), each
 * symbolized where its binary is.  Driver.
 */
#ifndef HPA_PUSH_H
#define HPA_PUSH_H

#include "hpa/compat.h"
#include "hpa/profile.h"

struct hpa_opts;

/*
 * Make the table when it is missing, then push each PROFILE as a profile
 * of its own: run_one() runs the usual pipeline on a copy of opts with
 * that PROFILE alone, whose push writer ends in hpa_push_profile().
 */
int hpa_push_run(const struct hpa_opts *opts, int (*run_one)(const struct hpa_opts *));

/* Insert the push writer's rows (`len` bytes) of `prof` (one PROFILE), unless it is there already. */
int hpa_push_profile(const struct hpa_opts *opts, const struct hpa_profile *prof, const char *rows, size_t len);

#endif
