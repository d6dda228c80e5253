/* The readers on small in-memory profiles: structure, sampling, errors. */
#include "hpa/compat.h"

#include <stdio.h>

#include "hpa/diag.h"
#include "hpa/profile.h"
#include "hpa/reader.h"
#include "hpa/series.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/unsample.h"
#include "test.h"

static int read_text(struct hpa_profile *prof, const char *text, size_t len)
{
	FILE *fp = tmpfile();
	int rc;

	if (!fp) {
		perror("tmpfile");
		return -2;
	}
	fwrite(text, 1, len, fp);
	rewind(fp);
	rc = hpa_read_stream(prof, fp, "mem.heap");
	hpa_unsample_profile(prof);
	fclose(fp);
	return rc;
}

#define READ(prof, lit) read_text((prof), (lit), sizeof(lit) - 1)

static double total(struct hpa_profile *p, enum hpa_value v, int32_t thread)
{
	return hpa_profile_total(p, v, thread);
}

static void jemalloc_threads(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap_v2/0\n"
		"  t*: 9: 99999 [0: 0]\n"              /* header summary: ignored */
		"  t0: 4: 4 [0: 0]\n"
		"  t1: 5: 5 [0: 0] worker one\n"
		"@ 0x10 0x20 0x30\n"
		"  t*: 3: 300 [4: 400]\n"
		"  t0: 1: 100 [1: 100]\n"
		"  t1: 2: 200 [3: 300]\n"
		"@ 0x11 0x20 0x30\n"
		"  t*: 1: 64 [0: 0]\n"
		"  t1: 1: 64 [0: 0]\n"
		"@ 0x10 0x20 0x30\n"                   /* same stack again: summed */
		"  t*: 1: 8 [0: 0]\n"
		"\n"
		"MAPPED_LIBRARIES:\n"
		"00000000-00001000 r-xp 00000000 fe:00 1234    /opt/my app/bin/server (deleted)\n"
		"00001000-00002000 rw-p 00000000 00:00 0\n"), 0);
	CHECK_INT_EQ(p.inputs_nr, 1);
	CHECK_INT_EQ(p.inputs[0].format, HPA_FORMAT_JEMALLOC);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_NONE);   /* heap_v2/0 */
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 372, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_OBJECTS, HPA_THREAD_ALL), 5, 0);
	CHECK_DBL_EQ(total(&p, HPA_ALLOC_SPACE, HPA_THREAD_ALL), 400, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 1), 264, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 0), 100, 0);
	/* The second record's only thread line, t1 with its t* counts, is that sample's sole thread. */
	CHECK_INT_EQ(p.samples_nr, 4);
	CHECK_INT_EQ(p.samples[3].thread, HPA_THREAD_ALL);
	CHECK_INT_EQ(p.samples[3].sole_thread, 1);
	CHECK_INT_EQ(p.samples[0].sole_thread, HPA_THREAD_ALL);
	/*
	 * Four addresses, two stacks: the repeated stack is the first one again,
	 * and its record is summed into the first record's sample (memory
	 * follows the distinct stacks): 300 + 8 bytes, 3 + 1 objects.
	 */
	CHECK_INT_EQ(p.locs_nr - 1, 4);
	CHECK_INT_EQ(p.stacks_nr - 1, 2);
	CHECK_INT_EQ(p.frames_nr, 6);
	CHECK_INT_EQ(p.inputs[0].records, 3);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_SPACE], 308, 0);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_OBJECTS], 4, 0);
	CHECK_DBL_EQ(p.samples[0].v[HPA_ALLOC_SPACE], 400, 0);
	CHECK(p.samples[0].stack != p.samples[3].stack);
	{
		size_t nr;
		const uint32_t *f = hpa_profile_stack(&p, p.samples[3].stack, &nr);
		CHECK_INT_EQ(nr, 3);
		CHECK_INT_EQ(p.locs[f[0]].addr, 0x11);   /* leaf first */
		CHECK_INT_EQ(p.locs[f[2]].addr, 0x30);
	}
	/* Threads from the header, with the name. */
	CHECK_INT_EQ(p.threads_nr, 2);
	CHECK_INT_EQ(p.threads[1].id, 1);
	CHECK_STR_EQ(p.threads[1].name, "worker one");
	CHECK(p.threads[0].name == NULL);
	/* Maps: path with a blank and " (deleted)"; anonymous mapping kept. */
	CHECK_INT_EQ(p.inputs[0].map_nr, 2);
	CHECK_STR_EQ(p.mappings[1].path, "/opt/my app/bin/server");
	CHECK(p.mappings[1].deleted);
	CHECK_INT_EQ(p.mappings[1].inode, 1234);
	CHECK_STR_EQ(p.mappings[2].path, "");
	CHECK_STR_EQ(hpa_profile_loc_module(&p, 1), "server");
	hpa_profile_release(&p);
}

static void jemalloc_sampled(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap_v2/1024\n"
		"@ 0x7f1611ea2630 0x55da44e2a427\n"
		"  t*: 1: 2066 [0: 0]\n"
		"@ 0x7f1611ea2630 0x55da44e2a428\n"
		"  t*: 2: 1073 [0: 0]\n"), 0);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_V2);
	CHECK_DBL_EQ(p.inputs[0].period, 1024, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 2382.8668 + 2631.1348, 1e-3);
	hpa_profile_release(&p);
}

static void jemalloc_odd_records(void)
{
	struct hpa_profile p;

	/* No t* line: the tN lines are summed (jeprof would drop the record). */
	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap_v2/0\n"
		"@ 0x1\n"
		"  t0: 1: 10 [0: 0]\n"
		"  t3: 2: 20 [0: 0]\n"
		"@\n"                                   /* empty stack: kept as its own */
		"  t*: 1: 5000 [0: 0]\n"), 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 5030, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 3), 20, 0);
	CHECK_INT_EQ(p.samples[p.samples_nr - 1].stack, 0);
	hpa_profile_release(&p);
}

static void crlf_bom_commands(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"\xef\xbb\xbf\r\n"
		"%warn this profile was made by a test\r\n"
		"--- heap\r\n"
		"heap_v2/0\r\n"
		"@ 0xABC 0x0000000000000def\r\n"
		"  t*: 2: 64 [0: 0]\r\n"), 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 64, 0);
	CHECK_INT_EQ(p.locs[1].addr, 0xabc);   /* interned leaf first */
	CHECK_INT_EQ(p.locs[2].addr, 0xdef);
	hpa_profile_release(&p);
}

/* Address tokens of every length and shape, read 16 bytes at a time where the machine can. */
static void address_tokens(void)
{
	static const struct { const char *tok; uint64_t want; } cases[] = {
		{ "0x1", 0x1 }, { "0xa", 0xa }, { "0xF", 0xf }, { "7", 0x7 }, { "0x0", 0 }, { "0", 0 },
		{ "0x55b21c46020d", 0x55b21c46020dULL }, { "0x7F74EB0A2630", 0x7f74eb0a2630ULL },
		{ "0x123456789abcdef", 0x123456789abcdefULL },
		{ "0xfedcba9876543210", 0xfedcba9876543210ULL },   /* 16 digits */
		{ "0x00000000000000000000ffffffffffffffff", UINT64_MAX },   /* zeros do not count */
		{ "0Xdeadbeef", 0xdeadbeef }, { "0x000401000", 0x401000 }, { "abcdef0123", 0xabcdef0123ULL },
	};
	char text[4096];
	size_t i, n;
	struct hpa_profile p;

	/* One stack of every token, blanks of every kind between them, none at the end. */
	n = (size_t)snprintf(text, sizeof(text), "heap_v2/0\n@");
	for (i = 0; i < HPA_ARRAY_SIZE(cases); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%s", i % 2 ? " \t" : " ",
				      cases[i].tok);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "\n  t*: 1: 8 [0: 0]\n");
	hpa_profile_init(&p);
	CHECK_INT_EQ(read_text(&p, text, n), 0);
	CHECK_INT_EQ(p.stacks_nr, 2);
	if (p.stacks_nr == 2 && p.stacks[1].nr == HPA_ARRAY_SIZE(cases))
		for (i = 0; i < HPA_ARRAY_SIZE(cases); i++)
			CHECK_INT_EQ(p.locs[p.frames[p.stacks[1].first + i]].addr, cases[i].want);
	hpa_profile_release(&p);

	/* Each token alone at the end of the input, where no byte follows the line. */
	for (i = 0; i < HPA_ARRAY_SIZE(cases); i++) {
		n = (size_t)snprintf(text, sizeof(text), "heap_v2/0\n  t*: 1: 8 [0: 0]\n@ %s",
				     cases[i].tok);
		hpa_profile_init(&p);
		hpa_warnings_off = true;
		read_text(&p, text, n);
		hpa_warnings_off = false;
		CHECK(p.locs_nr >= 2);
		if (p.locs_nr >= 2)
			CHECK_INT_EQ(p.locs[1].addr, cases[i].want);
		hpa_profile_release(&p);
	}
}

static void gperf_headers(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap profile:   2502:  2700055 [  4003:  2900086] @ heapprofile\n"
		"   500:  2500000 [   500:  2500000] @ 0x5628b6b201d0 0x5628b6b202cd\n"
		"     0:        0 [   500:   100000] @ 0x5628b6b20265 0x5628b6b2029e\n"
		"\n"
		"MAPPED_LIBRARIES:\n"
		"5628b6b1f000-5628b6b20000 r--p 00000000 00:00 10996022    ./t2\n"
		"5628b6b20000-5628b6b21000 r-xp 00001000 00:00 10996022    ./t2\n"), 0);
	CHECK_INT_EQ(p.inputs[0].format, HPA_FORMAT_GPERF);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_NONE);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 2500000, 0);
	CHECK_DBL_EQ(total(&p, HPA_ALLOC_OBJECTS, HPA_THREAD_ALL), 1000, 0);
	CHECK_STR_EQ(hpa_profile_loc_module(&p, 1), "t2");
	CHECK_INT_EQ(p.mappings[p.locs[1].mapping].offset, 0x1000);
	hpa_profile_release(&p);

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "heap profile: 2: 600000 [ 2: 600000] @ heap_v2/65536\n"
			  "1: 300000 [1: 300000] @ 0x1\n1: 300000 [1: 300000] @ 0x2\n"), 0);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_V2);
	CHECK(!p.inputs[0].trunc_records);
	CHECK_INT_EQ((long long)total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 606231);
	hpa_profile_release(&p);

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "heap profile: 4: 266528 [123: 11284472] @ heap/1048576\n"
			  "# a Go comment\n"), 0);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_V2);   /* Go's rule, not jeprof's v1 */
	CHECK_DBL_EQ(p.inputs[0].period, 524288, 0);
	CHECK(p.inputs[0].trunc_records);
	hpa_profile_release(&p);

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "heap profile: 3: 96 [3: 96]\n"), 0);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_V1);
	CHECK_DBL_EQ(p.inputs[0].period, 131072, 0);
	hpa_profile_release(&p);

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "heap profile: 2: 6 [ 2: 6] @ heap_v2/\n"), 0);
	CHECK_DBL_EQ(p.inputs[0].period, 131072, 0);
	hpa_profile_release(&p);

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "--- growth\nheap profile: 17: 17825792 [17: 17825792] @ growth\n"
			  "1: 1048576 [1: 1048576] @ 0x1 0x2\n1: 1048576 [1: 1048576] @ 0x1 0x2\n"), 0);
	CHECK_INT_EQ(p.inputs[0].kind, HPA_KIND_GROWTH);
	CHECK_INT_EQ(p.inputs[0].sampling, HPA_SAMPLING_NONE);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 2097152, 0);
	hpa_profile_release(&p);
}

static void memory_map_section(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap profile: 1: 8 [1: 8] @ heapprofile\n"
		"1: 8 [1: 8] @ 0x401005\n"
		"--- Memory map: ---\n"
		"  build=/home/me/src\n"
		"00400000-00402000 r-xp 00000000 08:01 77 $build/out/prog\n"
		"7f0000000000-7f0000001000: /lib/libold.so\n"), 0);
	CHECK_INT_EQ(p.inputs[0].map_nr, 2);
	CHECK_STR_EQ(p.mappings[1].path, "/home/me/src/out/prog");
	CHECK_STR_EQ(p.mappings[2].path, "/lib/libold.so");
	CHECK_STR_EQ(hpa_profile_loc_module(&p, 1), "prog");
	hpa_profile_release(&p);

	/* Any "name=value" line defines $name and ${name}; undefined ones stay as written. */
	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap profile: 1: 8 [1: 8] @ heapprofile\n"
		"1: 8 [1: 8] @ 0x401005\n"
		"--- Memory map: ---\n"
		"source=/opt/src\n"
		"lib_dir=/usr/lib64\n"
		"00400000-00402000 r-xp 00000000 08:01 77 $source/bin/server\n"
		"7f0000000000-7f0000001000 r-xp 00000000 08:01 78 ${lib_dir}/libz.so.1\n"
		"7f0000002000-7f0000003000 r-xp 00000000 08:01 79 $undefined/libx.so\n"
		"source=/other\n"
		"7f0000004000-7f0000005000 r-xp 00000000 08:01 80 $source/liby.so$\n"), 0);
	CHECK_INT_EQ(p.inputs[0].map_nr, 4);
	CHECK_STR_EQ(p.mappings[1].path, "/opt/src/bin/server");
	CHECK_STR_EQ(p.mappings[2].path, "/usr/lib64/libz.so.1");
	CHECK_STR_EQ(p.mappings[3].path, "$undefined/libx.so");
	CHECK_STR_EQ(p.mappings[4].path, "/other/liby.so$");
	hpa_profile_release(&p);
}

static void truncated(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p, "heap_v2/0\n@ 0x1\n  t*: 1: 10 [0: 0]\n@ 0x2\n  t*: 1: 2"), 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 10, 0);
	hpa_profile_release(&p);
}

static void bad_input(void)
{
	static const char *const bad[] = {
		"",
		"\n\n%warn nothing here\n",
		"hello\n",
		"heap_v2/\n",
		"heap_v2/x\n",
		"heap_v3/1\n",
		"\x1f\x8b\x08\x00",
		"heap_v2/0\n@ 0x1\n  t*: -3: 300 [0: 0]\n",
		"heap_v2/0\n@ 0x1\n  t*: 3: 300 [0: 0] junk\n",
		"heap_v2/0\n@ 0x1\n  t*: 3: 300\n",
		"heap_v2/0\n@ 0xzz\n  t*: 3: 300 [0: 0]\n",
		"heap_v2/0\n@ 0x12345678901234567\n",
		"heap_v2/0\n@ 0x1234567890123456789abcdef0 0x1\n",
		"heap_v2/0\n@ 0x55b21c46020dq\n",
		"heap_v2/0\n@ 0x55b21c46020d,0x1\n",
		"heap_v2/0\n@ 0x55b2-1c46020d\n",
		"heap_v2/0\n@ 0x1\n  t*: 18446744073709551616: 1 [0: 0]\n",
		"heap_v2/0\n@ 0x1\n  tx: 1: 1 [0: 0]\n",
		"heap_v2/0\nrandom words\n",
		"heap profile: 1:\n",
		"heap profile: 1: 2 [1: 2] @ heapprofile\n1: 2 [1: 2] 0x1\n",
		"heap profile: 1: 2 [1: 2] @ heapprofile\n-1: 2 [1: 2] @ 0x1\n",
		"--- symbol\nbinary=/bin/true\n",
		"--- contention\n",
	};
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(bad); i++) {
		struct hpa_profile p;
		hpa_profile_init(&p);
		if (read_text(&p, bad[i], strlen(bad[i])) != -1) {
			fprintf(stderr, "bad input %zu was accepted: %s\n", i, bad[i]);
			test_failures++;
		}
		hpa_profile_release(&p);
	}
	{
		/* A NUL byte inside a record line. */
		static const char nul[] = "heap_v2/0\n@ 0x1\n  t*: 1\0: 1 [0: 0]\n";
		struct hpa_profile p;
		hpa_profile_init(&p);
		CHECK_INT_EQ(read_text(&p, nul, sizeof(nul) - 1), -1);
		hpa_profile_release(&p);
	}
}

/*
 * A thread line held back (its t* counts) is sent as a sample of its own as
 * soon as anything else of the record comes: a second t* line, or another
 * thread line; one that comes before the t* line is never held.
 */
static void held_lines(void)
{
	struct hpa_profile p;

	hpa_profile_init(&p);
	CHECK_INT_EQ(READ(&p,
		"heap_v2/0\n"
		"@ 0x10\n"
		"  t*: 1: 100 [0: 0]\n"
		"  t0: 1: 100 [0: 0]\n"
		"  t*: 1: 100 [0: 0]\n"
		"  t1: 1: 100 [0: 0]\n"
		"@ 0x20\n"
		"  t2: 2: 200 [0: 0]\n"
		"  t*: 2: 200 [0: 0]\n"
		"@ 0x30\n"
		"  t*: 3: 300 [0: 0]\n"
		"  t0: 3: 300 [0: 0]\n"
		"  t1: 0: 0 [0: 0]\n"), 0);
	/*
	 * The second t* of 0x10 is summed into the first's sample; its only
	 * thread line (t1), which would have been that record's sole thread,
	 * is then a sample of its own: a summed sample stands for no one thread.
	 */
	CHECK_INT_EQ(p.samples_nr, 8);
	CHECK_INT_EQ(p.samples[0].thread, HPA_THREAD_ALL);   /* first t*: its t0 sent apart */
	CHECK_INT_EQ(p.samples[0].sole_thread, HPA_THREAD_ALL);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_SPACE], 200, 0);
	CHECK_INT_EQ(p.samples[1].thread, 0);
	CHECK_INT_EQ(p.samples[2].thread, 1);                /* the second t*'s t1, apart */
	CHECK_INT_EQ(p.samples[2].stack, p.samples[0].stack);
	CHECK_DBL_EQ(p.samples[2].v[HPA_INUSE_SPACE], 100, 0);
	CHECK_INT_EQ(p.samples[3].thread, 2);                /* before t*: as read */
	CHECK_INT_EQ(p.samples[4].thread, HPA_THREAD_ALL);
	CHECK_INT_EQ(p.samples[4].sole_thread, HPA_THREAD_ALL);
	CHECK_INT_EQ(p.samples[5].thread, HPA_THREAD_ALL);   /* a second thread line: both apart */
	CHECK_INT_EQ(p.samples[5].sole_thread, HPA_THREAD_ALL);
	CHECK_INT_EQ(p.samples[6].thread, 0);
	CHECK_INT_EQ(p.samples[7].thread, 1);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 1), 100, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 0), 400, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 700, 0);
	hpa_profile_split_threads(&p);
	CHECK_INT_EQ(p.samples_nr, 8);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, 1), 100, 0);
	hpa_profile_release(&p);
}

/*
 * Profiles larger than one batch of the reading pipe: stacks and samples
 * are stored by a second thread, in the order read, and an error far into
 * the file still names its line.
 */
static void pipe_sized(void)
{
	enum { RECORDS = 30000 };   /* 7 words a stack + 10 a sample per thread line */
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	struct hpa_profile p;
	size_t i, j, nr, shared = 0;
	const uint32_t *f;
	double sum = 0, objs = 0, per_thread[3] = { 0 };

	hpa_sb_adds(&sb, "heap_v2/0\n");
	for (i = 0; i < RECORDS; i++) {
		size_t n = i % 5 + 1;

		/* record i: 0x1000+i 0x20 0x30 0x40 0x50 0x60, on thread i % 3, every 7th on i % 3 and the next too */
		hpa_sb_addf(&sb, "@ 0x%zx 0x20 0x30 0x40 0x50 0x60\n", 0x1000 + i);
		if (i % 7) {
			hpa_sb_addf(&sb, "  t*: %zu: %zu [0: 0]\n  t%zu: %zu: %zu [0: 0]\n", n, n * 16, i % 3, n, n * 16);
		} else {
			hpa_sb_addf(&sb, "  t*: %zu: %zu [0: 0]\n  t%zu: %zu: %zu [0: 0]\n  t%zu: %zu: %zu [0: 0]\n",
				    2 * n, 2 * n * 16, i % 3, n, n * 16, (i + 1) % 3, n, n * 16);
			per_thread[(i + 1) % 3] += (double)(n * 16);
			n *= 2;
			shared++;
		}
		per_thread[i % 3] += (double)(i % 7 ? n * 16 : n * 8);
		sum += (double)(n * 16);
		objs += (double)n;
	}
	hpa_profile_init(&p);
	CHECK_INT_EQ(read_text(&p, sb.buf, sb.len), 0);
	/* A record one thread holds is one sample; one two threads share, three. */
	CHECK_INT_EQ(p.samples_nr, RECORDS + 2 * shared);
	CHECK_INT_EQ(p.stacks_nr, RECORDS + 1);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), sum, 0);
	CHECK_DBL_EQ(total(&p, HPA_INUSE_OBJECTS, HPA_THREAD_ALL), objs, 0);
	for (i = 0; i < 3; i++)
		CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, (int32_t)i), per_thread[i], 0);
	CHECK(hpa_profile_has_thread_samples(&p));
	for (i = j = 0; i < RECORDS; i++) {
		CHECK_INT_EQ(p.samples[j].thread, HPA_THREAD_ALL);
		CHECK_INT_EQ(p.samples[j].sole_thread, i % 7 ? (int)(i % 3) : HPA_THREAD_ALL);
		if (!(i % 7)) {
			CHECK_INT_EQ(p.samples[j + 1].thread, (int)(i % 3));
			CHECK_INT_EQ(p.samples[j + 2].thread, (int)((i + 1) % 3));
			CHECK_INT_EQ(p.samples[j + 2].stack, p.samples[j].stack);
		}
		j += i % 7 ? 1 : 3;
	}
	/* Stored apart, in order: record k's t* line, then its thread lines, same stack. */
	hpa_profile_split_threads(&p);
	CHECK_INT_EQ(p.samples_nr, 2 * RECORDS + shared);
	for (i = 0; i < 3; i++)
		CHECK_DBL_EQ(total(&p, HPA_INUSE_SPACE, (int32_t)i), per_thread[i], 0);
	for (i = j = 0; i < RECORDS; i++) {
		CHECK_INT_EQ(p.samples[j].thread, HPA_THREAD_ALL);
		CHECK_INT_EQ(p.samples[j].sole_thread, HPA_THREAD_ALL);
		CHECK_INT_EQ(p.samples[j + 1].thread, (int)(i % 3));
		CHECK_INT_EQ(p.samples[j + 1].sole_thread, HPA_THREAD_ALL);
		CHECK_INT_EQ(p.samples[j].stack, p.samples[j + 1].stack);
		CHECK_DBL_EQ(p.samples[j + 1].v[HPA_INUSE_SPACE], (double)((i % 5 + 1) * 16), 0);
		if (i % 997 == 0) {
			f = hpa_profile_stack(&p, p.samples[j].stack, &nr);
			CHECK_INT_EQ(nr, 6);
			CHECK_INT_EQ(p.locs[f[0]].addr, 0x1000 + i);
			CHECK_INT_EQ(p.locs[f[5]].addr, 0x60);
		}
		j += i % 7 ? 2 : 3;
	}
	CHECK_INT_EQ(j, p.samples_nr);
	hpa_profile_release(&p);

	/* The same with a bad line near the end: an error, not a crash or a hang. */
	hpa_sb_adds(&sb, "@ 0x1\n  t*: 1: x [0: 0]\n");
	hpa_profile_init(&p);
	CHECK_INT_EQ(read_text(&p, sb.buf, sb.len), -1);
	hpa_profile_release(&p);
	hpa_sb_release(&sb);

	/* gperftools: a stack written again is the same stack id (interned in
	 * order), its records summed into one sample: memory follows the stacks. */
	hpa_sb_adds(&sb, "heap profile: 0: 0 [0: 0] @ heapprofile\n");
	for (i = 0; i < RECORDS; i++)
		hpa_sb_addf(&sb, "1: 16 [1: 16] @ 0x%zx 0x20 0x30 0x40\n", 0x1000 + i % 1000);
	hpa_profile_init(&p);
	CHECK_INT_EQ(read_text(&p, sb.buf, sb.len), 0);
	CHECK_INT_EQ(p.samples_nr, 1000);
	CHECK_INT_EQ(p.stacks_nr, 1000 + 1);
	CHECK_INT_EQ(p.inputs[0].records, RECORDS);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_SPACE], 16.0 * RECORDS / 1000, 0);
	CHECK_DBL_EQ(p.samples[999].v[HPA_ALLOC_OBJECTS], (double)RECORDS / 1000, 0);
	hpa_profile_release(&p);
	hpa_sb_release(&sb);
}

/* What dump names say (series.h): process and sequence number, or nothing. */
static void dump_names(void)
{
	static const struct { const char *path; long long pid, seq; } c[] = {
		{ "/tmp/jeprof.1234.10.i10.heap", 1234, 10 },
		{ "prof.out.77.0.f.heap", 77, 0 },
		{ "a.b.5.3.m3.heap", 5, 3 },
		{ "x.1.2.q2.heap", -1, -1 },              /* no such kind */
		{ "tc.0007.heap", -1, 7 },                 /* gperftools */
		{ "tc.12345.heap", -1, 12345 },
		{ "tc.007.heap", -1, -1 },                 /* fewer than four digits */
		{ "dumps/heap-20261205-101500.heap", -1, 20261205101500000LL },
		{ "heap-20261205-101500-3.pb.gz", -1, 20261205101500003LL },
		{ "heap-2026120-101500.heap", -1, -1 },
		{ "http://h:80/x.1.2.m2.heap", -1, -1 },   /* a URL has no file name to go by */
		{ "-", -1, -1 },
		{ "b1.heap", -1, -1 },
	};
	struct hpa_dump_name n;
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(c); i++) {
		hpa_dump_name_parse(c[i].path, &n);
		CHECK_INT_EQ(n.pid, c[i].pid);
		CHECK_INT_EQ(n.seq, c[i].seq);
	}
}

/* The series order: by sequence within each process, processes by first dump; else as given. */
static void series_order(void)
{
	static const char *const paths[] = { "p.2.11.i11.heap", "p.1.5.i5.heap", "p.2.9.i9.heap",
					     "p.1.10.i10.heap" };
	static const char *const mixed[] = { "p.2.11.i11.heap", "b1.heap" };
	struct hpa_series_order o;

	hpa_series_order(paths, 4, &o);
	CHECK_INT_EQ(o.key, HPA_SERIES_BY_SEQ);
	CHECK_INT_EQ(o.nprocesses, 2);
	CHECK_INT_EQ(o.order[0], 2);
	CHECK_INT_EQ(o.order[1], 0);
	CHECK_INT_EQ(o.order[2], 1);
	CHECK_INT_EQ(o.order[3], 3);
	CHECK_INT_EQ(o.process[1], 0);
	CHECK_INT_EQ(o.process[2], 1);
	CHECK_INT_EQ(o.pids[0], 2);
	CHECK_INT_EQ(o.pids[1], 1);
	hpa_series_order_release(&o);
	hpa_series_order(mixed, 2, &o);   /* one name says nothing: the command line's order, one series */
	CHECK_INT_EQ(o.key, HPA_SERIES_AS_GIVEN);
	CHECK_INT_EQ(o.nprocesses, 1);
	CHECK_INT_EQ(o.order[0], 0);
	hpa_series_order_release(&o);
}

/* The watcher's record and a pprof file's own time, read before the dumps: odd input gives "unknown". */
static void series_sidecars(void)
{
	static const char rec_text[] =
		"# a comment\n"
		"time_nanos 1796464800000000000\n"
		"pid -5\n"                           /* negative: skipped */
		"rss_bytes 12x\n"                    /* not a count: skipped */
		"rss_bytes 99999999999999999999\n"   /* past 2^63: skipped */
		"in_use_bytes 4096\n"
		"unknown_key 7\n"
		"pid\n";                             /* no value */
	static const uint8_t timed[] = { 0x0a, 0x02, 0x08, 0x01, 0x48, 0xd2, 0x09, 0x60, 0x01 };   /* ..., time_nanos 1234, period 1 */
	static const uint8_t cut[] = { 0x48, 0xd2 };                 /* the varint cut */
	static const uint8_t group[] = { 0x0b, 0x48, 0x01 };         /* wire type 3: not pprof's */
	static const uint8_t too_long[] = { 0x0a, 0x7f, 0x00 };      /* a length past the end */
	static const uint8_t negative[] = { 0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	struct hpa_dump_record rec;
	FILE *fp = fmemopen((void *)rec_text, sizeof(rec_text) - 1, "r");

	hpa_dump_record_parse(fp, &rec);
	fclose(fp);
	CHECK(rec.time_nanos == 1796464800000000000LL);
	CHECK_INT_EQ(rec.pid, -1);
	CHECK_DBL_EQ(rec.rss_bytes, -1, 0);
	CHECK_DBL_EQ(rec.in_use_bytes, 4096, 0);
	CHECK(!hpa_dump_record_read("no/such/dump.heap", &rec));
	CHECK_INT_EQ(rec.pid, -1);
	CHECK_INT_EQ(hpa_pprof_time(timed, sizeof(timed)), 1234);
	CHECK_INT_EQ(hpa_pprof_time(cut, sizeof(cut)), 0);
	CHECK_INT_EQ(hpa_pprof_time(group, sizeof(group)), 0);
	CHECK_INT_EQ(hpa_pprof_time(too_long, sizeof(too_long)), 0);
	CHECK_INT_EQ(hpa_pprof_time(negative, sizeof(negative)), 0);
	CHECK_INT_EQ(hpa_pprof_time(timed, 0), 0);
}

/* The allocator's parts (stats.h), as --growth sets them beside a --watch --stats series. */
static void alloc_parts(void)
{
	static const char je[] = "___ Begin jemalloc statistics ___\n"
		"Allocated: 1000, active: 4096, metadata: 500 (n_thp 0), resident: 10000, mapped: 20000, retained: 0\n"
		"--- End jemalloc statistics ---\n";
	static const char tc[] = "MALLOC:       17900056 (   17.1 MiB) Bytes in use by application\n"
		"MALLOC: +       942080 (    0.9 MiB) Bytes in page heap freelist\n"
		"MALLOC: +     58619432 (   55.9 MiB) Bytes in central cache freelist\n"
		"MALLOC: +       131072 (    0.1 MiB) Bytes in transfer cache freelist\n"
		"MALLOC: +         1984 (    0.0 MiB) Bytes in thread cache freelists\n"
		"MALLOC: +      3014656 (    2.9 MiB) Bytes in malloc metadata\n"
		"MALLOC:   ------------\n"
		"MALLOC: =     80609280 (   76.9 MiB) Actual memory used (physical + swap)\n"
		"MALLOC: +            0 (    0.0 MiB) Bytes released to OS (aka unmapped)\n"
		"MALLOC:   ------------\n"
		"MALLOC: =     80609280 (   76.9 MiB) Virtual address space used\n";
	struct hpa_alloc_stats st;
	struct hpa_alloc_parts parts;

	CHECK_INT_EQ(hpa_alloc_stats_parse("je", je, sizeof(je) - 1, &st), 0);
	hpa_alloc_stats_parts(&st, &parts);
	CHECK_DBL_EQ(parts.live, 1000, 0);
	CHECK_DBL_EQ(parts.frag, 3096, 0);
	CHECK_DBL_EQ(parts.free, 10000 - 4096 - 500, 0);
	CHECK_DBL_EQ(parts.meta, 500, 0);
	hpa_alloc_stats_release(&st);
	CHECK_INT_EQ(hpa_alloc_stats_parse("tc", tc, sizeof(tc) - 1, &st), 0);
	hpa_alloc_stats_parts(&st, &parts);
	CHECK_DBL_EQ(parts.live, 17900056, 0);
	CHECK_DBL_EQ(parts.frag, -1, 0);   /* tcmalloc does not say */
	CHECK_DBL_EQ(parts.free, 942080 + 58619432 + 131072 + 1984, 0);
	CHECK_DBL_EQ(parts.meta, 3014656, 0);
	hpa_alloc_stats_release(&st);
}

int main(void)
{
	alloc_parts();
	series_sidecars();
	dump_names();
	series_order();
	jemalloc_threads();
	jemalloc_sampled();
	jemalloc_odd_records();
	crlf_bom_commands();
	address_tokens();
	gperf_headers();
	memory_map_section();
	truncated();
	bad_input();
	held_lines();
	pipe_sized();
	TEST_MAIN_END();
}
