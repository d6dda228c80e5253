/*
 * Profiles from running servers: a URL as PROFILE or --base, the endpoint
 * kinds of brpc/gperftools (GET /pprof/heap, symbols at /pprof/symbol),
 * GreptimeDB (POST /debug/prof/mem) and TiKV (GET /debug/pprof/heap).
 * Names from the server's /pprof/symbol: hpa_symbolize_remote (symbolize.h).
 */
#ifndef HPA_REMOTE_H
#define HPA_REMOTE_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/fetch.h"
#include "hpa/profile.h"

/*
 * Fetch the profile at `url` and read it as a new input of `prof`, named
 * by the URL without its secrets.  With `raw`, *raw is the answer as
 * fetched (a rewound temporary file for the caller to close).
 */
int hpa_read_url(struct hpa_profile *prof, const char *url, const struct hpa_http_opts *ho,
		 FILE **raw, size_t *raw_len);

#endif
