/*
 * A piece of work on a second thread while the caller does another, for
 * the passes that are independent of each other (two groupings of one
 * profile).  Both only read what they share.  With one processor, or when
 * no thread can start, the work runs in the caller at hpa_task_wait().
 */
#ifndef HPA_TASK_H
#define HPA_TASK_H

#include <pthread.h>

#include "hpa/compat.h"

struct hpa_task {
	void (*fn)(void *arg);
	void *arg;
	pthread_t tid;
	bool started;
};

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

void hpa_task_start(struct hpa_task *t, void (*fn)(void *arg), void *arg);
/* Returns once fn(arg) has run. */
void hpa_task_wait(struct hpa_task *t);

#endif
