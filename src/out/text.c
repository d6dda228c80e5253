/*
 * The text top list (jeprof --text, FORMATS.md sections 7.5 and 8).
 *
 * A row is a key: a function (inlined ones marked " (inline)"), a function
 * and line, an address, or a file; an unknown frame is "0xADDR (module)".
 * Stacks are cut below the allocator (strip.h) unless --keep-internal.
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
#include "hpa/strip.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

#define KERNEL_FLOOR UINT64_C(0x8000000000000000)

struct row {
	uint32_t key;
	double flat, cum;
};

/*
 * Report keys: each location expands to its keys, innermost first (one per
 * inline level, or one per location for --files and unknown frames).
 */
struct keys {
	const struct hpa_profile *prof;
	const struct hpa_opts *opts;
	struct hpa_strtab names;   /* key id = string id */
	uint32_t *loc_first;       /* per location: first key in pool; UINT32_MAX: not yet */
	uint16_t *loc_nr;
	uint32_t *pool;
	size_t pool_nr, pool_alloc;
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

static void add_key(struct keys *k, const char *name)
{
	uint32_t id = hpa_strtab_intern(&k->names, name);

	HPA_GROW(k->pool, k->pool_nr + 1, k->pool_alloc);
	k->pool[k->pool_nr++] = id;
}

static void unknown_key(struct keys *k, uint32_t loc)
{
	const char *module = hpa_profile_loc_module(k->prof, loc);
	char buf[64];
	size_t n = strlen(module ? module : "unmapped") + sizeof(buf);
	char *name = xmalloc(n);

	snprintf(name, n, "0x%llx (%s)", (unsigned long long)k->prof->locs[loc].addr,
		 module ? module : "unmapped");
	add_key(k, name);
	free(name);
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

static void compute_keys(struct keys *k, uint32_t loc)
{
	const struct hpa_profile *prof = k->prof;
	const struct hpa_location *l = &prof->locs[loc];
	size_t first = k->pool_nr, i;

	if (l->addr >= KERNEL_FLOOR) {
		/* no row, as jeprof */
	} else if (!l->line_nr) {
		unknown_key(k, loc);
	} else if (k->opts->granularity == HPA_BY_FILE) {
		const char *file = hpa_profile_str(prof, prof->lines[l->line_first].file);
		if (*file)
			add_key(k, file);
		else
			unknown_key(k, loc);
	} else {
		for (i = 0; i < l->line_nr; i++) {
			const struct hpa_line *ln = &prof->lines[l->line_first + i];
			const char *file = hpa_profile_str(prof, ln->file);
			char *name = xstrdup(hpa_profile_str(prof, prof->funcs[ln->func].name));
			char *key;
			int rc = 0;

			hpa_short_name(name);
			switch (k->opts->granularity) {
			case HPA_BY_LINE:
				rc = asprintf(&key, "%s%s %s:%u", name, i + 1 < l->line_nr ? " (inline)" : "",
					      *file ? file : "??", ln->line);
				break;
			case HPA_BY_ADDRESS:
				rc = asprintf(&key, "0x%llx %s%s %s:%u", (unsigned long long)l->addr, name,
					      i + 1 < l->line_nr ? " (inline)" : "", *file ? file : "??",
					      ln->line);
				break;
			default:
				rc = asprintf(&key, "%s%s", name, i + 1 < l->line_nr ? " (inline)" : "");
				break;
			}
			if (rc < 0)
				abort();
			add_key(k, key);
			free(key);
			free(name);
		}
	}
	k->loc_first[loc] = (uint32_t)first;
	k->loc_nr[loc] = (uint16_t)(k->pool_nr - first);
	grow_values(k);
}

static void accumulate(struct keys *k, enum hpa_value v)
{
	const struct hpa_profile *prof = k->prof;
	const uint32_t *frames, nostack = hpa_strtab_intern(&k->names, "<no stack>");
	size_t i, j, f;

	grow_values(k);
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		size_t nr;
		unsigned skip;
		bool leaf = true;

		if (s->thread != HPA_THREAD_ALL)
			continue;
		if (!s->stack) {
			k->flat[nostack] += s->v[v];
			k->cum[nostack] += s->v[v];
			continue;
		}
		nr = hpa_visible_stack(prof, s->stack, k->opts->keep_internal, &frames, &skip);
		for (f = 0; f < nr; f++) {
			uint32_t loc = frames[f];

			if (k->loc_first[loc] == UINT32_MAX)
				compute_keys(k, loc);
			/* Cut inline levels exist only where keys are per level. */
			j = f == 0 && k->loc_nr[loc] == prof->locs[loc].line_nr ? skip : 0;
			for (; j < k->loc_nr[loc]; j++) {
				uint32_t key = k->pool[k->loc_first[loc] + j];
				if (leaf) {
					k->flat[key] += s->v[v];
					leaf = false;
				}
				if (k->stamp[key] != i + 1) {
					k->stamp[key] = i + 1;
					k->cum[key] += s->v[v];
				}
			}
		}
	}
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
	struct keys k;
	struct row *rows;
	size_t i, nr = 0;
	double total, flat_sum = 0, running = 0;
	char num[4][48];

	if ((opts->value == HPA_ALLOC_SPACE || opts->value == HPA_ALLOC_OBJECTS) &&
	    !has_values(prof, opts->value))
		return hpa_error("%s: no allocation (accumulated) data in the profile; jemalloc "
				 "records it only with MALLOC_CONF=prof_accum:true",
				 prof->inputs_nr ? prof->inputs[0].path : "profile");

	memset(&k, 0, sizeof(k));
	k.prof = prof;
	k.opts = opts;
	hpa_strtab_init(&k.names);
	k.loc_first = xmalloc(st_mult(prof->locs_nr, sizeof(*k.loc_first)));
	memset(k.loc_first, 0xff, prof->locs_nr * sizeof(*k.loc_first));
	k.loc_nr = xcalloc(prof->locs_nr, sizeof(*k.loc_nr));
	accumulate(&k, opts->value);

	rows = xmalloc(st_mult(k.names.nr, sizeof(*rows)));
	for (i = 1; i < k.names.nr; i++) {
		if (k.flat[i] == 0 && k.cum[i] == 0)
			continue;
		rows[nr].key = (uint32_t)i;
		rows[nr].flat = k.flat[i];
		rows[nr].cum = k.cum[i];
		flat_sum += k.flat[i];
		nr++;
	}
	sort_by_cum = opts->cum;
	sort_names = &k.names;
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
		fprintf(fp, "%6s %s\n", num[0], hpa_strtab_get(&k.names, rows[i].key));
	}

	free(rows);
	free(k.flat);
	free(k.cum);
	free(k.stamp);
	free(k.pool);
	free(k.loc_first);
	free(k.loc_nr);
	hpa_strtab_release(&k.names);
	return 0;
}
