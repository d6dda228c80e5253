#include "hpa/compat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/output.h"
#include "hpa/report.h"
#include "hpa/xalloc.h"

/*
 * A report is written in pieces of a line or less: with stdio's buffer of a
 * block (4 KiB), the folded stacks of a large profile were 6,400 write()
 * calls.  Standard output gets its buffer once, before anything is written
 * to it; a terminal keeps stdio's own.
 */
#define OUT_BUFFER (256 * 1024)

void hpa_output_buffer_stdout(void)
{
	static char buf[OUT_BUFFER];   /* glibc keeps its own size unless given the buffer */

	if (!isatty(fileno(stdout)))
		setvbuf(stdout, buf, _IOFBF, sizeof(buf));
}

/* A file's buffer, freed when it is closed. */
static void file_buffer(struct hpa_output *out)
{
	out->buf = xmalloc(OUT_BUFFER);
	setvbuf(out->fp, out->buf, _IOFBF, OUT_BUFFER);
}

int hpa_output_open(struct hpa_output *out, const char *path,
		    const char *const *inputs, size_t nr)
{
	struct stat ost, ist;
	bool exists;
	size_t i;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!path) {
		out->fp = stdout;
		return 0;
	}
	exists = stat(path, &ost) == 0;
	for (i = 0; exists && i < nr; i++) {
		if (!inputs[i] || !strcmp(inputs[i], "-") || stat(inputs[i], &ist) < 0)
			continue;
		if (ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino)
			return hpa_error("%s: refusing to overwrite an input file", path);
	}
	if (exists && S_ISDIR(ost.st_mode))
		return hpa_error("%s: is a directory", path);
	if (exists && !S_ISREG(ost.st_mode)) {
		/* A device or FIFO (/dev/null, /dev/stdout, a pipe): written as is,
		 * never replaced by a renamed file. */
		out->fp = fopen(path, "w");
		if (!out->fp)
			return hpa_error("%s: cannot open: %s", path, strerror(errno));
		out->path = xstrdup(path);
		if (!isatty(fileno(out->fp)))
			file_buffer(out);
		return 0;
	}
	out->path = xstrdup(path);
	out->tmp = xmalloc(strlen(path) + 16);
	sprintf(out->tmp, "%s.hpa-XXXXXX", path);
	fd = mkstemp(out->tmp);
	if (fd < 0 || !(out->fp = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(out->tmp);
		}
		free(out->path);
		free(out->tmp);
		memset(out, 0, sizeof(*out));
		return hpa_error("%s: cannot create: %s", path, strerror(err));
	}
	file_buffer(out);
	{
		mode_t mask = umask(0);   /* mkstemp made it 0600: give it the usual mode */
		umask(mask);
		if (fchmod(fd, 0666 & ~mask) < 0)   /* e.g. a file system without modes: 0600 stays */
			hpa_warn("%s: cannot set the mode of %s: %s; it stays 0600", path, out->tmp,
				 strerror(errno));
	}
	return 0;
}

int hpa_output_close(struct hpa_output *out, bool ok)
{
	const char *name = out->path ? out->path : "standard output";
	int rc = 0;

	if (ok && (fflush(out->fp) != 0 || ferror(out->fp)))
		rc = hpa_error("%s: write error: %s", name, strerror(errno ? errno : EIO));
	if (out->path) {
		if (fclose(out->fp) != 0 && ok && !rc)
			rc = hpa_error("%s: write error: %s", name, strerror(errno));
		if (out->tmp && ok && !rc && rename(out->tmp, out->path) < 0)
			rc = hpa_error("%s: cannot rename %s into place: %s", name, out->tmp,
				       strerror(errno));
		if (out->tmp && (!ok || rc))
			unlink(out->tmp);
	}
	free(out->buf);   /* after fclose(): stdio's own is never freed here */
	free(out->path);
	free(out->tmp);
	memset(out, 0, sizeof(*out));
	return ok ? rc : -1;
}

void hpa_active_filters(FILE *fp, const struct hpa_view_opts *vo)
{
	char *f = hpa_view_filters_text(vo);

	if (f)
		fprintf(fp, "Active filters: %s\n", f);
	free(f);
}
