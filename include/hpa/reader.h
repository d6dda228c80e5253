/*
 * Reading heap profiles into the model: the first pass.  Readers keep the
 * counts as written; unsampling (unsample.h), location identity
 * (hpa_unify_locations), symbolization, naming and the base are the passes
 * that follow, in that order (run.c).
 */
#ifndef HPA_READER_H
#define HPA_READER_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/profile.h"

/*
 * Read the profile at `path` ("-" = standard input) into `prof` as a new
 * input; its samples add to those already there.  The format is detected from
 * the header.  Returns 0, or -1 after printing "hpa: PATH:LINE: ...".
 * Warnings (odd but usable input) are printed and do not fail the read.
 */
int hpa_read_profile(struct hpa_profile *prof, const char *path);

/*
 * A clickhouse+http(s):// URL (clickhouse.h): the pushed rows its
 * parameters select, summed per stack, as a new input; with `per_profile`
 * divided by the number of profiles they come from.  -1 after reporting
 * (a server down, a wrong database, ClickHouse's error, nothing matched).
 */
struct hpa_http_opts;
int hpa_read_clickhouse(struct hpa_profile *prof, const char *url, const struct hpa_http_opts *ho,
			bool per_profile);

/* Same, from an open stream; `display` names it in messages. */
int hpa_read_stream(struct hpa_profile *prof, FILE *fp, const char *display);

/*
 * A run's dumps, read into one profile in order (ahead.c): each later one
 * that is a text heap profile in a file is read ahead by a worker and
 * appended as hpa_read_profile() would have read it there, with its
 * messages in their place; any other is read by read_here(ctx, prof, i)
 * on the caller's thread.  after(ctx, prof, i) (may be NULL) runs once
 * dump i is in prof, on the caller's thread.  The first failure (-1 from
 * a read or from after()) stops the series there and is returned; 0 when
 * every dump was read.  With in_turn, every dump is read by read_here(),
 * one after the other: one dump in memory at a time.
 */
struct hpa_read_series {
	const char *const *paths;
	size_t n;
	bool in_turn;
	int (*read_here)(void *ctx, struct hpa_profile *prof, size_t i);
	int (*after)(void *ctx, struct hpa_profile *prof, size_t i);
	void *ctx;
};
int hpa_read_series(struct hpa_profile *prof, const struct hpa_read_series *rs);

/*
 * The most bytes handed to zlib at once, each way (its counts are 32-bit):
 * 1 GiB; tests make it small to run the chunked paths on small files.
 */
extern size_t hpa_zlib_chunk;

#endif
