/* A shared library that use_libs loads with dlopen (run-symbols.sh). */
#include <stdlib.h>

static void *volatile last;

__attribute__((noinline)) void *plugin_alloc(size_t n)
{
	void *p = malloc(n);
	last = p;
	return p;
}
