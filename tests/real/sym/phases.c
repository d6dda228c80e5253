/*
 * Two heap dumps in one run, for run-diffs.sh.  Between dump 1 and dump 2:
 *   grow_a   +10 x 65536 B (it already held 10 x 65536 B)   +655360
 *   grow_b   +20 x 16384 B (new)                            +327680
 *   temp_buf  -5 x 32768 B (allocated before dump 1, freed) -163840
 * The dumps go through jemalloc's prof.dump mallctl or gperftools'
 * HeapProfilerDump, whichever the process has (found with dlsym).
 */
#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

void *phases_keep[256];   /* global: the compiler may not drop the stores */
static int nkeep;
static void *temp[8];

NOINLINE static void *grow_a(size_t n)
{
	void *p = malloc(n);
	memset(p, 1, 64);
	phases_keep[nkeep++] = p;
	return p;
}

NOINLINE static void *grow_b(size_t n)
{
	void *p = malloc(n);
	memset(p, 2, 64);
	phases_keep[nkeep++] = p;
	return p;
}

NOINLINE static void temp_buf(int i)
{
	temp[i] = malloc(32768);
	memset(temp[i], 3, 64);
}

static int (*mallctl)(const char *, void *, size_t *, void *, size_t);
static void (*heap_dump)(const char *);

static void dump(void)
{
	if (mallctl)
		mallctl("prof.dump", NULL, NULL, NULL, 0);
	else if (heap_dump)
		heap_dump("phase");
}

int main(void)
{
	int i;

	/* Looked up first: dlsym allocates, and that must not change between dumps. */
	*(void **)&mallctl = dlsym(RTLD_DEFAULT, "mallctl");
	*(void **)&heap_dump = dlsym(RTLD_DEFAULT, "HeapProfilerDump");
	for (i = 0; i < 10; i++)
		grow_a(65536);
	for (i = 0; i < 5; i++)
		temp_buf(i);
	dump();
	for (i = 0; i < 10; i++)
		grow_a(65536);
	for (i = 0; i < 20; i++)
		grow_b(16384);
	for (i = 0; i < 5; i++)
		free(temp[i]);
	dump();
	return 0;
}
