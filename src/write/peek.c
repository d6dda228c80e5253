/*
 * --peek RE: for each function whose name matches RE, its callers and
 * callees with the value that went through each call, the way pprof -peek
 * prints them; --tree: the same for the first --nodecount functions (pprof
 * -tree).  Rows are --text's keys (functions, or lines, ... with
 * --lines ...), from the grouping engine's graph, its nodes and calls (group.h): a
 * caller's value is the samples where it called the function, counted once
 * per sample, so the callers sum to the function's cum unless it is a root
 * or calls itself through others.
 */
#include "hpa/compat.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/report.h"
#include "hpa/xalloc.h"

struct link {
	uint32_t key;
	double value;
};

static const struct hpa_strtab *sort_names;
static const double *sort_flat;

static int cmp_links(const void *pa, const void *pb)
{
	const struct link *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_names, a->key), hpa_strtab_get(sort_names, b->key));
}

static int cmp_nodes(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (sort_flat[a] != sort_flat[b])
		return sort_flat[a] > sort_flat[b] ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_names, a), hpa_strtab_get(sort_names, b));
}

static void print_links(FILE *fp, const struct hpa_strtab *names, struct link *links, size_t n,
			double cum, const struct hpa_write_opts *opts)
{
	char num[48], pct[48];
	size_t i;

	sort_names = names;
	if (n > 1)
		qsort(links, n, sizeof(*links), cmp_links);
	for (i = 0; i < n; i++) {
		hpa_format_value(num, sizeof(num), links[i].value, opts);
		hpa_format_percent(pct, sizeof(pct), links[i].value, cum);
		fprintf(fp, "%38s %6s         |   %s\n", num, pct, hpa_strtab_get(names, links[i].key));
	}
}

/*
 * The edges by one end: for key k, its edges are idx[start[k] .. start[k+1])
 * (a counting sort, so a row's links cost their own number, not a pass over
 * every edge: a stack of 200k frames has 200k rows and 200k edges).
 */
struct by_end {
	size_t *start, *idx;
};

static void index_edges(struct by_end *b, const struct hpa_call_edge *edges, size_t n, size_t keys,
			bool by_callee)
{
	size_t e, k;

	b->start = xcalloc(keys + 2, sizeof(*b->start));
	b->idx = xmalloc(st_mult(n + 1, sizeof(*b->idx)));
	for (e = 0; e < n; e++)
		b->start[(by_callee ? edges[e].callee : edges[e].caller) + 2]++;
	for (k = 2; k < keys + 2; k++)
		b->start[k] += b->start[k - 1];
	for (e = 0; e < n; e++)   /* start[k + 1] runs from k's first slot to its end */
		b->idx[b->start[(by_callee ? edges[e].callee : edges[e].caller) + 1]++] = e;
}

/* Key n's links at the other end of its edges (value not 0), into links; their number. */
static size_t links_of(const struct by_end *b, uint32_t n, const struct hpa_call_edge *edges,
		       bool callers, struct link *links)
{
	size_t i, nl = 0;

	for (i = b->start[n]; i < b->start[n + 1]; i++) {
		const struct hpa_call_edge *e = &edges[b->idx[i]];
		double v = hpa_dust_to_zero(e->value);
		if (v != 0)
			links[nl++] = (struct link){ callers ? e->caller : e->callee, v };
	}
	return nl;
}

/*
 * The rows: the nodes with a value that --peek's expression matches (all
 * of them for --tree), by flat; --tree keeps the first `limit` (*dropped:
 * how many it leaves out).  Their number into *nr.
 */
static uint32_t *select_nodes(const struct hpa_graph_rows *g, const struct hpa_write_opts *opts, bool tree,
			      size_t limit, size_t *nr, size_t *dropped)
{
	uint32_t *nodes = xmalloc(st_mult(g->keys->nr + 1, sizeof(*nodes)));
	size_t i, n = 0;

	for (i = 1; i < g->keys->nr; i++) {
		if ((g->flat[i] != 0 || g->cum[i] != 0) &&
		    (tree || regexec(&opts->peek->re, hpa_strtab_get(g->keys, (uint32_t)i), 0, NULL, 0) == 0))
			nodes[n++] = (uint32_t)i;
	}
	sort_names = g->keys;
	sort_flat = g->flat;
	if (n > 1)
		qsort(nodes, n, sizeof(*nodes), cmp_nodes);
	*dropped = 0;
	if (tree && n > limit) {   /* --tree: the first --nodecount functions (pprof's 80) */
		*dropped = n - limit;
		n = limit;
	}
	*nr = n;
	return nodes;
}

int hpa_report_peek(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	static const char *const rule = "----------------------------------------------------------+-------------\n";
	struct hpa_view_opts vo = opts->view;
	struct hpa_graph graph;
	struct hpa_graph_rows g;
	const struct hpa_call_edge *edges;
	const struct hpa_strtab *names;
	const double *flat, *cum;
	struct link *in = NULL, *out = NULL;
	struct by_end to, from;   /* edges by callee, by caller */
	uint32_t *nodes;
	size_t nedges, nnodes, i, nin, nout, dropped;
	size_t limit = opts->nodecount ? opts->nodecount : 80;
	bool tree = opts->mode == HPA_MODE_TREE;
	double total, running = 0;
	char num[4][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	g = hpa_graph_of_rows(prof, &vo, opts->granularity, true, &graph);
	total = g.total;
	names = g.keys;
	flat = g.flat;
	cum = g.cum;
	edges = g.edges;
	nedges = g.nedges;
	nodes = select_nodes(&g, opts, tree, limit, &nnodes, &dropped);
	in = xmalloc(st_mult(nedges + 1, sizeof(*in)));
	out = xmalloc(st_mult(nedges + 1, sizeof(*out)));
	index_edges(&to, edges, nedges, names->nr, true);
	index_edges(&from, edges, nedges, names->nr, false);

	hpa_format_total(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s\n", num[0]);
	hpa_active_filters(fp, &vo);
	if (dropped)
		fprintf(fp, "Dropped %zu functions (--nodecount %zu)\n", dropped, limit);
	if (!nnodes && !tree)
		fprintf(fp, "No function matches '%s'.\n", opts->peek->src ? opts->peek->src : "");
	else
		fprintf(fp, "%s%8s %6s %6s %8s %6s   calls calls%% + context\n%s", rule, "flat", "flat%",
			"sum%", "cum", "cum%", rule);
	for (i = 0; i < nnodes; i++) {
		uint32_t n = nodes[i];

		nin = links_of(&to, n, edges, true, in);
		nout = links_of(&from, n, edges, false, out);
		print_links(fp, names, in, nin, cum[n], opts);
		running += flat[n];
		hpa_format_value(num[0], sizeof(num[0]), flat[n], opts);
		hpa_format_percent(num[1], sizeof(num[1]), flat[n], total);
		hpa_format_percent(num[2], sizeof(num[2]), running, total);
		hpa_format_value(num[3], sizeof(num[3]), cum[n], opts);
		fprintf(fp, "%8s %6s %6s %8s ", num[0], num[1], num[2], num[3]);
		hpa_format_percent(num[0], sizeof(num[0]), cum[n], total);
		fprintf(fp, "%6s                | %s\n", num[0], hpa_strtab_get(names, n));
		print_links(fp, names, out, nout, cum[n], opts);
		fputs(rule, fp);
	}
	free(in);
	free(out);
	free(to.start);
	free(to.idx);
	free(from.start);
	free(from.idx);
	free(nodes);
	hpa_graph_release(&graph);
	return 0;
}
