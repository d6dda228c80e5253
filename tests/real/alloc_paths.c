/*
 * Allocates known amounts from known call paths, for run-real.sh.  Every
 * size is a jemalloc size class, so jemalloc's usable sizes equal the
 * requested ones and both allocators must report exactly:
 *
 *   small_objects   1000 x 64 B      =    64000 B   live
 *   big_buffers       16 x 1 MiB     = 16777216 B   live
 *   recurse(5)        10 x 4096 B    =    40960 B   live, through 6 frames of recursion
 *   churn            500 x 256 B     =   128000 B   allocated and freed
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *keep[2048];
static int nkeep;

NOINLINE static void *alloc_here(size_t n)
{
	void *p = malloc(n);
	if (!p)
		abort();
	memset(p, 0x5a, n < 64 ? n : 64);
	return p;
}

NOINLINE static void small_objects(void)
{
	for (int i = 0; i < 1000; i++)
		keep[nkeep++] = alloc_here(64);
}

NOINLINE static void big_buffers(void)
{
	for (int i = 0; i < 16; i++)
		keep[nkeep++] = alloc_here(1 << 20);
}

NOINLINE static void recurse(int depth)
{
	if (depth == 0) {
		for (int i = 0; i < 10; i++)
			keep[nkeep++] = alloc_here(4096);
		return;
	}
	recurse(depth - 1);
	keep[nkeep] = NULL;   /* no tail call */
}

NOINLINE static void churn(void)
{
	for (int i = 0; i < 500; i++)
		free(alloc_here(256));
}

int main(void)
{
	small_objects();
	big_buffers();
	recurse(5);
	churn();
	return nkeep == 1026 ? 0 : 1;
}
