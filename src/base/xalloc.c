#include "hpa/compat.h"

#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpa/xalloc.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14 */
#endif

/*
 * Fresh memory is mapped page by page as it is first written, one fault
 * each, and in a virtual machine a fault costs about 10 us: 2.5 ms per MiB,
 * where asking the kernel to map a whole range at once costs 0.15 ms per
 * MiB.  So a large block is mapped whole when it is handed out; its caller
 * writes most of it (tables are filled, arrays grow by doubling).  A kernel
 * without MADV_POPULATE_WRITE says EINVAL and the pages come by fault.
 */
#define PREFAULT_MIN (64 * 1024)

static void prefault(char *p, size_t len)
{
	static long page;
	uintptr_t lo, hi;

	if (len < PREFAULT_MIN)
		return;
	if (!page)
		page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	lo = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1);
	hi = ((uintptr_t)p + len) & ~((uintptr_t)page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}

static HPA_NORETURN void oom(size_t size)
{
	fprintf(stderr, "hpa: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	prefault(p, size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(st_mult(nmemb, size));
	prefault(p, st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	size_t old = ptr ? malloc_usable_size(ptr) : 0;
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	/*
	 * What was there is mapped already.  Of the new room, an array that
	 * doubled fills the first half for sure, the rest perhaps never:
	 * map that half at once and let the rest come by fault, so that peak
	 * memory stays what the data needs.
	 */
	if (size > old)
		prefault((char *)p + old, (size - old) / 2);
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

size_t st_mult(size_t a, size_t b)
{
	size_t r;
	if (__builtin_mul_overflow(a, b, &r)) {
		fprintf(stderr, "hpa: size overflow: %zu * %zu\n", a, b);
		abort();
	}
	return r;
}
