/*
 * The model's passes, on small profiles written here: location identity
 * across inputs (hpa_unify_locations), frame names made once
 * (hpa_name_frames), the grouping engine (hpa_group_stacks), the base pass
 * (--drop_negative, --normalize), the engine's call tree and key paths,
 * the growth pass, a pprof round trip (--proto written, read back, the
 * same stacks and values), and lines grouped by their parts (--html's)
 * against lines grouped by their texts (--text --lines).
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diff.h"
#include "hpa/group.h"
#include "hpa/growth.h"
#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "../../src/model/build.h"
#include "hpa/reader.h"
#include "hpa/report.h"
#include "hpa/unsample.h"
#include "hpa/waste.h"
#include "test.h"

/* One process: libfoo at `lib`, /usr/bin/srv at `exe`; two stacks with `a` and `b` bytes. */
static void add_input(struct hpa_profile *p, unsigned long long lib, unsigned long long exe,
		      int a, int b, bool base)
{
	FILE *fp = tmpfile();

	fprintf(fp, "heap_v2/1\n"
		"  t*: 2: %d [0: 0]\n"
		"@ 0x%llx 0x%llx 0x%llx\n  t*: 1: %d [0: 0]\n"
		"@ 0x%llx 0x%llx 0x%llx\n  t*: 1: %d [0: 0]\n"
		"\nMAPPED_LIBRARIES:\n"
		"%llx-%llx r-xp 00001000 08:01 1 /usr/bin/srv\n"
		"%llx-%llx r-xp 00002000 08:01 2 /usr/lib/libfoo.so.1\n",
		a + b, lib + 0x10, lib + 0x20, exe + 0x30, a, lib + 0x40, lib + 0x20, exe + 0x30, b,
		exe, exe + 0x1000, lib, lib + 0x1000);
	rewind(fp);
	CHECK_INT_EQ(hpa_read_stream(p, fp, base ? "base" : "profile"), 0);
	hpa_unsample_profile(p);
	fclose(fp);
	if (base) {
		hpa_profile_input(p, (uint32_t)p->inputs_nr)->is_base = true;
		hpa_profile_input(p, (uint32_t)p->inputs_nr)->weight = -1;
	}
}

/*
 * The symbols reading gave each profile under test and the names
 * hpa_name_frames() made of them (a few at a time; a profile read again,
 * as one at the same place, replaces its own).
 */
static struct {
	const struct hpa_profile *p;
	struct hpa_symbols syms;
	struct hpa_names names;
} named[4];

static const struct hpa_names *names_of(const struct hpa_profile *p)
{
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(named); i++)
		if (named[i].p == p)
			return &named[i].names;
	return NULL;
}

static void name_frames(struct hpa_profile *p)
{
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(named) && named[i].p && named[i].p != p; i++)
		;
	if (i == HPA_ARRAY_SIZE(named))
		i = 0;
	hpa_names_release(&named[i].names);
	if (p->build) {   /* read anew: its reading ends here */
		hpa_symbols_release(&named[i].syms);
		hpa_profile_end_reading(p, &named[i].syms);
	}
	named[i].p = p;
	hpa_name_frames(p, &named[i].syms, &named[i].names);
}

/* The command line's view of profile p, with p's names. */
static struct hpa_view_opts view_opts(const struct hpa_profile *p, const struct hpa_opts *o)
{
	struct hpa_view_opts vo = hpa_opts_view(o);

	vo.names = names_of(p);
	vo.symbols = vo.names ? vo.names->syms : NULL;
	return vo;
}

static struct hpa_opts default_opts(void)
{
	struct hpa_opts o;

	memset(&o, 0, sizeof(o));
	o.value = HPA_INUSE_SPACE;
	o.thread = HPA_THREAD_ALL;
	o.keep_internal = true;
	o.base = "base";
	return o;
}

/* The folded groups as "stack before after" lines, in order of first appearance. */
/* The groups of view vo as text: "STACK before after" lines. */
static char *view_groups_text(const struct hpa_profile *p, const struct hpa_view_opts *vo)
{
	struct hpa_strtab texts;
	struct hpa_stack_group *g;
	uint32_t *group_of = calloc(p->samples_nr + 1, sizeof(*group_of));
	size_t n, i, len = 0;
	double total;
	char *out = calloc(1, 4096);

	hpa_strtab_init(&texts);
	n = hpa_group_stacks(p, vo, &hpa_folded_format, &texts, &g, &total, group_of, NULL);
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, 4096 - len, "%s %g %g\n",
					hpa_strtab_get(&texts, g[i].text), g[i].before, g[i].after);
	for (i = 0; i < p->samples_nr; i++)   /* every sample in a group of its stack, but those dropped */
		CHECK(vo->dropped && vo->dropped[i] ? !group_of[i] : group_of[i] >= 1 && group_of[i] <= n);
	free(g);
	free(group_of);
	hpa_strtab_release(&texts);
	return out;
}

static char *groups_text(const struct hpa_profile *p, const struct hpa_opts *o)
{
	struct hpa_view_opts vo = view_opts(p, o);

	return view_groups_text(p, &vo);
}

static void test_identity_and_grouping(void)
{
	struct hpa_profile p;
	struct hpa_opts o = default_opts();
	struct hpa_base_out out;
	const double *w;
	char *s;

	hpa_profile_init(&p);
	/*
	 * The same program at other load addresses: the base has 100 + 50 B,
	 * the profile 300 + 20 B (heap_v2/1: unsampling changes them by less
	 * than 1e-6).
	 */
	add_input(&p, 0x7f0000000000ULL, 0x555500000000ULL, 300, 20, false);
	add_input(&p, 0x7f1230000000ULL, 0x555600000000ULL, 100, 50, true);
	CHECK_INT_EQ(p.locs_nr - 1, 8);    /* 4 addresses per input, before */
	hpa_unify_locations(&p);
	CHECK_INT_EQ(p.locs_nr - 1, 4);    /* one location per module and offset */
	CHECK_INT_EQ(p.locs[1].offset, 0x2010);
	CHECK_STR_EQ(hpa_profile_str(&p, p.locs[1].module), "/usr/lib/libfoo.so.1");
	name_frames(&p);
	{
		struct hpa_frame f = { 1, 0 };
		const struct hpa_frame_name *n = hpa_frame_name(&p, names_of(&p), f);
		CHECK_STR_EQ(hpa_profile_str(&p, n->full), "libfoo.so.1+0x2010");
		CHECK_STR_EQ(hpa_profile_str(&p, n->display), "libfoo.so.1+0x2010");
		CHECK(!n->known && !n->inlined);
	}
	s = groups_text(&p, &o);
	CHECK_STR_EQ(s, "srv+0x1030;libfoo.so.1+0x2020;libfoo.so.1+0x2010; 100 300\n"
		     "srv+0x1030;libfoo.so.1+0x2020;libfoo.so.1+0x2040; 50 20\n");
	free(s);
	CHECK_DBL_EQ(hpa_profile_total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 170, 1e-6);

	/* --drop_negative: the stack that shrank (50 -> 20) goes, whole, from the views; the profile stays. */
	o.drop_negative = true;
	CHECK_INT_EQ(hpa_apply_base(&p, &(struct hpa_base_opts){ view_opts(&p, &o), NULL, o.normalize, o.drop_negative }, &out), 0);
	CHECK(out.dropped != NULL);
	{
		struct hpa_view_opts vo = view_opts(&p, &o);

		vo.weights = out.weights;
		vo.dropped = out.dropped;
		s = view_groups_text(&p, &vo);
		CHECK_STR_EQ(s, "srv+0x1030;libfoo.so.1+0x2020;libfoo.so.1+0x2010; 100 300\n");
		free(s);
	}
	CHECK_DBL_EQ(hpa_profile_total(&p, HPA_INUSE_SPACE, HPA_THREAD_ALL), 170, 1e-6);
	hpa_base_out_release(&out);
	hpa_profile_release(&p);

	/* --normalize: the base scaled to the profile's total (320 / 150). */
	hpa_profile_init(&p);
	add_input(&p, 0x7f0000000000ULL, 0x555500000000ULL, 300, 20, false);
	add_input(&p, 0x7f1230000000ULL, 0x555600000000ULL, 100, 50, true);
	hpa_unify_locations(&p);
	name_frames(&p);
	o = default_opts();
	o.normalize = true;
	CHECK_INT_EQ(hpa_apply_base(&p, &(struct hpa_base_opts){ view_opts(&p, &o), NULL, o.normalize, o.drop_negative }, &out), 0);
	CHECK(out.dropped == NULL);
	w = out.weights;
	CHECK_DBL_EQ(w[0], 1, 1e-9);
	CHECK_DBL_EQ(w[1], -320.0 / 150.0, 1e-6);
	CHECK_DBL_EQ(p.inputs[1].weight, -1, 1e-9);   /* the profile keeps the input's own */
	{
		struct hpa_view_opts vo = view_opts(&p, &o);
		struct hpa_view v;
		double total = 0;
		size_t i;

		vo.weights = w;
		hpa_view_init(&v, &p, &vo);
		for (i = 0; i < p.samples_nr; i++)
			if (hpa_view_keeps(&v, i))
				total += hpa_view_value(&v, i);
		hpa_view_release(&v);
		CHECK_DBL_EQ(total, 0, 1e-9);   /* the base scaled to the profile's total */
	}
	hpa_base_out_release(&out);
	hpa_profile_release(&p);
}

/* Two modules at the same address in two inputs stay two locations. */
static void test_two_modules_one_address(void)
{
	struct hpa_profile p;
	FILE *fp;
	int i;

	hpa_profile_init(&p);
	for (i = 0; i < 2; i++) {
		fp = tmpfile();
		fprintf(fp, "heap_v2/1\n  t*: 1: 10 [0: 0]\n@ 0x400100\n  t*: 1: 10 [0: 0]\n"
			"\nMAPPED_LIBRARIES:\n00400000-00401000 r-xp 00000000 08:01 1 /opt/v%d/server\n", i);
		rewind(fp);
		CHECK_INT_EQ(hpa_read_stream(&p, fp, "x"), 0);
		fclose(fp);
	}
	hpa_unify_locations(&p);
	CHECK_INT_EQ(p.locs_nr - 1, 2);
	CHECK(p.locs[1].module != p.locs[2].module);
	CHECK_INT_EQ(p.locs[1].input, 1);
	CHECK_INT_EQ(p.locs[2].input, 2);
	hpa_profile_release(&p);
}

/* Input k of test_unify_so_far: jemalloc (stacks added) or gperftools (interned) at its own load address. */
static void add_varied_input(struct hpa_profile *p, int k)
{
	unsigned long long exe = 0x555500000000ULL + ((unsigned long long)k << 32), lib = exe + 0x100000000ULL;
	FILE *fp = tmpfile();

	if (k % 2)   /* its own stack first, of new locations only: their ids stay when merged */
		fprintf(fp, "heap profile: 3: 30 [3: 30] @ heapprofile\n"
			"1: 10 [1: 10] @ 0x%llx 0x%llx\n"
			"1: 10 [1: 10] @ 0x%llx 0x%llx\n"
			"1: 10 [1: 10] @ 0x%llx 0x%llx\n",
			lib + 0x40 + (unsigned)k, lib + 0x60 + (unsigned)k, lib + 0x10, exe + 0x30,
			lib + 0x10, exe + 0x30);
	else
		fprintf(fp, "heap_v2/1\n  t*: 3: 30 [0: 0]\n"
			"@ 0x%llx 0x%llx\n  t*: 1: 10 [0: 0]\n"
			"@ 0x%llx 0x%llx 0x%llx\n  t*: 1: 10 [0: 0]\n"
			"@ 0x%llx 0x%llx\n  t*: 1: 10 [0: 0]\n",
			lib + 0x10, exe + 0x30, lib + 0x40 + (unsigned)k, lib + 0x20, exe + 0x30,
			lib + 0x50, 0x1000ULL + (unsigned)k);   /* the last address in no mapping */
	fprintf(fp, "\nMAPPED_LIBRARIES:\n%llx-%llx r-xp 00001000 08:01 1 /usr/bin/srv\n"
		"%llx-%llx r-xp 00002000 08:01 2 /usr/lib/libfoo.so.1\n",
		exe, exe + 0x1000, lib, lib + 0x1000);
	rewind(fp);
	CHECK_INT_EQ(hpa_read_stream(p, fp, "dump"), 0);
	fclose(fp);
}

/*
 * Unifying after each input (hpa_unify_locations_so_far) gives what one
 * unification at the end gives: the same locations, stacks, frames and
 * sample stacks; with stacks added (jemalloc) and interned (gperftools)
 * between the steps, and a step that merges nothing new.
 */
static void test_unify_so_far(void)
{
	struct hpa_profile once, steps;
	int k;
	size_t i;

	hpa_profile_init(&once);
	hpa_profile_init(&steps);
	for (k = 0; k < 5; k++) {
		add_varied_input(&once, k);
		add_varied_input(&steps, k);
		if (k)
			hpa_unify_locations_so_far(&steps);
	}
	hpa_unify_locations(&once);
	hpa_unify_locations(&steps);
	CHECK_INT_EQ(steps.locs_nr, once.locs_nr);
	CHECK_INT_EQ(steps.stacks_nr, once.stacks_nr);
	CHECK_INT_EQ(steps.frames_nr, once.frames_nr);
	CHECK_INT_EQ(steps.samples_nr, once.samples_nr);
	/* 5 inputs of 3 stacks: 1 shared (twice in a gperftools input), 5 of their own, 3 with an address in no mapping */
	CHECK_INT_EQ(once.stacks_nr - 1, 1 + 5 + 3);
	for (i = 1; i < once.locs_nr; i++) {
		CHECK_INT_EQ(steps.locs[i].module, once.locs[i].module);
		CHECK_INT_EQ(steps.locs[i].offset, once.locs[i].offset);
		CHECK_INT_EQ(steps.locs[i].input, once.locs[i].input);
	}
	for (i = 1; i < once.stacks_nr; i++) {
		CHECK_INT_EQ(steps.stacks[i].nr, once.stacks[i].nr);
		CHECK(!memcmp(steps.frames + steps.stacks[i].first, once.frames + once.stacks[i].first,
			      once.stacks[i].nr * sizeof(*once.frames)));
	}
	for (i = 0; i < once.samples_nr; i++)
		CHECK_INT_EQ(steps.samples[i].stack, once.samples[i].stack);
	hpa_profile_release(&once);
	hpa_profile_release(&steps);
}

/* A jemalloc dump of stacks[0 .. n) ("leaf ... root" offsets in srv), 1 byte each. */
static void read_dump(struct hpa_profile *p, const char *const *stacks, size_t n)
{
	const unsigned long long exe = 0x555500000000ULL;
	FILE *fp = tmpfile();
	size_t i;

	fprintf(fp, "heap_v2/1\n  t*: %zu: %zu [0: 0]\n", n, n);
	for (i = 0; i < n; i++) {
		const char *q = stacks[i];
		char *end;

		fputs("@", fp);
		for (; *q; q = end)
			fprintf(fp, " 0x%llx", exe + strtoull(q, &end, 16));
		fputs("\n  t*: 1: 1 [0: 0]\n", fp);
	}
	fprintf(fp, "\nMAPPED_LIBRARIES:\n%llx-%llx r-xp 00001000 08:01 1 /usr/bin/srv\n", exe, exe + 0x1000);
	rewind(fp);
	CHECK_INT_EQ(hpa_read_stream(p, fp, "dump"), 0);
	fclose(fp);
}

/*
 * Two dumps of one process, the second read apart and appended (as read
 * ahead): their stacks in jemalloc's order are merged in one walk, else
 * (the second dump's stacks in another order) found through the table;
 * either way the same stacks, ids and samples' stacks.  The second has a
 * stack of the first, one between two of the first, one past the last,
 * and lacks two of the first.
 */
static void test_unify_merged(void)
{
	static const char *const a[] = { "0x10 0x30", "0x10 0x40", "0x20 0x30", "0x20 0x30 0x50" };
	static const char *const b[] = { "0x10 0x30", "0x10 0x38", "0x20 0x30 0x50", "0x60" };
	static const char *const b_shuffled[] = { "0x10 0x38", "0x10 0x30", "0x60", "0x20 0x30 0x50" };
	static const uint32_t want[2][8] = {
		{ 1, 2, 3, 4, 1, 5, 4, 6 },   /* in order: the new ones after the first's */
		{ 1, 2, 3, 4, 5, 1, 6, 4 },
	};
	int k;
	size_t i;

	for (k = 0; k < 2; k++) {
		struct hpa_profile p, second;

		hpa_profile_init(&p);
		hpa_profile_init(&second);
		read_dump(&p, a, HPA_ARRAY_SIZE(a));
		read_dump(&second, k ? b_shuffled : b, HPA_ARRAY_SIZE(b));
		hpa_profile_append(&p, &second);
		hpa_unsample_profile(&p);
		hpa_unify_locations(&p);
		CHECK(p.build->index_stale == !k);   /* merged: no table made */
		CHECK_INT_EQ(p.stacks_nr, 7);
		CHECK_INT_EQ(p.samples_nr, 8);
		for (i = 0; i < p.samples_nr && i < 8; i++)
			CHECK_INT_EQ(p.samples[i].stack, want[k][i]);
		CHECK_INT_EQ(p.stacks[5].nr, 2);
		CHECK_INT_EQ(p.stacks[6].nr, 1);
		CHECK_INT_EQ(p.frames_nr, 2 + 2 + 2 + 3 + 2 + 1);
		CHECK_INT_EQ(p.locs[p.frames[p.stacks[5].first + 1]].addr, 0x555500000038ULL);
		CHECK_INT_EQ(p.locs[p.frames[p.stacks[6].first]].addr, 0x555500000060ULL);
		hpa_profile_release(&p);
	}
}

/*
 * --proto, read back: the same folded stacks and the same total; again with
 * zlib fed 7 bytes at a time both ways (the chunked paths of large files).
 */
static void test_pprof_round_trip(void)
{
	size_t chunk = hpa_zlib_chunk;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		struct hpa_profile p, q;
		struct hpa_opts o = default_opts();
		FILE *fp = tmpfile();
		char *a, *b;

		hpa_zlib_chunk = pass ? 7 : chunk;
		o.base = NULL;
		hpa_profile_init(&p);
		add_input(&p, 0x7f0000000000ULL, 0x555500000000ULL, 300, 20, false);
		hpa_unify_locations(&p);
		name_frames(&p);
		CHECK_INT_EQ(hpa_report_pprof(fp, &p, &(struct hpa_write_opts){ .view = view_opts(&p, &o), .peek = &o.peek, .list = &o.list }), 0);
		CHECK(ftell(fp) > 7 * 4);   /* many chunks on the second pass */
		rewind(fp);
		hpa_profile_init(&q);
		CHECK_INT_EQ(hpa_read_stream(&q, fp, "round.pb.gz"), 0);
		fclose(fp);
		hpa_unify_locations(&q);
		name_frames(&q);
		a = groups_text(&p, &o);
		b = groups_text(&q, &o);
		CHECK_STR_EQ(b, a);
		CHECK_DBL_EQ(hpa_profile_total(&q, HPA_INUSE_SPACE, HPA_THREAD_ALL), 320, 1e-6);
		free(a);
		free(b);
		hpa_profile_release(&p);
		hpa_profile_release(&q);
	}
	hpa_zlib_chunk = chunk;
}

/* A node's name, "all" for the root. */
static const char *node_name(const struct hpa_profile *p, const struct hpa_call_tree *t, uint32_t id)
{
	return id ? hpa_profile_str(p, t->nodes[id].name) : "all";
}

static uint32_t loc_key(void *ctx, const struct hpa_frame *frames, size_t nr, size_t *used)
{
	(void)ctx;
	(void)nr;
	*used = 1;
	return frames[0].loc;
}

/* loc_key()'s whole-location form: the same keys, locations here having one level each. */
static uint32_t whole_key(void *ctx, uint32_t loc, unsigned first)
{
	(void)ctx;
	(void)first;
	return loc;
}

static uint32_t no_key(void *ctx)
{
	(void)ctx;
	return 99;
}

static void test_tree_paths_growth(void)
{
	struct hpa_profile p;
	struct hpa_opts o = default_opts();
	struct hpa_view_opts vo;
	struct hpa_tree_opts to = { HPA_NAME_FULL, HPA_NAME_DISPLAY, false, true, false, 0, 0, 0 };
	struct hpa_call_tree t;
	struct hpa_path_format fmt = { loc_key, no_key, NULL, NULL, NULL };
	struct hpa_growth gr;
	const char *name;
	int len;
	uint32_t c;
	size_t n;
	const double steps[] = { 1, 2, 1, 3 };

	/* Two dumps of one process: 300 + 20 B, then 100 + 50 B (at other addresses). */
	hpa_profile_init(&p);
	add_input(&p, 0x7f0000000000ULL, 0x555500000000ULL, 300, 20, false);
	add_input(&p, 0x7f1230000000ULL, 0x555600000000ULL, 100, 50, false);
	hpa_unify_locations(&p);
	name_frames(&p);
	o.base = NULL;
	vo = view_opts(&p, &o);

	/* Root first: all -> srv -> libfoo+0x2020 -> {0x2010, 0x2040}. */
	hpa_group_tree(&p, &vo, &to, &t);
	CHECK_INT_EQ(t.nr, 5);
	CHECK(!t.diff);
	CHECK_INT_EQ(t.dumps, 2);
	CHECK_DBL_EQ(t.nodes[0].after, 470, 1e-6);
	c = t.nodes[0].child;
	CHECK_STR_EQ(node_name(&p, &t, c), "srv+0x1030");
	CHECK_INT_EQ(t.nodes[c].next, 0);
	CHECK_DBL_EQ(t.nodes[c].after, 470, 1e-6);
	c = t.nodes[c].child;
	CHECK_STR_EQ(node_name(&p, &t, c), "libfoo.so.1+0x2020");
	CHECK_INT_EQ(t.nodes[c].depth, 2);
	for (c = t.nodes[c].child; c; c = t.nodes[c].next) {
		bool first = !strcmp(node_name(&p, &t, c), "libfoo.so.1+0x2010");
		CHECK(first || !strcmp(node_name(&p, &t, c), "libfoo.so.1+0x2040"));
		CHECK_DBL_EQ(t.nodes[c].after, first ? 400 : 70, 1e-6);
		CHECK_DBL_EQ(t.series[c * 2], first ? 300 : 20, 1e-6);
		CHECK_DBL_EQ(t.series[c * 2 + 1], first ? 100 : 50, 1e-6);
		CHECK_INT_EQ(t.nodes[c].child, 0);
	}
	/* Children come in name order, the list too. */
	c = t.nodes[t.nodes[t.nodes[0].child].child].child;
	CHECK_STR_EQ(node_name(&p, &t, c), "libfoo.so.1+0x2010");
	CHECK_STR_EQ(node_name(&p, &t, t.nodes[c].next), "libfoo.so.1+0x2040");
	CHECK_INT_EQ(t.omitted, 0);
	hpa_call_tree_release(&t);

	/* min_share: 70 of 470 is under 16%, so 0x2040 is left out and counted. */
	to.min_share = 0.16;
	hpa_group_tree(&p, &vo, &to, &t);
	CHECK_INT_EQ(t.nr, 4);
	CHECK_INT_EQ(t.omitted, 1);
	c = t.nodes[t.nodes[t.nodes[0].child].child].child;
	CHECK_STR_EQ(node_name(&p, &t, c), "libfoo.so.1+0x2010");
	CHECK_INT_EQ(t.nodes[c].next, 0);
	CHECK(hpa_call_node_shown(&t, c, HPA_INUSE_SPACE, 0.16));
	CHECK(!hpa_call_node_shown(&t, c, HPA_INUSE_SPACE, 0.9));
	/* Under 0.9 of the total: the whole chain below the root is left out. */
	hpa_call_tree_release(&t);
	to.min_share = 0.9;
	hpa_group_tree(&p, &vo, &to, &t);
	CHECK_INT_EQ(t.nr, 3);
	CHECK_INT_EQ(t.omitted, 2);
	to.min_share = 0;
	hpa_call_tree_release(&t);

	/* Leaf first: the two allocation sites under the root, each with its callers. */
	to.leaf_first = true;
	to.per_input = false;
	hpa_group_tree(&p, &vo, &to, &t);
	CHECK_INT_EQ(t.nr, 7);
	CHECK(t.series == NULL);
	for (c = t.nodes[0].child, n = 0; c; c = t.nodes[c].next, n++) {
		uint32_t up = t.nodes[t.nodes[c].child].child;
		CHECK_STR_EQ(node_name(&p, &t, up), "srv+0x1030");
		CHECK_DBL_EQ(t.nodes[up].after, t.nodes[c].after, 1e-6);
	}
	CHECK_INT_EQ(n, 2);
	hpa_call_tree_release(&t);

	/* Key paths: one group per distinct location list, every value type summed; keys as varints. */
	{
		struct hpa_paths *paths = hpa_group_paths(&p, &vo, &fmt, true), *lean;
		/* By location instead of by frame (no filters): the same groups, the same bytes. */
		struct hpa_path_format by_loc = { loc_key, no_key, NULL, whole_key, NULL };
		struct hpa_path_walk w = { 0, 0 }, w2 = { 0, 0 };
		struct hpa_path_group g, g2;
		const uint8_t *keys[2];
		uint8_t saved[2][8];
		size_t klen[2];

		CHECK_INT_EQ(hpa_paths_count(paths), 2);
		for (c = 0; c < p.samples_nr; c++)   /* each sample in its stack's group */
			CHECK_INT_EQ(hpa_paths_group_of(paths)[c], c < 2 ? c + 1 : c - 1);
		for (c = 0; c < 2; c++) {
			CHECK(hpa_paths_next(paths, &w, &g));
			CHECK_INT_EQ(w.g, c + 1);
			keys[c] = hpa_paths_keys(paths, &w, &klen[c]);
			CHECK_INT_EQ(klen[c], 3);   /* three location ids under 128: a byte each, as varints */
			CHECK(keys[c][0] < 0x80 && keys[c][1] < 0x80 && keys[c][2] < 0x80);
			memcpy(saved[c], keys[c], 3);
			CHECK_DBL_EQ(g.v[HPA_INUSE_SPACE], c ? 70 : 400, 1e-6);
			if (!c)
				CHECK_DBL_EQ(g.v[HPA_INUSE_OBJECTS], 2, 1e-6);
		}
		CHECK(!hpa_paths_next(paths, &w, &g));
		CHECK_STR_EQ(hpa_frame_full(&p, names_of(&p), (struct hpa_frame){ saved[0][0], 0 }), "libfoo.so.1+0x2010");
		CHECK_STR_EQ(hpa_frame_full(&p, names_of(&p), (struct hpa_frame){ saved[1][0], 0 }), "libfoo.so.1+0x2040");
		CHECK_INT_EQ(saved[0][2], saved[1][2]);

		lean = hpa_group_paths(&p, &vo, &by_loc, false);
		CHECK_INT_EQ(hpa_paths_count(lean), 2);
		for (c = 0; c < 2; c++) {
			size_t kn;
			const uint8_t *k;

			CHECK(hpa_paths_next(lean, &w2, &g2));
			k = hpa_paths_keys(lean, &w2, &kn);
			CHECK_INT_EQ(kn, 3);
			CHECK(!memcmp(k, saved[c], 3));
			CHECK_DBL_EQ(g2.v[HPA_INUSE_SPACE], c ? 70 : 400, 1e-6);
		}
		CHECK(!hpa_paths_next(lean, &w2, &g2));
		hpa_paths_release(lean);
		hpa_paths_release(paths);
	}

	/* Growth: the stack that grew comes first though the other is larger. */
	CHECK_DBL_EQ(hpa_steadiness(steps, 4, 1), 2.0 / 3, 1e-9);
	CHECK_DBL_EQ(hpa_steadiness(steps, 4, -1), 1.0 / 3, 1e-9);
	hpa_growth(&p, &vo, true, 0, &gr);
	CHECK_INT_EQ(gr.dumps, 2);
	CHECK_INT_EQ(gr.nstacks, 2);
	CHECK_INT_EQ(gr.nfuncs, 2);
	/* Each text is its own here: no text kept, the name is made when asked for. */
	CHECK(!gr.stacks[0].name);
	name = hpa_growth_name(&gr, &gr.stacks[0], &len);
	CHECK_STR_EQ(name, "srv+0x1030;libfoo.so.1+0x2020;libfoo.so.1+0x2040;");
	CHECK_INT_EQ(len, (int)strlen(name) - 1);
	CHECK_DBL_EQ(gr.stacks[0].gain, 30, 1e-6);
	CHECK_DBL_EQ(gr.stacks[0].steady, 1, 1e-9);
	CHECK_DBL_EQ(gr.stacks[1].gain, -200, 1e-6);
	CHECK_DBL_EQ(gr.stacks[1].score, 0, 1e-9);
	name = hpa_growth_name(&gr, &gr.funcs[0], &len);
	CHECK_STR_EQ(name, "libfoo.so.1+0x2040 < ");
	CHECK_INT_EQ(len, (int)strlen(name) - 3);
	hpa_growth_release(&gr);
	hpa_profile_release(&p);
}

/* Location `loc`'s inline chain: n levels of function, file ("" none) and line, innermost first. */
static void set_lines(struct hpa_profile *p, uint32_t loc, size_t n, const char *const *fn,
		      const char *const *file, const uint32_t *line)
{
	struct hpa_line l[4];
	size_t i;

	for (i = 0; i < n; i++) {
		l[i].func = hpa_symbols_intern_function(hpa_profile_symbols(p), p->strs, fn[i], fn[i], file[i]);
		l[i].file = hpa_strtab_intern(p->strs, file[i]);
		l[i].line = line[i];
	}
	hpa_symbols_set_chain(hpa_profile_symbols(p), loc, l, n, HPA_SYM_DWARF);
}

/*
 * The graph's line nodes are found by their parts and named by
 * hpa_graph_name_lines(): two addresses at one line (an inlined call's
 * caller and the function itself) are one node, a frame without a file is
 * "??", a frame without lines is its name alone.  Functions in the same
 * pass have the same flat and cum as a graph of their own, for each value
 * type asked.
 */
static void test_line_parts(void)
{
	static const char prof[] =
		"heap_v2/0\n"
		"@ 0x1010 0x1020 0x1030\n  t*: 1: 100 [0: 0]\n"
		"@ 0x1040 0x1030\n  t*: 1: 20 [0: 0]\n"
		"@ 0x1050 0x1020 0x1030\n  t*: 1: 3 [0: 0]\n"
		"@ 0x1060 0x1040 0x1030\n  t*: 1: 4000 [0: 0]\n"
		"\nMAPPED_LIBRARIES:\n"
		"00001000-00002000 r-xp 00000000 08:01 1 /usr/bin/srv\n";
	static const struct { const char *key; double cum; } want[] = {
		{ "put (inline) a.c:7", 100 }, { "walk a.c:20", 103 }, { "main m.c:3", 4123 },
		{ "get ??:5", 4020 }, { "srv+0x50", 3 }, { "get b.c:9", 4000 },
	};
	static const char *const fn2[] = { "put", "walk" }, *const a2[] = { "a.c", "a.c" };
	static const uint32_t l2[] = { 7, 20 };
	static const char *const fn1[] = { "walk" }, *const a1[] = { "a.c" };
	static const uint32_t l1[] = { 20 };
	static const char *const fm[] = { "main" }, *const am[] = { "m.c" };
	static const uint32_t lm[] = { 3 };
	static const char *const fg[] = { "get" }, *const ag[] = { "" }, *const bg[] = { "b.c" };
	static const uint32_t lg[] = { 5 }, lb[] = { 9 };
	struct hpa_profile p;
	struct hpa_opts o = default_opts();
	struct hpa_view_opts vo;
	struct hpa_graph_spec both = { { HPA_BY_LINE, HPA_BY_FUNCTION }, 2,
				      1u << HPA_INUSE_SPACE | 1u << HPA_INUSE_OBJECTS, true };
	struct hpa_graph_spec funcs = { { HPA_BY_FUNCTION }, 1, 0, false };
	struct hpa_graph g, f;
	const struct hpa_graph_nodes *lines = &g.nodes[0];
	FILE *fp = tmpfile();
	uint32_t loc[7] = { 0 };
	size_t i, j;

	fputs(prof, fp);
	rewind(fp);
	hpa_profile_init(&p);
	CHECK_INT_EQ(hpa_read_stream(&p, fp, "t.heap"), 0);
	fclose(fp);
	hpa_unsample_profile(&p);
	hpa_unify_locations(&p);
	for (i = 1; i <= 6; i++)
		for (j = 1; j < p.locs_nr; j++)
			if (p.locs[j].addr == 0x1000 + 0x10 * i)
				loc[i] = (uint32_t)j;
	for (i = 1; i <= 6; i++)
		CHECK(loc[i] != 0);
	set_lines(&p, loc[1], 2, fn2, a2, l2);   /* put inlined into walk, at walk's a.c:20 */
	set_lines(&p, loc[2], 1, fn1, a1, l1);   /* walk's own call at the same line */
	set_lines(&p, loc[3], 1, fm, am, lm);
	set_lines(&p, loc[4], 1, fg, ag, lg);    /* no file */
	set_lines(&p, loc[6], 1, fg, bg, lb);    /* 0x1050 has no lines */
	name_frames(&p);
	o.base = NULL;
	vo = view_opts(&p, &o);
	hpa_graph_build(&p, &vo, &both, &g);
	CHECK(lines->parts != NULL && g.nodes[1].parts == NULL);
	CHECK(lines->flat[HPA_ALLOC_SPACE] == NULL && lines->flat[HPA_INUSE_OBJECTS] != NULL);
	CHECK_INT_EQ(lines->keys.nr, 1 + 1 + HPA_ARRAY_SIZE(want));   /* "" and "<no stack>" too */
	for (i = 1; i < lines->keys.nr; i++)   /* a line's text is made on request */
		CHECK(!lines->parts[i].is_line || !*hpa_strtab_get(&lines->keys, (uint32_t)i));
	hpa_graph_name_lines(&g, &p);
	for (i = 0; i < HPA_ARRAY_SIZE(want); i++) {   /* the nodes themselves, and cum counted once */
		for (j = 1; j < lines->keys.nr && strcmp(hpa_strtab_get(&lines->keys, (uint32_t)j), want[i].key); j++)
			;
		CHECK(j < lines->keys.nr);
		if (j < lines->keys.nr) {
			CHECK_DBL_EQ(lines->cum[HPA_INUSE_SPACE][j], want[i].cum, 1e-6);
			CHECK_INT_EQ(lines->parts[j].is_line, strcmp(want[i].key, "srv+0x50") != 0);
		}
	}
	CHECK_DBL_EQ(lines->total[HPA_INUSE_SPACE], 4123, 1e-6);
	CHECK_DBL_EQ(lines->total[HPA_INUSE_OBJECTS], 4, 1e-6);
	hpa_graph_build(&p, &vo, &funcs, &f);   /* the view's value: inuse_space */
	CHECK_INT_EQ(f.values, 1u << HPA_INUSE_SPACE);
	CHECK_INT_EQ(f.nodes[0].keys.nr, g.nodes[1].keys.nr);
	for (i = 1; i < f.nodes[0].keys.nr && i < g.nodes[1].keys.nr; i++) {
		CHECK_STR_EQ(hpa_strtab_get(&f.nodes[0].keys, (uint32_t)i),
			     hpa_strtab_get(&g.nodes[1].keys, (uint32_t)i));
		CHECK_DBL_EQ(f.nodes[0].flat[HPA_INUSE_SPACE][i], g.nodes[1].flat[HPA_INUSE_SPACE][i], 0);
		CHECK_DBL_EQ(f.nodes[0].cum[HPA_INUSE_SPACE][i], g.nodes[1].cum[HPA_INUSE_SPACE][i], 0);
	}
	CHECK(g.nedges > 0 && f.nedges == 0 && f.edges[HPA_INUSE_SPACE] == NULL);
	for (i = 0; i < g.nedges; i++) {   /* each value type's edges: the same calls */
		CHECK_INT_EQ(g.edges[HPA_INUSE_SPACE][i].caller, g.edges[HPA_INUSE_OBJECTS][i].caller);
		CHECK_INT_EQ(g.edges[HPA_INUSE_SPACE][i].callee, g.edges[HPA_INUSE_OBJECTS][i].callee);
		CHECK(g.edges[HPA_INUSE_SPACE][i].caller != g.edges[HPA_INUSE_SPACE][i].callee);
	}
	hpa_graph_release(&g);
	hpa_graph_release(&f);
	hpa_profile_release(&p);
}

/* The stacks written to fp, /usr/bin/srv mapped at exe, read into p (closed), unsampled and unified. */
static void read_srv(struct hpa_profile *p, FILE *fp, unsigned long long exe)
{
	fprintf(fp, "\nMAPPED_LIBRARIES:\n%llx-%llx r-xp 00001000 08:01 1 /usr/bin/srv\n", exe, exe + 0x3000);
	rewind(fp);
	hpa_profile_init(p);
	CHECK_INT_EQ(hpa_read_stream(p, fp, "profile"), 0);
	fclose(fp);
	hpa_unsample_profile(p);
	hpa_unify_locations(p);
}

/*
 * Nodes left out under the min_share (--html's "branches left out"): the
 * tops only, each counted once in the tree and in its parent's left_out[],
 * and nothing under them.  Under B (5 B), five stacks of one to four
 * frames more, with shared callers and one that ends at B; under H (21 B),
 * 20 callees and one more under the first.  Root first, as --html's tree:
 * main -> A -> leaf holds the rest, B and H are main's.
 */
static void test_tree_omitted(void)
{
	static const char *const under_b[] = { "0x400 0x300", "0x500 0x300", "0x600 0x400 0x300", "0x700", "" };
	struct hpa_profile p;
	struct hpa_opts o = default_opts();
	struct hpa_view_opts vo;
	struct hpa_tree_opts to = { HPA_NAME_FULL, HPA_NAME_DISPLAY, false, false, false, 1e-4, 0, 0 };
	struct hpa_call_tree t;
	const unsigned long long exe = 0x555500000000ULL;
	FILE *fp = tmpfile();
	size_t i;

	fprintf(fp, "heap_v2/1\n  t*: 27: 1000026 [0: 0]\n");
	fprintf(fp, "@ 0x%llx 0x%llx 0x%llx\n  t*: 1: 1000000 [0: 0]\n", exe + 0x110, exe + 0x100, exe + 0x30);
	for (i = 0; i < HPA_ARRAY_SIZE(under_b); i++) {   /* callee first: B's callees, B, main */
		unsigned long long a;
		char *end;
		const char *q = under_b[i];

		fputs("@", fp);
		for (; *q; q = end) {
			a = strtoull(q, &end, 16);
			fprintf(fp, " 0x%llx", exe + a);
		}
		fprintf(fp, " 0x%llx 0x%llx\n  t*: 1: 1 [0: 0]\n", exe + 0x200, exe + 0x30);
	}
	for (i = 0; i < 20; i++)   /* H's 20 callees, the first with one more */
		fprintf(fp, "@%s 0x%llx 0x%llx 0x%llx\n  t*: 1: 1 [0: 0]\n", i ? "" : " 0x555500002000",
			exe + 0x1000 + i * 0x10, exe + 0x800, exe + 0x30);
	read_srv(&p, fp, exe);
	name_frames(&p);
	vo = view_opts(&p, &o);
	hpa_group_tree(&p, &vo, &to, &t);
	CHECK_INT_EQ(t.nr, 4);   /* the root, main, A, the leaf */
	CHECK_INT_EQ(t.omitted, 2);   /* B and H, not what is under them */
	CHECK(t.left_out != NULL);
	CHECK_INT_EQ(t.nodes[1].depth, 1);   /* main */
	CHECK_INT_EQ(t.left_out[0], 0);
	CHECK_INT_EQ(t.left_out[1], 2);
	CHECK_INT_EQ(t.left_out[2] + t.left_out[3], 0);
	hpa_call_tree_release(&t);
	hpa_profile_release(&p);
}


/*
 * Tree node mi of m (made with min_share) against node fi of f (the same
 * tree without): m's children are f's, in order, less those left out,
 * which mi's left_out[] counts.  Returns the nodes left out at and under mi.
 */
static size_t check_left_out(const struct hpa_call_tree *m, uint32_t mi, const struct hpa_call_tree *f,
			     uint32_t fi)
{
	size_t under = 0, missing = 0;
	uint32_t mc = m->nodes[mi].child, fc;

	for (fc = f->nodes[fi].child; fc; fc = f->nodes[fc].next) {
		if (mc && m->nodes[mc].name == f->nodes[fc].name) {
			CHECK(m->nodes[mc].after == f->nodes[fc].after);
			under += check_left_out(m, mc, f, fc);
			mc = m->nodes[mc].next;
		} else {
			missing++;
		}
	}
	CHECK_INT_EQ(mc, 0);   /* every child made is f's */
	CHECK_INT_EQ(m->left_out[mi], missing);
	return under + missing;
}

/*
 * Branches left out by a tree whose walk a second thread shares (6,000
 * stacks: three large callers under the root, so that the walk forks
 * there, and 120 stacks of one sample each after them in name order,
 * left out under the root by whichever thread walks them).  Each node's
 * left_out[] is the number of its children in the whole tree that were
 * not made, the ancestors' of a forked stretch too.
 */
static void test_tree_left_out_forked(void)
{
	const unsigned long long exe = 0x555500000000ULL;
	struct hpa_profile p;
	struct hpa_opts o = default_opts();
	struct hpa_view_opts vo;
	struct hpa_tree_opts to = { HPA_NAME_FULL, HPA_NAME_DISPLAY, false, false, false, 1e-3, 0, 0 };
	struct hpa_call_tree m, f;
	uint32_t x = 4321;
	FILE *fp = tmpfile();
	size_t i;

	fprintf(fp, "heap_v2/1\n  t*: 6000: 60000000 [0: 0]\n");
	for (i = 0; i < 6000; i++) {   /* leaf first: 1 to 7 frames, then the root's caller */
		size_t depth = 1 + i % 7, d;

		fputs("@", fp);
		for (d = 0; d < depth; d++) {
			x = x * 1103515245u + 12345u;
			fprintf(fp, " 0x%llx", exe + 0x400 + 0x10 * ((x >> 16) % 60));
		}
		if (i % 50 == 0)   /* a stack of its own under the root */
			fprintf(fp, " 0x%llx\n  t*: 1: 100 [0: 0]\n", exe + 0x1000 + 0x10 * (i / 50));
		else
			fprintf(fp, " 0x%llx\n  t*: 1: %zu [0: 0]\n", exe + 0x100 + 0x10 * (i % 3),
				1000 + (i * 7919) % 50000);
	}
	read_srv(&p, fp, exe);
	name_frames(&p);
	vo = view_opts(&p, &o);
	hpa_group_tree(&p, &vo, &to, &m);
	to.min_share = 0;
	hpa_group_tree(&p, &vo, &to, &f);
	CHECK(f.left_out == NULL);
	CHECK_INT_EQ(f.omitted, 0);
	CHECK(m.nr > 100 && m.nr < f.nr);
	CHECK(m.left_out[0] >= 120);   /* the 120 under the root, at least */
	CHECK_INT_EQ(check_left_out(&m, 0, &f, 0), m.omitted);
	CHECK(m.omitted > 1000);
	hpa_call_tree_release(&m);
	hpa_call_tree_release(&f);
	hpa_profile_release(&p);
}
/* What a series did (growth.h): each class from a series shaped for it, and R^2. */
static void test_growth_classes(void)
{
	static const struct { double v[6]; size_t n; enum hpa_growth_class want; } c[] = {
		{ { 10, 20, 30, 40, 50, 60 }, 6, HPA_GROWTH_LEAK },
		{ { 10, 20, 30, 30, 40, 50 }, 6, HPA_GROWTH_LEAK },         /* one pause */
		{ { 100, 100, 566 }, 3, HPA_GROWTH_LEAK },                  /* grew, never fell */
		{ { 10, 20 }, 2, HPA_GROWTH_LEAK },
		{ { 0, 50, 100, 100, 100, 100 }, 6, HPA_GROWTH_PLATEAU },   /* a cache filled */
		{ { 100, 3000, 3000, 3000 }, 4, HPA_GROWTH_PLATEAU },
		{ { 1000, 3000, 800, 1200 }, 4, HPA_GROWTH_CHURN },
		{ { 50, 10, 60, 20, 70, 30 }, 6, HPA_GROWTH_CHURN },        /* 2 of 5 steps down: no line */
		{ { 60, 50, 40, 30, 20, 10 }, 6, HPA_GROWTH_SHRINK },
		{ { 100, 100, 100 }, 3, HPA_GROWTH_FLAT },
		{ { 1000, 1004, 998, 1001 }, 4, HPA_GROWTH_FLAT },          /* under 1% a step */
		{ { 5 }, 1, HPA_GROWTH_FLAT },
	};
	double r2;
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(c); i++) {
		enum hpa_growth_class got = hpa_growth_classify(c[i].v, c[i].n, &r2);
		if (got != c[i].want)
			fprintf(stderr, "case %zu: %s, not %s\n", i, hpa_growth_class_name(got),
				hpa_growth_class_name(c[i].want));
		CHECK_INT_EQ(got, c[i].want);
	}
	hpa_growth_classify(c[0].v, 6, &r2);
	CHECK_DBL_EQ(r2, 1, 1e-12);
	hpa_growth_classify(c[6].v, 4, &r2);
	CHECK_DBL_EQ(r2, 640000.0 / (5 * 3080000.0), 1e-9);
	CHECK_STR_EQ(hpa_growth_class_name(HPA_GROWTH_PLATEAU), "plateau");
}

/*
 * A series folded as it is read: one sample per stack, its values the sum
 * of the dumps', and per dump what changed (0 where a dump lacks a stack).
 */
static void test_fold_dumps(void)
{
	struct hpa_profile p;
	uint64_t a[] = { 0x10 }, b[] = { 0x20 }, c[] = { 0x30 };
	/* per dump: stack a, b, c values of inuse_space (0: absent) */
	static const double dumps[3][3] = { { 100, 50, 0 }, { 200, 50, 7 }, { 300, 0, 7 } };
	uint32_t st[3];
	size_t d, k, mark;

	hpa_profile_init(&p);
	for (d = 0; d < 3; d++) {
		hpa_profile_add_input(&p, "dump");
		if (!d) {
			st[0] = hpa_profile_add_stack(&p, a, 1);
			st[1] = hpa_profile_add_stack(&p, b, 1);
			st[2] = hpa_profile_add_stack(&p, c, 1);
		}
		mark = p.samples_nr;
		for (k = 0; k < 3; k++) {
			double v[HPA_NVALUES] = { 0 };
			if (!dumps[d][k])
				continue;
			v[HPA_INUSE_SPACE] = dumps[d][k];
			v[HPA_INUSE_OBJECTS] = 1;
			hpa_profile_add_sample(&p, st[k], HPA_THREAD_ALL, (uint32_t)d + 1, v);
		}
		hpa_profile_fold_dump(&p, mark, 1u << HPA_INUSE_SPACE);
	}
	CHECK_INT_EQ(p.samples_nr, 3);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_SPACE], 600, 0);   /* the sum: totals as before */
	CHECK_DBL_EQ(p.samples[1].v[HPA_INUSE_SPACE], 100, 0);
	CHECK_DBL_EQ(p.samples[2].v[HPA_INUSE_SPACE], 14, 0);
	CHECK_DBL_EQ(p.samples[0].v[HPA_INUSE_OBJECTS], 3, 0);
	CHECK_INT_EQ(p.samples[2].input, 2);                       /* the first dump that had it */
	CHECK_INT_EQ(p.changes->dumps, 3);
	CHECK_INT_EQ(p.changes->nvalues, 1);
	/* dump 1: a 100, b 50; dump 2: a 200, c 7; dump 3: a 300, b 0 */
	CHECK_INT_EQ(p.changes->first[1], 2);
	CHECK_INT_EQ(p.changes->first[2], 4);
	CHECK_INT_EQ(p.changes->first[3], 6);
	CHECK_INT_EQ(p.changes->prev[2], 1);                        /* a: after its entry in dump 1 */
	CHECK_DBL_EQ(p.changes->v[2], 200, 0);
	CHECK_INT_EQ(p.changes->prev[3], 0);                        /* c: new */
	CHECK_DBL_EQ(p.changes->v[3], 7, 0);
	CHECK_INT_EQ(p.changes->prev[5], 2);                        /* b: gone, after its dump 1 entry */
	CHECK_DBL_EQ(p.changes->v[5], 0, 0);
	CHECK_INT_EQ(p.changes->last[0], 5);
	CHECK_INT_EQ(p.changes->last[1], 6);
	CHECK_INT_EQ(p.changes->last[2], 4);
	for (k = 0; k < 3; k++) {   /* each stack's series, as the dumps had it */
		double series[3] = { 0, 0, 0 };
		hpa_sample_add_series(&p, (uint32_t)k, HPA_INUSE_SPACE, 1, series);
		for (d = 0; d < 3; d++)
			CHECK_DBL_EQ(series[d], dumps[d][k], 0);
	}
	hpa_profile_release(&p);
}

/*
 * Waste (waste.h): two bins and the pad pages sum to active - allocated;
 * a class's empty bytes are shared by its sites' objects; a large site is
 * charged its pad page; the profiler's promoted objects are counted from
 * the dump's recorded objects.
 */
static void test_waste(void)
{
	struct hpa_je_bin bins[] = {
		{ 64, 64, 4096, 100, 4 },     /* 4 slabs of 64 regions, 100 live: 156 x 64 empty */
		{ 1536, 8, 12288, 8, 1 },     /* full */
		{ 2560, 8, 20480, 0, 0 },     /* no slab: no row */
	};
	struct hpa_alloc_stats st;
	struct hpa_profile p;
	struct hpa_waste w;
	uint64_t a[] = { 0x10 }, b[] = { 0x20 }, c[] = { 0x30 };
	double va[HPA_NVALUES] = { 0 }, vb[HPA_NVALUES] = { 0 }, vc[HPA_NVALUES] = { 0 };

	memset(&st, 0, sizeof(st));
	st.allocator = HPA_ALLOC_JEMALLOC;
	st.page = 4096;
	st.cache_oblivious = true;
	st.bins = bins;
	st.bins_nr = 3;
	st.allocated = 100 * 64 + 8 * 1536 + 2 * 40960;
	st.active = 4 * 4096 + 12288 + 2 * (40960 + 4096);
	hpa_profile_init(&p);
	hpa_profile_add_input(&p, "dump");
	p.inputs[0].format = HPA_FORMAT_JEMALLOC;
	p.inputs[0].sampling = HPA_SAMPLING_NONE;
	va[HPA_INUSE_OBJECTS] = 75, va[HPA_INUSE_SPACE] = 75 * 64;     /* 3/4 of the 64-byte objects */
	vb[HPA_INUSE_OBJECTS] = 25, vb[HPA_INUSE_SPACE] = 25 * 66;     /* mixed sizes, averaging near 64 */
	vc[HPA_INUSE_OBJECTS] = 2, vc[HPA_INUSE_SPACE] = 2 * 40960;    /* large */
	hpa_profile_add_sample(&p, hpa_profile_add_stack(&p, a, 1), HPA_THREAD_ALL, 1, va);
	hpa_profile_add_sample(&p, hpa_profile_add_stack(&p, b, 1), HPA_THREAD_ALL, 1, vb);
	hpa_profile_add_sample(&p, hpa_profile_add_stack(&p, c, 1), HPA_THREAD_ALL, 1, vc);
	hpa_waste_compute(&st, &p, NULL, &w);
	CHECK_INT_EQ(w.classes_nr, 2);
	CHECK_INT_EQ(w.classes[0].size, 64);
	CHECK_INT_EQ(w.classes[0].empty, 156 * 64);
	CHECK_INT_EQ(w.classes[0].regions, 256);
	CHECK_INT_EQ(w.classes[1].empty, 0);
	CHECK_INT_EQ(w.total, st.active - st.allocated);
	CHECK_INT_EQ(w.rest, 2 * 4096);                               /* the pad pages */
	CHECK_INT_EQ(w.classes[0].empty + w.classes[1].empty + w.rest, w.total);
	CHECK_INT_EQ(w.class_of[0], 1);
	CHECK_INT_EQ(w.class_of[1], 1);
	CHECK_INT_EQ(w.class_of[2], 0);
	CHECK_DBL_EQ(w.empty[0], 156 * 64 * 0.75, 1e-9);
	CHECK_DBL_EQ(w.empty[1], 156 * 64 * 0.25, 1e-9);
	CHECK_DBL_EQ(w.empty[2], 2 * 4096, 0);
	CHECK_INT_EQ(w.one_size[0], 1);
	CHECK_INT_EQ(w.one_size[1], 0);                                /* 66 is 3.1% off 64 */
	CHECK_DBL_EQ(w.profiler, 0, 0);                                /* not sampled: nothing promoted */
	hpa_waste_release(&w);

	/* Sampled at 2^12: the 64-byte sites' recorded objects each sit in a 16 KiB extent. */
	p.inputs[0].sampling = HPA_SAMPLING_V2;
	p.inputs[0].period = 4096;
	hpa_waste_compute(&st, &p, NULL, &w);
	{
		double k = 1 / (1 - exp(-64.0 / 4096)), kb = 1 / (1 - exp(-66.0 / 4096));
		CHECK_DBL_EQ(w.profiler_objects, 75 / k + 25 / kb, 1e-9);
		CHECK_DBL_EQ(w.profiler, (75 / k + 25 / kb) * (16384 - 64), 1e-6);
	}
	CHECK_INT_EQ(hpa_waste_class_for(&w, 68), 1);                 /* within 7% of 64 */
	CHECK_INT_EQ(hpa_waste_class_for(&w, 100), 0);                /* no bin of the statistics */
	hpa_waste_release(&w);
	hpa_profile_release(&p);
}

int main(void)
{
	test_waste();
	test_fold_dumps();
	test_growth_classes();
	test_line_parts();
	test_identity_and_grouping();
	test_two_modules_one_address();
	test_unify_so_far();
	test_unify_merged();
	test_tree_paths_growth();
	test_tree_omitted();
	test_tree_left_out_forked();
	test_pprof_round_trip();
	TEST_MAIN_END();
}
