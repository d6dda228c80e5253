/*
 * Reading the later dumps of a run while the first is read (reader.h,
 * hpa_read_ahead_start).  Reading is most of a run on several large dumps
 * (--base, --growth, --outdir), and one reader keeps about one and a half
 * processors busy: its parser, and the thread that stores what it parsed.
 * So each later dump that is a plain text heap profile on disk is read on a
 * worker thread into a profile of its own, with its messages kept; the run
 * takes the dumps in order, and hpa_read_ahead_take() prints a dump's
 * messages and appends its tables to the run's profile as reading it there
 * would have made them (hpa_profile_append).  Output and messages are the
 * same as reading one after the other; a dump that fails stops the run
 * where it would have, and what was read beyond it is dropped unsaid.
 *
 * Only text heap profiles (jemalloc heap_v2, gperftools "heap profile:")
 * in regular files are read ahead: standard input, URLs, pprof, folded and
 * symbolized files are read in turn by the run itself.  Workers read at
 * most a few dumps beyond the one the run waits for, so memory stays that
 * of a few dumps however many are given.
 */
#include "hpa/compat.h"

#include <fcntl.h>
#include <pthread.h>
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

#define AHEAD_WORKERS_MAX 3

enum { SLOT_NONE, SLOT_WAITING, SLOT_READING, SLOT_DONE };

struct slot {
	const char *path;
	int state;
	int rc;
	struct hpa_profile prof;
	struct hpa_diag_capture diag;
};

struct hpa_read_ahead {
	struct slot *slots;
	size_t n;
	size_t next;                /* the next slot a worker looks at */
	size_t taken;               /* slots the run has taken (or passed) */
	size_t window;              /* workers read slots below taken + window */
	bool no_thread_samples;
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid[AHEAD_WORKERS_MAX];
	size_t workers;
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

static void *worker(void *arg)
{
	struct hpa_read_ahead *ra = arg;

	pthread_mutex_lock(&ra->mu);
	for (;;) {
		struct slot *s;

		while (!ra->stop && ra->next < ra->n && ra->slots[ra->next].state != SLOT_WAITING)
			ra->next++;   /* read by the run itself */
		while (!ra->stop && ra->next < ra->n && ra->next >= ra->taken + ra->window)
			pthread_cond_wait(&ra->cv, &ra->mu);
		if (ra->stop || ra->next >= ra->n)
			break;
		s = &ra->slots[ra->next++];
		s->state = SLOT_READING;
		pthread_mutex_unlock(&ra->mu);

		hpa_profile_init(&s->prof);
		s->prof.no_thread_samples = ra->no_thread_samples;
		hpa_diag_capture_begin(&s->diag);
		s->rc = hpa_read_profile(&s->prof, s->path);
		hpa_diag_capture_end();

		pthread_mutex_lock(&ra->mu);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&ra->cv);
	}
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

struct hpa_read_ahead *hpa_read_ahead_start(const char *const *paths, size_t n,
					    const struct hpa_profile *like)
{
	struct hpa_read_ahead *ra;
	size_t i, ahead = 0, want;

	if (n < 2 || hpa_processors() < 2)
		return NULL;
	ra = xcalloc(1, sizeof(*ra));
	ra->slots = xcalloc(n, sizeof(*ra->slots));
	ra->n = n;
	for (i = 1; i < n; i++) {   /* the first is the run's to read, now */
		ra->slots[i].path = paths[i];
		if (text_heap_file(paths[i])) {
			ra->slots[i].state = SLOT_WAITING;
			ahead++;
		}
	}
	if (!ahead) {
		free(ra->slots);
		free(ra);
		return NULL;
	}
	want = hpa_processors() - 1;
	if (want > AHEAD_WORKERS_MAX)
		want = AHEAD_WORKERS_MAX;
	if (want > ahead)
		want = ahead;
	ra->window = want + 1;
	ra->no_thread_samples = like->no_thread_samples;
	ra->next = 1;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	for (i = 0; i < want; i++)
		if (pthread_create(&ra->tid[ra->workers], NULL, worker, ra) == 0)
			ra->workers++;
	if (!ra->workers)   /* no thread: every dump is read in turn */
		for (i = 1; i < n; i++)
			ra->slots[i].state = SLOT_NONE;
	return ra;
}

/*
 * While a worker still reads dump `path`, the run's profile gets the room
 * its append will write, mapped now: about as many stacks and samples per
 * byte as the dumps read so far have (a fresh page costs as much as
 * filling it, on the development machine 4 of the 5 ms an append of 180k
 * stacks took, after the run had waited with nothing to do).  Nothing when
 * a size is not known.
 */
static void make_room(struct hpa_profile *prof, const char *path)
{
	struct stat st;
	double read = 0, share, stacks, samples, most;
	size_t k;

	if (stat(path, &st) != 0 || !prof->inputs_nr)
		return;
	for (k = 0; k < prof->inputs_nr; k++) {
		struct stat in;

		if (stat(prof->inputs[k].path, &in) != 0 || !S_ISREG(in.st_mode))
			return;
		read += (double)in.st_size;
	}
	if (read <= 0)
		return;
	share = (double)st.st_size / read;
	stacks = (double)prof->stacks_nr * share;
	samples = (double)prof->samples_nr * share;
	/* No more than the dump can hold: a record takes a line of 16 bytes at least. */
	most = (double)st.st_size / 16;
	hpa_profile_room(prof, (size_t)(stacks < most ? stacks : most), (size_t)(samples < most ? samples : most));
}

int hpa_read_ahead_take(struct hpa_read_ahead *ra, size_t i, struct hpa_profile *prof)
{
	struct slot *s;
	int rc;

	if (!ra)
		return 1;   /* the caller reads it */
	pthread_mutex_lock(&ra->mu);   /* a worker writes a slot's state under it */
	if (i >= ra->n || ra->slots[i].state == SLOT_NONE) {
		ra->taken = i + 1;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		return 1;
	}
	s = &ra->slots[i];
	ra->taken = i;   /* the worker that reads it may need the window to move */
	pthread_cond_broadcast(&ra->cv);
	if (s->state != SLOT_DONE) {
		pthread_mutex_unlock(&ra->mu);
		make_room(prof, s->path);
		pthread_mutex_lock(&ra->mu);
	}
	while (s->state != SLOT_DONE)
		pthread_cond_wait(&ra->cv, &ra->mu);
	ra->taken = i + 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);

	hpa_diag_replay(&s->diag);
	rc = s->rc;
	if (!rc)
		hpa_profile_append(prof, &s->prof);
	else
		hpa_profile_release(&s->prof);
	s->state = SLOT_NONE;
	return rc;
}

void hpa_read_ahead_stop(struct hpa_read_ahead *ra)
{
	size_t i;

	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = true;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	for (i = 0; i < ra->workers; i++)
		pthread_join(ra->tid[i], NULL);
	for (i = 0; i < ra->n; i++) {   /* read but not taken: dropped unsaid */
		if (ra->slots[i].state == SLOT_DONE) {
			hpa_diag_capture_release(&ra->slots[i].diag);
			hpa_profile_release(&ra->slots[i].prof);
		}
	}
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	free(ra->slots);
	free(ra);
}
