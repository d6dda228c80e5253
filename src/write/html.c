/*
 * --html: one self-contained report page.  The C side computes what the
 * page shows with the grouping engine, so its numbers are --text's and
 * --peek's: per value type present, the top rows at each granularity
 * (functions, lines, files) with flat and cum, the calls between functions,
 * and the call tree for the flame graph; with --base the same for the base
 * alone (before) next to the profile's (after).  They go into the page once,
 * as JSON (strings in one table, rows as arrays of numbers), with the
 * page's script and style (report.js, report.css, embedded at build time);
 * nothing is fetched.  The same input gives the same bytes.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/growth.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"
#include "page.h"
#include "report_css.h"
#include "report_js.h"

/* Lines by their parts: a row names the function and the file, which the page has already. */
static const enum hpa_granularity grans[] = { HPA_BY_FUNCTION, HPA_BY_LINE, HPA_BY_FILE };
static const char *const gran_names[] = { "functions", "lines", "files" };

/*
 * str_id() of key `key` of a granularity's table, through `cache` (by key
 * id, the page's id + 1): the four value types share the table, and a key
 * was hashed and looked up again for each of them and each call edge.
 */
static uint32_t key_id(struct page *pg, const struct hpa_graph_nodes *k, uint32_t **cache,
		       uint32_t key)
{
	if (!*cache)
		*cache = xcalloc(k->keys.nr + 1, sizeof(**cache));
	if (!(*cache)[key])
		(*cache)[key] = str_id(pg, hpa_strtab_get(&k->keys, key)) + 1;
	return (*cache)[key] - 1;
}

/*
 * Row key `key` of k: its page string id, or for a line (hpa_line_parts)
 * three numbers, the ids of its function and its file and the line, from
 * which the page makes the text --text --lines gives it ("??" for the
 * file ""): 16k lines of a 7.5k-stack profile were 475 KB of text.
 * With sb NULL, only the ids are given.
 */
static void row_key(struct page *pg, struct hpa_strbuf *sb, const struct hpa_graph_nodes *k,
		    uint32_t **cache, uint32_t key)
{
	const struct hpa_line_parts *p = k->parts && k->parts[key].is_line ? &k->parts[key] : NULL;
	uint32_t name = p ? prof_str_id(pg, p->name) : key_id(pg, k, cache, key);
	uint32_t file = p ? prof_str_id(pg, p->file) : 0;

	if (!sb)
		return;
	jint(sb, name);
	if (p) {
		hpa_sb_addc(sb, ',');
		jint(sb, file);
		hpa_sb_addc(sb, ',');
		jint(sb, p->line);
	}
}

/* Whether top_rows() writes node i of k for value type v (dust made zero), and the call e. */
static bool row_written(const struct hpa_graph_nodes *k, int v, size_t i)
{
	return k->flat[v][i] != 0 || k->cum[v][i] != 0;
}

static bool call_written(const struct hpa_call_edge *e)
{
	return hpa_dust_to_zero(e->value) != 0;
}

/*
 * Whether k's rows of value type v (a later type's) are those of the same
 * nodes as type lead's (the first type's), so that they are written as
 * their values alone.
 */
static bool rows_shared(const struct hpa_graph_nodes *k, int v, int lead)
{
	size_t i;

	if (lead < 0 || v == lead)
		return false;
	for (i = 1; i < k->keys.nr; i++)
		if (row_written(k, v, i) != row_written(k, lead, i))
			return false;
	return true;
}

/*
 * "NAME":[[key,flat,cum],...] of one granularity's groups (row_key: a
 * line's key is three numbers), or "NAMEv":[flat,cum,flat,cum,...] where
 * the keys are lead's (rows_shared: a later value type's, which repeated
 * the first one's 16k keys of lines and 4k of functions).  Returns the
 * groups' total.
 */
static double emit_rows(struct page *pg, const char *name, const struct hpa_graph_nodes *k, int v,
			uint32_t **cache, int lead)
{
	bool first = true, values_only = rows_shared(k, v, lead);
	size_t i;

	hpa_sb_addf(&pg->sb, "\"%s%s\":[", name, values_only ? "v" : "");
	for (i = 1; i < k->keys.nr; i++) {
		if (!row_written(k, v, i))
			continue;
		spill(pg);
		if (values_only) {
			if (!first)
				hpa_sb_addc(&pg->sb, ',');
		} else {
			hpa_sb_adds(&pg->sb, first ? "[" : ",[");
			row_key(pg, &pg->sb, k, cache, (uint32_t)i);
			hpa_sb_addc(&pg->sb, ',');
		}
		jnum(&pg->sb, k->flat[v][i]);
		hpa_sb_addc(&pg->sb, ',');
		jnum(&pg->sb, k->cum[v][i]);
		if (!values_only)
			hpa_sb_addc(&pg->sb, ']');
		first = false;
	}
	hpa_sb_addc(&pg->sb, ']');
	return k->total[v];
}

/* Every granularity's groups of one view, for every value type: one pass each. */
struct groups {
	struct hpa_graph graph;      /* nodes by grans[], the calls between functions */
	uint32_t *page_id[HPA_ARRAY_SIZE(grans)];    /* key_id()'s caches */
};

/*
 * The graph of gr: every granularity (the calls with the first), for the
 * value types in the mask `values` (those the page shows; none: an empty
 * graph), dust made zero once, here: the rows of later types read the
 * first's.
 */
static void groups_compute(const struct hpa_profile *prof, const struct hpa_view_opts *vo,
			   unsigned values, struct groups *gr)
{
	struct hpa_graph_spec spec = { { grans[0], grans[1], grans[2] }, HPA_ARRAY_SIZE(grans), values, true };

	memset(gr, 0, sizeof(*gr));
	if (!values)
		return;
	hpa_graph_build(prof, vo, &spec, &gr->graph);
	hpa_graph_zero_dust(&gr->graph);
}

static void groups_release(struct groups *gr)
{
	size_t g;

	hpa_graph_release(&gr->graph);
	for (g = 0; g < HPA_ARRAY_SIZE(grans); g++)
		free(gr->page_id[g]);
}

/*
 * Whether type v's calls are written as values alone ("callv"), beside
 * type lead's (the first shown, written whole): the same calls, since one
 * walk made the calls of every type (the same caller and callee at each
 * index), when the same ones have a value.  The page takes the callers
 * and callees from lead's.
 */
static bool calls_shared(const struct groups *gr, int v, int lead)
{
	size_t i;

	if (lead < 0 || v == lead)
		return false;
	for (i = 0; i < gr->graph.nedges; i++)
		if (call_written(&gr->graph.edges[v][i]) != call_written(&gr->graph.edges[lead][i]))
			return false;
	return true;
}

/*
 * "top":{"functions":[[key,flat,cum],...],"lines":...,"files":...,"total":T}
 * (each granularity's rows as values alone where they are type lead's
 * keys: emit_rows) and, with `with_calls`, "calls":[[caller,callee,value],...]
 * (between functions, as --peek counts them) of value type v, or
 * "callv":[value,...] where they are type lead's calls (calls_shared; lead
 * -1: none).
 */
static void top_rows(struct page *pg, struct groups *gr, int v, bool with_calls, int lead)
{
	const struct hpa_graph_nodes *k = &gr->graph.nodes[0];
	const struct hpa_call_edge *edges = gr->graph.edges[v];
	size_t g, i;
	double total = 0;
	bool first = true, values_only = with_calls && calls_shared(gr, v, lead);

	hpa_sb_adds(&pg->sb, "\"top\":{");
	for (g = 0; g < HPA_ARRAY_SIZE(grans); g++) {
		double t;

		if (g)
			hpa_sb_addc(&pg->sb, ',');
		t = emit_rows(pg, gran_names[g], &gr->graph.nodes[g], v, &gr->page_id[g], lead);
		if (!g)
			total = t;
	}
	hpa_sb_adds(&pg->sb, ",\"total\":");
	jnum(&pg->sb, total);
	hpa_sb_addc(&pg->sb, '}');
	if (values_only) {
		hpa_sb_adds(&pg->sb, ",\"callv\":[");
		for (i = 0; i < gr->graph.nedges; i++) {
			if (!call_written(&edges[i]))
				continue;
			spill(pg);
			if (!first)
				hpa_sb_addc(&pg->sb, ',');
			jnum(&pg->sb, edges[i].value);
			first = false;
		}
		hpa_sb_addc(&pg->sb, ']');
	} else if (with_calls) {
		hpa_sb_adds(&pg->sb, ",\"calls\":[");
		for (i = 0; i < gr->graph.nedges; i++) {
			if (!call_written(&edges[i]))
				continue;
			spill(pg);
			hpa_sb_adds(&pg->sb, first ? "[" : ",[");
			jint(&pg->sb, key_id(pg, k, &gr->page_id[0], edges[i].caller));
			hpa_sb_addc(&pg->sb, ',');
			jint(&pg->sb, key_id(pg, k, &gr->page_id[0], edges[i].callee));
			hpa_sb_addc(&pg->sb, ',');
			jnum(&pg->sb, edges[i].value);
			hpa_sb_addc(&pg->sb, ']');
			first = false;
		}
		hpa_sb_addc(&pg->sb, ']');
	}
}

/*
 * The page ids of every key top_rows() writes for the value types in
 * `types` (lead: the first, as top_rows's), in the order it would write
 * them.  Rows and calls written as values alone name no key.  A page of
 * one dump without threads gives its rows' keys their ids before the
 * tree's names (the order of its string table since hpa 0.x: the same
 * input keeps giving the same bytes).
 */
static void assign_ids(struct page *pg, struct groups *gr, unsigned types, int lead)
{
	size_t g, i;
	int v;

	for (v = 0; v < HPA_NVALUES; v++) {
		if (!(types >> v & 1))
			continue;
		for (g = 0; g < HPA_ARRAY_SIZE(grans); g++) {
			const struct hpa_graph_nodes *k = &gr->graph.nodes[g];

			if (rows_shared(k, v, lead))
				continue;
			for (i = 1; i < k->keys.nr; i++)
				if (row_written(k, v, i))
					row_key(pg, NULL, k, &gr->page_id[g], (uint32_t)i);
		}
		if (calls_shared(gr, v, lead))
			continue;
		for (i = 0; i < gr->graph.nedges; i++)
			if (call_written(&gr->graph.edges[v][i])) {
				key_id(pg, &gr->graph.nodes[0], &gr->page_id[0], gr->graph.edges[v][i].caller);
				key_id(pg, &gr->graph.nodes[0], &gr->page_id[0], gr->graph.edges[v][i].callee);
			}
	}
}

/*
 * A series' dumps' rows, written as values alone at the positions of the
 * sum's (each dump's rows are some of the sum's: a series' values are
 * never negative): the sum's rows of a type, and its calls, by their keys
 * as written (row_key: "id" or "function,file,line"; calls
 * "caller,callee"), key -> position + 1.  With keys, 20 dumps of 150k
 * stacks were 38 MB more.
 */
struct sum_rows {
	struct hpa_strtab rows[HPA_ARRAY_SIZE(grans)], calls;
	struct hpa_strbuf key;
};

static const char *call_key(struct page *pg, struct groups *gr, const struct hpa_call_edge *e,
			    struct hpa_strbuf *key)
{
	key->len = 0;
	hpa_sb_addf(key, "%u,%u", key_id(pg, &gr->graph.nodes[0], &gr->page_id[0], e->caller),
		    key_id(pg, &gr->graph.nodes[0], &gr->page_id[0], e->callee));
	return key->buf;
}

static const char *written_key(struct page *pg, struct groups *gr, size_t g, uint32_t i,
			       struct hpa_strbuf *key)
{
	key->len = 0;
	row_key(pg, key, &gr->graph.nodes[g], &gr->page_id[g], i);
	return key->buf;
}

static void sum_rows_make(struct page *pg, struct groups *sum, int v, struct sum_rows *sr)
{
	size_t g, i;

	memset(sr, 0, sizeof(*sr));
	for (g = 0; g < HPA_ARRAY_SIZE(grans); g++) {
		const struct hpa_graph_nodes *k = &sum->graph.nodes[g];

		hpa_strtab_init(&sr->rows[g]);
		for (i = 1; i < k->keys.nr; i++)
			if (row_written(k, v, i))
				hpa_strtab_intern(&sr->rows[g], written_key(pg, sum, g, (uint32_t)i, &sr->key));
	}
	hpa_strtab_init(&sr->calls);
	for (i = 0; i < sum->graph.nedges; i++)
		if (call_written(&sum->graph.edges[v][i]))
			hpa_strtab_intern(&sr->calls, call_key(pg, sum, &sum->graph.edges[v][i], &sr->key));
}

static void sum_rows_release(struct sum_rows *sr)
{
	size_t g;

	for (g = 0; g < HPA_ARRAY_SIZE(grans); g++)
		hpa_strtab_release(&sr->rows[g]);
	hpa_strtab_release(&sr->calls);
	hpa_sb_release(&sr->key);
}

/* `head` (up to the array's '['), then n values. */
static void emit_aligned(struct page *pg, const char *head, const double *vals, size_t n)
{
	size_t i;

	hpa_sb_adds(&pg->sb, head);
	for (i = 0; i < n; i++) {
		if (i)
			hpa_sb_addc(&pg->sb, ',');
		spill(pg);
		jnum(&pg->sb, vals[i]);
	}
	hpa_sb_addc(&pg->sb, ']');
}

/*
 * Dump gr's rows and calls of type v at the sum's positions (sr):
 * "top":{"functionsd":[flat,cum,...],...,"total":T},"calld":[value,...].
 */
static void dump_rows(struct page *pg, struct groups *gr, int v, struct sum_rows *sr)
{
	const struct hpa_call_edge *edges = gr->graph.edges[v];
	size_t g, i, n;
	double *vals;
	uint32_t at;
	char head[32];

	hpa_sb_adds(&pg->sb, "\"top\":{");
	for (g = 0; g < HPA_ARRAY_SIZE(grans); g++) {
		const struct hpa_graph_nodes *k = &gr->graph.nodes[g];

		n = 2 * (sr->rows[g].nr - 1);
		vals = xcalloc(n + 1, sizeof(*vals));
		for (i = 1; i < k->keys.nr; i++) {
			if (!row_written(k, v, i))
				continue;
			at = hpa_strtab_intern(&sr->rows[g], written_key(pg, gr, g, (uint32_t)i, &sr->key));
			if (at && 2 * (size_t)at <= n) {   /* never a row the sum has not */
				vals[2 * at - 2] = k->flat[v][i];
				vals[2 * at - 1] = k->cum[v][i];
			}
		}
		snprintf(head, sizeof(head), "%s\"%sd\":[", g ? "," : "", gran_names[g]);
		emit_aligned(pg, head, vals, n);
		free(vals);
	}
	hpa_sb_adds(&pg->sb, ",\"total\":");
	jnum(&pg->sb, gr->graph.nodes[0].total[v]);
	hpa_sb_addc(&pg->sb, '}');
	n = sr->calls.nr - 1;
	vals = xcalloc(n + 1, sizeof(*vals));
	for (i = 0; i < gr->graph.nedges; i++) {
		if (!call_written(&edges[i]))
			continue;
		at = hpa_strtab_intern(&sr->calls, call_key(pg, gr, &edges[i], &sr->key));
		if (at && at <= n)
			vals[at - 1] = edges[i].value;
	}
	emit_aligned(pg, ",\"calld\":[", vals, n);
	free(vals);
}

/* A value type's object up to its tree: {"name":...,"objects":...,"tree": */
static void type_head(struct page *pg, int v, bool first)
{
	hpa_sb_addf(&pg->sb, "%s{\"name\":\"%s\",\"objects\":%s,\"tree\":", first ? "" : ",",
		    hpa_value_name((enum hpa_value)v), hpa_value_is_objects((enum hpa_value)v) ? "true" : "false");
}


#define GROWTH_ROWS 200

/* --growth's function ranking: [[name, gain, steadiness, class, v1, v2, ...], ...], the first GROWTH_ROWS. */
static void growth(struct page *pg, const struct hpa_view_opts *vo)
{
	struct hpa_growth g;
	size_t i, d;

	hpa_growth(pg->prof, vo, false, GROWTH_ROWS, &g);
	hpa_sb_addc(&pg->sb, '[');
	for (i = 0; i < g.nfuncs && i < GROWTH_ROWS; i++) {
		const struct hpa_series *s = &g.funcs[i];
		int len;
		const char *text = hpa_growth_name(&g, s, &len);
		char *name = xstrndup(text, (size_t)len);
		hpa_sb_addf(&pg->sb, "%s[%u,", i ? "," : "", str_id(pg, name));
		free(name);
		jnum(&pg->sb, s->gain);
		hpa_sb_addf(&pg->sb, ",%.3f,", s->steady);
		hpa_sb_add_json(&pg->sb, hpa_growth_class_name((enum hpa_growth_class)s->cls));
		for (d = 0; d < g.dumps; d++) {
			hpa_sb_addc(&pg->sb, ',');
			jnum(&pg->sb, s->v[d]);
		}
		hpa_sb_addc(&pg->sb, ']');
	}
	hpa_sb_addc(&pg->sb, ']');
	hpa_growth_release(&g);
}

/* Per-thread views: at most this many threads (the first ones). */
#define MAX_THREADS 64

/* The threads with samples of their own (jemalloc tN lines), when there are two or more. */
static size_t threads_nr(const struct hpa_profile *prof)
{
	size_t i;

	if (prof->threads_nr < 2)
		return 0;
	for (i = 0; i < prof->samples_nr; i++)
		if (prof->samples[i].thread != HPA_THREAD_ALL)
			return prof->threads_nr;
	return 0;
}

/* View `vo` narrowed to thread k of the page's. */
static struct hpa_view_opts thread_view(const struct hpa_profile *prof, struct hpa_view_opts vo,
					const struct sample_lists *ts, size_t k)
{
	vo.thread = prof->threads[k].id;
	return only_view(vo, ts, k);
}

/*
 * The value types the page shows, as a mask: the in-use ones always, the
 * others where some sample has them (jemalloc without prof_accum writes
 * zeros), as hpa_unsample_profile() found them.
 */
static unsigned values_present(const struct hpa_profile *prof)
{
	return 1u << HPA_INUSE_SPACE | 1u << HPA_INUSE_OBJECTS | prof->values_nonzero;
}

static const char *format_name(enum hpa_format f)
{
	return f == HPA_FORMAT_JEMALLOC ? "jemalloc heap_v2" : f == HPA_FORMAT_GPERF ?
	       "gperftools/tcmalloc heap profile" : f == HPA_FORMAT_PPROF ? "pprof protobuf" :
	       f == HPA_FORMAT_FOLDED ? "folded stacks" : "ClickHouse (hpa --push rows)";
}

static void summary(struct page *pg, size_t nthr)
{
	const struct hpa_profile *prof = pg->prof;
	size_t i;

	hpa_sb_adds(&pg->sb, "\"inputs\":[");
	for (i = 0; i < prof->inputs_nr; i++) {
		const struct hpa_input *in = &prof->inputs[i];
		char when[64] = "";

		if (in->time_nanos) {
			time_t t = (time_t)(in->time_nanos / 1000000000);
			struct tm tm;
			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		}
		hpa_sb_adds(&pg->sb, i ? ",{\"path\":" : "{\"path\":");
		hpa_sb_add_json(&pg->sb, in->path);
		hpa_sb_adds(&pg->sb, ",\"format\":");
		hpa_sb_add_json(&pg->sb, format_name(in->format));
		hpa_sb_addf(&pg->sb, ",\"period\":%.0f,\"base\":%s,\"time\":", in->period,
			    in->is_base ? "true" : "false");
		hpa_sb_add_json(&pg->sb, when);
		/* a heap dump cut before or inside its maps section: said at the summary's top */
		if (in->maps_cut)
			hpa_sb_adds(&pg->sb, ",\"maps\":\"cut\"");
		else if (hpa_input_without_maps(in))
			hpa_sb_adds(&pg->sb, ",\"maps\":\"missing\"");
		hpa_sb_addc(&pg->sb, '}');
	}
	hpa_sb_adds(&pg->sb, "],\"threads\":[");
	for (i = 0; i < nthr; i++) {
		hpa_sb_addf(&pg->sb, "%s{\"id\":%d,\"name\":", i ? "," : "", prof->threads[i].id);
		hpa_sb_add_json(&pg->sb, prof->threads[i].name ? prof->threads[i].name : "");
		hpa_sb_addc(&pg->sb, '}');
	}
	hpa_sb_adds(&pg->sb, "],\"warnings\":[");
	for (i = 0; i < hpa_diag_recorded_nr(); i++) {
		if (i)
			hpa_sb_addc(&pg->sb, ',');
		hpa_sb_add_json(&pg->sb, hpa_diag_recorded(i));
	}
	hpa_sb_addc(&pg->sb, ']');
}

/*
 * The page's title: --title, else the profile's path, not the base's; of
 * a series, how many dumps, of which process when their names say, and
 * the last one (the one the graphs open on).
 */
static char *title_of(const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	size_t i, n = 0, last = 0;

	if (opts->title)
		return xstrdup(opts->title);
	for (i = 0; i < prof->inputs_nr; i++)
		if (!prof->inputs[i].is_base) {
			n++;
			last = i;
		}
	if (n < 2 || prof->inputs_nr != n)
		return xstrdup(n ? prof->inputs[last].path : "");
	if (opts->series_pid >= 0)
		return hpa_xasprintf("%zu dumps of process %lld, the last %s", n, opts->series_pid,
				     prof->inputs[last].path);
	return hpa_xasprintf("%zu dumps, the last %s", n, prof->inputs[last].path);
}

/* Everything the page shows, computed before any of it is written. */
struct page_data {
	const struct hpa_profile *prof;
	struct hpa_view_opts vo;
	bool diff;                   /* a --base was read */
	bool series;                 /* several dumps, no base: the growth column */
	unsigned present;            /* the value types the page shows */
	int lead;                    /* the first of them */
	size_t nthr;                 /* per-thread views */
	struct sample_lists ts;
	struct sample_lists ds;       /* a series: each dump's samples */
	struct groups all, before, after, *thr;
	struct groups *dumps;        /* a series: each dump's */
	bool have_shared;            /* one dump, no base: one tree holds every type */
	struct hpa_call_tree shared, *thr_tree;
};

static void all_groups_run(void *arg)
{
	struct page_data *d = arg;

	groups_compute(d->prof, &d->vo, d->present, &d->all);
}

/*
 * The whole view's groups on a task beside the rest: the base's and the
 * profile's sides, each thread's groups and the trees (one dump, no base:
 * one tree for every value type, and one per thread, keeping only what
 * they show).  They only read the profile.
 */
static void page_data_make(struct page_data *d, const struct hpa_profile *prof,
			   const struct hpa_view_opts *vo)
{
	struct hpa_task *task;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->prof = prof;
	d->vo = *vo;
	for (i = 0; i < prof->inputs_nr; i++)
		d->diff |= prof->inputs[i].is_base;
	d->series = !d->diff && prof->inputs_nr > 1;
	d->nthr = threads_nr(prof) < MAX_THREADS ? threads_nr(prof) : MAX_THREADS;
	d->present = values_present(prof);
	d->lead = -1;
	while (++d->lead < HPA_NVALUES && !(d->present >> d->lead & 1))
		;
	task = hpa_task_start(all_groups_run, d);
	if (d->diff) {
		struct hpa_view_opts side = *vo;
		side.part = -1;
		groups_compute(prof, &side, d->present, &d->before);
		side.part = 1;
		groups_compute(prof, &side, d->present, &d->after);
	}
	thread_samples(prof, d->nthr, &d->ts);
	d->thr = xcalloc(d->nthr + 1, sizeof(*d->thr));
	for (i = 0; i < d->nthr; i++) {
		struct hpa_view_opts th = thread_view(prof, *vo, &d->ts, i);
		groups_compute(prof, &th, d->present, &d->thr[i]);
	}
	if (d->series) {   /* each dump's rows: the Top and Calls tabs of the dump picked */
		dump_samples(prof, &d->ds);
		d->dumps = xcalloc(prof->inputs_nr, sizeof(*d->dumps));
		for (i = 0; i < prof->inputs_nr; i++) {
			struct hpa_view_opts one = only_view(*vo, &d->ds, i);
			groups_compute(prof, &one, d->present, &d->dumps[i]);
		}
	}
	if (!d->diff && prof->inputs_nr <= 1) {
		struct hpa_tree_opts to = { HPA_NAME_GRAPH, HPA_NAME_SHORT, false, false, true,
					    TREE_MIN_SHARE, 0, d->present };
		hpa_group_tree(prof, vo, &to, &d->shared);
		d->have_shared = true;
		d->thr_tree = xcalloc(d->nthr + 1, sizeof(*d->thr_tree));
		for (i = 0; i < d->nthr; i++) {
			struct hpa_view_opts th = thread_view(prof, *vo, &d->ts, i);
			hpa_group_tree(prof, &th, &to, &d->thr_tree[i]);
		}
	}
	hpa_task_wait(task);
}

static void page_data_release(struct page_data *d)
{
	size_t i;

	if (d->have_shared) {
		hpa_call_tree_release(&d->shared);
		for (i = 0; i < d->nthr; i++)
			hpa_call_tree_release(&d->thr_tree[i]);
		free(d->thr_tree);
	}
	groups_release(&d->all);
	if (d->diff) {
		groups_release(&d->before);
		groups_release(&d->after);
	}
	for (i = 0; i < d->nthr; i++)
		groups_release(&d->thr[i]);
	free(d->thr);
	sample_lists_release(&d->ts);
	if (d->series) {
		for (i = 0; i < d->ds.lists; i++)
			groups_release(&d->dumps[i]);
		free(d->dumps);
		sample_lists_release(&d->ds);
	}
}

/* Each thread's rows and tree of value type v: "threads":[{"top":...,"tree":...},...]. */
static void write_threads(struct page *pg, struct page_data *d, const struct hpa_view_opts *tv,
			  int v, bool first)
{
	size_t k;

	hpa_sb_adds(&pg->sb, ",\"threads\":[");
	for (k = 0; k < d->nthr; k++) {
		struct hpa_view_opts th = thread_view(d->prof, *tv, &d->ts, k);
		hpa_sb_adds(&pg->sb, k ? ",{" : "{");
		top_rows(pg, &d->thr[k], v, true, d->lead);
		hpa_sb_adds(&pg->sb, ",\"tree\":");
		if (d->have_shared)
			emit_tree(pg, &d->thr_tree[k], v, d->present, !first);
		else
			page_tree(pg, &th, false);
		hpa_sb_addc(&pg->sb, '}');
	}
	hpa_sb_addc(&pg->sb, ']');
}

/*
 * Value type v's object: its tree (a later type's from the shared tree:
 * its after column alone), its top rows and calls, the base's and the
 * profile's sides, the growth column, each thread's.
 */
static void write_type(struct page *pg, struct page_data *d, int v, bool first)
{
	struct hpa_view_opts tv = d->vo;

	tv.value = (enum hpa_value)v;
	type_head(pg, v, first);
	if (d->have_shared)
		emit_tree(pg, &d->shared, v, d->present, !first);
	else
		page_tree(pg, &tv, d->series);
	spill(pg);
	hpa_sb_addc(&pg->sb, ',');
	top_rows(pg, &d->all, v, true, d->lead);
	if (d->diff) {   /* each side alone, for the before and after columns */
		hpa_sb_adds(&pg->sb, ",\"before\":{");
		top_rows(pg, &d->before, v, false, -1);
		hpa_sb_adds(&pg->sb, "},\"after\":{");
		top_rows(pg, &d->after, v, false, -1);
		hpa_sb_addc(&pg->sb, '}');
	}
	if (d->series) {
		struct sum_rows sr;
		size_t k;

		hpa_sb_adds(&pg->sb, ",\"growth\":");
		growth(pg, &tv);
		hpa_sb_adds(&pg->sb, ",\"dumps\":[");
		sum_rows_make(pg, &d->all, v, &sr);
		for (k = 0; k < d->ds.lists; k++) {
			hpa_sb_adds(&pg->sb, k ? ",{" : "{");
			dump_rows(pg, &d->dumps[k], v, &sr);
			hpa_sb_addc(&pg->sb, '}');
		}
		sum_rows_release(&sr);
		hpa_sb_addc(&pg->sb, ']');
	}
	if (d->nthr)
		write_threads(pg, d, &tv, v, first);
	hpa_sb_addc(&pg->sb, '}');
}

/* The page up to its data: head, style, the element the script fills. */
static void page_head(FILE *fp, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"hpa " HPA_VERSION "\">\n<title>hpa: ", fp);
	hpa_put_escaped(fp, title, SIZE_MAX);
	fputs("</title>\n<style>\n", fp);
	fputs(report_css, fp);
	fputs("</style>\n</head>\n<body>\n<div id=\"app\">Loading the report...</div>\n"
	      "<pre id=\"test-out\"></pre>\n<script id=\"hpa-data\" type=\"application/json\">", fp);
}

/* The data's first fields: version, title, the RSS text, filters, diff, bytes. */
static void page_fields(struct page *pg, const struct page_data *d, const char *filters)
{
	const struct hpa_write_opts *opts = pg->opts;

	hpa_sb_adds(&pg->sb, "{\"version\":");
	hpa_sb_add_json(&pg->sb, HPA_VERSION);
	hpa_sb_adds(&pg->sb, ",\"title\":");
	{
		char *title = title_of(pg->prof, opts);
		hpa_sb_add_json(&pg->sb, title);
		free(title);
	}
	if (opts->memory) {
		hpa_sb_adds(&pg->sb, ",\"memory\":");
		hpa_sb_add_json(&pg->sb, opts->memory);
	}
	hpa_sb_adds(&pg->sb, ",\"filters\":");
	hpa_sb_add_json(&pg->sb, filters ? filters : "");
	hpa_sb_adds(&pg->sb, ",\"legend\":");
	hpa_sb_add_json(&pg->sb, HPA_DIFF_LEGEND);
	hpa_sb_adds(&pg->sb, ",\"growthLegend\":");
	hpa_sb_add_json(&pg->sb, HPA_GROWTH_LEGEND);
	hpa_sb_addf(&pg->sb, ",\"diff\":%s,\"bytes\":%s,", d->diff ? "true" : "false",
		    opts->show_bytes ? "true" : "false");
}

int hpa_report_html(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct page pg;
	struct page_data d;
	char *filters;
	bool first = true;
	size_t i;
	int v;

	if (isatty(fileno(fp)))
		return hpa_error("refusing to write an HTML report to a terminal; use -o FILE.html or a redirect");
	memset(&pg, 0, sizeof(pg));
	pg.prof = prof;
	pg.opts = opts;
	pg.fp = fp;
	hpa_strtab_init(&pg.strs);
	pg.of_prof_str = xcalloc(prof->strs->nr + 1, sizeof(*pg.of_prof_str));
	{
		char *title = title_of(prof, opts);
		page_head(fp, title);
		free(title);
	}
	page_data_make(&d, prof, &opts->view);
	filters = hpa_view_filters_text(&d.vo);
	page_fields(&pg, &d, filters);
	free(filters);
	summary(&pg, d.nthr);
	if (!d.diff && prof->inputs_nr <= 1 && !d.nthr)
		assign_ids(&pg, &d.all, d.present, d.lead);
	if (opts->waste) {   /* the Memory tab's flame graph: the empty bytes charged to each sample */
		struct hpa_view_opts wv = d.vo;

		wv.value = HPA_INUSE_SPACE;
		wv.values = opts->waste;
		hpa_sb_adds(&pg.sb, ",\"waste\":");
		page_tree(&pg, &wv, false);
	}
	hpa_sb_adds(&pg.sb, ",\"types\":[");
	for (v = 0; v < HPA_NVALUES; v++) {
		if (d.present >> v & 1) {
			write_type(&pg, &d, v, first);
			first = false;
		}
	}
	hpa_sb_adds(&pg.sb, "],\"s\":[\"\"");
	for (i = 1; i < pg.strs.nr; i++) {
		spill(&pg);
		hpa_sb_addc(&pg.sb, ',');
		hpa_sb_add_json(&pg.sb, hpa_strtab_get(&pg.strs, (uint32_t)i));
	}
	hpa_sb_adds(&pg.sb, "]}");
	fwrite(pg.sb.buf, 1, pg.sb.len, fp);
	fputs("</script>\n<script>\n", fp);
	fputs(report_js, fp);
	fputs("</script>\n</body>\n</html>\n", fp);
	page_data_release(&d);
	hpa_sb_release(&pg.sb);
	hpa_strtab_release(&pg.strs);
	free(pg.of_prof_str);
	return 0;
}
