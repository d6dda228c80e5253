/*
 * The one way hpa runs work in parallel, within one thread budget for the
 * whole run (hpa_processors(): CPU affinity and the cgroup's CPU quota).
 *
 *  - A task: a piece of work on another thread while the caller does
 *    another (two groupings of one profile).  Both only read what they
 *    share.  When the budget has no thread left, or none can start, the
 *    work runs in the caller at hpa_task_wait().
 *  - A crew: one function on several threads at once, the caller's among
 *    them, each taking its next piece from a counter of its own making.
 *  - An ordered pipeline: items handed over in order, worked on by the
 *    caller and helper threads, and passed on (emitted) in the same order
 *    on the caller's thread, with a bounded number in flight (a pigz-style
 *    ordered writer: gzip blocks, stretches of a report's text).
 *  - A share: ranges of items owned by parts of one job, taken in chunks,
 *    a part that is done taking over from the one with most left.
 *
 * What the threads share is handed over through these: each item or slot
 * is owned by one thread at a time.
 */
#ifndef HPA_TASK_H
#define HPA_TASK_H

#include "hpa/compat.h"


/*
 * Processors this process may run on (at least 1): its CPU affinity,
 * capped by its cgroup's CPU quota (a container given 2 CPUs of a 64-CPU
 * host runs 2 threads, not 64).
 */
size_t hpa_processors(void);

/*
 * The CPU quota, rounded up to whole processors, that /proc/self/cgroup's
 * text `self_cgroup` gives under the cgroup mount `fs_root` (cgroup v2
 * cpu.max, or v1 cpu.cfs_quota_us / cpu.cfs_period_us, the smallest of the
 * group and its parents); 0 when none is set.
 */
size_t hpa_cpu_quota(const char *fs_root, const char *self_cgroup);

/*
 * Threads beyond the caller's that the budget grants now (at most `want`,
 * perhaps 0), to be given back with hpa_threads_return().
 */
size_t hpa_threads_claim(size_t want);
void hpa_threads_return(size_t n);

struct hpa_task;

/* fn(arg) on another thread if the budget allows, else at hpa_task_wait(). */
struct hpa_task *hpa_task_start(void (*fn)(void *arg), void *arg);
/* Whether the task runs on a thread of its own (else: in hpa_task_wait()). */
bool hpa_task_threaded(const struct hpa_task *t);
/* Returns once fn(arg) has run; frees the task. */
void hpa_task_wait(struct hpa_task *t);

/*
 * fn(arg, worker) on up to `want` threads at once, the caller's being
 * worker 0 and the others 1, 2, ...; returns when every one has returned,
 * with the number of workers that ran (at least 1).
 */
size_t hpa_crew_run(size_t want, void (*fn)(void *arg, size_t worker), void *arg);

/*
 * An ordered pipeline over the caller's array of `nslots` slots of
 * `slot_size` bytes: item k lives in slot k % nslots.  hpa_ordered_next()
 * gives the slot for the next item, once the item that had it was emitted
 * (the caller works on items meanwhile); the caller fills it and hands it
 * over with hpa_ordered_submit().  work(ctx, slot, worker) runs on any
 * worker (0: the caller's thread, 1..: helpers, at most want - 1 of them),
 * emit(ctx, slot) on the caller's thread, in item order.
 * hpa_ordered_finish() returns once every item is emitted, and frees the
 * pipeline.  With no helper, each item is worked on and emitted at its
 * submission.  emit may be NULL.
 *
 * A pipeline started "beside" the caller works on items on its helpers
 * only (up to `helpers` of them), the caller's thread making and emitting
 * them (with no helper to be had, it works on each at submission).  With
 * one helper, items are worked on one at a time in item order: a stage
 * that must see every item in order (storing what a parser read) beside
 * the thread that makes the items.
 */
struct hpa_ordered;
typedef void hpa_ordered_work_fn(void *ctx, void *slot, size_t worker);
typedef void hpa_ordered_emit_fn(void *ctx, void *slot);
struct hpa_ordered *hpa_ordered_start(void *slots, size_t slot_size, size_t nslots, size_t want,
				      hpa_ordered_work_fn *work, hpa_ordered_emit_fn *emit,
				      void *ctx);
struct hpa_ordered *hpa_ordered_start_beside(void *slots, size_t slot_size, size_t nslots,
					     size_t helpers, hpa_ordered_work_fn *work,
					     hpa_ordered_emit_fn *emit, void *ctx);
/* Workers (the caller's thread included) that may work on items: per-worker state is this many. */
size_t hpa_ordered_workers(const struct hpa_ordered *o);
void *hpa_ordered_next(struct hpa_ordered *o);
void hpa_ordered_submit(struct hpa_ordered *o);
void hpa_ordered_finish(struct hpa_ordered *o);

/*
 * Part p owns items [0, n[p]) of its own range.  hpa_share_take() gives
 * part `part` its next chunk (at most `chunk` items) from the low end of
 * its range, or once that is done, a chunk from the high end of the range
 * with the most left: *q is the part whose items [*from, *to) they are,
 * *down whether they were taken from the high end (to be visited from *to
 * down).  False when every range is taken.
 */
struct hpa_share;
struct hpa_share *hpa_share_new(const size_t *n, size_t parts);
bool hpa_share_take(struct hpa_share *sh, size_t part, size_t chunk, size_t *q, size_t *from,
		    size_t *to, bool *down);
void hpa_share_free(struct hpa_share *sh);

#endif
