#include "hpa/compat.h"

#include <sched.h>
#include <unistd.h>

#include "hpa/task.h"

size_t hpa_processors(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

static void *task_main(void *arg)
{
	struct hpa_task *t = arg;

	t->fn(t->arg);
	return NULL;
}

void hpa_task_start(struct hpa_task *t, void (*fn)(void *arg), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->started = hpa_processors() > 1 && pthread_create(&t->tid, NULL, task_main, t) == 0;
}

void hpa_task_wait(struct hpa_task *t)
{
	if (t->started)
		pthread_join(t->tid, NULL);
	else
		t->fn(t->arg);
	t->started = false;
}
