/*
 * The text top list (jeprof --text, FORMATS.md sections 7.5 and 8).
 *
 * Until symbolization exists a row is one address ("0xADDR (module)").
 * Flat(key) sums the samples whose leaf key is `key`; cum(key) sums the
 * samples whose stack contains `key`, each sample counted once per key even
 * when a key recurs (recursion).  Addresses above 0x7fffffffffffffff (kernel,
 * vsyscall) get no row, as in jeprof.
 */
#include "hpa/compat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/xalloc.h"

#define KERNEL_FLOOR UINT64_C(0x8000000000000000)

struct row {
	uint32_t key;
	double flat, cum;
	char *name;
};

struct table {
	size_t nkeys;        /* locations, plus the <no stack> key at index 0 */
	double *flat, *cum;
	size_t *stamp;       /* sample index + 1 that last added to cum */
};

const char *hpa_units(const struct hpa_opts *opts)
{
	if (hpa_value_is_objects(opts->value))
		return "objects";
	return opts->show_bytes ? "B" : "MB";
}

void hpa_format_value(char *buf, size_t size, double v, const struct hpa_opts *opts)
{
	if (hpa_value_is_objects(opts->value) || opts->show_bytes) {
		/* Perl's %d truncates toward zero; clamp what does not fit. */
		long long n = v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
		snprintf(buf, size, "%lld", n);
	} else {
		snprintf(buf, size, "%.1f", v / 1048576.0);
	}
}

void hpa_format_percent(char *buf, size_t size, double x, double total)
{
	if (total != 0)
		snprintf(buf, size, "%.1f%%", x * 100.0 / total);
	else
		snprintf(buf, size, "%s", x == 0 ? "nan" : x > 0 ? "+inf" : "-inf");
}

static void accumulate(struct table *t, const struct hpa_profile *prof, enum hpa_value v)
{
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		uint32_t node = s->stack;
		bool leaf = true;

		if (s->thread != HPA_THREAD_ALL)
			continue;
		if (!node) {
			t->flat[0] += s->v[v];
			t->cum[0] += s->v[v];
			continue;
		}
		for (; node; node = prof->nodes[node].parent) {
			uint32_t key = prof->nodes[node].loc;

			if (prof->locs[key].addr >= KERNEL_FLOOR)
				continue;
			if (leaf) {
				t->flat[key] += s->v[v];
				leaf = false;
			}
			if (t->stamp[key] != i + 1) {
				t->stamp[key] = i + 1;
				t->cum[key] += s->v[v];
			}
		}
	}
}

static char *key_name(const struct hpa_profile *prof, uint32_t key)
{
	const char *module;
	char *name;
	size_t n;

	if (!key)
		return xstrdup("<no stack>");
	module = hpa_profile_loc_module(prof, key);
	if (!module)
		module = "unmapped";
	n = strlen(module) + 32;
	name = xmalloc(n);
	snprintf(name, n, "0x%llx (%s)", (unsigned long long)prof->locs[key].addr, module);
	return name;
}

static bool sort_by_cum;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	double x = sort_by_cum ? a->cum : a->flat, y = sort_by_cum ? b->cum : b->flat;

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool has_values(const struct hpa_profile *prof, enum hpa_value v)
{
	size_t i;

	for (i = 0; i < prof->samples_nr; i++)
		if (prof->samples[i].v[v] != 0)
			return true;
	return false;
}

int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct table t;
	struct row *rows;
	size_t i, nr = 0;
	double total, flat_sum = 0, running = 0;
	char num[4][48];

	if ((opts->value == HPA_ALLOC_SPACE || opts->value == HPA_ALLOC_OBJECTS) &&
	    !has_values(prof, opts->value))
		return hpa_error("%s: no allocation (accumulated) data in the profile; jemalloc "
				 "records it only with MALLOC_CONF=prof_accum:true",
				 prof->inputs_nr ? prof->inputs[0].path : "profile");

	t.nkeys = prof->locs_nr;
	t.flat = xcalloc(t.nkeys, sizeof(*t.flat));
	t.cum = xcalloc(t.nkeys, sizeof(*t.cum));
	t.stamp = xcalloc(t.nkeys, sizeof(*t.stamp));
	accumulate(&t, prof, opts->value);

	rows = xmalloc(st_mult(t.nkeys, sizeof(*rows)));
	for (i = 0; i < t.nkeys; i++) {
		if (t.flat[i] == 0 && t.cum[i] == 0)
			continue;
		rows[nr].key = (uint32_t)i;
		rows[nr].flat = t.flat[i];
		rows[nr].cum = t.cum[i];
		rows[nr].name = key_name(prof, (uint32_t)i);
		flat_sum += t.flat[i];
		nr++;
	}
	sort_by_cum = opts->cum;
	qsort(rows, nr, sizeof(*rows), cmp_rows);

	total = hpa_profile_total(prof, opts->value, HPA_THREAD_ALL);
	hpa_format_value(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s %s\n", num[0], hpa_units(opts));
	for (i = 0; i < nr; i++) {
		running += rows[i].flat;
		hpa_format_value(num[0], sizeof(num[0]), rows[i].flat, opts);
		hpa_format_percent(num[1], sizeof(num[1]), rows[i].flat, flat_sum);
		hpa_format_percent(num[2], sizeof(num[2]), running, flat_sum);
		hpa_format_value(num[3], sizeof(num[3]), rows[i].cum, opts);
		fprintf(fp, "%8s %6s %6s %8s ", num[0], num[1], num[2], num[3]);
		hpa_format_percent(num[0], sizeof(num[0]), rows[i].cum, flat_sum);
		fprintf(fp, "%6s %s\n", num[0], rows[i].name);
	}

	for (i = 0; i < nr; i++)
		free(rows[i].name);
	free(rows);
	free(t.flat);
	free(t.cum);
	free(t.stamp);
	return 0;
}
