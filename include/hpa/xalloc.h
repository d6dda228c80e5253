/*
 * Allocation wrappers.  They never return NULL: running out of memory prints
 * the size that failed and aborts, so callers need no error path for it.
 */
#ifndef HPA_XALLOC_H
#define HPA_XALLOC_H

#include "hpa/compat.h"

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/*
 * Grow the block `ptr` of which the caller uses `have` bytes to `size`
 * bytes, keeping its contents.  Arrays that grow large get room to grow in
 * place (address space only), so they are not moved again and again.
 */
void *xgrow(void *ptr, size_t have, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/*
 * Tune the C library's heap for a short-lived process that builds large
 * tables: blocks come from one heap in huge pages that is never given back.
 * Called first thing in main(); the x* functions keep the heap's new
 * stretches in huge pages.
 */
void hpa_heap_setup(void);

/* a * b, aborting on overflow. */
size_t st_mult(size_t a, size_t b);

/*
 * Make room for at least `nr` elements in the array `x` whose capacity is
 * `alloc`; grows geometrically.  Like git's ALLOC_GROW.
 */
#define HPA_GROW(x, nr, alloc)                                                 \
	do {                                                                   \
		if ((size_t)(nr) > (alloc)) {                                  \
			size_t hpa_grow_n_ = (alloc) < 16 ? 16 : (alloc) * 2;  \
			if (hpa_grow_n_ < (size_t)(nr))                        \
				hpa_grow_n_ = (nr);                            \
			(x) = xgrow((x), (alloc) * sizeof(*(x)),              \
				    st_mult(hpa_grow_n_, sizeof(*(x))));        \
			(alloc) = hpa_grow_n_;                                 \
		}                                                              \
	} while (0)

#endif
