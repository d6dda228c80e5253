/*
 * The --html page's data as it is written (html.c, page.c): JSON pieces
 * spilled to the file as they are made, one table of strings, and the
 * call trees.  Private to src/write.
 */
#ifndef HPA_WRITE_PAGE_H
#define HPA_WRITE_PAGE_H

#include <math.h>
#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/group.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

/* Flame graph nodes narrower than this share of the total are left out. */
#define TREE_MIN_SHARE 2e-5

struct page {
	struct hpa_strbuf sb;        /* the JSON not yet written to fp (see spill) */
	FILE *fp;
	struct hpa_strtab strs;      /* every name the page shows; id = index in "s" */
	uint32_t *of_prof_str;       /* profile string id -> id in strs + 1, once looked up; made with the page */
	const struct hpa_profile *prof;
	const struct hpa_write_opts *opts;
};

/*
 * The page's JSON goes to the file as it is made, a piece at a time: held
 * whole, the data of a 7.5k-stack profile (3.7 MB) was memory written once
 * and copied each time it doubled.
 */
#define SPILL (64 * 1024)

static inline void spill(struct page *pg)
{
	if (pg->sb.len < SPILL || !pg->fp)   /* no file: a piece kept for later */
		return;
	fwrite(pg->sb.buf, 1, pg->sb.len, pg->fp);
	pg->sb.len = 0;
	pg->sb.buf[0] = '\0';
}

/* An integer in decimal, without printf (a page holds millions of them). */
static inline void jint(struct hpa_strbuf *sb, long long v)
{
	hpa_sb_add_int(sb, v);
}

/*
 * Whether v is an integer that "%.0f" writes as one (below 1e15, not -0),
 * *i: a conversion and a compare, where floor() is a call (200k numbers
 * in a 7.5k-stack page).
 */
static inline bool int_of(double v, long long *i)
{
	if (!(fabs(v) < 1e15))
		return false;
	*i = (long long)v;
	return (double)*i == v && !(*i == 0 && signbit(v));
}

/* As printf's "%.0f": integral values (most) directly, the others by hpa_fixed(), not printf. */
static inline void jfix0(struct hpa_strbuf *sb, double v)
{
	char buf[HPA_FIXED_MAX];
	long long i;

	if (int_of(v, &i))
		jint(sb, i);
	else
		hpa_sb_add(sb, buf, hpa_fixed(buf, v, 0));
}

/* A number, exact: integers as such, others with 17 digits (JavaScript reads them back). */
static inline void jnum(struct hpa_strbuf *sb, double v)
{
	char buf[HPA_FIXED_MAX];
	long long i;

	v = hpa_dust_to_zero(v);   /* never -0 */
	if (int_of(v, &i))
		jint(sb, i);
	else if (isfinite(v))
		hpa_sb_add(sb, buf, hpa_g17(buf, v));
	else
		hpa_sb_adds(sb, "0");
}

/* The page's id of a string, and of a profile string (each looked up once). */
uint32_t str_id(struct page *pg, const char *s);
uint32_t prof_str_id(struct page *pg, uint32_t id);

/*
 * A call tree as the page reads it (page.c: emit_tree): `type` picks the
 * column of a tree built with all_values; `types` (a mask; 0 for `type`
 * alone) are the types whose shown nodes it keeps; with `after_only`, a
 * later type's writes just its after column.
 */
void emit_tree(struct page *pg, const struct hpa_call_tree *t, int type, unsigned types,
	       bool after_only);

/* The call tree of one view and value, made and written (see emit_tree). */
void page_tree(struct page *pg, const struct hpa_view_opts *vo, bool series);

/*
 * Lists of samples, each ascending: a thread's views visit its own, not
 * every sample of every thread (a server's profile has dozens of threads),
 * and a dump's its own.
 */

struct sample_lists {
	uint32_t **list;
	size_t *nr;
	size_t lists;
};

/* The samples of each of the first nthr threads. */
void thread_samples(const struct hpa_profile *prof, size_t nthr, struct sample_lists *ts);
/* The samples of each dump (input) of a series. */
void dump_samples(const struct hpa_profile *prof, struct sample_lists *ds);
void sample_lists_release(struct sample_lists *sl);
/* View vo narrowed to list k of sl. */
struct hpa_view_opts only_view(struct hpa_view_opts vo, const struct sample_lists *sl, size_t k);

#endif
