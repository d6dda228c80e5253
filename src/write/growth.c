/*
 * --growth's own tables: the growth pass's (growth.h) ranked series as
 * text, as CSV, or as folded stacks of the gain (--collapse).
 */
#include "hpa/compat.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/growth.h"
#include "hpa/series.h"
#include "hpa/stats.h"
#include "hpa/waste.h"
#include "hpa/xalloc.h"
#include "hpa/report.h"

/* The rows a table shows: --nodecount, 20 by default. */
static size_t table_rows(const struct hpa_write_opts *opts)
{
	return opts->nodecount ? (size_t)opts->nodecount : 20;
}

/* Whether series s's growth is expected: its text (a function's name, a stack's frames) matches --expect-growth. */
static bool expected(struct hpa_growth *g, const struct hpa_series *s, const struct hpa_filter_re *re)
{
	int len;
	const char *name;
	char *copy;
	bool match;

	if (!re || !re->set)
		return false;
	name = hpa_growth_name(g, s, &len);
	copy = xstrndup(name, (size_t)len);
	match = regexec(&re->re, copy, 0, NULL, 0) == 0;
	free(copy);
	return match;
}

/*
 * Per row, whether its growth is expected (--expect-growth); NULL without
 * it (then rows past the first `limit` may not be there: hpa_growth's
 * `ranked`).
 */
static bool *expected_rows(struct hpa_growth *g, const struct hpa_series *rows, size_t nr,
			   const struct hpa_filter_re *re)
{
	bool *exp;
	size_t i;

	if (!re || !re->set)
		return NULL;
	exp = xcalloc(nr + 1, sizeof(*exp));
	for (i = 0; i < nr; i++)
		exp[i] = expected(g, &rows[i], re);
	return exp;
}

/*
 * The first rows of a table: those whose growth is not expected (`exp`:
 * expected_rows(), NULL all of them), or (`apart`) those whose growth is,
 * under a heading of their own.
 */
static void table(FILE *fp, struct hpa_growth *g, const struct hpa_series *rows, size_t nr,
		  const bool *exp, const char *what, bool apart, const struct hpa_write_opts *opts)
{
	size_t i, d, n = 0, shown = 0, limit = table_rows(opts);
	const struct hpa_filter_re *re = opts->expect_growth;
	char num[48];

	for (i = 0; exp && i < nr; i++)
		n += exp[i] == apart;
	if (!exp)
		n = apart ? 0 : nr;
	if (apart && !n)
		return;
	if (apart)
		fprintf(fp, "\n%s whose growth is expected (--expect-growth '%s'):\n%10s %10s %6s %-8s %4s",
			what, re->src ? re->src : "", "gain", "slope", "grew", "class", "R2");
	else
		fprintf(fp, "\n%s, leaks first, then by steady growth:\n%10s %10s %6s %-8s %4s", what, "gain",
			"slope", "grew", "class", "R2");
	for (d = 0; d < g->dumps; d++)
		fprintf(fp, " %10s%zu", "dump", d + 1);
	fputs("  name\n", fp);
	for (i = 0; i < nr && shown < limit; i++) {
		const struct hpa_series *s = &rows[i];

		if (exp && exp[i] != apart)
			continue;
		shown++;
		hpa_format_value(num, sizeof(num), s->gain, opts);
		fprintf(fp, "%10s ", num);
		hpa_format_value(num, sizeof(num), s->slope, opts);
		fprintf(fp, "%10s %5.0f%% %-8s %4.2f", num, s->steady * 100,
			hpa_growth_class_name((enum hpa_growth_class)s->cls), s->r2);
		for (d = 0; d < g->dumps; d++) {
			hpa_format_value(num, sizeof(num), s->v[d], opts);
			fprintf(fp, " %11s", num);
		}
		{
			int len;
			const char *name = hpa_growth_name(g, s, &len);
			fprintf(fp, "  %.*s\n", len, name);
		}
	}
	if (n > limit)
		fprintf(fp, "(%zu more; --nodecount N shows N, --csv all)\n", n - limit);
}

static void csv_rows(FILE *fp, struct hpa_growth *g, const struct hpa_series *rows, size_t nr,
		     const char *kind, const struct hpa_filter_re *re)
{
	size_t i, d;

	for (i = 0; i < nr; i++) {
		int len;
		const char *name = hpa_growth_name(g, &rows[i], &len);

		fprintf(fp, "%s,", kind);
		hpa_csv_field(fp, name, len);
		fprintf(fp, ",%.0f,%.2f,%.4f,%s,%.4f,%d", rows[i].gain, rows[i].slope, rows[i].steady,
			hpa_growth_class_name((enum hpa_growth_class)rows[i].cls), rows[i].r2,
			expected(g, &rows[i], re));
		for (d = 0; d < g->dumps; d++)
			fprintf(fp, ",%.0f", rows[i].v[d]);
		fputc('\n', fp);
	}
}

/*
 * Hours from the first dump to the last, when every dump records its own
 * time (a pprof file's, a fetch's) and each is at least a second after the
 * one before; else 0.
 */
static double hours_spanned(const struct hpa_profile *prof, size_t dumps)
{
	size_t i;

	for (i = 0; i < dumps; i++)
		if (!prof->inputs[i].time_nanos || prof->inputs[i].time_of_file ||
		    (i && prof->inputs[i].time_nanos - prof->inputs[i - 1].time_nanos < 1000000000))
			return 0;
	return dumps > 1 ? (double)(prof->inputs[dumps - 1].time_nanos - prof->inputs[0].time_nanos) / 3.6e12 : 0;
}

/* The whole profile's class, change, slope (per hour too, when the dumps' times say) and R^2. */
static void whole_line(FILE *fp, const struct hpa_profile *prof, const struct hpa_series *t,
		       const struct hpa_write_opts *opts)
{
	double hours = hours_spanned(prof, prof->inputs_nr);
	char gain[48], slope[48], hourly[48];

	hpa_format_value(gain, sizeof(gain), t->gain, opts);
	hpa_format_value(slope, sizeof(slope), t->slope, opts);
	fprintf(fp, "The whole profile: %s, %s%s (%s%s per dump", hpa_growth_class_name((enum hpa_growth_class)t->cls),
		t->gain > 0 ? "+" : "", gain, t->slope > 0 ? "+" : "", slope);
	if (hours > 0) {
		hpa_format_value(hourly, sizeof(hourly), t->slope * (double)(prof->inputs_nr - 1) / hours, opts);
		fprintf(fp, ", %s%s per hour", t->slope > 0 ? "+" : "", hourly);
	}
	fprintf(fp, ", R2 %.2f)\n", t->r2);
}

static const char *const alloc_what[] = { "in use", "size-class and page waste", "free pages kept",
					 "metadata" };

/*
 * The allocator's figures' changes from dump a to dump b, when both have
 * its statistics beside them (--watch --stats), into d (by alloc_what;
 * NAN where it does not say); false without them.  Returns in *most the
 * part of d[1..3] that grew most, -1 none.
 */
static bool alloc_change(const struct hpa_input *a, const struct hpa_input *b, double d[4], int *most)
{
	int k;

	*most = -1;
	if (a->alloc_live < 0 || b->alloc_live < 0)
		return false;
	d[0] = b->alloc_live - a->alloc_live;
	d[1] = a->alloc_frag < 0 || b->alloc_frag < 0 ? NAN : b->alloc_frag - a->alloc_frag;
	d[2] = b->alloc_free - a->alloc_free;
	d[3] = b->alloc_meta - a->alloc_meta;
	for (k = 1; k < 4; k++)
		if (d[k] > 0 && (*most < 0 || d[k] > d[*most]))
			*most = k;
	return true;
}

/*
 * RSS beside the profile, when every dump has the watcher's record of it
 * (--watch --pid): whether RSS grew with the profile's in-use bytes or
 * without them.  Growth outside the profile is the allocator's
 * (retention, fragmentation: its statistics beside the dumps say which,
 * --watch --stats) or memory no allocator's profile sees.
 */
static void rss_line(FILE *fp, const struct hpa_profile *prof, const struct hpa_series *t,
		     const struct hpa_write_opts *opts)
{
	size_t i, n = prof->inputs_nr;
	double rss, grew, d[4];
	char a[48], b[48], v[48], p[48];
	int most, k;
	bool known;

	for (i = 0; i < n; i++)
		if (prof->inputs[i].rss_bytes < 0 || prof->inputs[i].is_base)
			return;
	if (n < 2)
		return;
	rss = prof->inputs[n - 1].rss_bytes;
	grew = rss - prof->inputs[0].rss_bytes;
	hpa_format_value(a, sizeof(a), prof->inputs[0].rss_bytes, opts);
	hpa_format_value(b, sizeof(b), rss, opts);
	hpa_format_value(v, sizeof(v), grew, opts);
	fprintf(fp, "RSS: %s%s (%s -> %s)", grew > 0 ? "+" : "", v, a, b);
	known = alloc_change(&prof->inputs[0], &prof->inputs[n - 1], d, &most);
	if (opts->view.value == HPA_INUSE_SPACE) {
		hpa_format_value(p, sizeof(p), t->gain, opts);
		fprintf(fp, "; the profile %s%s: ", t->gain > 0 ? "+" : "", p);
		if (grew <= 0)
			fputs("RSS did not grow", fp);
		else if (t->gain >= grew / 2)
			fputs("RSS grew with the profile", fp);
		else if (most >= 0) {
			hpa_format_value(v, sizeof(v), d[most], opts);
			fprintf(fp, "the growth is outside the profile, in the allocator: mostly %s (+%s); "
				"see --stats %s%s", alloc_what[most], v, prof->inputs[n - 1].path, HPA_STATS_SUFFIX);
		} else
			fputs("the growth is outside the profile (allocator retention or fragmentation, or "
			      "memory no allocator profile sees); see --stats", fp);
	}
	fputs("\n", fp);
	if (!known)
		return;
	fputs("Allocator (its statistics beside the first and last dump):", fp);
	for (k = 0; k < 4; k++) {
		if (isnan(d[k]))
			continue;
		hpa_format_value(v, sizeof(v), d[k], opts);
		fprintf(fp, "%s %s %s%s", k ? "," : "", alloc_what[k], d[k] > 0 ? "+" : "", v);
	}
	fputs("\n", fp);
}

/* A size class whose empty space grew from the first dump to the last. */
struct grown_class {
	uint64_t size;          /* 0: the pad pages of large extents (tcmalloc: span tails) */
	uint32_t klass;         /* in the last dump's waste, index + 1; 0 for the rest */
	double first, last;
};

static int cmp_grown(const void *pa, const void *pb)
{
	const struct grown_class *a = pa, *b = pb;
	double x = a->last - a->first, y = b->last - b->first;

	if (x != y)
		return x > y ? -1 : 1;
	return a->size < b->size ? -1 : a->size > b->size;
}

/* What a site's objects did over the series, by its class: pinning slabs, or not. */
static const char *const stays[] = { "its objects stay", "its objects stay", "its objects come and go",
				     "its objects are freed", "its objects stay" };

/* The sites of class k (of w) among the first n ranked stacks: "NAME (CLASS: what its objects do)". */
static void grown_sites(FILE *fp, const struct hpa_profile *prof, struct hpa_growth *g, size_t n,
			const struct hpa_waste *w, uint32_t k)
{
	size_t i, shown = 0;

	for (i = 0; i < n && shown < 3; i++) {
		const struct hpa_sample *s = &prof->samples[g->stacks[i].sample];
		const char *name;
		int len;

		if (s->v[HPA_INUSE_OBJECTS] < 0.5 || s->v[HPA_INUSE_SPACE] <= 0 ||
		    hpa_waste_class_for(w, s->v[HPA_INUSE_SPACE] / s->v[HPA_INUSE_OBJECTS]) != k)
			continue;
		name = hpa_growth_name(g, &g->stacks[i], &len);
		fprintf(fp, "%s%.*s (%s: %s)", shown++ ? "; " : "  ", len, name,
			hpa_growth_class_name((enum hpa_growth_class)g->stacks[i].cls), stays[g->stacks[i].cls]);
	}
}

/*
 * Over dumps with the allocator's statistics beside the first and the last
 * (--watch --stats): the size classes whose empty space grew most, each
 * with the ranked stacks whose objects fall into it and what they did.
 */
static void waste_lines(FILE *fp, const struct hpa_profile *prof, struct hpa_growth *g, size_t n,
			const struct hpa_write_opts *opts)
{
	const struct hpa_input *a = &prof->inputs[0], *b = &prof->inputs[prof->inputs_nr - 1];
	struct hpa_alloc_stats sa, sb;
	struct hpa_waste wa, wb;
	struct grown_class *gc;
	size_t i, j, nr = 0;
	char x[48], y[48], d[48];

	if (a->alloc_live < 0 || b->alloc_live < 0 || hpa_dump_stats_load(a->path, &sa) < 0)
		return;
	if (hpa_dump_stats_load(b->path, &sb) < 0) {
		hpa_alloc_stats_release(&sa);
		return;
	}
	hpa_waste_compute(&sa, NULL, NULL, &wa);
	hpa_waste_compute(&sb, NULL, NULL, &wb);
	gc = xcalloc(wb.classes_nr + 1, sizeof(*gc));
	for (i = 0; i < wb.classes_nr; i++) {
		double was = 0;
		for (j = 0; j < wa.classes_nr; j++)
			if (wa.classes[j].size == wb.classes[i].size)
				was = (double)wa.classes[j].empty;
		gc[nr] = (struct grown_class){ wb.classes[i].size, (uint32_t)i + 1, was, (double)wb.classes[i].empty };
		nr += gc[nr].last > gc[nr].first;
	}
	gc[nr] = (struct grown_class){ 0, 0, (double)wa.rest, (double)wb.rest };
	nr += gc[nr].last > gc[nr].first;
	qsort(gc, nr, sizeof(*gc), cmp_grown);
	if (nr)
		fputs("Size classes whose empty space grew (the statistics beside the first and last dump):\n", fp);
	for (i = 0; i < nr && i < 5; i++) {
		hpa_format_value(x, sizeof(x), gc[i].first, opts);
		hpa_format_value(y, sizeof(y), gc[i].last, opts);
		hpa_format_value(d, sizeof(d), gc[i].last - gc[i].first, opts);
		if (gc[i].size)
			fprintf(fp, "  %6llu-byte class: +%s (%s -> %s)", (unsigned long long)gc[i].size, d, x, y);
		else
			fprintf(fp, "  %s: +%s (%s -> %s)", wb.allocator == HPA_ALLOC_JEMALLOC ?
				"pad pages of large extents" : "span tails", d, x, y);
		if (gc[i].klass)
			grown_sites(fp, prof, g, n, &wb, gc[i].klass);
		fputc('\n', fp);
	}
	free(gc);
	hpa_waste_release(&wa);
	hpa_waste_release(&wb);
	hpa_alloc_stats_release(&sa);
	hpa_alloc_stats_release(&sb);
}

/* The text report: the dumps, the whole profile, its RSS, the tables (and those --expect-growth sets apart). */
static void text_report(FILE *fp, const struct hpa_profile *prof, struct hpa_growth *g,
			const struct hpa_write_opts *opts)
{
	struct hpa_write_opts o = *opts;   /* values as people read them: --unit auto by default */
	bool *stacks_exp = expected_rows(g, g->stacks, g->nstacks, opts->expect_growth);
	bool *funcs_exp = expected_rows(g, g->funcs, g->nfuncs, opts->expect_growth);
	size_t i;

	if (o.unit == HPA_UNIT_DEFAULT && !o.show_bytes)
		o.unit = HPA_UNIT_AUTO;
	fprintf(fp, "Growth of %s over %zu dumps", hpa_value_name(o.view.value), g->dumps);
	if (*hpa_units(&o))
		fprintf(fp, " (%s)", hpa_units(&o));
	if (o.series_order)
		fprintf(fp, ", in the order of %s", o.series_order);
	fputs(":\n", fp);
	for (i = 0; i < g->dumps; i++)
		fprintf(fp, "  dump%zu: %s\n", i + 1, prof->inputs[i].path);
	whole_line(fp, prof, &g->total, &o);
	rss_line(fp, prof, &g->total, &o);
	waste_lines(fp, prof, g, g->nstacks < table_rows(opts) ? g->nstacks : table_rows(opts), &o);
	table(fp, g, g->stacks, g->nstacks, stacks_exp, "Stacks (leaf < callers)", false, &o);
	table(fp, g, g->funcs, g->nfuncs, funcs_exp, "Functions (where they allocated)", false, &o);
	table(fp, g, g->stacks, g->nstacks, stacks_exp, "Stacks", true, &o);
	table(fp, g, g->funcs, g->nfuncs, funcs_exp, "Functions", true, &o);
	free(stacks_exp);
	free(funcs_exp);
}

int hpa_report_growth(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo;
	struct hpa_growth g;
	size_t i;
	bool all;

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	vo = opts->view;
	/* Folded stacks and CSV write every series in rank order; the tables, their first rows. */
	all = opts->mode == HPA_MODE_COLLAPSE || opts->mode == HPA_MODE_CSV ||
	      (opts->expect_growth && opts->expect_growth->set);   /* the rows apart may be any */
	hpa_growth(prof, &vo, opts->mode == HPA_MODE_COLLAPSE, all ? 0 : table_rows(opts), &g);
	if (opts->mode == HPA_MODE_COLLAPSE) {
		for (i = 0; i < g.nstacks; i++) {
			long long gain = (long long)g.stacks[i].gain;
			int len;

			if (gain) {
				const char *name = hpa_growth_name(&g, &g.stacks[i], &len);
				fprintf(fp, "%.*s %lld\n", len, name, gain);
			}
		}
	} else if (opts->mode == HPA_MODE_CSV) {
		fputs("kind,name,gain,slope,steadiness,class,r2,expected", fp);
		for (i = 0; i < g.dumps; i++) {
			fputs(",", fp);
			hpa_csv_field(fp, prof->inputs[i].path, -1);
		}
		fputc('\n', fp);
		csv_rows(fp, &g, g.stacks, g.nstacks, "stack", opts->expect_growth);
		csv_rows(fp, &g, g.funcs, g.nfuncs, "function", opts->expect_growth);
	} else {
		text_report(fp, prof, &g, opts);
	}
	hpa_growth_release(&g);
	return 0;
}
