/*
 * --traces: every distinct stack (as the view shows it) with its value,
 * largest first.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

/*
 * "function[ (inline)][ file[:line]]", or the label of an unknown frame;
 * a line break in a name becomes '?', so every stack's text is its own.
 */
static char *frame_text(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	const struct hpa_line *ln;
	const char *file;
	char line[16] = "", *s, *p;

	if (!l->line_nr) {
		s = xstrdup(hpa_frame_display(prof, f));
	} else {
		ln = &prof->lines[l->line_first + f.level];
		file = hpa_profile_str(prof, ln->file);
		if (*file && ln->line)
			snprintf(line, sizeof(line), ":%u", ln->line);
		s = hpa_xasprintf("%s%s%s%s", hpa_frame_display(prof, f), *file ? " " : "", file, line);
	}
	for (p = s; (p = strpbrk(p, "\r\n")); p++)
		*p = '?';
	return s;
}

/* A distinct stack: a sample that has it, and its place in text order. */
struct trace {
	uint32_t sample, order;
	double before, after;
};

struct traces {
	const struct hpa_profile *prof;
	struct trace *t;
	size_t n, alloc;
};

/*
 * The walk gives each text once, in text order (group.h: the names hold
 * no line break), so a stack is kept as one of its samples, its text made
 * again when it is printed, and the order breaks ties as the text would.
 */
static void keep_trace(void *ctx, const char *text, size_t len, const uint32_t *samples,
		       const double *values, size_t n)
{
	struct traces *ts = ctx;
	struct trace *t;

	(void)text;
	(void)len;
	HPA_GROW(ts->t, ts->n + 1, ts->alloc);
	t = &ts->t[ts->n];
	t->sample = samples[0];
	t->order = (uint32_t)ts->n++;
	hpa_stack_sides(ts->prof, samples, values, n, &t->before, &t->after);
}

static int cmp_traces(const void *a, const void *b)
{
	const struct trace *x = a, *y = b;
	double vx = fabs(x->after - x->before), vy = fabs(y->after - y->before);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	static const struct hpa_stack_format fmt = { frame_text, false, "      ", "\n",
						     "      <no stack>\n", false };
	struct hpa_view_opts vo = hpa_view_opts(opts);
	struct traces ts = { prof, NULL, 0, 0 };
	struct hpa_stack_namer namer;
	size_t i, len;
	double total;
	char num[2][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	total = hpa_dust_to_zero(hpa_walk_stacks(prof, &vo, &fmt, false, keep_trace, &ts));
	if (ts.n > 1)
		qsort(ts.t, ts.n, sizeof(*ts.t), cmp_traces);
	hpa_format_total(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s in %zu stacks\n", num[0], ts.n);
	hpa_active_filters(fp, &vo);
	hpa_stack_namer_init(&namer, prof, &vo, &fmt);
	for (i = 0; i < ts.n; i++) {
		double value = hpa_dust_to_zero(ts.t[i].after - ts.t[i].before);
		const char *text;

		if (value == 0)
			continue;
		hpa_format_total(num[0], sizeof(num[0]), value, opts);
		hpa_format_percent(num[1], sizeof(num[1]), value, total);
		fprintf(fp, "-----------\n%s (%s)\n", num[0], num[1]);
		text = hpa_stack_text(&namer, ts.t[i].sample, &len);
		fwrite(text, 1, len, fp);
	}
	hpa_stack_namer_release(&namer);
	free(ts.t);
	return 0;
}
