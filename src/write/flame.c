/*
 * --svg: a self-contained, interactive SVG flame graph (OUTPUTS.md part A).
 *
 * Frames come from the view (allocator cut, filters), inline frames
 * included, named as in --collapse.  Identical prefixes merge into one tree
 * whose children are ordered by name; width is the selected value.  With
 * --base it is differential: widths are the profile's, stacks that exist
 * only in the base keep their base width (they shrank to zero, drawn blue),
 * and every frame is coloured by its inclusive change.  Colours come from an
 * FNV-1a hash of the name, so the same input gives the same file.  The
 * script (flame.js, embedded at build time) does tooltips, zoom and search.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame_js.h"

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/group.h"
#include "hpa/growth.h"
#include "hpa/strbuf.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"

/*
 * A flame graph is a few dozen small writes per frame, all by this thread
 * (hpa_report_svg holds the stream's lock): stdio's own locking at each
 * was a tenth of writing a 37k-frame graph.
 */
#define fputs fputs_unlocked
#define fwrite fwrite_unlocked
#define fputc fputc_unlocked

#define FONT 12
#define FONTW (FONT * 0.61)   /* monospace at 12px: DejaVu Sans Mono is 0.602 em */
#define FRAME_H 16
#define XPAD 10

/* The engine's call tree (group.h) and the layout of each node. */
struct tree {
	const struct hpa_profile *prof;
	struct hpa_call_tree ct;
	struct hpa_call_node *nodes; /* ct.nodes */
	size_t nr, dumps;            /* ct.nr, ct.dumps */
	bool diff;
	double *width;               /* per node: layout value */
	double *x;                   /* per node: layout start, in value units */
	uint8_t *cls;                /* --growth: per node, its series' class (enum hpa_growth_class) */
	double *swing;               /* --growth: per node, its largest value less its smallest */
};

static const char *node_name(const struct tree *t, uint32_t id)
{
	return id ? hpa_profile_str(t->prof, t->nodes[id].name) : "all";
}

static void build(struct tree *t, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	unsigned width = opts->width ? opts->width : 1200;
	/*
	 * What is narrower than the minimum width is not drawn: nodes under a
	 * node that narrow need not be made (a hair under, for rounding).
	 */
	double narrow = opts->minwidth_pct ? opts->minwidth / 100 :
		(opts->minwidth > 0 ? opts->minwidth : 0.1) / (width - 2.0 * XPAD);
	struct hpa_tree_opts to = { HPA_NAME_GRAPH, HPA_NAME_DISPLAY, opts->reverse, opts->growth, false, 0,
				    narrow * (1 - 1e-9), 0 };
	size_t i;

	memset(t, 0, sizeof(*t));
	t->prof = prof;
	hpa_group_tree(prof, &vo, &to, &t->ct);
	t->nodes = t->ct.nodes;
	t->nr = t->ct.nr;
	t->dumps = t->ct.dumps;
	t->diff = t->ct.diff;
	/* --growth: first dump -> last dump, like a base diff; each node's class and swing. */
	if (t->dumps) {
		t->cls = xmalloc(st_mult(t->nr, sizeof(*t->cls)));
		t->swing = xmalloc(st_mult(t->nr, sizeof(*t->swing)));
		t->diff = true;
	}
	for (i = 0; t->dumps && i < t->nr; i++) {
		const double *v = t->ct.series + i * t->dumps;
		double r2, lo = v[0], hi = v[0];
		size_t d;

		t->nodes[i].before = v[0];
		t->nodes[i].after = v[t->dumps - 1];
		t->cls[i] = (uint8_t)hpa_growth_classify(v, t->dumps, &r2);
		for (d = 1; d < t->dumps; d++) {
			lo = fmin(lo, v[d]);
			hi = fmax(hi, v[d]);
		}
		t->swing[i] = hi - lo;
	}
	t->width = xcalloc(t->nr, sizeof(*t->width));
	t->x = xcalloc(t->nr, sizeof(*t->x));
}

/* --growth: share of steps in which a node grew (dir 1) or shrank (dir -1). */
static double steadiness(const struct tree *t, uint32_t node, int dir)
{
	return hpa_steadiness(t->ct.series + (size_t)node * t->dumps, t->dumps, dir);
}

/*
 * Widths: the profile's value; a frame the profile lost entirely keeps its
 * base value.  A parent is at least as wide as its children.  Children are
 * placed left to right in name order, the tree's order of them.  Returns
 * the nodes in drawing order.
 */
static uint32_t *layout(struct tree *t, size_t *count)
{
	uint32_t *order = xmalloc(st_mult(t->nr, sizeof(*order)));
	uint32_t *kids = NULL, *stack = xmalloc(st_mult(t->nr, sizeof(*stack)));
	size_t akids = 0, n = 0, sp = 0, i;

	/* Bottom-up widths: nodes were created after their parents. */
	for (i = t->nr; i-- > 0;) {
		const struct hpa_call_node *nd = &t->nodes[i];
		double own = nd->after > 0 ? nd->after : (nd->before > 0 && t->diff ? nd->before : 0);
		double kidsum = 0;
		uint32_t c;

		for (c = nd->child; c; c = t->nodes[c].next)
			kidsum += t->width[c];
		t->width[i] = own > kidsum ? own : kidsum;
	}
	stack[sp++] = 0;
	t->x[0] = 0;
	while (sp) {
		uint32_t id = stack[--sp], c;
		size_t nk = 0;
		double x;

		order[n++] = id;
		for (c = t->nodes[id].child; c; c = t->nodes[c].next) {
			HPA_GROW(kids, nk + 1, akids);
			kids[nk++] = c;
		}
		x = t->x[id];
		for (i = 0; i < nk; i++) {
			t->x[kids[i]] = x;
			x += t->width[kids[i]];
		}
		for (i = nk; i-- > 0;)   /* pushed reversed: drawn in name order */
			stack[sp++] = kids[i];
	}
	free(kids);
	free(stack);
	*count = n;
	return order;
}

/* s escaped for XML text and attributes, at most max_chars characters of it, into sb. */
static void sb_escaped(struct hpa_strbuf *sb, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;   /* run: written as is */
	size_t chars = 0;

	while (*p && chars < max_chars) {
		unsigned c = *p;
		size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
			     (c & 0xf8) == 0xf0 ? 4 : 0;
		size_t j;
		bool ok = len > 0;
		const char *esc;

		for (j = 1; ok && j < len; j++)
			ok = (p[j] & 0xc0) == 0x80;
		if (ok && len == 2 && c < 0xc2)
			ok = false;   /* overlong */
		chars++;
		if (!ok)
			esc = "\xef\xbf\xbd";
		else if (len > 1)
			esc = NULL;
		else if (c == '&')
			esc = "&amp;";
		else if (c == '<')
			esc = "&lt;";
		else if (c == '>')
			esc = "&gt;";
		else if (c == '"')
			esc = "&quot;";
		else if (c == '\n')
			esc = "&#10;";
		else if (c < 0x20)
			esc = "\xef\xbf\xbd";
		else
			esc = NULL;
		if (!esc) {   /* a character written as it is: the run goes on */
			p += len;
			continue;
		}
		if (p > run)
			hpa_sb_add(sb, run, (size_t)(p - run));
		hpa_sb_adds(sb, esc);
		p += ok ? len : 1;
		run = p;
	}
	if (p > run)
		hpa_sb_add(sb, run, (size_t)(p - run));
}

void hpa_put_escaped(FILE *fp, const char *s, size_t max_chars)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;

	sb_escaped(&sb, s, max_chars);
	fwrite(sb.buf ? sb.buf : "", 1, sb.len, fp);
	hpa_sb_release(&sb);
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* snprintf(out, size, "rgb(%d,%d,%d)", r, g, b) for 0..999 each, without printf. */
static void rgb(char *out, size_t size, int r, int g, int b)
{
	int v[3] = { r, g, b }, i;
	size_t n;

	if (size < 16 || r < 0 || g < 0 || b < 0 || r > 999 || g > 999 || b > 999) {
		snprintf(out, size, "rgb(%d,%d,%d)", r, g, b);
		return;
	}
	memcpy(out, "rgb(", 4);
	n = 4;
	for (i = 0; i < 3; i++) {
		if (v[i] >= 100)
			out[n++] = (char)('0' + v[i] / 100);
		if (v[i] >= 10)
			out[n++] = (char)('0' + v[i] / 10 % 10);
		out[n++] = (char)('0' + v[i] % 10);
		out[n++] = i < 2 ? ',' : ')';
	}
	out[n] = '\0';
}

/*
 * perf's frame annotations, as FlameGraph's and inferno's multi palettes
 * colour them: "_[j]" JIT green, "_[i]" inlined aqua, "_[k]" kernel
 * orange, "_[w]" waker aqua.  0 for a name without one.
 */
static char annotation(const char *name)
{
	size_t n = strlen(name);

	if (n < 4 || memcmp(name + n - 4, "_[", 2) || name[n - 1] != ']')
		return 0;
	return strchr("jikw", name[n - 2]) ? name[n - 2] : 0;
}

/* The memory palette (green to blue) from the name's hash; an annotated frame's own. */
static void mem_colour(const char *name, char *out, size_t size)
{
	uint64_t h = fnv1a(name);
	double v1 = (double)(h >> 11) / 9007199254740992.0;
	double v2 = (double)((h * 0x100000001b3ULL) >> 11) / 9007199254740992.0;

	switch (annotation(name)) {
	case 'j':
		rgb(out, size, 50 + (int)(60 * v1), 200 + (int)(55 * v1), 50 + (int)(60 * v1));
		break;
	case 'i':
	case 'w':
		rgb(out, size, 50 + (int)(60 * v1), 165 + (int)(55 * v1), 165 + (int)(55 * v1));
		break;
	case 'k':
		rgb(out, size, 190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
		break;
	default:
		rgb(out, size, 0, 190 + (int)(50 * v2), (int)(210 * v1));
	}
}

/*
 * Red grew, blue shrank, grey unchanged; the deeper, the larger |delta|
 * against `max`, the largest change of any frame drawn: every differential
 * graph's rule (HPA_DIFF_LEGEND), the page's (report.js colour()) too,
 * computed the same way.
 */
static void diff_colour(double delta, double max, char *out, size_t size)
{
	double k;
	int c;

	if (delta == 0 || max == 0) {
		snprintf(out, size, "rgb(220,220,220)");   /* neutral: unchanged */
		return;
	}
	k = fmin(fabs(delta), max) / max;
	c = 100 + (int)floor(150 * (1 - k));
	if (delta > 0)
		rgb(out, size, 250, c, c);
	else
		rgb(out, size, c, c, 250);
}

/*
 * A growth graph's frame: its class's colour (HPA_GROWTH_LEGEND; grey:
 * flat), the deeper the larger its swing against `max`, the largest of any
 * frame drawn, never paler than a third of the way, so the class shows.
 * The page's (report.js colour()) is computed the same way.
 */
static void class_colour(unsigned cls, double swing, double max, char *out, size_t size)
{
	static const int deepest[][3] = {   /* by enum hpa_growth_class: leak, plateau, churn, shrink */
		{ 220, 30, 30 }, { 235, 150, 0 }, { 150, 60, 200 }, { 40, 80, 230 }
	};
	double k;

	if (cls >= HPA_ARRAY_SIZE(deepest)) {
		snprintf(out, size, "rgb(220,220,220)");
		return;
	}
	k = 0.35 + 0.65 * (max > 0 ? fmin(swing, max) / max : 0);
	rgb(out, size, 255 - (int)floor((255 - deepest[cls][0]) * k), 255 - (int)floor((255 - deepest[cls][1]) * k),
	    255 - (int)floor((255 - deepest[cls][2]) * k));
}

/* A value as people read it: --unit's rule, auto by default (as every report but --text). */
static void human(char *out, size_t size, double v, const struct hpa_write_opts *opts)
{
	struct hpa_write_opts o = *opts;

	if (hpa_value_is_objects(opts->view.value)) {
		snprintf(out, size, "%.0f objects", v);
		return;
	}
	if (o.unit == HPA_UNIT_DEFAULT)
		o.unit = HPA_UNIT_AUTO;
	hpa_format_total(out, size, v, &o);
}

/* printf("%.*f", prec, v), faster (hpa_fixed). */
static void put_fixed(struct hpa_strbuf *sb, double v, unsigned prec)
{
	char b[HPA_FIXED_MAX];

	hpa_sb_add(sb, b, hpa_fixed(b, v, prec));
}

static void tooltip(struct hpa_strbuf *sb, const struct tree *t, uint32_t id, double total,
		    const struct hpa_write_opts *opts)
{
	const struct hpa_call_node *nd = &t->nodes[id];
	char a[HPA_FIXED_MAX], b[48], ha[48];
	double delta = nd->after - nd->before;

	sb_escaped(sb, node_name(t, id), SIZE_MAX);
	hpa_fixed(a, nd->after, 0);
	human(ha, sizeof(ha), nd->after, opts);
	if (!t->diff) {
		hpa_sb_adds(sb, "&#10;");
		if (!hpa_value_is_objects(opts->view.value)) {   /* "12 objects", not "12 objects (12 objects)" */
			hpa_sb_adds(sb, a);
			hpa_sb_adds(sb, " bytes (");
		}
		hpa_sb_adds(sb, ha);
		hpa_sb_adds(sb, hpa_value_is_objects(opts->view.value) ? ", " : "), ");
		put_fixed(sb, total ? nd->after * 100 / total : 0, 2);
		hpa_sb_addc(sb, '%');
		return;
	}
	snprintf(b, sizeof(b), "%.0f", nd->before);
	hpa_sb_addf(sb, "&#10;%s \xe2\x86\x92 %s (%s), \xce\x94 %+.0f", b, a, ha, delta);
	if (nd->before != 0)
		hpa_sb_addf(sb, " (%+.1f%%)", delta * 100 / nd->before);
	else if (nd->after != 0)
		hpa_sb_adds(sb, " (new)");
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* What the values drawn are: the value type, or what the view's own values are. */
static const char *value_label(const struct hpa_write_opts *opts)
{
	return opts->value_label ? opts->value_label : hpa_value_name(opts->view.value);
}

/*
 * What the graph shows: "Flame Graph: FILE (PROGRAM), VALUE TOTAL"; a diff
 * names its base and profile, a growth graph its number of dumps.
 */
static void default_title(char *out, size_t size, const struct hpa_profile *prof,
			  const struct tree *t, const struct hpa_write_opts *opts)
{
	const char *kind = opts->icicle ? "Icicle Graph" : "Flame Graph";
	const char *before = NULL, *after = NULL;
	char what[256] = "", total[48], prog[160] = "";
	size_t i, active = 0;

	for (i = 0; i < prof->inputs_nr; i++) {
		const struct hpa_input *in = &prof->inputs[i];
		bool base = hpa_view_base(&opts->view, prof, (uint32_t)i + 1);
		if (hpa_view_weight(&opts->view, prof, (uint32_t)i + 1) == 0)
			continue;   /* --outdir: another dump */
		active++;
		if (base && !before)
			before = base_name(in->path);
		else if (!base)
			after = base_name(in->path);
	}
	if (opts->binary)
		snprintf(prog, sizeof(prog), " (%s)", base_name(opts->binary));
	if (t->dumps)
		snprintf(what, sizeof(what), "%zu dumps", t->dumps);
	else if (before && after)
		snprintf(what, sizeof(what), "%s \xe2\x86\x92 %s", before, after);
	else if (active > 1)
		snprintf(what, sizeof(what), "%zu profiles summed", active);
	else if (after)
		snprintf(what, sizeof(what), "%s", after);
	human(total, sizeof(total), t->diff ? t->nodes[0].after - t->nodes[0].before : t->nodes[0].after,
	      opts);
	snprintf(out, size, "%s%s%s: %s%s, %s %s%s", t->dumps ? "Growth " : t->diff ? "Differential " : "",
		 opts->reverse ? "Inverted " : "", kind, what, prog, value_label(opts),
		 t->diff && t->nodes[0].after - t->nodes[0].before > 0 ? "+" : "", total);
}

/* The frames order[lo..hi) of the picture, to fp; the number drawn. */
struct frames_job {
	FILE *fp;
	const struct tree *t;
	const struct hpa_profile *prof;
	const struct hpa_write_opts *opts;
	const uint32_t *order;
	size_t lo, hi, shown;
	double total, scale, minw, max_delta;
	int height, top, bottom;
};

/* The frames of j (order[lo..hi)) appended to sb. */
static void write_frames(struct frames_job *j, struct hpa_strbuf *sb)
{
	const struct tree *t = j->t;
	const struct hpa_profile *prof = j->prof;
	const struct hpa_write_opts *opts = j->opts;
	const uint32_t *order = j->order;
	double total = j->total, scale = j->scale, minw = j->minw, max_delta = j->max_delta;
	int height = j->height, top = j->top, bottom = j->bottom;
	size_t i, shown = 0;
	char colour[64];

	for (i = j->lo; i < j->hi; i++) {
		const struct hpa_call_node *nd = &t->nodes[order[i]];
		double nx = t->x[order[i]], nw = t->width[order[i]];
		double x = nx * scale + XPAD, w = nw * scale;
		int y = opts->icicle ? top + (int)nd->depth * FRAME_H :
			height - bottom - (int)(nd->depth + 1) * FRAME_H;
		const char *name = node_name(t, order[i]);
		/* The box says the short name; the tooltip and search have the full one. */
		const char *label = order[i] ? hpa_profile_str(prof, nd->label) : name;
		size_t chars = w > 3 ? (size_t)floor((w - 3) / FONTW) : 0, len = utf8_chars(label);   /* text starts 3 px in */

		if (nw <= 0 || nw < minw)
			continue;
		shown++;
		if (t->dumps)   /* coloured by its class: a leak told apart from a plateau or churn */
			class_colour(t->cls[order[i]], t->swing[order[i]], max_delta, colour, sizeof(colour));
		else if (t->diff)
			diff_colour(nd->after - nd->before, max_delta, colour, sizeof(colour));
		else
			mem_colour(name, colour, sizeof(colour));
		hpa_sb_adds(sb, "<g data-x=\"");
		put_fixed(sb, nx / total, 8);
		hpa_sb_adds(sb, "\" data-w=\"");
		put_fixed(sb, nw / total, 8);
		hpa_sb_adds(sb, "\" data-d=\"");
		hpa_sb_add_int(sb, nd->depth);
		hpa_sb_addc(sb, '"');
		if (strcmp(label, name)) {
			hpa_sb_adds(sb, " data-l=\"");
			sb_escaped(sb, label, SIZE_MAX);
			hpa_sb_addc(sb, '"');
		}
		hpa_sb_adds(sb, "><title>");
		tooltip(sb, t, order[i], t->nodes[0].after, opts);
		if (t->dumps) {
			size_t d;
			hpa_sb_addf(sb, "; %s, grew in %.0f%% of steps:", hpa_growth_class_name(t->cls[order[i]]),
				    steadiness(t, order[i], 1) * 100);
			for (d = 0; d < t->dumps; d++)
				hpa_sb_addf(sb, " %.0f", t->ct.series[(size_t)order[i] * t->dumps + d]);
		}
		hpa_sb_adds(sb, "</title><rect x=\"");
		put_fixed(sb, x, 2);
		hpa_sb_adds(sb, "\" y=\"");
		hpa_sb_add_int(sb, y);   /* y >= 0: frames are drawn inside the picture */
		hpa_sb_adds(sb, "\" width=\"");
		put_fixed(sb, w, 2);
		hpa_sb_adds(sb, "\" height=\"");
		hpa_sb_add_int(sb, FRAME_H - 1);
		hpa_sb_adds(sb, "\" fill=\"");
		hpa_sb_adds(sb, colour);
		hpa_sb_adds(sb, "\" rx=\"2\" ry=\"2\"/><text x=\"");
		put_fixed(sb, x + 3, 2);
		hpa_sb_adds(sb, "\" y=\"");
		put_fixed(sb, y + FRAME_H / 2.0 + 4, 1);
		hpa_sb_adds(sb, "\">");
		if (chars >= 3) {   /* cut on characters before escaping, never inside an entity */
			sb_escaped(sb, label, len <= chars ? SIZE_MAX : chars - 2);
			if (len > chars)
				hpa_sb_adds(sb, "..");
		}
		hpa_sb_adds(sb, "</text></g>\n");
	}
	j->shown = shown;
}

/*
 * The frames, formatted into a buffer (many short pieces through stdio
 * cost more) and written out FRAMES_CHUNK frames at a time: stretches
 * formatted through an ordered pipeline (task.h) when there are many, and
 * written in order, so the bytes are those of one pass.
 */
#define FRAMES_CHUNK 1024
#define FRAMES_SPLIT_MIN (4 * FRAMES_CHUNK)
#define FRAMES_SLOTS 8

struct stretch {
	size_t k;                     /* which stretch of FRAMES_CHUNK frames */
	size_t shown;                 /* frames it drew */
	struct hpa_strbuf text;
};

struct stretches {
	const struct frames_job *all;
	size_t shown;
};

/* Stretch k of all's frames (FRAMES_CHUNK of them) into its text, emptied first. */
static void stretch_work(void *ctx, void *slot, size_t worker)
{
	const struct stretches *ss = ctx;
	struct stretch *st = slot;
	struct frames_job j = *ss->all;

	(void)worker;
	j.lo = ss->all->lo + st->k * FRAMES_CHUNK;
	j.hi = j.lo + FRAMES_CHUNK < ss->all->hi ? j.lo + FRAMES_CHUNK : ss->all->hi;
	st->text.len = 0;
	write_frames(&j, &st->text);
	st->shown = j.shown;
}

static void stretch_emit(void *ctx, void *slot)
{
	struct stretches *ss = ctx;
	struct stretch *st = slot;

	if (st->text.len)
		fwrite(st->text.buf, 1, st->text.len, ss->all->fp);
	ss->shown += st->shown;
}

static size_t write_frames_split(struct frames_job *all)
{
	struct stretch slots[FRAMES_SLOTS];
	struct stretches ss = { all, 0 };
	size_t k, want = all->hi - all->lo >= FRAMES_SPLIT_MIN ? hpa_processors() : 1;
	struct hpa_ordered *o;

	memset(slots, 0, sizeof(slots));
	o = hpa_ordered_start(slots, sizeof(slots[0]), FRAMES_SLOTS, want, stretch_work,
			      stretch_emit, &ss);
	for (k = 0; all->lo + k * FRAMES_CHUNK < all->hi; k++) {
		struct stretch *st = hpa_ordered_next(o);
		st->k = k;
		hpa_ordered_submit(o);
	}
	hpa_ordered_finish(o);
	for (k = 0; k < FRAMES_SLOTS; k++)
		hpa_sb_release(&slots[k].text);
	return ss.shown;
}

/* The graph's measures, once its tree is laid out. */
struct svg_frame {
	unsigned width;              /* pixels */
	int height, top, bottom;
	double total, scale, minw, max_delta;
	size_t pruned;               /* frames too narrow to draw, or not made */
};

static void measure(struct svg_frame *g, const struct tree *t, const uint32_t *order, size_t count,
		    const struct hpa_write_opts *opts)
{
	double inner;
	unsigned max_depth = 0;
	size_t i;

	g->width = opts->width ? opts->width : 1200;
	inner = g->width - 2.0 * XPAD;
	g->pruned = t->ct.omitted;   /* not made: under nodes too narrow to draw */
	g->total = t->width[0];
	g->scale = g->total > 0 ? inner / g->total : 0;
	g->minw = opts->minwidth_pct ? opts->minwidth * g->total / 100 :
		(g->scale > 0 ? (opts->minwidth > 0 ? opts->minwidth : 0.1) / g->scale : 0);
	g->max_delta = 0;
	for (i = 0; i < count; i++) {
		const struct hpa_call_node *nd = &t->nodes[order[i]];
		if (t->width[order[i]] <= 0 || t->width[order[i]] < g->minw) {
			g->pruned += t->width[order[i]] > 0;
			continue;
		}
		if (nd->depth > max_depth)
			max_depth = nd->depth;
		/* the root too: one rule for every frame; a growth graph's by their swing */
		g->max_delta = fmax(g->max_delta, t->dumps ? t->swing[order[i]] : fabs(nd->after - nd->before));
	}
	g->top = 3 * FONT + (opts->subtitle ? 2 * FONT : 0);
	g->bottom = 2 * FONT + 12;
	g->height = (int)(max_depth + 1) * FRAME_H + g->top + g->bottom;
}

/* The SVG element, its title and description, style and script. */
static void svg_head(FILE *fp, const struct svg_frame *g, const struct tree *t, const char *title,
		     const struct hpa_write_opts *opts)
{
	char h[48];

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" data-width=\"%u\" data-xpad=\"%d\" "
		"data-fontw=\"%.2f\" onload=\"hpaInit(evt)\">\n", g->width, g->height, g->width,
		g->height, g->width, XPAD, FONTW);
	fputs("<title>", fp);
	hpa_put_escaped(fp, title, SIZE_MAX);
	fputs("</title>\n<desc>", fp);
	fprintf(fp, "hpa %s; %s; total ", t->diff ? "differential flame graph" : "flame graph",
		value_label(opts));
	human(h, sizeof(h), t->nodes[0].after, opts);
	fputs(h, fp);
	fputs("</desc>\n<style type=\"text/css\">\n"
	      "text { font-family: monospace; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { font-size: 17px; }\n"
	      "#frames > g:hover > rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
	      "#frames text { pointer-events: none; }\n"
	      ".parent { opacity: 0.5; }\n"
	      ".hide { display: none; }\n"
	      "#unzoom, #search { cursor: pointer; }\n"
	      "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n", fp);
	fputs(flame_js, fp);
	fputs("]]></script>\n", fp);
}

/* The background, the title lines, the controls and the lines the script fills. */
static void svg_chrome(FILE *fp, const struct svg_frame *g, const struct tree *t, const char *title,
		       const struct hpa_write_opts *opts)
{
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"rgb(%s)\"/>\n", g->width,
		g->height, t->diff ? "248,248,248" : "238,250,238");
	fprintf(fp, "<text id=\"title\" x=\"%u\" y=\"%d\" text-anchor=\"middle\">", g->width / 2, 2 * FONT);
	hpa_put_escaped(fp, title, SIZE_MAX);
	fputs("</text>\n", fp);
	if (opts->subtitle) {
		fprintf(fp, "<text id=\"subtitle\" x=\"%u\" y=\"%d\" text-anchor=\"middle\">", g->width / 2,
			4 * FONT);
		hpa_put_escaped(fp, opts->subtitle, SIZE_MAX);
		fputs("</text>\n", fp);
	}
	fprintf(fp, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n", XPAD, 2 * FONT);
	fprintf(fp, "<text id=\"search\" x=\"%u\" y=\"%d\" text-anchor=\"end\">Search</text>\n",
		g->width - XPAD, 2 * FONT);
	/*
	 * The hover line sits above the footnote, never on it: their baselines
	 * are 1.5 em apart, more than the line height of the monospace fonts a
	 * browser may pick (Noto Sans Mono's is 17 px at 12 px).
	 */
	fprintf(fp, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", XPAD, g->height - FONT - 8);
	fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%d\" text-anchor=\"end\"> </text>\n",
		g->width - XPAD, g->height - FONT - 8);
	fprintf(fp, "<text id=\"test-out\" class=\"hide\" x=\"0\" y=\"0\"></text>\n");
	if (g->total <= 0) {
		fprintf(fp, "<text x=\"%u\" y=\"%d\" text-anchor=\"middle\">No samples: the profile "
			"has no %s to draw</text>\n", g->width / 2, g->top + FRAME_H,
			value_label(opts));
	}
}

/* What was left out, the frames' count and the colours' legend; the end. */
static void svg_tail(FILE *fp, const struct svg_frame *g, const struct tree *t, size_t shown)
{
	if (g->pruned)
		fprintf(fp, "<!-- %zu frames narrower than the minimum width were left out -->\n", g->pruned);
	fprintf(fp, "<text id=\"note\" x=\"%u\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" "
		"fill=\"rgb(120,120,120)\">%zu frames; %zu narrower than the minimum width left out%s</text>\n",
		g->width / 2, g->height - 2, shown, g->pruned,
		t->dumps ? "; " HPA_GROWTH_LEGEND :
		t->diff ? "; " HPA_DIFF_LEGEND : "");
	fputs("</svg>\n", fp);
}

int hpa_report_svg(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct tree t;
	struct svg_frame g;
	uint32_t *order;
	size_t count, shown = 0;
	const char *title = opts->title;
	char deftitle[512];

	if (isatty(fileno(fp)))
		return hpa_error("refusing to write an SVG flame graph to a terminal; use -o FILE.svg "
				 "or a redirect");
	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	build(&t, prof, opts);
	order = layout(&t, &count);
	flockfile(fp);
	measure(&g, &t, order, count, opts);
	if (!title) {
		default_title(deftitle, sizeof(deftitle), prof, &t, opts);
		title = deftitle;
	}
	svg_head(fp, &g, &t, title, opts);
	svg_chrome(fp, &g, &t, title, opts);
	fputs("<g id=\"frames\">\n", fp);
	if (g.total > 0) {
		struct frames_job fj = { fp, &t, prof, opts, order, 0, count, 0, g.total, g.scale, g.minw,
					 g.max_delta, g.height, g.top, g.bottom };
		shown = write_frames_split(&fj);
	}
	fputs("</g>\n", fp);
	svg_tail(fp, &g, &t, shown);
	funlockfile(fp);
	free(order);
	free(t.width);
	free(t.x);
	free(t.cls);
	free(t.swing);
	hpa_call_tree_release(&t.ct);
	return 0;
}
