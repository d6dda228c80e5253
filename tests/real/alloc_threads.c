/*
 * Two named worker threads allocate known amounts while main waits, for
 * run-real.sh:  worker-a 100 x 8192 B = 819200 B,  worker-b 20 x 65536 B =
 * 1310720 B, all live, each through its own alloc_a / alloc_b and both
 * through worker() (2129920 B).  The workers start one after the other, so jemalloc
 * numbers them t1 and t2.  Under jemalloc (found with dlsym, so the program
 * runs under any allocator) each thread sets thread.prof.name and main
 * writes a prof.dump while both are alive.
 */
#define _GNU_SOURCE 1   /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

static mallctl_fn mallctl_p;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready, finish;
static void *keep[256];
static int nkeep;

struct job {
	const char *name;
	int count;
	size_t size;
	void *(*alloc)(size_t);
};

NOINLINE static void *alloc_a(size_t n)
{
	void *p = malloc(n);
	if (!p)
		abort();
	memset(p, 1, 64);
	return p;
}

NOINLINE static void *alloc_b(size_t n)
{
	void *p = malloc(n);
	if (!p)
		abort();
	memset(p, 2, 64);
	return p;
}

NOINLINE static void *worker(void *arg)
{
	const struct job *job = arg;

	if (mallctl_p) {
		const char *name = job->name;
		mallctl_p("thread.prof.name", NULL, NULL, (void *)&name, sizeof(name));
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < job->count; i++)
		keep[nkeep++] = job->alloc(job->size);
	ready++;
	pthread_cond_broadcast(&cond);
	while (!finish)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void wait_ready(int n)
{
	pthread_mutex_lock(&lock);
	while (ready < n)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

int main(void)
{
	static struct job a = { "worker-a", 100, 8192, alloc_a };
	static struct job b = { "worker-b", 20, 65536, alloc_b };
	pthread_t ta, tb;

	mallctl_p = (mallctl_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "mallctl");
	pthread_create(&ta, NULL, worker, &a);
	wait_ready(1);
	pthread_create(&tb, NULL, worker, &b);
	wait_ready(2);
	if (mallctl_p)
		mallctl_p("prof.dump", NULL, NULL, NULL, 0);
	pthread_mutex_lock(&lock);
	finish = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
