/*
 * The base containers and the streaming line reader: the hash map (growth,
 * replacement, colliding keys), the string table (ids stable, "" is 0,
 * strings with NUL-free prefixes), the line reader (CRLF, a last line
 * without newline, NUL bytes, lines longer than its buffer, peek, slurp),
 * the model's interners (addresses, stacks, functions), the sequence hash,
 * arrays grown in place (xgrow), and temporary files removed when a
 * signal ends the process (in a child that kills itself).
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hpa/hashmap.h"
#include "hpa/lineio.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/symbols.h"
#include "hpa/task.h"
#include "hpa/tempfile.h"
#include "hpa/xalloc.h"
#include "test.h"

static void test_hashmap(void)
{
	struct hpa_hashmap m = HPA_HASHMAP_INIT;
	uint64_t k;

	CHECK_INT_EQ(hpa_hashmap_get(&m, 42), 0);   /* empty table */
	for (k = 0; k < 100000; k++)   /* grows many times; key 0 is a key like any */
		hpa_hashmap_put(&m, k * 4096, (uint32_t)(k + 1));
	CHECK_INT_EQ(m.nr, 100000);
	for (k = 0; k < 100000; k += 997)
		CHECK_INT_EQ(hpa_hashmap_get(&m, k * 4096), k + 1);
	CHECK_INT_EQ(hpa_hashmap_get(&m, 4096 * 100000ULL), 0);
	CHECK_INT_EQ(hpa_hashmap_get(&m, 1), 0);
	hpa_hashmap_put(&m, 4096, 7);   /* replace */
	CHECK_INT_EQ(hpa_hashmap_get(&m, 4096), 7);
	CHECK_INT_EQ(m.nr, 100000);
	hpa_hashmap_put(&m, UINT64_MAX, 9);
	CHECK_INT_EQ(hpa_hashmap_get(&m, UINT64_MAX), 9);
	CHECK(hpa_hash64(1) != hpa_hash64(2));
	hpa_hashmap_release(&m);
	CHECK_INT_EQ(hpa_hashmap_get(&m, 4096), 0);
}

/* Reserve, prefetch, and hashes of id sequences: equal for equal, apart for near misses. */
static void test_hash_ids(void)
{
	struct hpa_hashmap m = HPA_HASHMAP_INIT;
	uint32_t a[7] = { 1, 2, 3, 4, 5, 6, 7 }, b[7], i;
	uint64_t h[64];
	size_t n = 0, k;

	memcpy(b, a, sizeof(a));
	for (i = 0; i <= 7; i++)
		CHECK(hpa_hash_ids(a, i) == hpa_hash_ids(b, i));
	h[n++] = hpa_hash_ids(a, 0);
	for (i = 1; i <= 7; i++)   /* every prefix, odd and even lengths */
		h[n++] = hpa_hash_ids(a, i);
	for (i = 0; i < 7; i++) {   /* one id changed, in the low or the high half of a pair */
		b[i] ^= 1;
		h[n++] = hpa_hash_ids(b, 7);
		b[i] ^= 0x80000000u;
		h[n++] = hpa_hash_ids(b, 7);
		b[i] = a[i];
	}
	b[0] = a[1];   /* two ids swapped */
	b[1] = a[0];
	h[n++] = hpa_hash_ids(b, 7);
	for (i = 0; i < n; i++)
		for (k = i + 1; k < n; k++)
			CHECK(h[i] != h[k]);

	hpa_hashmap_reserve(&m, 1000);
	CHECK(m.cap >= 1334 && m.cap <= 4096);
	k = m.cap;
	for (i = 1; i <= 1000; i++) {
		hpa_hashmap_prefetch(&m, i);
		hpa_hashmap_put(&m, i, i);
	}
	CHECK_INT_EQ(m.cap, k);   /* no growth past the reserve */
	for (i = 1; i <= 1000; i++)
		CHECK_INT_EQ(hpa_hashmap_get(&m, i), i);
	hpa_hashmap_release(&m);
}

/*
 * hpa_hash_sort: the kept ids of [lo, hi), by hash, ids of one hash in
 * order; hashes that share their top bits (one bucket) and that differ
 * only there, equal hashes far apart, and ids left out.
 */
static void test_hash_sort(void)
{
	enum { N = 3000 };
	static uint64_t hash[N];
	static uint8_t keep[N];
	struct hpa_hash_item *s;
	size_t n, i, kept = 0, seen = 0, sevens = 0;

	for (i = 0; i < N; i++) {
		hash[i] = i % 7 == 0 ? 0xabcdULL << 48 | (i % 5) :   /* one bucket, five hashes */
			  i % 11 == 0 ? (uint64_t)(i % 3) << 62 :     /* top bits only */
			  hpa_hash64(i % 1000);                       /* each three times */
		keep[i] = i % 13 != 0;
		kept += i >= 5 && keep[i];
		sevens += i >= 5 && keep[i] && i % 7 == 0;
	}
	n = hpa_hash_sort(hash, keep, 5, N, &s);
	CHECK_INT_EQ(n, kept);
	for (i = 0; i < n; i++) {
		CHECK(s[i].id >= 5 && s[i].id < N && keep[s[i].id]);
		CHECK(s[i].h == hash[s[i].id]);
		if (i)
			CHECK(s[i - 1].h < s[i].h || (s[i - 1].h == s[i].h && s[i - 1].id < s[i].id));
		seen += s[i].id % 7 == 0;
	}
	CHECK_INT_EQ(seen, sevens);
	CHECK_INT_EQ(sevens, 396);
	free(s);
	n = hpa_hash_sort(hash, NULL, 0, 0, &s);   /* none */
	CHECK_INT_EQ(n, 0);
	free(s);
}

/* hpa_hash_reps: in a run of one hash, each id to the first equal one (by same()), others to themselves. */
static bool same_value(void *ctx, uint32_t a, uint32_t b)
{
	const int *v = ctx;

	return v[a] == v[b];
}

static void test_hash_reps(void)
{
	/* ids 0-7; hashes: 0, 2, 3, 5, 7 share one, 1 and 6 another, 4 its own */
	static const uint64_t hash[8] = { 9, 4, 9, 9, 1, 9, 4, 9 };
	static const int value[8] = { 10, 20, 11, 10, 30, 11, 21, 10 };
	static const uint32_t want[8] = { 0, 1, 2, 0, 4, 2, 6, 0 };
	static const uint8_t keep[8] = { 1, 1, 1, 1, 1, 1, 1, 0 };
	uint32_t rep[8];
	size_t i;

	hpa_hash_reps(hash, NULL, 0, 8, rep, same_value, (void *)value);
	for (i = 0; i < 8; i++)
		CHECK_INT_EQ(rep[i], want[i]);
	rep[7] = 99;   /* an id left out keeps what it had; one below lo is not asked */
	hpa_hash_reps(hash, keep, 1, 8, rep, same_value, (void *)value);
	CHECK_INT_EQ(rep[7], 99);
	CHECK_INT_EQ(rep[3], 3);   /* its equal, id 0, is below lo */
	CHECK_INT_EQ(rep[5], 2);
}

/* An array grown by doubling past the size where it moves to a block with room keeps its contents. */
static void test_xgrow(void)
{
	uint32_t *v = NULL, *was = NULL;
	size_t alloc = 0, i, moves = 0;

	for (i = 0; i < (4u << 20); i++) {   /* 16 MiB of ids */
		HPA_GROW(v, i + 1, alloc);
		if (v != was)
			moves++;
		was = v;
		v[i] = (uint32_t)(i * 2654435761u);
	}
	for (i = 0; i < (4u << 20); i++)
		if (v[i] != (uint32_t)(i * 2654435761u))
			break;
	CHECK_INT_EQ(i, 4u << 20);
	CHECK(alloc >= (4u << 20));
	CHECK(moves >= 1);
	/* a caller's count larger than the block is clamped to the block */
	v = xgrow(v, SIZE_MAX / 2, (alloc + 1) * sizeof(*v));
	CHECK_INT_EQ(v[12345], (uint32_t)(12345 * 2654435761u));
	free(v);
	v = xgrow(NULL, 0, 1u << 20);   /* a first block past the reserve size */
	v[0] = 1;
	v[(1u << 18) - 1] = 2;
	v = xgrow(v, 1u << 20, 2u << 20);
	CHECK_INT_EQ(v[0], 1);
	CHECK_INT_EQ(v[(1u << 18) - 1], 2);
	free(v);
}

static void test_strtab(void)
{
	struct hpa_strtab t;
	uint32_t a, b, c;
	char name[32];
	int i;

	hpa_strtab_init(&t);
	CHECK_INT_EQ(hpa_strtab_intern(&t, ""), 0);
	CHECK_STR_EQ(hpa_strtab_get(&t, 0), "");
	a = hpa_strtab_intern(&t, "malloc");
	b = hpa_strtab_intern(&t, "operator new(unsigned long)");
	CHECK(a != 0 && b != 0 && a != b);
	CHECK_INT_EQ(hpa_strtab_intern(&t, "malloc"), a);
	/* A prefix of a longer string is its own string. */
	c = hpa_strtab_intern_len(&t, "mallocx", 6);
	CHECK_INT_EQ(c, a);
	c = hpa_strtab_intern_len(&t, "mallocx", 7);
	CHECK(c != a);
	CHECK_STR_EQ(hpa_strtab_get(&t, c), "mallocx");
	for (i = 0; i < 20000; i++) {   /* ids stay put while the table grows */
		snprintf(name, sizeof(name), "f%d", i);
		hpa_strtab_intern(&t, name);
	}
	CHECK_STR_EQ(hpa_strtab_get(&t, a), "malloc");
	CHECK_STR_EQ(hpa_strtab_get(&t, b), "operator new(unsigned long)");
	CHECK_STR_EQ(hpa_strtab_get(&t, hpa_strtab_intern(&t, "f19999")), "f19999");
	CHECK_INT_EQ(t.nr, 20000 + 4);
	hpa_strtab_release(&t);
}

static FILE *stream(const char *data, size_t len)
{
	FILE *fp = tmpfile();

	if (!fp || fwrite(data, 1, len, fp) != len || fseek(fp, 0, SEEK_SET) != 0)
		abort();
	return fp;
}

static void test_lineio(void)
{
	static const char text[] = "heap_v2/524288\r\n  t*: 1: 2 [0: 0]\n\nx\0y\nlast";
	struct hpa_lineio io;
	FILE *fp = stream(text, sizeof(text) - 1);
	char *line, *big;
	size_t len, avail, n;
	const char *peek;
	uint8_t *data;

	hpa_lineio_from_stream(&io, fp, "mem");
	peek = hpa_lineio_peek(&io, 7, &avail);
	CHECK(avail >= 7 && !memcmp(peek, "heap_v2", 7));
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_STR_EQ(line, "heap_v2/524288");   /* CR dropped */
	CHECK_INT_EQ(io.pos.line, 1);
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_STR_EQ(line, "  t*: 1: 2 [0: 0]");
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_INT_EQ(len, 0);
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_INT_EQ(len, 3);
	CHECK(io.nul);
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_STR_EQ(line, "last");
	CHECK(!io.newline);
	CHECK_INT_EQ(io.pos.line, 5);
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 0);
	hpa_lineio_close(&io);
	fclose(fp);

	/* A 3 MB line: longer than any first buffer, returned whole. */
	n = 3 << 20;
	big = malloc(n + 3);
	memset(big, 'a', n);
	memcpy(big + n, "\nb", 2);
	fp = stream(big, n + 2);
	hpa_lineio_from_stream(&io, fp, "big");
	CHECK_INT_EQ(hpa_lineio_next(&io, &line, &len), 1);
	CHECK_INT_EQ(len, n);
	CHECK(line[0] == 'a' && line[n - 1] == 'a' && line[n] == '\0');
	/* slurp: the rest, as bytes, within its limit. */
	CHECK_INT_EQ(hpa_lineio_slurp(&io, &data, &len, 100), 0);
	CHECK_INT_EQ(len, 1);
	CHECK(data[0] == 'b');
	free(data);
	hpa_lineio_close(&io);
	fclose(fp);
	free(big);

	fp = stream("0123456789", 10);
	hpa_lineio_from_stream(&io, fp, "cap");
	hpa_diag_quiet = true;
	CHECK_INT_EQ(hpa_lineio_slurp(&io, &data, &len, 5), -1);   /* over the limit */
	hpa_diag_quiet = false;
	hpa_lineio_close(&io);
	fclose(fp);
}

static void test_interning(void)
{
	struct hpa_profile p;
	struct hpa_symbols syms;
	uint64_t s1[] = { 0x1000, 0x2000, 0x3000 }, s2[] = { 0x1000, 0x2000 };
	uint32_t a, b, st1, st2, f1, f2;
	const uint32_t *frames;
	size_t nr;

	hpa_profile_init(&p);
	a = hpa_profile_intern_loc(&p, 0x1000);
	b = hpa_profile_intern_loc(&p, 0x2000);
	CHECK(a && b && a != b);
	CHECK_INT_EQ(hpa_profile_intern_loc(&p, 0x1000), a);
	st1 = hpa_profile_intern_stack(&p, s1, 3);
	st2 = hpa_profile_intern_stack(&p, s2, 2);
	CHECK(st1 && st2 && st1 != st2);   /* a prefix is another stack */
	CHECK_INT_EQ(hpa_profile_intern_stack(&p, s1, 3), st1);
	CHECK_INT_EQ(hpa_profile_intern_stack(&p, s1, 0), 0);
	frames = hpa_profile_stack(&p, st1, &nr);
	CHECK_INT_EQ(nr, 3);
	CHECK_INT_EQ(frames[0], a);   /* leaf first, as written */
	CHECK_INT_EQ(frames[1], b);
	CHECK_INT_EQ(p.locs[frames[2]].addr, 0x3000);
	/* Functions: by (name, system name, file); NULL is "". */
	hpa_symbols_init(&syms);
	f1 = hpa_symbols_intern_function(&syms, p.strs, "Cache::put", "_ZN5Cache3putEv", "cache.cc");
	f2 = hpa_symbols_intern_function(&syms, p.strs, "Cache::put", "_ZN5Cache3putEv", "other.cc");
	CHECK(f1 && f2 && f1 != f2);
	CHECK_INT_EQ(hpa_symbols_intern_function(&syms, p.strs, "Cache::put", "_ZN5Cache3putEv", "cache.cc"), f1);
	CHECK_INT_EQ(hpa_symbols_intern_function(&syms, p.strs, "main", NULL, NULL),
		     hpa_symbols_intern_function(&syms, p.strs, "main", "", ""));
	CHECK_STR_EQ(hpa_profile_str(&p, syms.funcs[f1].name), "Cache::put");
	hpa_symbols_release(&syms);
	hpa_profile_release(&p);
}

/* Files in `dir` whose names start with HPA_TEMP_PREFIX. */
static int temp_files(const char *dir)
{
	char cmd[512];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^" HPA_TEMP_PREFIX "'", dir);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

/* A child makes two temporary files, forgets one after renaming it, and
 * is ended by `sig` (or exits): the registered one is gone, the renamed
 * one stays, and the signal still ends the child. */
static void test_tempfile(int sig)
{
	char dir[] = "/tmp/hpa-t-base-XXXXXX", kept[64];
	pid_t pid;
	int status = 0;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(kept, sizeof(kept), "%s/kept", dir);
	pid = fork();
	if (pid == 0) {
		char *a, *b;
		int fa;
		if (sig)   /* as in a foreground run: a background shell job ignores SIGINT */
			signal(sig, SIG_DFL);
		fa = hpa_tempfile_create(dir, &a);
		int fb = hpa_tempfile_create(dir, &b);
		if (fa < 0 || fb < 0 || rename(b, kept) != 0 || temp_files(dir) != 1)
			_exit(3);
		hpa_tempfile_forget(b);
		if (sig)
			raise(sig);
		exit(0);   /* atexit() removes what is left */
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (sig)
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig);
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT_EQ(temp_files(dir), 0);
	CHECK_INT_EQ(access(kept, F_OK), 0);
	unlink(kept);
	rmdir(dir);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fp = fopen(path, "w"))) {
		fputs(text, fp);
		fclose(fp);
	}
}

/* The CPU quota of a container, read from a cgroup tree made here (v2 and v1). */
static void test_cpu_quota(void)
{
	char root[] = "/tmp/hpa-t-cgroup-XXXXXX", d[512];

	if (!mkdtemp(root)) {
		CHECK(0);
		return;
	}
	CHECK_INT_EQ(hpa_cpu_quota(root, "0::/\n"), 0);             /* nothing set */
	write_file(root, "cpu.max", "max 100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "0::/\n"), 0);             /* "max": no quota */
	write_file(root, "cpu.max", "150000 100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "0::/\n"), 2);             /* 1.5 CPUs: 2 threads */
	snprintf(d, sizeof(d), "%s/app", root);
	mkdir(d, 0700);
	write_file(d, "cpu.max", "400000 100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "0::/app\n"), 2);          /* the parent's is smaller */
	write_file(root, "cpu.max", "max 100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "0::/app\n"), 4);
	/* cgroup v1: the "cpu" controller's hierarchy. */
	snprintf(d, sizeof(d), "%s/cpu,cpuacct", root);
	mkdir(d, 0700);
	write_file(d, "cpu.cfs_quota_us", "-1\n");
	write_file(d, "cpu.cfs_period_us", "100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "4:memory:/x\n2:cpu,cpuacct:/\n"), 0);
	write_file(d, "cpu.cfs_quota_us", "50000\n");
	write_file(d, "cpu.cfs_period_us", "100000\n");
	CHECK_INT_EQ(hpa_cpu_quota(root, "4:memory:/x\n2:cpu,cpuacct:/\n"), 1);
	CHECK_INT_EQ(hpa_cpu_quota(root, "2:cpuset:/\n"), 0);       /* not the cpu controller */
	CHECK(hpa_processors() >= 1);
	snprintf(d, sizeof(d), "rm -rf '%s'", root);
	CHECK_INT_EQ(system(d), 0);
}

/* The parallel toolkit: items emitted in order, whoever worked on them; the budget kept. */
struct order_check {
	size_t emitted, bad, most_workers;
	unsigned long sum[64];
};

struct order_item {
	size_t k;
	unsigned long value;
};

static void order_work(void *ctx, void *slot, size_t worker)
{
	struct order_item *it = slot;
	unsigned long v = it->k;
	size_t i;

	(void)ctx;
	(void)worker;
	for (i = 0; i < (it->k % 7) * 2000; i++)   /* uneven work: items finish out of order */
		v = v * 6364136223846793005ul + 1442695040888963407ul;
	it->value = it->k * 3 + (v & 0);
}

static void order_emit(void *ctx, void *slot)
{
	struct order_check *c = ctx;
	struct order_item *it = slot;

	if (it->k != c->emitted || it->value != it->k * 3)
		c->bad++;
	c->emitted++;
}

static void crew_count(void *arg, size_t worker)
{
	struct order_check *c = arg;

	__atomic_fetch_add(&c->sum[worker < 64 ? worker : 63], 1, __ATOMIC_RELAXED);
}

static void task_set(void *arg)
{
	*(int *)arg = 42;
}

static void test_parallel(void)
{
	struct order_item slots[3];
	struct order_check c;
	size_t want, k, n, total;
	struct hpa_task *t;
	int x = 0;

	for (want = 1; want <= 4; want++) {
		struct hpa_ordered *o;

		memset(&c, 0, sizeof(c));
		o = hpa_ordered_start(slots, sizeof(slots[0]), 3, want, order_work, order_emit, &c);
		CHECK(hpa_ordered_workers(o) >= 1 && hpa_ordered_workers(o) <= want);
		CHECK(hpa_ordered_workers(o) <= hpa_processors());
		for (k = 0; k < 1000; k++) {
			struct order_item *it = hpa_ordered_next(o);
			it->k = k;
			hpa_ordered_submit(o);
		}
		hpa_ordered_finish(o);
		CHECK_INT_EQ(c.emitted, 1000);
		CHECK_INT_EQ(c.bad, 0);
	}
	memset(&c, 0, sizeof(c));
	n = hpa_crew_run(8, crew_count, &c);
	CHECK(n >= 1 && n <= 8 && n <= hpa_processors());
	for (k = total = 0; k < 64; k++)
		total += c.sum[k];
	CHECK_INT_EQ(total, n);
	for (k = 0; k < n; k++)
		CHECK_INT_EQ(c.sum[k], 1);
	/* The budget is whole again: every extra thread can be claimed, and no more. */
	k = hpa_threads_claim(1000);
	CHECK_INT_EQ(k, hpa_processors() - 1);
	CHECK_INT_EQ(hpa_threads_claim(1), 0);
	t = hpa_task_start(task_set, &x);   /* none left: runs in the wait */
	CHECK(!hpa_task_threaded(t));
	CHECK_INT_EQ(x, 0);
	hpa_task_wait(t);
	CHECK_INT_EQ(x, 42);
	hpa_threads_return(k);
}

int main(void)
{
	test_hashmap();
	test_hash_ids();
	test_hash_sort();
	test_hash_reps();
	test_xgrow();
	test_strtab();
	test_lineio();
	test_interning();
	test_tempfile(SIGTERM);
	test_tempfile(SIGHUP);
	test_tempfile(SIGINT);
	test_tempfile(0);
	test_cpu_quota();
	test_parallel();
	TEST_MAIN_END();
}
