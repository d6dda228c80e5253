#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/xalloc.h"

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
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (!p)
		oom(size);
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
