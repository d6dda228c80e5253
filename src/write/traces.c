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
#include "hpa/task.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

/*
 * "function[ (inline)][ file[:line]]", or the label of an unknown frame;
 * a line break in a name becomes '?', so every stack's text is its own.
 */
static char *frame_text(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	const struct hpa_chain *c = hpa_chain_of(names->syms, f.loc);
	const struct hpa_line *ln;
	const char *file;
	char line[16] = "", *s, *p;

	if (!c->nr) {
		s = xstrdup(hpa_frame_display(prof, names, f));
	} else {
		ln = &names->syms->lines[c->first + f.level];
		file = hpa_profile_str(prof, ln->file);
		if (*file && ln->line)
			snprintf(line, sizeof(line), ":%u", ln->line);
		s = hpa_xasprintf("%s%s%s%s", hpa_frame_display(prof, names, f), *file ? " " : "", file, line);
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
	const struct hpa_view_opts *vo;
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
	hpa_stack_sides(ts->prof, ts->vo, samples, values, n, &t->before, &t->after);
}

static int cmp_traces(const void *a, const void *b)
{
	const struct trace *x = a, *y = b;
	double vx = fabs(x->after - x->before), vy = fabs(y->after - y->before);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/*
 * The traces' texts, chunk by chunk, through an ordered pipeline
 * (task.h): chunks named on any worker, each with a namer of its own, and
 * written in the sorted order.
 */
#define CHUNK 1024
#define SLOTS 8

struct naming {
	const struct hpa_profile *prof;
	const struct hpa_write_opts *opts;
	const struct hpa_view_opts *vo;
	const struct hpa_stack_format *fmt;
	const struct trace *t;
	size_t n;
	double total;
	FILE *fp;
	struct hpa_stack_namer *namers;   /* per worker */
	bool *named;                      /* per worker: its namer made */
};

struct chunk {
	size_t c;
	struct hpa_strbuf text;
};

static void name_chunk(void *ctx, void *slot, size_t worker)
{
	struct naming *nm = ctx;
	struct chunk *ch = slot;
	struct hpa_stack_namer *namer = &nm->namers[worker];
	size_t i, hi = (ch->c + 1) * CHUNK < nm->n ? (ch->c + 1) * CHUNK : nm->n, len;
	char num[2][48];

	if (!nm->named[worker]) {
		hpa_stack_namer_init(namer, nm->prof, nm->vo, nm->fmt);
		nm->named[worker] = true;
	}
	ch->text.len = 0;
	for (i = ch->c * CHUNK; i < hi; i++) {
		double value = hpa_dust_to_zero(nm->t[i].after - nm->t[i].before);
		const char *text;

		if (value == 0)
			continue;
		hpa_format_total(num[0], sizeof(num[0]), value, nm->opts);
		hpa_format_percent(num[1], sizeof(num[1]), value, nm->total);
		hpa_sb_addf(&ch->text, "-----------\n%s (%s)\n", num[0], num[1]);
		text = hpa_stack_text(namer, nm->t[i].sample, &len);
		hpa_sb_add(&ch->text, text, len);
	}
}

static void write_chunk(void *ctx, void *slot)
{
	struct naming *nm = ctx;
	struct chunk *ch = slot;

	fwrite(ch->text.buf, 1, ch->text.len, nm->fp);
}

static void write_traces(FILE *fp, struct naming *nm)
{
	struct chunk slots[SLOTS];
	struct hpa_ordered *o;
	size_t c, w, workers;

	memset(slots, 0, sizeof(slots));
	nm->fp = fp;
	o = hpa_ordered_start(slots, sizeof(slots[0]), SLOTS, nm->n > CHUNK ? hpa_processors() : 1,
			      name_chunk, write_chunk, nm);
	workers = hpa_ordered_workers(o);
	nm->namers = xcalloc(workers, sizeof(*nm->namers));
	nm->named = xcalloc(workers, sizeof(*nm->named));
	for (c = 0; c * CHUNK < nm->n; c++) {
		struct chunk *ch = hpa_ordered_next(o);
		ch->c = c;
		hpa_ordered_submit(o);
	}
	hpa_ordered_finish(o);
	for (w = 0; w < workers; w++)
		if (nm->named[w])
			hpa_stack_namer_release(&nm->namers[w]);
	for (c = 0; c < SLOTS; c++)
		hpa_sb_release(&slots[c].text);
	free(nm->namers);
	free(nm->named);
}

int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	static const struct hpa_stack_format fmt = { frame_text, false, "      ", "\n",
						     "      <no stack>\n", false };
	struct hpa_view_opts vo = opts->view;
	struct traces ts = { prof, &vo, NULL, 0, 0 };
	struct naming nm;
	double total;
	char num[48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	total = hpa_dust_to_zero(hpa_walk_stacks(prof, &vo, &fmt, false, keep_trace, &ts));
	if (ts.n > 1)
		qsort(ts.t, ts.n, sizeof(*ts.t), cmp_traces);
	hpa_format_total(num, sizeof(num), total, opts);
	fprintf(fp, "Total: %s in %zu stacks\n", num, ts.n);
	hpa_active_filters(fp, &vo);
	memset(&nm, 0, sizeof(nm));
	nm.prof = prof;
	nm.opts = opts;
	nm.vo = &vo;
	nm.fmt = &fmt;
	nm.t = ts.t;
	nm.n = ts.n;
	nm.total = total;
	write_traces(fp, &nm);
	free(ts.t);
	return 0;
}
