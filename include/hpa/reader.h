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

/* Same, from an open stream; `display` names it in messages. */
int hpa_read_stream(struct hpa_profile *prof, FILE *fp, const char *display);

/*
 * Reading later dumps while the first is read (ahead.c): paths[0] is the
 * run's to read now; each later one that is a text heap profile in a file
 * is read on a worker thread.  NULL when nothing is read ahead (one path,
 * one processor, or none of the later ones qualifies).
 */
struct hpa_read_ahead;
struct hpa_read_ahead *hpa_read_ahead_start(const char *const *paths, size_t n,
					    const struct hpa_profile *like);
/*
 * Dump i (i >= 1, in order): when it was read ahead, its messages are
 * printed and it is appended to prof as hpa_read_profile() would have
 * read it there; returns 0 or -1 as that would.  Returns 1 for a dump that
 * was not read ahead: the caller reads it.  ra may be NULL.
 */
int hpa_read_ahead_take(struct hpa_read_ahead *ra, size_t i, struct hpa_profile *prof);
/* Stops the workers, drops what they read and was not taken; ra may be NULL. */
void hpa_read_ahead_stop(struct hpa_read_ahead *ra);

/*
 * The most bytes handed to zlib at once, each way (its counts are 32-bit):
 * 1 GiB; tests make it small to run the chunked paths on small files.
 */
extern size_t hpa_zlib_chunk;

#endif
