/*
 * For run-stats.sh: memory the heap profile does not explain.  Allocates
 * 64 MiB of 64-byte objects and frees 7 of every 8 (slabs stay, 12.5%
 * used), maps and touches 64 MiB itself, then, at one moment, dumps a heap
 * profile and the allocator's statistics and copies /proc/self/status,
 * smaps and smaps_rollup into DIR.  Runs under Debian's libjemalloc
 * (MALLOC_CONF=prof:true,...) or libtcmalloc (HEAPPROFILE=...), found with
 * dlsym: the program links neither.
 *
 * usage: frag DIR [wait]   (wait: then create DIR/ready and sleep until killed)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define SMALL (64u << 20)
#define N (SMALL / 64)

static void **objs;

NOINLINE static void *small_object(void)
{
	void *p = malloc(64);   /* not a tail call: this frame stays in the stack */

	if (!p)
		abort();
	memset(p, 1, 64);
	return p;
}

NOINLINE static void make_small(void)
{
	objs = malloc(N * sizeof(*objs));
	for (size_t i = 0; i < N; i++) {
		objs[i] = small_object();
	}
	for (size_t i = 0; i < N; i++)
		if (i % 8) {
			free(objs[i]);
			objs[i] = NULL;
		}
}

NOINLINE static void *own_mapping(void)
{
	char *p = mmap(NULL, 64u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 7, 64u << 20);
	return p;
}

static void copy(const char *from, const char *dir, const char *name)
{
	char path[4096], buf[65536];
	size_t n;
	FILE *in = fopen(from, "r"), *out;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	out = fopen(path, "w");
	if (!in || !out)
		exit(2);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out))
		exit(2);
}

static void write_cb(void *fp, const char *s)
{
	fputs(s, fp);
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(fp = fopen(path, "w")))
		exit(2);
	return fp;
}

int main(int argc, char **argv)
{
	int (*mallctl)(const char *, void *, size_t *, void *, size_t) = dlsym(RTLD_DEFAULT, "mallctl");
	void (*stats_print)(void (*)(void *, const char *), void *, const char *) =
		dlsym(RTLD_DEFAULT, "malloc_stats_print");
	void (*get_stats)(char *, int) = dlsym(RTLD_DEFAULT, "MallocExtension_GetStats");
	void (*heap_dump)(const char *) = dlsym(RTLD_DEFAULT, "HeapProfilerDump");
	const char *dir = argc > 1 ? argv[1] : ".";
	char path[4096];
	void *own;
	FILE *fp;

	make_small();
	if (!(own = own_mapping()))
		return 2;
	if (mallctl && stats_print) {
		const char *p = path;
		snprintf(path, sizeof(path), "%s/prof.heap", dir);
		if (mallctl("prof.dump", NULL, NULL, &p, sizeof(p)))
			return 3;
		fp = open_in(dir, "stats.txt");
		stats_print(write_cb, fp, "");
		fclose(fp);
		fp = open_in(dir, "stats.json");
		stats_print(write_cb, fp, "J");
		fclose(fp);
	} else if (get_stats && heap_dump) {
		char *buf = calloc(1, 1 << 20);
		heap_dump("frag");
		get_stats(buf, 1 << 20);
		fp = open_in(dir, "stats.txt");
		fputs(buf, fp);
		fclose(fp);
		free(buf);
	} else {
		return 4;
	}
	copy("/proc/self/status", dir, "status");
	copy("/proc/self/smaps", dir, "smaps");
	copy("/proc/self/smaps_rollup", dir, "smaps_rollup");
	if (argc > 2 && !strcmp(argv[2], "wait")) {
		fclose(open_in(dir, "ready"));
		for (;;)
			pause();
	}
	munmap(own, 64u << 20);
	return 0;
}
