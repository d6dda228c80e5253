/*
 * For run-waste.sh: fragmentation with a known answer.  Linked with
 * Debian's libjemalloc, it lays out known patterns, asks jemalloc itself
 * (experimental.utilization.batch_query) for the slab of every pointer it
 * keeps, and writes what is true next to a heap profile and the
 * statistics of the same moment:
 *
 *   scatter_long   1536-byte objects, one in 8 kept among short-lived
 *                  ones that are freed: sparse slabs pinned by one site
 *   dense_obj      2560-byte objects, all kept: full slabs
 *   sparse_obj     2560-byte objects, one in 4 kept among short-lived
 *                  ones: the same class, a quarter as dense
 *   large_obj      40000-byte objects (class 40960): a pad page each
 *   small_obj      64-byte objects, all kept: many, for the profiler's
 *                  own cost (each sampled one sits in a 16 KiB extent)
 *
 * A slab's empty bytes (its size less its live regions') are shared among
 * its live objects, one share each; a site's truth is the sum over its
 * objects; a class's, over all of them.  A large object's truth is its
 * extent less its size: the pad.  Sampled small objects (an extent of
 * their own) are counted apart, with what their extents hold beyond them.
 *
 * Writes DIR/prof.heap, DIR/stats.txt, DIR/stats.json and DIR/truth:
 *   class SIZE EMPTY         per size class with slabs
 *   site NAME SIZE EMPTY     per site (size: its class)
 *   live BYTES               usable bytes of every object the program holds
 *   promoted N BYTES         sampled small objects and their extents' excess
 *
 * The program's own arrays are mmap'ed and the truth written with write(2),
 * so that nothing but the patterns lives in jemalloc.
 *
 * usage: waste_truth DIR   (MALLOC_CONF=prof:true,tcache:false,lg_prof_sample:N)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

enum { SCATTER, DENSE, SPARSE, LARGE, SMALL, NSITES };
static const char *const site_name[NSITES] = { "scatter_long", "dense_obj", "sparse_obj", "large_obj",
					       "small_obj" };
static const size_t site_count[NSITES] = { 4096, 4096, 4096, 256, 200000 };

struct kept {
	void **p;
	size_t n;
};
static struct kept kept[NSITES];
static void **scratch;   /* short-lived objects, freed */

static void *map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(2);
	return p;
}

static void *must(void *p)
{
	if (!p)
		abort();
	return p;
}

/* Each site its own function, so that its stack names it; not a tail call. */
NOINLINE static void *scatter_long(void) { void *p = must(malloc(1536)); memset(p, 1, 64); return p; }
NOINLINE static void *scatter_short(void) { void *p = must(malloc(1536)); memset(p, 2, 64); return p; }
NOINLINE static void *dense_obj(void) { void *p = must(malloc(2560)); memset(p, 3, 64); return p; }
NOINLINE static void *sparse_obj(void) { void *p = must(malloc(2560)); memset(p, 4, 64); return p; }
NOINLINE static void *sparse_short(void) { void *p = must(malloc(2560)); memset(p, 5, 64); return p; }
NOINLINE static void *large_obj(void) { void *p = must(malloc(40000)); memset(p, 6, 64); return p; }
NOINLINE static void *small_obj(void) { void *p = must(malloc(64)); memset(p, 7, 64); return p; }

NOINLINE static void make(void)
{
	size_t i, k, s = 0;

	for (k = 0; k < NSITES; k++)
		kept[k].p = map(site_count[k] * sizeof(void *));
	scratch = map((7 * site_count[SCATTER] + 3 * site_count[SPARSE]) * sizeof(void *));
	/* scattered: 7 short-lived after each long-lived one */
	for (i = 0; i < site_count[SCATTER]; i++) {
		kept[SCATTER].p[kept[SCATTER].n++] = scatter_long();
		for (k = 0; k < 7; k++)
			scratch[s++] = scatter_short();
	}
	/* two densities in one class: a dense run, then one in four among short-lived ones */
	for (i = 0; i < site_count[DENSE]; i++)
		kept[DENSE].p[kept[DENSE].n++] = dense_obj();
	for (i = 0; i < site_count[SPARSE]; i++) {
		kept[SPARSE].p[kept[SPARSE].n++] = sparse_obj();
		for (k = 0; k < 3; k++)
			scratch[s++] = sparse_short();
	}
	for (i = 0; i < s; i++)
		free(scratch[i]);
	for (i = 0; i < site_count[LARGE]; i++)
		kept[LARGE].p[kept[LARGE].n++] = large_obj();
	for (i = 0; i < site_count[SMALL]; i++)
		kept[SMALL].p[kept[SMALL].n++] = small_obj();
}

/* Per class, up to 64 of them: size and truth. */
static size_t class_size[64], nclasses;
static double class_empty[64];

static double *class_slot(size_t size)
{
	size_t i;

	for (i = 0; i < nclasses && class_size[i] != size; i++)
		;
	if (i == nclasses) {
		if (nclasses == 64)
			exit(2);
		class_size[nclasses++] = size;
	}
	return &class_empty[i];
}

static void say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(int fd, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf) || write(fd, buf, (size_t)n) != n)
		exit(2);
}

static void truth(const char *dir)
{
	char path[4096];
	double live = 0, promoted = 0, promoted_bytes = 0;
	size_t k, i;
	int fd;

	snprintf(path, sizeof(path), "%s/truth", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		exit(2);
	for (k = 0; k < NSITES; k++) {
		size_t n = kept[k].n, len = n * 3 * sizeof(size_t), size = malloc_usable_size(kept[k].p[0]);
		size_t *out = map(len);
		double site = 0;

		if (mallctl("experimental.utilization.batch_query", out, &len, kept[k].p, n * sizeof(void *)) ||
		    len != n * 3 * sizeof(size_t)) {
			fprintf(stderr, "batch_query failed\n");
			exit(2);
		}
		for (i = 0; i < n; i++) {
			size_t nfree = out[3 * i], nregs = out[3 * i + 1], extent = out[3 * i + 2];
			size_t usize = malloc_usable_size(kept[k].p[i]);

			live += (double)usize;
			if (nregs > 1) {   /* in a slab: its share of the slab's empty bytes */
				double share = ((double)extent - (double)(nregs - nfree) * (double)usize) /
					       (double)(nregs - nfree);
				site += share;
				*class_slot(usize) += share;
			} else if (usize > 14336) {   /* large: its pad */
				site += (double)(extent - usize);
			} else {   /* a sampled small object, in an extent of its own */
				promoted++;
				promoted_bytes += (double)(extent - usize);
			}
		}
		say(fd, "site %s %zu %.0f\n", site_name[k], size, site);
		munmap(out, n * 3 * sizeof(size_t));
	}
	for (i = 0; i < nclasses; i++)
		say(fd, "class %zu %.0f\n", class_size[i], class_empty[i]);
	say(fd, "live %.0f\n", live);
	say(fd, "promoted %.0f %.0f\n", promoted, promoted_bytes);
	close(fd);
}

static void write_cb(void *fd, const char *s)
{
	size_t n = strlen(s);

	if (write(*(int *)fd, s, n) != (ssize_t)n)
		exit(2);
}

static void stats(const char *dir, const char *name, const char *opts)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		exit(2);
	malloc_stats_print(write_cb, &fd, opts);
	close(fd);
}

int main(int argc, char **argv)
{
	char path[4096];
	const char *p = path;

	if (argc != 2)
		return 2;
	make();
	truth(argv[1]);
	snprintf(path, sizeof(path), "%s/prof.heap", argv[1]);
	if (mallctl("prof.dump", NULL, NULL, &p, sizeof(p)))
		return 3;
	stats(argv[1], "stats.txt", "");
	stats(argv[1], "stats.json", "J");
	return 0;
}
