/*
 * Reading a run's dumps, the later ones while the first is read (reader.h,
 * hpa_read_series).  Reading is most of a run on several large dumps
 * (--base, --growth, --outdir).  So the dumps go through an ordered
 * pipeline (task.h): each later dump that is a plain text heap profile on
 * disk is read by a worker into a profile of its own, with its messages
 * kept; in dump order, on the caller's thread, a dump read ahead has its
 * messages printed and its tables appended to the run's profile as
 * reading it there would have made them (hpa_profile_append), and any
 * other dump is read there.  Output and messages are the same as reading
 * one after the other; a dump that fails stops the run where it would
 * have, and what was read beyond it is dropped unsaid.
 *
 * Only text heap profiles (jemalloc heap_v2, gperftools "heap profile:")
 * in regular files are read ahead: standard input, URLs, pprof, folded and
 * symbolized files are read in turn by the run itself.  The pipeline holds
 * one dump more than it has workers, so memory stays that of a few dumps
 * however many are given.
 */
#include "hpa/compat.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/reader.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"
#include "read.h"

#define AHEAD_WORKERS 4              /* at most: the caller's thread (which appends) and three helpers */

struct dump {
	size_t i;
	bool ahead;                  /* read by a worker into prof */
	int rc;
	struct hpa_profile prof;
	struct hpa_diag_capture diag;
};

struct series {
	struct hpa_profile *prof;
	const struct hpa_read_series *rs;
	int rc;                      /* the first failure: what follows is dropped */
};

/* Is `path` a regular file that starts as a text heap profile (its first non-blank line)? */
static bool text_heap_file(const char *path)
{
	char buf[64];
	struct stat st;
	ssize_t n;
	size_t i = 0;
	int fd;

	if (!strcmp(path, "-") || hpa_is_url(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, sizeof(buf) - 1) : -1;
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	while (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' ' || buf[i] == '\t')
		i++;
	return read_is_jemalloc_header(buf + i) || read_is_gperf_header(buf + i);
}

/* The pipeline's work: a dump read ahead into a profile of its own. */
static void read_ahead(void *ctx, void *slot, size_t worker)
{
	struct series *se = ctx;
	struct dump *d = slot;

	(void)worker;
	if (!d->ahead)
		return;
	hpa_profile_init(&d->prof);
	d->prof.no_thread_samples = se->prof->no_thread_samples;
	hpa_diag_capture_begin(&d->diag);
	d->rc = hpa_read_profile(&d->prof, se->rs->paths[d->i]);
	hpa_diag_capture_end();
}

/* In dump order, on the caller's thread: the dump into the run's profile, then after(). */
static void take_dump(void *ctx, void *slot)
{
	struct series *se = ctx;
	struct dump *d = slot;
	int rc;

	if (se->rc) {   /* past a failure: dropped unsaid */
		if (d->ahead) {
			hpa_diag_capture_release(&d->diag);
			hpa_profile_release(&d->prof);
		}
		return;
	}
	if (d->ahead) {
		hpa_diag_replay(&d->diag);
		rc = d->rc;
		if (!rc)
			hpa_profile_append(se->prof, &d->prof);
		else
			hpa_profile_release(&d->prof);
	} else {
		rc = se->rs->read_here(se->rs->ctx, se->prof, d->i);
	}
	if (!rc && se->rs->after)
		rc = se->rs->after(se->rs->ctx, se->prof, d->i);
	se->rc = rc;
}

/* Dump i into the pipeline: read ahead when a worker besides the caller's thread can. */
static void submit_dump(struct hpa_ordered *o, const struct hpa_read_series *rs, size_t i)
{
	struct dump *d = hpa_ordered_next(o);

	d->i = i;
	d->ahead = hpa_ordered_workers(o) > 1 && text_heap_file(rs->paths[i]);
	hpa_ordered_submit(o);
}

int hpa_read_series(struct hpa_profile *prof, const struct hpa_read_series *rs)
{
	struct dump slots[AHEAD_WORKERS];
	struct series se = { prof, rs, 0 };
	struct hpa_ordered *o;
	/* As many dumps in flight as helpers and one more: the one appended next. */
	size_t i = 1, pre = 0, n = rs->n < AHEAD_WORKERS ? rs->n : AHEAD_WORKERS;

	if (!rs->n)
		return 0;
	if (n > hpa_processors())
		n = hpa_processors();
	if (rs->in_turn)
		n = 1;
	memset(slots, 0, sizeof(slots));
	o = hpa_ordered_start_beside(slots, sizeof(slots[0]), n, n - 1, read_ahead, take_dump, &se);
	/* The first dump is read here, the next ones meanwhile by the helpers. */
	if (hpa_ordered_workers(o) > 1)
		pre = rs->n - 1 < n - 1 ? rs->n - 1 : n - 1;
	for (; i <= pre; i++)
		submit_dump(o, rs, i);
	se.rc = rs->read_here(rs->ctx, prof, 0);
	if (!se.rc && rs->after)
		se.rc = rs->after(rs->ctx, prof, 0);
	for (; i < rs->n && !se.rc; i++)
		submit_dump(o, rs, i);
	hpa_ordered_finish(o);
	return se.rc;
}
