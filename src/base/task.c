#include "hpa/compat.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpa/task.h"
#include "hpa/xalloc.h"

/* Two numbers from `path` (the second may be absent: *b stays); false unless the first is one. */
static bool read_numbers(const char *path, double *a, double *b)
{
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "%lf %lf", a, b) >= 1;
	fclose(fp);
	return ok;
}

/*
 * The smallest quota of `dir` and its parents up to `root` (cgroup v2's
 * cpu.max "QUOTA PERIOD", or v1's cpu.cfs_quota_us and cpu.cfs_period_us),
 * in processors; 0 when none is set.
 */
static double quota_up(const char *root, const char *dir, bool v2)
{
	char path[4096];
	double best = 0;
	size_t len = strlen(dir);

	for (;;) {
		double q = -1, period = 100000;
		int n = snprintf(path, sizeof(path), "%s%.*s/%s", root, (int)len, dir,
				 v2 ? "cpu.max" : "cpu.cfs_quota_us");
		if (n > 0 && (size_t)n < sizeof(path)) {
			if (v2) {
				read_numbers(path, &q, &period);   /* "max 100000": no number, no quota */
			} else if (read_numbers(path, &q, &period)) {
				snprintf(path, sizeof(path), "%s%.*s/cpu.cfs_period_us", root, (int)len, dir);
				read_numbers(path, &period, &period);
			}
			if (q > 0 && period > 0 && (!best || q / period < best))
				best = q / period;
		}
		while (len && dir[len - 1] != '/')
			len--;
		if (!len)
			break;
		len--;   /* the parent, "" at the top */
	}
	return best;
}

size_t hpa_cpu_quota(const char *fs_root, const char *self_cgroup)
{
	const char *line = self_cgroup;
	double best = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2;
		char root[4096], dir[4096];
		double q = 0;

		if (!end)
			end = line + strlen(line);
		c2 = c1 && c1 < end ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2 && (size_t)(end - c2 - 1) < sizeof(dir)) {
			size_t cl = (size_t)(c2 - c1 - 1);
			bool v2 = cl == 0, cpu = false;
			for (const char *p = c1 + 1; p < c2;) {   /* is "cpu" among v1's controllers? */
				size_t w = strcspn(p, ",:");
				cpu |= w == 3 && !strncmp(p, "cpu", 3);
				p += w + (p[w] == ',');
			}
			snprintf(dir, sizeof(dir), "%.*s", (int)(end - c2 - 1), c2 + 1);
			if (!strcmp(dir, "/"))
				dir[0] = '\0';
			if (v2) {
				snprintf(root, sizeof(root), "%s/unified", fs_root);
				q = quota_up(access(root, F_OK) == 0 ? root : fs_root, dir, true);
			} else if (cpu) {
				snprintf(root, sizeof(root), "%s/%.*s", fs_root, (int)cl, c1 + 1);
				if (access(root, F_OK) != 0)
					snprintf(root, sizeof(root), "%s/cpu", fs_root);
				q = quota_up(root, dir, false);
			}
		}
		if (q > 0 && (!best || q < best))
			best = q;
		line = *end ? end + 1 : NULL;
	}
	return best > 0 ? (size_t)ceil(best) : 0;
}

size_t hpa_processors(void)
{
	static size_t cached;
	cpu_set_t set;
	long n;
	size_t cpus, quota = 0;
	char text[4096] = "";
	FILE *fp;

	if ((cpus = __atomic_load_n(&cached, __ATOMIC_RELAXED)) != 0)   /* a run asks often; the answer stays */
		return cpus;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		cpus = (size_t)CPU_COUNT(&set);
	else
		cpus = (n = sysconf(_SC_NPROCESSORS_ONLN)) > 0 ? (size_t)n : 1;
	/* A container's CPU quota (cgroup cpu.max) caps the threads worth running. */
	if ((fp = fopen("/proc/self/cgroup", "r"))) {
		size_t got = fread(text, 1, sizeof(text) - 1, fp);
		text[got] = '\0';
		fclose(fp);
		quota = hpa_cpu_quota("/sys/fs/cgroup", text);
	}
	if (quota && quota < cpus)
		cpus = quota;
	__atomic_store_n(&cached, cpus, __ATOMIC_RELAXED);
	return cpus;
}

/* Threads beyond the callers' now running, of hpa_processors() - 1. */
static size_t threads_in_use;

size_t hpa_threads_claim(size_t want)
{
	size_t budget = hpa_processors() - 1;
	size_t used = __atomic_load_n(&threads_in_use, __ATOMIC_RELAXED), grant;

	do {
		grant = used < budget ? budget - used : 0;
		if (grant > want)
			grant = want;
		if (!grant)
			return 0;
	} while (!__atomic_compare_exchange_n(&threads_in_use, &used, used + grant, false,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return grant;
}

void hpa_threads_return(size_t n)
{
	if (n)
		__atomic_fetch_sub(&threads_in_use, n, __ATOMIC_RELAXED);
}

struct hpa_task {
	void (*fn)(void *arg);
	void *arg;
	pthread_t tid;
	bool threaded;
};

static void *task_main(void *arg)
{
	struct hpa_task *t = arg;

	t->fn(t->arg);
	return NULL;
}

struct hpa_task *hpa_task_start(void (*fn)(void *arg), void *arg)
{
	struct hpa_task *t = xmalloc(sizeof(*t));

	t->fn = fn;
	t->arg = arg;
	t->threaded = hpa_threads_claim(1) == 1;
	if (t->threaded && pthread_create(&t->tid, NULL, task_main, t) != 0) {
		hpa_threads_return(1);
		t->threaded = false;
	}
	return t;
}

bool hpa_task_threaded(const struct hpa_task *t)
{
	return t->threaded;
}

void hpa_task_wait(struct hpa_task *t)
{
	if (t->threaded) {
		pthread_join(t->tid, NULL);
		hpa_threads_return(1);
	} else {
		t->fn(t->arg);
	}
	free(t);
}

struct crew_member {
	void (*fn)(void *arg, size_t worker);
	void *arg;
	size_t worker;
};

static void *crew_main(void *arg)
{
	struct crew_member *m = arg;

	m->fn(m->arg, m->worker);
	return NULL;
}

/* Up to `want` - 1 helper threads, each running its member; returns how many started. */
static size_t start_helpers(size_t want, struct crew_member *members, pthread_t *tids)
{
	size_t granted = want > 1 ? hpa_threads_claim(want - 1) : 0, n;

	for (n = 0; n < granted; n++)
		if (pthread_create(&tids[n], NULL, crew_main, &members[n]) != 0)
			break;
	hpa_threads_return(granted - n);
	return n;
}

static void join_helpers(pthread_t *tids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	hpa_threads_return(n);
}

size_t hpa_crew_run(size_t want, void (*fn)(void *arg, size_t worker), void *arg)
{
	size_t i, n = want > 1 ? want - 1 : 0;
	struct crew_member *members = xcalloc(n + 1, sizeof(*members));
	pthread_t *tids = xcalloc(n + 1, sizeof(*tids));

	for (i = 0; i < n; i++)
		members[i] = (struct crew_member){ fn, arg, i + 1 };
	n = start_helpers(want, members, tids);
	fn(arg, 0);
	join_helpers(tids, n);
	free(members);
	free(tids);
	return n + 1;
}

struct hpa_ordered {
	char *slots;
	size_t slot_size, nslots;
	bool *done;                  /* per slot: its item worked on */
	size_t submitted;            /* items handed over */
	size_t taken;                /* items a worker has started */
	size_t emitted;              /* items passed on, in order */
	bool caller_works;           /* the caller works on items while it waits */
	bool closing;
	hpa_ordered_work_fn *work;
	hpa_ordered_emit_fn *emit;
	void *ctx;
	size_t helpers;
	pthread_t *tids;
	struct crew_member *members;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void *ordered_slot(struct hpa_ordered *o, size_t k)
{
	return o->slots + k % o->nslots * o->slot_size;
}

/* Work on item k as worker w; called and returns with the lock held. */
static void ordered_work(struct hpa_ordered *o, size_t k, size_t w)
{
	pthread_mutex_unlock(&o->mu);
	o->work(o->ctx, ordered_slot(o, k), w);
	pthread_mutex_lock(&o->mu);
	o->done[k % o->nslots] = true;
	pthread_cond_broadcast(&o->cv);
}

static void ordered_helper(void *arg, size_t worker)
{
	struct hpa_ordered *o = arg;

	pthread_mutex_lock(&o->mu);
	for (;;) {
		if (o->taken < o->submitted)
			ordered_work(o, o->taken++, worker);
		else if (o->closing)
			break;
		else
			pthread_cond_wait(&o->cv, &o->mu);
	}
	pthread_mutex_unlock(&o->mu);
}

/* One step on the caller's thread, with the lock held: emit, work or wait. */
static void ordered_step(struct hpa_ordered *o)
{
	size_t k = o->emitted;

	if (k < o->submitted && o->done[k % o->nslots]) {
		o->done[k % o->nslots] = false;
		if (o->emit) {
			pthread_mutex_unlock(&o->mu);
			o->emit(o->ctx, ordered_slot(o, k));
			pthread_mutex_lock(&o->mu);
		}
		o->emitted = k + 1;
	} else if (o->caller_works && o->taken < o->submitted) {
		ordered_work(o, o->taken++, 0);
	} else {
		pthread_cond_wait(&o->cv, &o->mu);
	}
}

static struct hpa_ordered *ordered_start(void *slots, size_t slot_size, size_t nslots,
					 size_t want, bool caller_works, hpa_ordered_work_fn *work,
					 hpa_ordered_emit_fn *emit, void *ctx)
{
	struct hpa_ordered *o = xcalloc(1, sizeof(*o));
	size_t i, n = want > 1 ? want - 1 : 0;

	o->slots = slots;
	o->slot_size = slot_size;
	o->nslots = nslots;
	o->done = xcalloc(nslots, sizeof(*o->done));
	o->caller_works = caller_works;
	o->work = work;
	o->emit = emit;
	o->ctx = ctx;
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->cv, NULL);
	o->tids = xcalloc(n + 1, sizeof(*o->tids));
	o->members = xcalloc(n + 1, sizeof(*o->members));
	for (i = 0; i < n; i++)
		o->members[i] = (struct crew_member){ ordered_helper, o, i + 1 };
	o->helpers = start_helpers(want, o->members, o->tids);
	return o;
}

struct hpa_ordered *hpa_ordered_start(void *slots, size_t slot_size, size_t nslots, size_t want,
				      hpa_ordered_work_fn *work, hpa_ordered_emit_fn *emit,
				      void *ctx)
{
	return ordered_start(slots, slot_size, nslots, want, true, work, emit, ctx);
}

struct hpa_ordered *hpa_ordered_start_beside(void *slots, size_t slot_size, size_t nslots,
					     size_t helpers, hpa_ordered_work_fn *work,
					     hpa_ordered_emit_fn *emit, void *ctx)
{
	return ordered_start(slots, slot_size, nslots, helpers + 1, false, work, emit, ctx);
}

size_t hpa_ordered_workers(const struct hpa_ordered *o)
{
	return o->helpers + 1;
}

void *hpa_ordered_next(struct hpa_ordered *o)
{
	void *slot;

	if (!o->helpers)
		return ordered_slot(o, o->submitted);
	pthread_mutex_lock(&o->mu);
	while (o->submitted >= o->emitted + o->nslots)
		ordered_step(o);
	slot = ordered_slot(o, o->submitted);
	pthread_mutex_unlock(&o->mu);
	return slot;
}

void hpa_ordered_submit(struct hpa_ordered *o)
{
	if (!o->helpers) {   /* nothing in flight: worked on and passed on at once */
		void *slot = ordered_slot(o, o->submitted);
		o->work(o->ctx, slot, 0);
		if (o->emit)
			o->emit(o->ctx, slot);
		o->submitted = o->taken = o->emitted = o->submitted + 1;
		return;
	}
	pthread_mutex_lock(&o->mu);
	o->submitted++;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

void hpa_ordered_finish(struct hpa_ordered *o)
{
	pthread_mutex_lock(&o->mu);
	while (o->emitted < o->submitted)
		ordered_step(o);
	o->closing = true;
	pthread_cond_broadcast(&o->cv);
	pthread_mutex_unlock(&o->mu);
	join_helpers(o->tids, o->helpers);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->cv);
	free(o->tids);
	free(o->members);
	free(o->done);
	free(o);
}

struct hpa_share {
	pthread_mutex_t mu;
	size_t parts;
	size_t *lo, *hi;             /* per part: its items not yet taken */
};

struct hpa_share *hpa_share_new(const size_t *n, size_t parts)
{
	struct hpa_share *sh = xcalloc(1, sizeof(*sh));
	size_t p;

	pthread_mutex_init(&sh->mu, NULL);
	sh->parts = parts;
	sh->lo = xcalloc(parts + 1, sizeof(*sh->lo));
	sh->hi = xcalloc(parts + 1, sizeof(*sh->hi));
	for (p = 0; p < parts; p++)
		sh->hi[p] = n[p];
	return sh;
}

bool hpa_share_take(struct hpa_share *sh, size_t part, size_t chunk, size_t *q, size_t *from,
		    size_t *to, bool *down)
{
	size_t best = 0, p;

	*q = part;
	*from = *to = 0;
	*down = false;
	pthread_mutex_lock(&sh->mu);
	if (sh->lo[part] < sh->hi[part]) {
		*from = sh->lo[part];
		*to = *from + chunk < sh->hi[part] ? *from + chunk : sh->hi[part];
		sh->lo[part] = *to;
	} else {
		for (p = 0; p < sh->parts; p++)
			if (sh->hi[p] - sh->lo[p] > best) {
				best = sh->hi[p] - sh->lo[p];
				*q = p;
			}
		if (best) {
			*to = sh->hi[*q];
			*from = *to - (best < chunk ? best : chunk);
			sh->hi[*q] = *from;
			*down = true;
		}
	}
	pthread_mutex_unlock(&sh->mu);
	return *from < *to;
}

void hpa_share_free(struct hpa_share *sh)
{
	if (!sh)
		return;
	pthread_mutex_destroy(&sh->mu);
	free(sh->lo);
	free(sh->hi);
	free(sh);
}
