/*
 * --growth: what grows steadily across a series of dumps.
 *
 * Each input is one dump, in order.  For every stack (as the view shows it)
 * and every function (its flat value, i.e. where it allocated) hpa keeps
 * the value in each dump, then: gain = last - first, slope = least-squares
 * slope per dump, steadiness = share of steps that grew.  The rank score is
 * gain times steadiness, so a stack that grows in every dump comes above
 * one that spikes once and falls back (gain ~0) or churns (steadiness ~0.5,
 * gain ~0), and above a one-time jump (steadiness 1/(N-1)).
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct series {
	uint32_t name;       /* strtab id */
	double *v;           /* one value per dump */
	double gain, slope, steady, score;
};

struct growth {
	size_t dumps;
	struct hpa_strtab names;
	struct hpa_hashmap stack_of, func_of;   /* name id -> index + 1 */
	struct series *stacks, *funcs;
	size_t nstacks, astacks, nfuncs, afuncs;
};

static char *short_frame(const struct hpa_profile *prof, struct hpa_frame f)
{
	return xstrdup(hpa_frame_display(prof, f));
}

static struct series *series_for(struct growth *g, struct hpa_hashmap *index, struct series **arr,
				 size_t *nr, size_t *alloc, uint32_t id)
{
	uint32_t i = hpa_hashmap_get(index, id);

	if (i)
		return &(*arr)[i - 1];
	hpa_hashmap_put(index, id, (uint32_t)(*nr + 1));
	HPA_GROW(*arr, *nr + 1, *alloc);
	memset(&(*arr)[*nr], 0, sizeof(**arr));
	(*arr)[*nr].name = id;
	(*arr)[*nr].v = xcalloc(g->dumps, sizeof(double));
	return &(*arr)[(*nr)++];
}

static void metrics(struct series *s, size_t n)
{
	double mx = (n - 1) / 2.0, num = 0, den = 0;
	size_t i, grew = 0;

	for (i = 0; i < n; i++) {
		s->v[i] = hpa_dust_to_zero(s->v[i]);
		num += (i - mx) * (s->v[i] - 0);
		den += (i - mx) * (i - mx);
	}
	for (i = 0; i + 1 < n; i++)
		grew += s->v[i + 1] > s->v[i];
	s->gain = s->v[n - 1] - s->v[0];
	s->slope = den > 0 ? num / den : 0;
	s->steady = n > 1 ? (double)grew / (double)(n - 1) : 0;
	s->score = (s->gain > 0 ? s->gain : 0) * s->steady;
}

static int cmp_series(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->gain != y->gain)
		return x->gain > y->gain ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/* Stack series keyed "leaf < caller < ..." and function series by short name. */
static void collect(struct growth *g, const struct hpa_profile *prof, const struct hpa_opts *opts,
		    bool folded)
{
	struct hpa_view view;
	const struct hpa_frame *frames;
	char *buf = NULL;
	size_t alloc = 0, i, k, nr;

	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		size_t dump = prof->samples[i].input - 1, len = 0;
		double v;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		v = hpa_view_value(&view, i);
		for (k = 0; k < nr; k++) {
			/* folded: root first joined by ';' (collapse); else leaf first. */
			struct hpa_frame f = frames[folded ? nr - 1 - k : k];
			char *name = folded ? hpa_folded_frame(prof, f) : short_frame(prof, f);
			size_t n = strlen(name);
			HPA_GROW(buf, len + n + 4, alloc);
			if (len) {
				memcpy(buf + len, folded ? ";" : " < ", folded ? 1 : 3);
				len += folded ? 1 : 3;
			}
			memcpy(buf + len, name, n);
			len += n;
			if (k == 0 && !folded) {
				uint32_t fid = hpa_strtab_intern(&g->names, name);
				series_for(g, &g->func_of, &g->funcs, &g->nfuncs, &g->afuncs, fid)->v[dump] += v;
			}
			free(name);
		}
		if (!len) {
			HPA_GROW(buf, 16, alloc);
			len = (size_t)sprintf(buf, "<no stack>");
		}
		series_for(g, &g->stack_of, &g->stacks, &g->nstacks, &g->astacks,
			   hpa_strtab_intern_len(&g->names, buf, len))->v[dump] += v;
	}
	hpa_view_release(&view);
	free(buf);
	for (i = 0; i < g->nstacks; i++)
		metrics(&g->stacks[i], g->dumps);
	for (i = 0; i < g->nfuncs; i++)
		metrics(&g->funcs[i], g->dumps);
	if (g->nstacks > 1)
		qsort(g->stacks, g->nstacks, sizeof(*g->stacks), cmp_series);
	if (g->nfuncs > 1)
		qsort(g->funcs, g->nfuncs, sizeof(*g->funcs), cmp_series);
}

static void release(struct growth *g)
{
	size_t i;

	for (i = 0; i < g->nstacks; i++)
		free(g->stacks[i].v);
	for (i = 0; i < g->nfuncs; i++)
		free(g->funcs[i].v);
	free(g->stacks);
	free(g->funcs);
	hpa_hashmap_release(&g->stack_of);
	hpa_hashmap_release(&g->func_of);
	hpa_strtab_release(&g->names);
}

static void table(FILE *fp, const struct growth *g, const struct series *rows, size_t nr,
		  const char *what, const struct hpa_opts *opts)
{
	size_t i, d, limit = opts->nodecount ? opts->nodecount : 20;
	char num[48];

	fprintf(fp, "\n%s, ranked by steady growth:\n%10s %10s %6s", what, "gain", "slope", "grew");
	for (d = 0; d < g->dumps; d++)
		fprintf(fp, " %10s%zu", "dump", d + 1);
	fputs("  name\n", fp);
	for (i = 0; i < nr && i < limit; i++) {
		const struct series *s = &rows[i];

		hpa_format_value(num, sizeof(num), s->gain, opts);
		fprintf(fp, "%10s ", num);
		hpa_format_value(num, sizeof(num), s->slope, opts);
		fprintf(fp, "%10s %3.0f%%", num, s->steady * 100);
		for (d = 0; d < g->dumps; d++) {
			hpa_format_value(num, sizeof(num), s->v[d], opts);
			fprintf(fp, " %11s", num);
		}
		fprintf(fp, "  %s\n", hpa_strtab_get(&g->names, s->name));
	}
	if (nr > limit)
		fprintf(fp, "(%zu more; --nodecount N shows N, --csv all)\n", nr - limit);
}

static void csv_field(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

static void csv_rows(FILE *fp, const struct growth *g, const struct series *rows, size_t nr,
		     const char *kind)
{
	size_t i, d;

	for (i = 0; i < nr; i++) {
		fprintf(fp, "%s,", kind);
		csv_field(fp, hpa_strtab_get(&g->names, rows[i].name));
		fprintf(fp, ",%.0f,%.2f,%.4f", rows[i].gain, rows[i].slope, rows[i].steady);
		for (d = 0; d < g->dumps; d++)
			fprintf(fp, ",%.0f", rows[i].v[d]);
		fputc('\n', fp);
	}
}

int hpa_report_growth(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct growth g;
	size_t i;

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	memset(&g, 0, sizeof(g));
	g.dumps = prof->inputs_nr;
	hpa_strtab_init(&g.names);
	collect(&g, prof, opts, opts->mode == HPA_MODE_COLLAPSE);
	if (opts->mode == HPA_MODE_COLLAPSE) {
		for (i = 0; i < g.nstacks; i++) {
			long long gain = (long long)g.stacks[i].gain;
			if (gain)
				fprintf(fp, "%s %lld\n", hpa_strtab_get(&g.names, g.stacks[i].name), gain);
		}
	} else if (opts->mode == HPA_MODE_CSV) {
		fputs("kind,name,gain,slope,steadiness", fp);
		for (i = 0; i < g.dumps; i++) {
			fputs(",", fp);
			csv_field(fp, prof->inputs[i].path);
		}
		fputc('\n', fp);
		csv_rows(fp, &g, g.stacks, g.nstacks, "stack");
		csv_rows(fp, &g, g.funcs, g.nfuncs, "function");
	} else {
		fprintf(fp, "Growth of %s over %zu dumps (%s units):\n", hpa_value_name(opts->value),
			g.dumps, hpa_units(opts));
		for (i = 0; i < g.dumps; i++)
			fprintf(fp, "  dump%zu: %s\n", i + 1, prof->inputs[i].path);
		table(fp, &g, g.stacks, g.nstacks, "Stacks (leaf < callers)", opts);
		table(fp, &g, g.funcs, g.nfuncs, "Functions (where they allocated)", opts);
	}
	release(&g);
	return 0;
}
