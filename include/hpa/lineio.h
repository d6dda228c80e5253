/*
 * Streaming line reader.  The input is never held in memory as a whole: the
 * buffer holds the current line and what fread() brought in after it.  Lines
 * come back without their "\n" or "\r\n", NUL-terminated, and stay valid
 * until the next call.
 */
#ifndef HPA_LINEIO_H
#define HPA_LINEIO_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/diag.h"

/* Longest line accepted; a longer one is an error, not an allocation. */
#define HPA_LINE_MAX ((size_t)64 << 20)

struct hpa_lineio {
	FILE *fp;
	bool owned;         /* fp was opened by us (not stdin) */
	struct hpa_pos pos; /* pos.line: number of the line last returned */
	char *buf;
	size_t alloc, start, end;
	bool eof;
	bool newline;       /* the line last returned ended with a newline */
	bool nul;           /* the line last returned contained a NUL byte */
};

/*
 * Open `path` ("-" is standard input) for reading; `display` is the name used
 * in messages.  Returns 0, or -1 after reporting (no such file, a directory,
 * permission denied).
 */
int hpa_lineio_open(struct hpa_lineio *io, const char *path, const char *display);

/* Read from an already open stream (not closed by hpa_lineio_close). */
void hpa_lineio_from_stream(struct hpa_lineio *io, FILE *fp, const char *display);

/*
 * Fill the buffer so at least `n` unread bytes are available if the input has
 * them; returns a pointer to the unread bytes and sets *avail.
 */
const char *hpa_lineio_peek(struct hpa_lineio *io, size_t n, size_t *avail);

/*
 * Next line: 1 (line and len set), 0 at end of input, -1 after reporting.
 * The line ends in a NUL, and HPA_LINEIO_PAD more bytes after that NUL can
 * be read (parsers that look at 16 bytes at a time).
 */
#define HPA_LINEIO_PAD 16
int hpa_lineio_next(struct hpa_lineio *io, char **line, size_t *len);

/*
 * Read everything not yet consumed into a malloc'ed buffer (binary input:
 * pprof protobuf, gzip).  Fails with a message past `max` bytes.
 */
int hpa_lineio_slurp(struct hpa_lineio *io, uint8_t **data, size_t *len, size_t max);

void hpa_lineio_close(struct hpa_lineio *io);

#endif
