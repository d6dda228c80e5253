/*
 * A library with one exported entry point and static helpers, built and
 * then stripped by run-diffs.sh: only .dynsym is left, so the helpers'
 * frames have no name (like Debian's libLLVM, libstdc++ or libjemalloc).
 * lib_fill(n) allocates n blocks of 32768 B through two static frames.
 */
#include <stdlib.h>

static void *volatile keep[64];
static int kept;

__attribute__((noinline)) static void *block(size_t n)
{
	void *p = malloc(n);
	keep[kept++ & 63] = p;
	return p;
}

__attribute__((noinline)) static void fill(int n)
{
	int i;

	for (i = 0; i < n; i++)
		block(32768);
	__asm__ volatile("" ::: "memory");   /* no tail call */
}

void lib_fill(int n)
{
	fill(n);
	__asm__ volatile("" ::: "memory");
}
