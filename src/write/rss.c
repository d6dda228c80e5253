/*
 * --stats: where RSS goes.  Prints the breakdown (stats.h) of the
 * statistics read/stats_load.c loaded before the --text report, the size
 * classes' empty bytes and the allocation sites charged with them
 * (waste.h); as text, or as CSV (--stats --csv).
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/report.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/waste.h"
#include "hpa/xalloc.h"

static enum hpa_unit unit_of(const struct hpa_write_opts *opts)
{
	return opts->unit != HPA_UNIT_DEFAULT ? opts->unit : opts->show_bytes ? HPA_UNIT_B : HPA_UNIT_AUTO;
}

static char *name_of(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	return xstrdup(hpa_frame_display(prof, names, f));
}

/* A site: one stack text in one class (0: a large object, its pad page), what it holds and is charged. */
struct site {
	uint32_t text, klass;
	double bytes, objects, empty;
	bool one_size;
};

static int cmp_site_key(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	if (a->klass != b->klass)
		return a->klass < b->klass ? -1 : 1;
	return a->text < b->text ? -1 : a->text > b->text;
}

static int cmp_site_empty(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	if (a->empty != b->empty)
		return a->empty > b->empty ? -1 : 1;
	return cmp_site_key(pa, pb);
}

/*
 * The profile's sites with the empty bytes charged to them (waste.h), one
 * per stack text and class, sorted by class then text; *n of them.
 */
static struct site *collect_sites(const struct hpa_profile *prof, const struct hpa_write_opts *opts,
				  const struct hpa_waste *w, struct hpa_strtab *texts, size_t *n)
{
	static const struct hpa_stack_format fmt = { name_of, false, "", " < ", "", false };
	struct hpa_view_opts vo = opts->view;
	struct hpa_stack_group *groups = NULL;
	uint32_t *group_of = xcalloc(prof->samples_nr + 1, sizeof(*group_of));
	struct site *sites = xcalloc(prof->samples_nr + 1, sizeof(*sites));
	double total;
	size_t i, k = 0, out = 0;

	vo.value = HPA_INUSE_SPACE;
	vo.thread = HPA_THREAD_ALL;
	hpa_group_stacks(prof, &vo, &fmt, texts, &groups, &total, group_of, NULL);
	for (i = 0; i < prof->samples_nr && i < w->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];

		if (!group_of[i] || (!w->class_of[i] && w->empty[i] <= 0))
			continue;
		sites[k++] = (struct site){ groups[group_of[i] - 1].text, w->class_of[i], s->v[HPA_INUSE_SPACE],
					    s->v[HPA_INUSE_OBJECTS], w->empty[i], w->one_size[i] };
	}
	if (k > 1)
		qsort(sites, k, sizeof(*sites), cmp_site_key);
	for (i = 0; i < k; i++) {   /* one per text and class: a stack's samples of several dumps summed */
		if (out && sites[out - 1].klass == sites[i].klass && sites[out - 1].text == sites[i].text) {
			struct site *t = &sites[out - 1];
			t->bytes += sites[i].bytes;
			t->objects += sites[i].objects;
			t->empty += sites[i].empty;
			t->one_size &= sites[i].one_size;
		} else {
			sites[out++] = sites[i];
		}
	}
	free(groups);
	free(group_of);
	*n = out;
	return sites;
}

/* A site's stack for a line of text: its innermost 6 frames, " < ..." when there are more. */
static void print_stack(FILE *fp, const char *t)
{
	const char *end = t, *sep;
	int k;

	for (k = 0; k < 6 && (sep = strstr(end, " < ")); k++)
		end = sep + 3;
	fprintf(fp, "%.*s%s", end > t ? (int)(end - t - 3) : 0, t, *end ? " < ..." : "");
}

/* A site's share of its class's objects (what it is charged by) or, with `bytes`, bytes in the profile. */
static double share_of(const struct hpa_waste *w, const struct site *x, bool bytes)
{
	const struct hpa_waste_class *c;
	double whole;

	if (!x->klass)
		return 0;
	c = &w->classes[x->klass - 1];
	whole = bytes ? c->bytes : c->objects;
	return whole > 0 ? (bytes ? x->bytes : x->objects) / whole : 0;
}

static const char *const charge_rule =
	"a class's empty bytes are shared among the sites that live in it by their share of its "
	"objects in the profile (a large object: its pad page); exact for a class one site fills, "
	"wrong where sites of one class fill slabs unevenly: a long-lived site left among freed "
	"short-lived objects pins more than its share, a densely packed one less";

/* The classes' table: each class's regions, use and empty bytes, and who lives there. */
static void print_classes(FILE *fp, const struct hpa_waste *w, const struct site *sites, size_t n,
			  const struct hpa_strtab *texts, enum hpa_unit unit)
{
	bool je = w->allocator == HPA_ALLOC_JEMALLOC;
	char num[48], tot[48];
	size_t i, j;

	if (!w->classes_nr && !w->rest)
		return;
	hpa_format_bytes(tot, sizeof(tot), (double)w->total, unit);
	fprintf(fp, "\nEmpty space by size class (%s; sums to %s, the %s):\n", je ?
		"jemalloc bins, all arenas merged" : "tcmalloc size classes, free objects in its caches",
		tot, je ? "fragmentation row" : "rows of free objects in caches");
	if (je)
		fprintf(fp, "%8s %10s %10s %6s %10s  %s\n", "size", "regions", "live", "used", "empty",
			"sites in it: share of the class's objects in the profile");
	else
		fprintf(fp, "%8s %10s  %s\n", "size", "free", "sites in it: share of the class's objects in the profile");
	for (i = 0; i < w->classes_nr; i++) {
		const struct hpa_waste_class *c = &w->classes[i];
		size_t shown = 0;

		hpa_format_bytes(num, sizeof(num), (double)c->empty, unit);
		if (je)
			fprintf(fp, "%8llu %10llu %10llu %5.1f%% %10s", (unsigned long long)c->size,
				(unsigned long long)c->regions, (unsigned long long)c->live,
				c->regions ? 100.0 * (double)c->live / (double)c->regions : 0.0, num);
		else
			fprintf(fp, "%8llu %10s", (unsigned long long)c->size, num);
		for (j = 0; j < n; j++) {
			if (sites[j].klass != i + 1)
				continue;
			if (shown++ == 2) {
				fprintf(fp, "; %zu more", c->sites - 2);
				break;
			}
			fprintf(fp, "%s %.1f%%", shown > 1 ? ";" : " ", 100 * share_of(w, &sites[j], false));
			if (fabs(share_of(w, &sites[j], false) - share_of(w, &sites[j], true)) >= 0.0005)
				fprintf(fp, " (%.1f%% of its bytes)", 100 * share_of(w, &sites[j], true));
			fprintf(fp, "%s ", sites[j].one_size ? "" : " (mixed sizes: by its average)");
			print_stack(fp, hpa_strtab_get(texts, sites[j].text));
		}
		fputc('\n', fp);
	}
	if (w->rest) {
		hpa_format_bytes(num, sizeof(num), (double)w->rest, unit);
		fprintf(fp, "%-38s %10s", je ? "pad pages of large extents" : "span tails and overhead, not per class", num);
		if (je && w->profiler_pad > 0)
			fprintf(fp, "  (%.0f of them the profiler's sampled objects')", w->profiler_objects);
		fputc('\n', fp);
	}
}

/* The sites most likely pinning empty space, by what they are charged. */
static void print_sites(FILE *fp, const struct hpa_waste *w, struct site *sites, size_t n,
			const struct hpa_strtab *texts, enum hpa_unit unit)
{
	size_t i, shown = 0;
	char num[48];

	if (n > 1)
		qsort(sites, n, sizeof(*sites), cmp_site_empty);
	for (i = 0; i < n && shown < 10; i++) {
		const struct site *x = &sites[i];

		if (x->empty < 1)
			continue;
		if (!shown++)
			fputs("\nAllocation sites charged with empty space:\n", fp);
		hpa_format_bytes(num, sizeof(num), x->empty, unit);
		if (x->klass)
			fprintf(fp, "%10s  %llu-byte class, %.1f%% of its objects%s: ", num,
				(unsigned long long)w->classes[x->klass - 1].size, 100 * share_of(w, x, false),
				x->one_size ? "" : " (mixed sizes: by its average)");
		else
			fprintf(fp, "%10s  large objects' pad pages: ", num);
		print_stack(fp, hpa_strtab_get(texts, x->text));
		fputc('\n', fp);
	}
	if (shown)
		fprintf(fp, "  (%s)\n", charge_rule);
}

/* A number for CSV: whole when it is, else with 6 decimals. */
static void csv_num(FILE *fp, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		fprintf(fp, ",%.0f", v);
	else
		fprintf(fp, ",%.6f", v);
}

#define CSV_HEADER "kind,level,name,size_class,bytes,allocator_bytes,regions,live_regions,utilization," \
	"objects,live_bytes,share,bytes_share,one_size,hint\n"

/* The last field: a row's hint (and its detail), quoted; empty without. */
static void csv_hint(FILE *fp, const char *hint, const char *detail)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;

	hpa_sb_adds(&sb, hint ? hint : "");
	if (detail)
		hpa_sb_addf(&sb, "%s%s", sb.len ? "; " : "", detail);
	fputc(',', fp);
	if (sb.len)
		hpa_csv_field(fp, sb.buf, -1);
	fputc('\n', fp);
	hpa_sb_release(&sb);
}

static void csv_rss(FILE *fp, const struct hpa_alloc_stats *st, const struct hpa_rss_breakdown *b)
{
	struct hpa_strbuf src = HPA_STRBUF_INIT;
	size_t i;

	for (i = 0; i < b->nr; i++) {
		const struct hpa_rss_row *r = &b->rows[i];

		fprintf(fp, "rss,%d,", r->level);
		hpa_csv_field(fp, r->what, -1);
		fprintf(fp, ",,%llu,%llu,,,,,,,,", (unsigned long long)r->bytes,
			(unsigned long long)(r->has_said ? r->said : r->bytes));
		csv_hint(fp, r->hint, r->detail);
	}
	hpa_sb_addf(&src, "%s; %s%s%s from %s", b->rss_source, st->format, st->version ? " " : "",
		    st->version ? st->version : "", st->source);
	fprintf(fp, "total,0,\"total\",,%llu,,,,,,,,,", (unsigned long long)b->rss);
	csv_hint(fp, src.buf, NULL);
	hpa_sb_release(&src);
	for (i = 0; i < b->notes_nr; i++) {
		fputs("note,,", fp);
		hpa_csv_field(fp, b->notes[i], -1);
		fputs(",,,,,,,,,,,,\n", fp);
	}
}

static void csv_waste(FILE *fp, const struct hpa_waste *w, const struct site *sites, size_t n,
		      const struct hpa_strtab *texts)
{
	size_t i;

	for (i = 0; i < w->classes_nr; i++) {
		const struct hpa_waste_class *c = &w->classes[i];

		fprintf(fp, "class,,\"%llu\",%llu,%llu,%llu,", (unsigned long long)c->size,
			(unsigned long long)c->size, (unsigned long long)c->empty, (unsigned long long)c->empty);
		if (w->allocator == HPA_ALLOC_JEMALLOC)
			fprintf(fp, "%llu,%llu,%.6f", (unsigned long long)c->regions, (unsigned long long)c->live,
				c->regions ? (double)c->live / (double)c->regions : 0.0);
		else
			fputs(",,", fp);
		csv_num(fp, c->objects);
		csv_num(fp, c->bytes);
		fputs(",,,,\n", fp);
	}
	if (w->rest)
		fprintf(fp, "class,,\"%s\",,%llu,%llu,,,,,,,,,\n", w->allocator == HPA_ALLOC_JEMALLOC ?
			"pad pages of large extents" : "span tails and overhead", (unsigned long long)w->rest,
			(unsigned long long)w->rest);
	for (i = 0; i < n; i++) {
		const struct site *x = &sites[i];
		const char *t = hpa_strtab_get(texts, x->text);
		size_t len = strlen(t);

		fputs("site,,", fp);
		hpa_csv_field(fp, t, (int)(len >= 3 ? len - 3 : len));   /* without the last " < " */
		if (x->klass)
			fprintf(fp, ",%llu", (unsigned long long)w->classes[x->klass - 1].size);
		else
			fputc(',', fp);
		csv_num(fp, x->empty);
		fputs(",,,,", fp);
		csv_num(fp, x->objects);
		csv_num(fp, x->bytes);
		if (x->klass)
			fprintf(fp, ",%.6f,%.6f", share_of(w, x, false), share_of(w, x, true));
		else
			fputs(",,", fp);
		fprintf(fp, ",%d,\n", x->one_size);
	}
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

/* The breakdown as a table, its notes under it. */
static void print_breakdown(FILE *fp, const struct hpa_alloc_stats *st, const struct hpa_rss_breakdown *b,
			    enum hpa_unit unit)
{
	char num[48];
	size_t i;

	hpa_format_bytes(num, sizeof(num), (double)b->rss, HPA_UNIT_AUTO);
	fprintf(fp, "RSS %s = %llu B (%s); %s%s%s from %s\n", num, (unsigned long long)b->rss,
		b->rss_source, st->format, st->version ? " " : "", st->version ? st->version : "",
		st->source);
	fprintf(fp, "%-62s %10s %7s\n", "", unit == HPA_UNIT_AUTO ? "" : unit == HPA_UNIT_B ? "bytes" :
		unit == HPA_UNIT_KIB ? "KiB" : unit == HPA_UNIT_MIB ? "MiB" : "GiB", "% RSS");
	for (i = 0; i < b->nr; i++)
		print_row(fp, &b->rows[i], unit, (double)b->rss);
	hpa_format_bytes(num, sizeof(num), (double)b->rss, unit);
	fprintf(fp, "%-62s %10s %7s\n", "total", num, "100.0%");
	for (i = 0; i < b->notes_nr; i++)
		fprintf(fp, "Note: %s\n", b->notes[i]);
}

int hpa_report_rss(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts,
		   const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm, bool csv)
{
	struct hpa_rss_breakdown b;
	struct hpa_waste w;
	struct hpa_strtab texts;
	struct site *sites = NULL;
	double seen = -1, var = 0;
	enum hpa_unit unit = unit_of(opts);
	size_t i, nsites = 0;
	bool profiled = prof && prof->inputs_nr;

	if (profiled) {
		seen = 0;
		for (i = 0; i < prof->samples_nr; i++)
			if (prof->samples[i].thread == HPA_THREAD_ALL &&
			    !(opts->view.dropped && opts->view.dropped[i]))
				seen += prof->samples[i].v[HPA_INUSE_SPACE];
		for (i = 0; i < prof->inputs_nr; i++)
			var += prof->inputs[i].inuse_var;
	}
	hpa_waste_compute(st, profiled ? prof : NULL, opts->view.dropped, &w);
	if (hpa_rss_breakdown(st, pm, seen, sqrt(var), &w, &b) < 0) {
		hpa_waste_release(&w);
		return -1;
	}
	if (seen >= 0)
		check_same_process(prof, st, seen, var, &b);
	hpa_strtab_init(&texts);
	if (profiled)
		sites = collect_sites(prof, opts, &w, &texts, &nsites);
	if (csv) {
		fputs(CSV_HEADER, fp);
		csv_rss(fp, st, &b);
		csv_waste(fp, &w, sites, nsites, &texts);
	} else {
		print_breakdown(fp, st, &b, unit);
		print_classes(fp, &w, sites, nsites, &texts, unit);
		print_sites(fp, &w, sites, nsites, &texts, unit);
	}
	free(sites);
	hpa_strtab_release(&texts);
	hpa_waste_release(&w);
	hpa_rss_breakdown_release(&b);
	return 0;
}
