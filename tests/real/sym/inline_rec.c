/*
 * Static inline helpers and recursion, for run-symbols.sh.  100 x 8192 B
 * stay live, allocated in make_buf (inlined into stash, inlined into
 * descend) at the bottom of 5 frames of recursion.  Lines the test checks
 * carry an @ marker.
 */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static void *keep[1024];
static int nkeep;
static void *volatile last;

static inline void *make_buf(size_t n)
{
	void *p = malloc(n); /* @MALLOC */
	if (!p)
		abort();
	memset(p, 0, 16);
	return p;
}

static inline void stash(size_t n)
{
	keep[nkeep++] = make_buf(n); /* @STASH */
}

NOINLINE static void descend(int depth)
{
	if (depth == 0) {
		for (int i = 0; i < 100; i++)
			stash(8192); /* @DESCEND */
		return;
	}
	descend(depth - 1); /* @RECURSE */
	last = keep[0];
}

int main(void)
{
	descend(4); /* @MAIN */
	return 0;
}
