#include "hpa/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/output.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/tempfile.h"
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

/* /proc/..., /dev/fd/N, /dev/std*: an open file, not a path to replace. */
static bool names_open_file(const char *p)
{
	return !strncmp(p, "/proc/", 6) || !strncmp(p, "/dev/fd/", 8) || !strncmp(p, "/dev/std", 8);
}

/*
 * The file a path finally names: symbolic links followed one by one (a
 * relative target is read from the link's folder), so a report written
 * "onto" a link replaces the link's target and the link stays.  A chain
 * through /proc or /dev/fd (/dev/stdout is /proc/self/fd/1) names an open
 * file, not a path: *in_place says to write it as is.
 */
static char *final_path(const char *path, bool *in_place)
{
	char *p = xstrdup(path);

	*in_place = false;
	for (int hops = 0; hops < 40; hops++) {
		struct stat st;
		char target[4096];
		ssize_t n;

		if (names_open_file(p) || lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			break;
		n = readlink(p, target, sizeof(target) - 1);
		if (n <= 0)
			break;
		target[n] = '\0';
		if (target[0] == '/') {
			free(p);
			p = xstrdup(target);
		} else {
			char *slash = strrchr(p, '/'), *q;
			q = slash ? hpa_xasprintf("%.*s/%s", (int)(slash - p), p, target) : xstrdup(target);
			free(p);
			p = q;
		}
	}
	if (names_open_file(p))
		*in_place = true;
	return p;
}

/* The folder of `path` ("." for a bare name), malloc'ed. */
static char *folder_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return hpa_xasprintf("%.*s", (int)(slash - path), path);
}

int hpa_output_open(struct hpa_output *out, const char *path,
		    const char *const *inputs, size_t nr)
{
	struct stat ost, ist;
	bool exists, in_place;
	char *dest, *dir;
	size_t i;
	int fd;

	memset(out, 0, sizeof(*out));
	if (!path) {
		out->fp = stdout;
		return 0;
	}
	dest = final_path(path, &in_place);
	exists = stat(dest, &ost) == 0;
	for (i = 0; exists && i < nr; i++) {
		if (!inputs[i] || !strcmp(inputs[i], "-") || stat(inputs[i], &ist) < 0)
			continue;
		if (ist.st_dev == ost.st_dev && ist.st_ino == ost.st_ino) {
			free(dest);
			return hpa_error("%s: refusing to overwrite an input file", path);
		}
	}
	if (exists && S_ISDIR(ost.st_mode)) {
		free(dest);
		return hpa_error("%s: is a directory", path);
	}
	if (in_place || (exists && !S_ISREG(ost.st_mode))) {
		/* A device, FIFO or /dev/std* (/dev/null, a pipe, the terminal):
		 * written as is, never replaced by a renamed file. */
		free(dest);
		out->fp = fopen(path, "w");
		if (!out->fp)
			return hpa_error("%s: cannot open: %s", path, strerror(errno));
		out->path = xstrdup(path);
		if (!isatty(fileno(out->fp)))
			file_buffer(out);
		return 0;
	}
	dir = folder_of(dest);
	fd = hpa_tempfile_create(dir, &out->tmp);
	free(dir);
	if (fd < 0 || !(out->fp = fdopen(fd, "w"))) {
		int err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(out->tmp);
			hpa_tempfile_forget(out->tmp);
		}
		free(out->tmp);
		free(dest);
		memset(out, 0, sizeof(*out));
		return hpa_error("%s: cannot create: %s", path, strerror(err));
	}
	out->path = dest;
	file_buffer(out);
	{
		/* mkstemp made it 0600: an existing file keeps its mode, a new one
		 * gets the usual 0666 less the umask. */
		mode_t mask = umask(0), mode;
		umask(mask);
		mode = exists ? ost.st_mode & 07777 : 0666 & ~mask;
		if (fchmod(fd, mode) < 0)   /* e.g. a file system without modes: 0600 stays */
			hpa_warn("%s: cannot set the mode of %s: %s; it stays 0600", path, out->tmp,
				 strerror(errno));
	}
	return 0;
}

/* The rename is on disk: sync the folder that holds `path` (best effort). */
static void sync_folder(const char *path)
{
	char *dir = folder_of(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int hpa_output_close(struct hpa_output *out, bool ok)
{
	const char *name = out->path ? out->path : "standard output";
	int rc = 0;

	if (ok && (fflush(out->fp) != 0 || ferror(out->fp)))
		rc = hpa_error("%s: write error: %s", name, strerror(errno ? errno : EIO));
	/* The data is on disk before the new name is: a crash never leaves an
	 * empty file where a good report was. */
	if (out->tmp && ok && !rc && fsync(fileno(out->fp)) != 0 && errno != EINVAL)
		rc = hpa_error("%s: write error: %s", name, strerror(errno));
	if (out->path) {
		if (fclose(out->fp) != 0 && ok && !rc)
			rc = hpa_error("%s: write error: %s", name, strerror(errno));
		if (out->tmp && ok && !rc && rename(out->tmp, out->path) < 0)
			rc = hpa_error("%s: cannot rename %s into place: %s", name, out->tmp,
				       strerror(errno));
		if (out->tmp && (!ok || rc))
			unlink(out->tmp);
		else if (out->tmp)
			sync_folder(out->path);
		hpa_tempfile_forget(out->tmp);
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

int hpa_output_make_dirs(const char *path)
{
	char *p = xstrdup(path), *slash;
	struct stat st;
	int rc = 0;

	for (slash = p + 1; rc == 0 && (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST)
			rc = -1;
		*slash = '/';
	}
	if (rc == 0 && mkdir(p, 0777) < 0 && errno != EEXIST)
		rc = -1;
	if (rc == 0 && (stat(p, &st) < 0 || !S_ISDIR(st.st_mode))) {
		errno = ENOTDIR;
		rc = -1;
	}
	if (rc < 0)
		rc = hpa_error("%s: cannot create: %s", path, strerror(errno));
	free(p);
	return rc;
}
