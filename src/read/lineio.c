#include "hpa/compat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpa/lineio.h"
#include "hpa/xalloc.h"

#define CHUNK ((size_t)1 << 16)

void hpa_lineio_from_stream(struct hpa_lineio *io, FILE *fp, const char *display)
{
	memset(io, 0, sizeof(*io));
	io->fp = fp;
	io->pos.path = display;
}

int hpa_lineio_open(struct hpa_lineio *io, const char *path, const char *display)
{
	struct stat st;
	FILE *fp;

	if (!strcmp(path, "-")) {
		hpa_lineio_from_stream(io, stdin, display);
		return 0;
	}
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return hpa_error("%s: no such file", display);
		return hpa_error("%s: %s", display, strerror(errno));
	}
	if (S_ISDIR(st.st_mode))
		return hpa_error("%s: is a directory, not a profile", display);
	fp = fopen(path, "rb");
	if (!fp)
		return hpa_error("%s: %s", display, strerror(errno));
	hpa_lineio_from_stream(io, fp, display);
	io->owned = true;
	return 0;
}

void hpa_lineio_close(struct hpa_lineio *io)
{
	if (io->owned && io->fp)
		fclose(io->fp);
	free(io->buf);
	memset(io, 0, sizeof(*io));
}

/* Read more input after the unread bytes; returns -1 on a read error. */
static int fill(struct hpa_lineio *io)
{
	size_t n;

	if (io->start) {
		memmove(io->buf, io->buf + io->start, io->end - io->start);
		io->end -= io->start;
		io->start = 0;
	}
	if (io->end + CHUNK + 1 + HPA_LINEIO_PAD > io->alloc) {
		io->alloc = io->end + CHUNK + 1 + HPA_LINEIO_PAD > io->alloc * 2 ?
			io->end + CHUNK + 1 + HPA_LINEIO_PAD : io->alloc * 2;
		io->buf = xrealloc(io->buf, io->alloc);
	}
	n = fread(io->buf + io->end, 1, CHUNK, io->fp);
	io->end += n;
	memset(io->buf + io->end, 0, HPA_LINEIO_PAD);   /* defined bytes for readers that look ahead */
	if (n < CHUNK) {
		if (ferror(io->fp))
			return hpa_error("%s: read error: %s", io->pos.path,
					 strerror(errno));
		io->eof = true;
	}
	return 0;
}

int hpa_lineio_slurp(struct hpa_lineio *io, uint8_t **data, size_t *len, size_t max)
{
	while (!io->eof) {
		if (io->end - io->start > max)
			return hpa_error("%s: larger than %zu MiB; not a heap profile", io->pos.path,
					 max >> 20);
		if (fill(io) < 0)
			return -1;
	}
	*len = io->end - io->start;
	if (*len > max)
		return hpa_error("%s: larger than %zu MiB; not a heap profile", io->pos.path, max >> 20);
	*data = xmalloc(*len + 1);
	memcpy(*data, io->buf + io->start, *len);
	io->start = io->end;
	return 0;
}

const char *hpa_lineio_peek(struct hpa_lineio *io, size_t n, size_t *avail)
{
	while (io->end - io->start < n && !io->eof)
		if (fill(io) < 0)
			break;
	*avail = io->end - io->start;
	return io->buf ? io->buf + io->start : "";
}

int hpa_lineio_next(struct hpa_lineio *io, char **line, size_t *len)
{
	size_t scanned = 0;
	char *nl;

	for (;;) {
		size_t have = io->end - io->start;
		nl = have > scanned ? memchr(io->buf + io->start + scanned, '\n',
					     have - scanned) : NULL;
		if (nl)
			break;
		scanned = have;
		if (have > HPA_LINE_MAX) {
			struct hpa_pos p = { io->pos.path, io->pos.line + 1 };
			return hpa_error_at(&p, "line longer than %zu MiB; not a heap profile",
					    HPA_LINE_MAX >> 20);
		}
		if (io->eof) {
			if (!have)
				return 0;
			break;
		}
		if (fill(io) < 0)
			return -1;
	}

	*line = io->buf + io->start;
	if (nl) {
		*len = (size_t)(nl - *line);
		io->start += *len + 1;
		io->newline = true;
	} else {
		*len = io->end - io->start;
		io->start = io->end;
		io->newline = false;
	}
	if (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	(*line)[*len] = '\0';   /* the byte after the line: '\n', '\r' or spare */
	io->nul = memchr(*line, '\0', *len) != NULL;
	io->pos.line++;
	return 1;
}
