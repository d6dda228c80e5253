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
#include "hpa/strtab.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

struct series {
	const char *name;    /* in the growth's texts, without the trailing separator: */
	int name_len;        /* print with %.*s */
	uint32_t order;      /* first appearance: ties keep it */
	double *v;           /* one value per dump, in the growth's values */
	double gain, slope, steady, score;
};

struct growth {
	size_t dumps;
	struct hpa_strtab stack_texts, func_texts;   /* the grouping engine's, kept */
	double *stack_values, *func_values;          /* its per-dump values, kept */
	struct series *stacks, *funcs;
	size_t nstacks, nfuncs;
};

static char *display_frame(const struct hpa_profile *prof, struct hpa_frame f)
{
	return xstrdup(hpa_frame_display(prof, f));
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
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * The series of `fmt`'s groups, one value per dump, from the grouping
 * engine; names without the format's trailing separator.
 */
static struct series *group_series(struct growth *g, const struct hpa_profile *prof,
				   const struct hpa_opts *opts, const struct hpa_stack_format *fmt,
				   struct hpa_strtab *texts, double **values, size_t *nr)
{
	struct hpa_view_opts vo = hpa_view_opts(opts);
	struct hpa_stack_group *groups;
	struct series *out;
	double total;
	size_t i, cut = strlen(fmt->suffix);

	hpa_strtab_init(texts);
	*nr = hpa_group_stacks(prof, &vo, fmt, texts, &groups, &total, NULL, values);
	out = xcalloc(*nr + 1, sizeof(*out));
	for (i = 0; i < *nr; i++) {
		const char *text = hpa_strtab_get(texts, groups[i].text);
		size_t len = strlen(text);

		out[i].name = text;
		out[i].name_len = (int)(len >= cut ? len - cut : len);
		out[i].order = (uint32_t)i;
		out[i].v = *values + i * g->dumps;
		metrics(&out[i], g->dumps);
	}
	if (*nr > 1)
		qsort(out, *nr, sizeof(*out), cmp_series);
	free(groups);
	return out;
}

/*
 * Stacks ("leaf < caller < ...", or folded root first for --collapse) and
 * functions (the innermost visible frame: where they allocated).
 */
static void collect(struct growth *g, const struct hpa_profile *prof, const struct hpa_opts *opts,
		    bool folded)
{
	static const struct hpa_stack_format stacks = {
		display_frame, false, "", " < ", "<no stack> < ", false
	};
	static const struct hpa_stack_format funcs = { display_frame, false, "", " < ", "", true };

	g->stacks = group_series(g, prof, opts, folded ? &hpa_folded_format : &stacks,
				 &g->stack_texts, &g->stack_values, &g->nstacks);
	g->funcs = group_series(g, prof, opts, &funcs, &g->func_texts, &g->func_values, &g->nfuncs);
}

static void release(struct growth *g)
{
	free(g->stack_values);
	free(g->func_values);
	free(g->stacks);
	free(g->funcs);
	hpa_strtab_release(&g->stack_texts);
	hpa_strtab_release(&g->func_texts);
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
		fprintf(fp, "  %.*s\n", s->name_len, s->name);
	}
	if (nr > limit)
		fprintf(fp, "(%zu more; --nodecount N shows N, --csv all)\n", nr - limit);
}

/* A quoted CSV field of the first `len` bytes of s (len < 0: all of it). */
static void csv_field(FILE *fp, const char *s, int len)
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

static void csv_rows(FILE *fp, const struct growth *g, const struct series *rows, size_t nr,
		     const char *kind)
{
	size_t i, d;

	for (i = 0; i < nr; i++) {
		fprintf(fp, "%s,", kind);
		csv_field(fp, rows[i].name, rows[i].name_len);
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
	collect(&g, prof, opts, opts->mode == HPA_MODE_COLLAPSE);
	if (opts->mode == HPA_MODE_COLLAPSE) {
		for (i = 0; i < g.nstacks; i++) {
			long long gain = (long long)g.stacks[i].gain;
			if (gain)
				fprintf(fp, "%.*s %lld\n", g.stacks[i].name_len, g.stacks[i].name, gain);
		}
	} else if (opts->mode == HPA_MODE_CSV) {
		fputs("kind,name,gain,slope,steadiness", fp);
		for (i = 0; i < g.dumps; i++) {
			fputs(",", fp);
			csv_field(fp, prof->inputs[i].path, -1);
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
