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

/* Processors this process may run on (at least 1). */
size_t hpa_processors(void);

void hpa_task_start(struct hpa_task *t, void (*fn)(void *arg), void *arg);
/* Returns once fn(arg) has run. */
void hpa_task_wait(struct hpa_task *t);

#endif
