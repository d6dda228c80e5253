/*
 * Output destinations, as safe as git's lockfiles.  A file named with
 * --output is written under a temporary name (hpa/tempfile.h) in the same
 * folder, synced, and renamed into place only when the whole report was
 * written, so a failed or killed run leaves no half-written file and a
 * crash no empty one.  A symbolic link is followed (its target is
 * replaced, the link stays); an existing file keeps its mode.  A device,
 * FIFO or /dev/std* (/dev/null, a pipe) is written directly, never replaced.
 */
#ifndef HPA_OUTPUT_H
#define HPA_OUTPUT_H

#include <stdio.h>

#include "hpa/compat.h"

struct hpa_output {
	FILE *fp;
	char *path;   /* final name, NULL for stdout */
	char *tmp;    /* temporary name while writing; NULL: written directly */
	char *buf;    /* the stream's buffer (a file's; standard output has its own) */
};

/* Standard output's large buffer (unless it is a terminal): before anything is written to it. */
void hpa_output_buffer_stdout(void);

/*
 * Open `path` (NULL: standard output).  Refuses, with an error, a path that
 * names one of the `inputs` (nr of them; NULL entries and "-" are skipped).
 */
int hpa_output_open(struct hpa_output *out, const char *path,
		    const char *const *inputs, size_t nr);

/*
 * Finish: with `ok`, flush and check for write errors, then move the file
 * into place; without, discard it.  Returns 0, or -1 after reporting.
 */
int hpa_output_close(struct hpa_output *out, bool ok);

/* Make folder `path` and any missing folder above it (mkdir -p); 0, or -1 after reporting. */
int hpa_output_make_dirs(const char *path);

#endif
