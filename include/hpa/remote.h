/*
 * Profiles from running servers: a URL as PROFILE or --base, the endpoint
 * kinds of brpc/gperftools (GET /pprof/heap, symbols at /pprof/symbol),
 * GreptimeDB (POST /debug/prof/mem) and TiKV (GET /debug/pprof/heap), and
 * names from the server when no local file gives them.
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

/*
 * For inputs fetched from a gperftools/brpc server: ask its /pprof/symbol
 * for the addresses local symbolization left unnamed.  Problems are warnings.
 */
void hpa_symbolize_remote(struct hpa_profile *prof, const struct hpa_http_opts *ho);

#endif
