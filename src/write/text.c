/*
 * The text top list (jeprof --text, FORMATS.md sections 7.5 and 8).
 *
 * A row is a key: a function (inlined ones marked " (inline)"), a function
 * and line, an address, or a file; an unknown frame is "0xADDR (module)".
 * Flat(key) sums the samples whose innermost visible frame has `key`;
 * cum(key) sums the samples with `key` anywhere, once per sample even when
 * it recurs.  A sample with no visible frame left is the "<no stack>" row.
 * Total, flat and cum all come from the samples of the view (view.h), so
 * percentages add up to 100 (jeprof mixes filtered and unfiltered sums).
 * Frames above 0x7fffffffffffffff (kernel, vsyscall) get no row, as in jeprof.
 */
#include "hpa/compat.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

#define NO_KEY UINT32_MAX

struct row {
	uint32_t key;
	double flat, cum;
};

struct keys {
	const struct hpa_profile *prof;
	const struct hpa_opts *opts;
	struct hpa_strtab names;   /* key id = string id */
	uint32_t *slot_key;        /* per frame slot: key id, 0 = not yet, NO_KEY = none */
	double *flat, *cum;        /* by key id */
	size_t *stamp;             /* sample index + 1 that last added to cum */
	size_t vals_alloc;
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

/* Make flat/cum/stamp cover every key interned so far. */
static void grow_values(struct keys *k)
{
	size_t old = k->vals_alloc, n = k->names.nr * 2;

	if (k->names.nr <= old)
		return;
	k->flat = xrealloc(k->flat, st_mult(n, sizeof(*k->flat)));
	k->cum = xrealloc(k->cum, st_mult(n, sizeof(*k->cum)));
	k->stamp = xrealloc(k->stamp, st_mult(n, sizeof(*k->stamp)));
	memset(k->flat + old, 0, (n - old) * sizeof(*k->flat));
	memset(k->cum + old, 0, (n - old) * sizeof(*k->cum));
	memset(k->stamp + old, 0, (n - old) * sizeof(*k->stamp));
	k->vals_alloc = n;
}

static uint32_t frame_key(struct keys *k, struct hpa_frame f)
{
	const struct hpa_profile *prof = k->prof;
	const struct hpa_location *l = &prof->locs[f.loc];
	size_t slot = hpa_frame_slot(prof, f);
	const struct hpa_frame_name *names;
	const char *display;
	char *key = NULL;
	uint32_t id;

	if (k->slot_key[slot])
		return k->slot_key[slot];
	if (l->addr >= HPA_KERNEL_FLOOR) {
		k->slot_key[slot] = NO_KEY;
		return NO_KEY;
	}
	names = hpa_frame_name(prof, f);
	display = hpa_profile_str(prof, names->display);
	if (!l->line_nr) {
		key = k->opts->granularity == HPA_BY_ADDRESS && l->module ?   /* the runtime address too */
			hpa_xasprintf("0x%llx %s", (unsigned long long)l->addr, display) : xstrdup(display);
	} else {
		const struct hpa_line *ln = &prof->lines[l->line_first + f.level];
		const char *file = hpa_profile_str(prof, ln->file);

		switch (k->opts->granularity) {
		case HPA_BY_LINE:
			key = hpa_xasprintf("%s %s:%u", display, *file ? file : "??", ln->line);
			break;
		case HPA_BY_ADDRESS:
			key = hpa_xasprintf("0x%llx %s %s:%u", (unsigned long long)l->addr, display,
					    *file ? file : "??", ln->line);
			break;
		case HPA_BY_FILE:   /* no file: the frame's place, as for an unknown one */
			key = *file ? xstrdup(file) : hpa_frame_label(prof, f);
			break;
		default:
			key = xstrdup(display);
			break;
		}
	}
	id = hpa_strtab_intern(&k->names, key);
	free(key);
	grow_values(k);
	k->slot_key[slot] = id;
	return id;
}

static void add(struct keys *k, uint32_t key, size_t sample, double value, bool flat)
{
	if (flat)
		k->flat[key] += value;
	if (k->stamp[key] != sample + 1) {
		k->stamp[key] = sample + 1;
		k->cum[key] += value;
	}
}

/* Fill flat/cum; returns the view's total. */
static double accumulate(struct keys *k, struct hpa_view *view)
{
	const struct hpa_profile *prof = k->prof;
	uint32_t nostack = hpa_strtab_intern(&k->names, "<no stack>");
	const struct hpa_frame *frames;
	double total = 0;
	size_t i, f, nr;

	grow_values(k);
	for (i = 0; i < prof->samples_nr; i++) {
		double value;
		bool leaf = true;

		if (!hpa_view_sample(view, i, &frames, &nr))
			continue;
		value = hpa_view_value(view, i);
		total += value;
		for (f = 0; f < nr; f++) {
			uint32_t key = frame_key(k, frames[f]);
			if (key == NO_KEY)
				continue;
			add(k, key, i, value, leaf);
			leaf = false;
		}
		if (leaf)
			add(k, nostack, i, value, true);
	}
	return total;
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

int hpa_check_value_data(const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	size_t i;

	if (opts->value != HPA_ALLOC_SPACE && opts->value != HPA_ALLOC_OBJECTS)
		return 0;
	for (i = 0; i < prof->samples_nr; i++)
		if (prof->samples[i].v[opts->value] != 0)
			return 0;
	return hpa_error("%s: no allocation (accumulated) data in the profile; jemalloc "
			 "records it only with MALLOC_CONF=prof_accum:true",
			 prof->inputs_nr ? prof->inputs[0].path : "profile");
}

int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_view view;
	struct keys k;
	struct row *rows;
	size_t i, nr = 0, shown;
	double total, running = 0;
	char num[4][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	memset(&k, 0, sizeof(k));
	k.prof = prof;
	k.opts = opts;
	hpa_strtab_init(&k.names);
	k.slot_key = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*k.slot_key));
	hpa_view_init(&view, prof, opts);
	total = accumulate(&k, &view);
	hpa_view_release(&view);

	/*
	 * Sums of unsampled values are not integers (v2 scaling of small
	 * objects at rate 1 gives k = 1 + 1e-14): what a diff cancels leaves
	 * dust, which is zero here, not a row or an infinite percentage.
	 */
	total = hpa_dust_to_zero(total);
	rows = xmalloc(st_mult(k.names.nr, sizeof(*rows)));
	for (i = 1; i < k.names.nr; i++) {
		k.flat[i] = hpa_dust_to_zero(k.flat[i]);
		k.cum[i] = hpa_dust_to_zero(k.cum[i]);
		if (k.flat[i] == 0 && k.cum[i] == 0)
			continue;
		rows[nr].key = (uint32_t)i;
		rows[nr].flat = k.flat[i];
		rows[nr].cum = k.cum[i];
		nr++;
	}
	sort_by_cum = opts->cum;
	sort_names = &k.names;
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

	if (opts->thread == HPA_THREAD_ALL)
		fputs("Total: ", fp);
	else
		fprintf(fp, "Total (t%d): ", opts->thread);
	hpa_format_value(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "%s %s\n", num[0], hpa_units(opts));
	for (i = 0; i < shown; i++) {
		running += rows[i].flat;
		hpa_format_value(num[0], sizeof(num[0]), rows[i].flat, opts);
		hpa_format_percent(num[1], sizeof(num[1]), rows[i].flat, total);
		hpa_format_percent(num[2], sizeof(num[2]), running, total);
		hpa_format_value(num[3], sizeof(num[3]), rows[i].cum, opts);
		fprintf(fp, "%8s %6s %6s %8s ", num[0], num[1], num[2], num[3]);
		hpa_format_percent(num[0], sizeof(num[0]), rows[i].cum, total);
		fprintf(fp, "%6s %s\n", num[0], hpa_strtab_get(&k.names, rows[i].key));
	}
	if (shown < nr)
		fprintf(fp, "Dropped %zu of %zu rows (--nodecount %zu, --nodefraction %g)\n",
			nr - shown, nr, opts->nodecount, opts->nodefraction);

	free(rows);
	free(k.flat);
	free(k.cum);
	free(k.stamp);
	free(k.slot_key);
	hpa_strtab_release(&k.names);
	return 0;
}
