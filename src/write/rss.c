/*
 * --stats: where RSS goes.  Prints the breakdown (stats.h) of the
 * statistics read/stats_load.c loaded before the --text report, and for
 * jemalloc the allocation sites whose size class leaves slabs empty.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/report.h"
#include "hpa/stats.h"
#include "hpa/strtab.h"
#include "hpa/xalloc.h"

static enum hpa_unit unit_of(const struct hpa_write_opts *opts)
{
	return opts->unit != HPA_UNIT_DEFAULT ? opts->unit : opts->show_bytes ? HPA_UNIT_B : HPA_UNIT_AUTO;
}

static char *name_of(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	return xstrdup(hpa_frame_display(prof, names, f));
}

struct site {
	uint32_t text;
	double bytes, objects, empty, util;
	const struct hpa_je_bin *bin;
};

static int cmp_sites(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	if (a->empty != b->empty)
		return a->empty > b->empty ? -1 : 1;
	return a->text < b->text ? -1 : a->text > b->text;
}

/*
 * jemalloc: each stack's average object size gives its size class; the
 * merged bin's utilization u gives the empty slab space it may explain,
 * bytes x (1 - u) / u, at most the bin's empty bytes.
 */
static void print_sites(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts,
			const struct hpa_alloc_stats *st)
{
	static const struct hpa_stack_format fmt = { name_of, false, "", " < ", "", false };
	struct hpa_view_opts vo = opts->view;
	struct hpa_strtab texts;
	struct hpa_stack_group *groups = NULL;
	struct site *sites;
	uint32_t *group_of = xcalloc(prof->samples_nr + 1, sizeof(*group_of));
	double total;
	size_t n, i, shown = 0;
	char num[48];

	vo.value = HPA_INUSE_SPACE;
	vo.thread = HPA_THREAD_ALL;
	hpa_strtab_init(&texts);
	n = hpa_group_stacks(prof, &vo, &fmt, &texts, &groups, &total, group_of, NULL);
	sites = xcalloc(n + 1, sizeof(*sites));
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		double w = prof->inputs[s->input - 1].weight;
		if (!group_of[i])
			continue;
		sites[group_of[i] - 1].bytes += s->v[HPA_INUSE_SPACE] * w;
		sites[group_of[i] - 1].objects += s->v[HPA_INUSE_OBJECTS] * w;
	}
	for (i = 0; i < n; i++) {
		struct site *x = &sites[i];
		const struct hpa_je_bin *b;
		double cap;

		x->text = groups[i].text;
		if (x->objects < 0.5 || x->bytes <= 0)
			continue;
		b = hpa_je_bin_for(st, x->bytes / x->objects);
		if (!b || !b->curslabs || b->curregs > b->curslabs * b->nregs)
			continue;
		x->bin = b;
		x->util = (double)b->curregs / ((double)b->curslabs * (double)b->nregs);
		cap = (double)b->curslabs * (double)b->slab_size - (double)b->curregs * (double)b->size;
		x->empty = x->util > 0 ? x->bytes * (1 - x->util) / x->util : cap;
		if (x->empty > cap)
			x->empty = cap;
	}
	if (n > 1)
		qsort(sites, n, sizeof(*sites), cmp_sites);
	for (i = 0; i < n && shown < 10; i++) {
		const char *t = hpa_strtab_get(&texts, sites[i].text), *end = t, *sep;
		int k;
		if (sites[i].empty < 1)
			continue;
		if (!shown++)
			fputs("\nEmpty slab space by allocation site (jemalloc bins, all arenas merged):\n", fp);
		hpa_format_bytes(num, sizeof(num), sites[i].empty, unit_of(opts));
		/* The innermost 6 frames (each text's frame ends in " < "). */
		for (k = 0; k < 6 && (sep = strstr(end, " < ")); k++)
			end = sep + 3;
		fprintf(fp, "%10s  %llu-byte objects; bin %llu is %.1f%% used: %.*s%s\n", num,
			(unsigned long long)sites[i].bin->size, (unsigned long long)sites[i].bin->size,
			sites[i].util * 100, end > t ? (int)(end - t - 3) : 0, t, *end ? " < ..." : "");
	}
	if (shown)
		fputs("  (up to this much of each bin's slabs is empty because of the site's objects: "
		      "its bytes x (1 - utilization) / utilization, at most the bin's empty bytes)\n", fp);
	hpa_strtab_release(&texts);
	free(groups);
	free(group_of);
	free(sites);
}

/* Warnings when the profile and the statistics look like two processes, or two moments. */
static void check_same_process(const struct hpa_profile *prof, const struct hpa_alloc_stats *st,
			       double seen, double var, const struct hpa_rss_breakdown *b)
{
	enum hpa_format f = prof->inputs[0].format;
	double margin = 2 * 1.96 * sqrt(var) + 0.01 * seen + 65536;

	if ((f == HPA_FORMAT_JEMALLOC && st->allocator != HPA_ALLOC_JEMALLOC) ||
	    (f == HPA_FORMAT_GPERF && st->allocator != HPA_ALLOC_TCMALLOC &&
	     prof->inputs[0].sampling != HPA_SAMPLING_V1 && !prof->inputs[0].trunc_records))
		hpa_warn("%s: %s statistics with a %s heap profile: of another process?",
			 st->source, st->allocator == HPA_ALLOC_JEMALLOC ? "jemalloc" : "tcmalloc",
			 f == HPA_FORMAT_JEMALLOC ? "jemalloc" : "gperftools/tcmalloc");
	if (seen > (double)b->live + margin)   /* a profile that holds more than the allocator has */
		hpa_warn("%s: the profile holds %.1f MiB in use, more than the %.1f MiB the "
			 "allocator has live: statistics of another process, or of another moment?",
			 st->source, seen / 1048576, (double)b->live / 1048576);
	if (st->lg_prof_sample >= 0 && prof->inputs[0].header_period &&
	    prof->inputs[0].format == HPA_FORMAT_JEMALLOC &&
	    prof->inputs[0].header_period != (uint64_t)1 << st->lg_prof_sample)
		hpa_warn("%s: the profile samples every %llu bytes, the statistics say "
			 "lg_prof_sample %d (%llu): of another process?", st->source,
			 (unsigned long long)prof->inputs[0].header_period, st->lg_prof_sample,
			 (unsigned long long)1 << st->lg_prof_sample);
}

/* One row of the breakdown: label, bytes, share of RSS, error and the allocator's own figure. */
static void print_row(FILE *fp, const struct hpa_rss_row *r, enum hpa_unit unit, double rss)
{
	char label[128], num[48], pct[32], said[96] = "", err[96] = "";

	snprintf(label, sizeof(label), "%s%s", r->level ? "  " : "", r->what);
	hpa_format_bytes(num, sizeof(num), (double)r->bytes, unit);
	hpa_format_percent(pct, sizeof(pct), (double)r->bytes, rss);
	if (r->error > 0) {
		char e[48];
		hpa_format_bytes(e, sizeof(e), r->error, unit);
		snprintf(err, sizeof(err), "  \xc2\xb1 %s (95%%)", e);
	}
	if (r->has_said) {
		char s[48];
		hpa_format_bytes(s, sizeof(s), (double)r->said, unit);
		snprintf(said, sizeof(said), "  (allocator says %s)", s);
	}
	fprintf(fp, "%-62s %10s %7s%s%s\n", label, num, pct, err, said);
	if (r->hint && r->level)
		fprintf(fp, "      %s\n", r->hint);
	if (r->detail)
		fprintf(fp, "      %s\n", r->detail);
}

int hpa_report_rss(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts,
		   const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm)
{
	struct hpa_rss_breakdown b;
	double seen = -1, var = 0;
	enum hpa_unit unit = unit_of(opts);
	char num[48];
	size_t i;

	if (prof && prof->inputs_nr) {
		seen = 0;
		for (i = 0; i < prof->samples_nr; i++)
			if (prof->samples[i].thread == HPA_THREAD_ALL &&
			    !(opts->view.dropped && opts->view.dropped[i]))
				seen += prof->samples[i].v[HPA_INUSE_SPACE];
		for (i = 0; i < prof->inputs_nr; i++)
			var += prof->inputs[i].inuse_var;
	}
	if (hpa_rss_breakdown(st, pm, seen, sqrt(var), &b) < 0)
		return -1;
	if (seen >= 0)
		check_same_process(prof, st, seen, var, &b);
	hpa_format_bytes(num, sizeof(num), (double)b.rss, HPA_UNIT_AUTO);
	fprintf(fp, "RSS %s = %llu B (%s); %s%s%s from %s\n", num, (unsigned long long)b.rss,
		b.rss_source, st->format, st->version ? " " : "", st->version ? st->version : "",
		st->source);
	fprintf(fp, "%-62s %10s %7s\n", "", unit == HPA_UNIT_AUTO ? "" : unit == HPA_UNIT_B ? "bytes" :
		unit == HPA_UNIT_KIB ? "KiB" : unit == HPA_UNIT_MIB ? "MiB" : "GiB", "% RSS");
	for (i = 0; i < b.nr; i++)
		print_row(fp, &b.rows[i], unit, (double)b.rss);
	hpa_format_bytes(num, sizeof(num), (double)b.rss, unit);
	fprintf(fp, "%-62s %10s %7s\n", "total", num, "100.0%");
	for (i = 0; i < b.notes_nr; i++)
		fprintf(fp, "Note: %s\n", b.notes[i]);
	if (prof && prof->inputs_nr && st->allocator == HPA_ALLOC_JEMALLOC && st->bins_nr)
		print_sites(fp, prof, opts, st);
	hpa_rss_breakdown_release(&b);
	return 0;
}
