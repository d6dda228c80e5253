/*
 * Allocates through a linked shared library (3 x 32768 B in shlib_alloc)
 * and a dlopen'd one (4 x 16384 B in plugin_alloc, path in argv[1]); the
 * plugin stays loaded so it is in the maps section.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *shlib_alloc(size_t n);

static void *keep[16];

int main(int argc, char **argv)
{
	void *(*plugin_alloc)(size_t);
	void *h;
	int i, n = 0;

	if (argc != 2 || !(h = dlopen(argv[1], RTLD_NOW))) {
		fprintf(stderr, "use_libs: cannot load plugin: %s\n", dlerror());
		return 1;
	}
	*(void **)&plugin_alloc = dlsym(h, "plugin_alloc");
	if (!plugin_alloc)
		return 1;
	for (i = 0; i < 3; i++)
		keep[n++] = shlib_alloc(32768);
	for (i = 0; i < 4; i++)
		keep[n++] = plugin_alloc(16384);
	return keep[0] ? 0 : 1;
}
