/*
 * Profiles from running servers: a URL as PROFILE or --base, the endpoint
 * kinds of brpc/gperftools (GET /pprof/heap, symbols at /pprof/symbol),
 * GreptimeDB (POST /debug/prof/mem) and TiKV (GET /debug/pprof/heap), and
 * names from the server when no local file gives them.
 */
#ifndef HPA_REMOTE_H
#define HPA_REMOTE_H

#include "hpa/compat.h"
#include "hpa/profile.h"

struct hpa_fetch_opts {
	const char *endpoint;   /* brpc, gperftools, greptime, tikv; NULL: from the path */
	double timeout;         /* total seconds per request */
};

/* Fetch the profile at `url` and read it as a new input of `prof`. */
int hpa_read_url(struct hpa_profile *prof, const char *url, const struct hpa_fetch_opts *fo,
		 uint8_t **raw, size_t *raw_len);

/*
 * For inputs fetched from a gperftools/brpc server: ask its /pprof/symbol
 * for the addresses local symbolization left unnamed.  Problems are warnings.
 */
void hpa_symbolize_remote(struct hpa_profile *prof, const struct hpa_fetch_opts *fo);

#endif
