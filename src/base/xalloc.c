#include "hpa/compat.h"

#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hpa/xalloc.h"

/*
 * Large blocks ask for huge pages (2 MiB) where the kernel gives them on
 * request (transparent_hugepage set to "madvise", Debian's default): one
 * fault per 2 MiB instead of 512, and one TLB entry where the passes over
 * a profile's large arrays (frames, samples, walk keys) would miss the TLB
 * at nearly every access.  Peak RSS grows a little: the pages are rounded
 * up to 2 MiB where an array grows.  (What each of these settings gains is
 * measured in bench/ and said in the commits that keep them.)
 */
#define HUGE_PAGE ((uintptr_t)2 << 20)
#define HUGE_MIN ((size_t)4 << 20)

static void want_huge(void *p, size_t len)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(HUGE_PAGE - 1);

	if (len >= HUGE_MIN && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p;
	(void)len;
#endif
}

/*
 * The heap itself in huge pages.  glibc's malloc grows its main heap with
 * brk() and, left to itself, hands blocks of 128 KiB and more to mmap() of
 * their own and gives freed memory back to the kernel, so every table hpa
 * builds and frees is paged in again, 4 KiB and one fault at a time.  So
 * hpa_heap_setup() (main(), first thing) has blocks up to 32 MiB come from
 * the heap, has the heap grow 64 MiB at a time (address space: pages come
 * as they are written) and never shrink (hpa is a short-lived process),
 * and heap_follow() asks for huge pages over every stretch the heap grows
 * by.  Worker threads allocate from the same heap: each would otherwise get
 * an arena of its own, paged in 4 KiB at a time.  Peak RSS grows by what
 * the heap's last huge pages round up to.
 */
static uintptr_t heap_marked;   /* the heap is in huge pages up to here; atomic */
#define HEAP_BLOCK_MAX ((size_t)32 << 20)   /* larger blocks glibc maps on their own */

static void heap_follow(void)
{
#ifdef MADV_HUGEPAGE
	uintptr_t end = (uintptr_t)sbrk(0), marked = __atomic_load_n(&heap_marked, __ATOMIC_RELAXED);

	/* Whichever thread moves the mark advises the stretch; the others see it moved. */
	if (marked && end > marked && end != (uintptr_t)-1 &&
	    __atomic_compare_exchange_n(&heap_marked, &marked, end, false, __ATOMIC_RELAXED,
					__ATOMIC_RELAXED))
		madvise((void *)marked, end - marked, MADV_HUGEPAGE);
#endif
}

void hpa_heap_setup(void)
{
#if defined(M_TOP_PAD) && !defined(__SANITIZE_ADDRESS__)
	long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
	uintptr_t end = (uintptr_t)sbrk(0);

	if (end == (uintptr_t)-1)
		return;
	mallopt(M_MMAP_THRESHOLD, (int)HEAP_BLOCK_MAX);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_TOP_PAD, 64 << 20);
	mallopt(M_ARENA_MAX, 1);   /* the threads' blocks too: an arena of their own is not in huge pages */
	/* From the next page on: what the heap holds already stays as it is. */
	__atomic_store_n(&heap_marked, (end + (uintptr_t)page - 1) & ~((uintptr_t)page - 1),
			 __ATOMIC_RELAXED);
	free(xmalloc(1));   /* grows the heap now, so that it is marked before use */
#endif
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
	heap_follow();
	want_huge(p, size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(st_mult(nmemb, size));
	heap_follow();
	want_huge(p, st_mult(nmemb, size));
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	size_t old = ptr ? malloc_usable_size(ptr) : 0;
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	heap_follow();
	if (size > old)
		want_huge(p, size);
	return p;
}

/*
 * A grown block that glibc maps on its own is grown by mremap(), which
 * moves its pages to a new address; in a virtual machine with shadow page
 * tables each moved page then costs a trap when it is next read.  So a
 * block that grows past RESERVE_MIN moves once into a block with room for
 * RESERVE_FACTOR times its size: address space only, whose pages come as
 * the array fills them.  Below RESERVE_MIN an array grows in the heap by
 * realloc, packed among the other blocks: reserved room there would make
 * each array a block of its own, whose first write clears whole huge
 * pages for a little data (peak RSS several times the data's).  From
 * RESERVE_MIN up the reserved block is one glibc maps on its own
 * (HEAP_BLOCK_MAX and more).
 */
#if defined(__SANITIZE_ADDRESS__)
#define RESERVE_FACTOR 2   /* AddressSanitizer writes the shadow of a whole block when it is freed */
#else
#define RESERVE_FACTOR 16
#endif
#define RESERVE_MIN (HEAP_BLOCK_MAX / RESERVE_FACTOR)

void *xgrow(void *ptr, size_t have, size_t size)
{
	size_t old = ptr ? malloc_usable_size(ptr) : 0, cap;
	void *p;

	if (have > old)   /* a caller that lost count: trust the block */
		have = old;
	if (size <= old)
		return ptr;
	if (size < RESERVE_MIN)
		return xrealloc(ptr, size);
	cap = size <= SIZE_MAX / RESERVE_FACTOR ? size * RESERVE_FACTOR : size;
	p = malloc(cap);
	if (!p)
		p = malloc(size);   /* strict overcommit, or a small address space */
	if (!p)
		oom(size);
	heap_follow();
	want_huge(p, malloc_usable_size(p));
	if (have)
		memcpy(p, ptr, have);
	free(ptr);
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
