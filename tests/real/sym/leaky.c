/*
 * A series of heap dumps, for run-growth.sh: five, or LEAKY_STEPS (up to
 * 64).  Per step:
 *   leak_path     keeps 4 x 65536 B more every step (the leak): 262144 .. 1310720
 *   plateau_path  holds 1 MiB in step 1, 3 MiB from step 2 on (a cache filled)
 *   churn_path    allocates and frees 50 x 1 MiB, and holds 1 or 3 MiB, alternating
 *   spike_path    holds 8 MiB in step 3 only
 * The dumps go through jemalloc's prof.dump or gperftools' HeapProfilerDump.
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

void *leaky_keep[256];
static int nkeep;
static void *held, *spike, *cache;
static int (*mallctl_p)(const char *, void *, size_t *, void *, size_t);
static void (*heap_dump_p)(const char *);

NOINLINE static void leak_path(void)
{
	for (int i = 0; i < 4; i++) {
		leaky_keep[nkeep] = malloc(65536);
		memset(leaky_keep[nkeep++], 1, 64);
	}
}

NOINLINE static void plateau_path(int step)
{
	if (step > 1)
		return;
	free(cache);
	cache = malloc(step ? 3 << 20 : 1 << 20);
	memset(cache, 5, 64);
}

NOINLINE static void churn_path(int step)
{
	for (int i = 0; i < 50; i++) {
		void *p = malloc(1 << 20);
		memset(p, 2, 64);
		free(p);
	}
	free(held);
	held = malloc(step % 2 ? 3 << 20 : 1 << 20);
	memset(held, 3, 64);
}

NOINLINE static void spike_path(int step)
{
	if (step == 2) {
		spike = malloc(8 << 20);
		memset(spike, 4, 64);
	} else if (spike) {
		free(spike);
		spike = NULL;
	}
}

int main(void)
{
	*(void **)&mallctl_p = dlsym(RTLD_DEFAULT, "mallctl");
	*(void **)&heap_dump_p = dlsym(RTLD_DEFAULT, "HeapProfilerDump");
	int steps = getenv("LEAKY_STEPS") ? atoi(getenv("LEAKY_STEPS")) : 5;

	for (int step = 0; step < steps && step < 64; step++) {
		leak_path();
		plateau_path(step);
		churn_path(step);
		spike_path(step);
		if (mallctl_p)
			mallctl_p("prof.dump", NULL, NULL, NULL, 0);
		else if (heap_dump_p)
			heap_dump_p("step");
	}
	return leaky_keep[0] == NULL;
}
