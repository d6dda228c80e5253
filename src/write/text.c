/*
 * The text top list (jeprof --text, FORMATS.md sections 7.5 and 8).
 *
 * A row is a node of the grouping engine's graph (group.h,
 * hpa_graph_of_rows): a function, a function and line, an address, or a
 * file, with its flat and cum.  Total, flat and cum all come from the samples of the view, so
 * percentages add up to 100 (jeprof mixes filtered and unfiltered sums).
 */
#include "hpa/compat.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

struct row {
	uint32_t key;
	double flat, cum;
};

static const char *const unit_names[] = { "MB", "", "B", "KiB", "MiB", "GiB" };

const char *hpa_units(const struct hpa_write_opts *opts)
{
	if (hpa_value_is_objects(opts->view.value))
		return "objects";
	if (opts->unit != HPA_UNIT_DEFAULT)
		return unit_names[opts->unit];
	return opts->show_bytes ? "B" : "MB";
}

/* snprintf(buf, size, "%s%s%s", a, b, c), without printf where it fits. */
static void put_joined(char *buf, size_t size, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = strlen(c);

	if (la + lb + lc + 1 > size) {
		snprintf(buf, size, "%s%s%s", a, b, c);
		return;
	}
	memcpy(buf, a, la);
	memcpy(buf + la, b, lb);
	memcpy(buf + la + lb, c, lc + 1);
}

/* snprintf(buf, size, "%.*f%s", prec, v, suffix), without printf's multi-precision path. */
static void put_number(char *buf, size_t size, double v, unsigned prec, const char *suffix)
{
	char num[HPA_FIXED_MAX];

	hpa_fixed(num, v, prec);
	put_joined(buf, size, num, "", suffix);
}

void hpa_format_bytes(char *buf, size_t size, double v, enum hpa_unit unit)
{
	double a = fabs(v), scale = 1;
	int u = HPA_UNIT_B;

	if (unit == HPA_UNIT_AUTO) {   /* the largest unit that leaves at least 1 */
		while (u < HPA_UNIT_GIB && a >= scale * 1024) {
			scale *= 1024;
			u++;
		}
		a /= scale;
		v /= scale;
		put_number(buf, size, v, u == HPA_UNIT_B || a >= 100 ? 0 : a >= 10 ? 1 : 2, unit_names[u]);
		return;
	}
	for (u = HPA_UNIT_B; u < (int)unit; u++)
		scale *= 1024;
	put_number(buf, size, v / scale, unit == HPA_UNIT_B ? 0 : 1, "");
}

void hpa_format_total(char *buf, size_t size, double v, const struct hpa_write_opts *opts)
{
	const char *units = hpa_units(opts);
	char num[48];

	hpa_format_value(num, sizeof(num), v, opts);
	put_joined(buf, size, num, *units ? " " : "", units);
}

void hpa_format_value(char *buf, size_t size, double v, const struct hpa_write_opts *opts)
{
	if (!hpa_value_is_objects(opts->view.value) && opts->unit != HPA_UNIT_DEFAULT) {
		hpa_format_bytes(buf, size, v, opts->unit);
		return;
	}
	if (hpa_value_is_objects(opts->view.value) || opts->show_bytes) {
		/* Perl's %d truncates toward zero; clamp what does not fit. */
		long long n = v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
		snprintf(buf, size, "%lld", n);
	} else {
		put_number(buf, size, v / 1048576.0, 1, "");
	}
}

void hpa_format_percent(char *buf, size_t size, double x, double total)
{
	double p = total != 0 ? x * 100.0 / total : NAN;

	if (isfinite(p))
		snprintf(buf, size, "%.1f%%", p);   /* "-0.0%" of a negative total, as jeprof */
	else
		snprintf(buf, size, "-");   /* no share of nothing: never jeprof's nan or inf */
}

static const struct hpa_strtab *sort_names;
static bool sort_by_cum;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double x = sort_by_cum ? a->cum : a->flat, y = sort_by_cum ? b->cum : b->flat;

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_names, a->key), hpa_strtab_get(sort_names, b->key));
}

int hpa_check_value_data(const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	const char *what = hpa_value_name(opts->view.value);
	size_t i;

	if (opts->view.value != HPA_ALLOC_SPACE && opts->view.value != HPA_ALLOC_OBJECTS)
		return 0;
	for (i = 0; i < prof->samples_nr; i++)
		if (prof->samples[i].v[opts->view.value] != 0 && !(opts->view.dropped && opts->view.dropped[i]))
			return 0;
	if (!prof->inputs_nr)
		return hpa_error("no %s in the profile", what);
	/* What is missing, in the terms of the profile's producer. */
	switch (prof->inputs[0].format) {
	case HPA_FORMAT_PPROF:
		return hpa_error("%s: no %s values in this pprof profile (sample types: %s); its producer "
				 "recorded in-use memory only (Node.js and Pyroscope heap profiles do; "
				 "Go's have allocations too)", prof->inputs[0].path, what,
				 prof->inputs[0].value_types ? prof->inputs[0].value_types : "none");
	case HPA_FORMAT_GPERF:
		return hpa_error("%s: no %s values: a tcmalloc heap sample (@ heap_v2) holds what is "
				 "in use only; HEAPPROFILE dumps (@ heapprofile) and Go's have both",
				 prof->inputs[0].path, what);
	default:
		return hpa_error("%s: no allocation (accumulated) data in the profile; jemalloc "
				 "records it only with MALLOC_CONF=prof_accum:true", prof->inputs[0].path);
	}
}

int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_graph graph;
	struct hpa_graph_rows k;
	struct row *rows;
	size_t i, nr = 0, shown;
	double total, running = 0;
	char num[4][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	k = hpa_graph_of_rows(prof, &vo, opts->granularity, false, &graph);
	total = k.total;
	rows = xmalloc(st_mult(k.keys->nr, sizeof(*rows)));
	for (i = 1; i < k.keys->nr; i++) {
		if (k.flat[i] == 0 && k.cum[i] == 0)
			continue;
		rows[nr].key = (uint32_t)i;
		rows[nr].flat = k.flat[i];
		rows[nr].cum = k.cum[i];
		nr++;
	}
	sort_by_cum = opts->cum;
	sort_names = k.keys;
	qsort(rows, nr, sizeof(*rows), cmp_rows);

	/* --nodecount / --nodefraction: keep the first rows whose |cum| is large enough. */
	shown = 0;
	for (i = 0; i < nr; i++) {
		if (opts->nodecount && shown == opts->nodecount)
			continue;
		if (opts->nodefraction > 0 && fabs(rows[i].cum) <= opts->nodefraction * fabs(total))
			continue;
		rows[shown++] = rows[i];
	}

	if (opts->view.thread == HPA_THREAD_ALL)
		fputs("Total: ", fp);
	else
		fprintf(fp, "Total (t%d): ", opts->view.thread);
	hpa_format_total(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "%s\n", num[0]);
	hpa_active_filters(fp, &vo);
	for (i = 0; i < shown; i++) {
		running += rows[i].flat;
		hpa_format_value(num[0], sizeof(num[0]), rows[i].flat, opts);
		hpa_format_percent(num[1], sizeof(num[1]), rows[i].flat, total);
		hpa_format_percent(num[2], sizeof(num[2]), running, total);
		hpa_format_value(num[3], sizeof(num[3]), rows[i].cum, opts);
		fprintf(fp, "%8s %6s %6s %8s ", num[0], num[1], num[2], num[3]);
		hpa_format_percent(num[0], sizeof(num[0]), rows[i].cum, total);
		fprintf(fp, "%6s %s\n", num[0], hpa_strtab_get(k.keys, rows[i].key));
	}
	if (shown < nr)
		fprintf(fp, "Dropped %zu of %zu rows (--nodecount %zu, --nodefraction %g)\n",
			nr - shown, nr, opts->nodecount, opts->nodefraction);

	free(rows);
	hpa_graph_release(&graph);
	return 0;
}

void hpa_csv_field(FILE *fp, const char *s, int len)
{
	const char *end = len < 0 ? s + strlen(s) : s + len;

	fputc('"', fp);
	for (; s < end; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}
