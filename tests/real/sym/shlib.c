/* A shared library linked into use_libs (run-symbols.sh). */
#include <stdlib.h>

static void *volatile last;

__attribute__((noinline)) void *shlib_alloc(size_t n)
{
	void *p = malloc(n);
	last = p;
	return p;
}
