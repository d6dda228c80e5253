/*
 * --dot: the call graph as GraphViz DOT text, for users who have GraphViz
 * (hpa never runs it).  Nodes are the graph's (group.h, hpa_graph_of_rows),
 * --text's rows with flat and cum, edges the calls between them with the
 * value through each.  Like jeprof: the first --nodecount nodes (80) by cum whose cum is
 * above --nodefraction of the total (0.005), edges above --edgefraction
 * (0.001); node boxes grow with flat, edges with their value.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/report.h"
#include "hpa/xalloc.h"

static const struct hpa_graph_rows *sort_groups;

static int cmp_cum(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	double x = fabs(sort_groups->cum[a]), y = fabs(sort_groups->cum[b]);

	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_groups->keys, a), hpa_strtab_get(sort_groups->keys, b));
}

/* A DOT string's inside: quotes and backslashes escaped, control bytes dropped. */
static void put_dot(FILE *fp, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fputc('\\', fp);
		if (c >= 0x20 && c != 0x7f)
			fputc(c, fp);
	}
}

int hpa_report_dot(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_graph graph;
	struct hpa_graph_rows g;
	uint32_t *nodes, *shown_id;
	size_t nnodes = 0, nonzero = 0, i, limit = opts->nodecount ? opts->nodecount : 80;
	double total, maxflat = 0;
	double nodefrac = opts->nodefraction > 0 ? opts->nodefraction : 0.005, edgefrac = 0.001;
	char num[4][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	g = hpa_graph_of_rows(prof, &vo, opts->granularity, true, &graph);
	total = g.total;
	nodes = xmalloc(st_mult(g.keys->nr + 1, sizeof(*nodes)));
	shown_id = xcalloc(g.keys->nr + 1, sizeof(*shown_id));
	for (i = 1; i < g.keys->nr; i++) {
		nonzero += g.cum[i] != 0;
		if (g.cum[i] != 0 && fabs(g.cum[i]) > nodefrac * fabs(total))
			nodes[nnodes++] = (uint32_t)i;
	}
	sort_groups = &g;
	if (nnodes > 1)
		qsort(nodes, nnodes, sizeof(*nodes), cmp_cum);
	if (nnodes > limit)
		nnodes = limit;
	for (i = 0; i < nnodes; i++) {
		shown_id[nodes[i]] = (uint32_t)i + 1;
		if (fabs(g.flat[nodes[i]]) > maxflat)
			maxflat = fabs(g.flat[nodes[i]]);
	}

	hpa_format_total(num[0], sizeof(num[0]), total, opts);
	fputs("digraph \"hpa\" {\nnode [width=0.375,height=0.25];\n", fp);
	fprintf(fp, "Legend [fontsize=24,shape=plaintext,label=\"Total %s: %s\\l"
		"Showing %zu of %zu nodes\\l", hpa_value_name(opts->view.value), num[0], nnodes, nonzero);
	{
		char *f = hpa_view_filters_text(&vo);
		if (f) {
			fputs("Active filters: ", fp);
			put_dot(fp, f);
			fputs("\\l", fp);
			free(f);
		}
	}
	fputs("\"];\n", fp);
	for (i = 0; i < nnodes; i++) {
		uint32_t n = nodes[i];
		double fs = maxflat > 0 ? 8 + 42 * sqrt(fabs(g.flat[n]) / maxflat) : 8;

		hpa_format_value(num[0], sizeof(num[0]), g.flat[n], opts);
		hpa_format_percent(num[1], sizeof(num[1]), g.flat[n], total);
		hpa_format_value(num[2], sizeof(num[2]), g.cum[n], opts);
		hpa_format_percent(num[3], sizeof(num[3]), g.cum[n], total);
		fprintf(fp, "N%zu [label=\"", i + 1);
		put_dot(fp, hpa_strtab_get(g.keys, n));
		fprintf(fp, "\\n%s (%s)\\nof %s (%s)\",shape=box,fontsize=%.1f];\n", num[0], num[1],
			num[2], num[3], fs);
	}
	for (i = 0; i < g.nedges; i++) {
		const struct hpa_call_edge *e = &g.edges[i];
		uint32_t a = shown_id[e->caller], b = shown_id[e->callee];
		double v = hpa_dust_to_zero(e->value), w;

		if (!a || !b || v == 0 || fabs(v) <= edgefrac * fabs(total))
			continue;
		w = total != 0 ? fabs(v) / fabs(total) : 0;
		hpa_format_value(num[0], sizeof(num[0]), v, opts);
		fprintf(fp, "N%u -> N%u [label=\"%s\", weight=%.0f, penwidth=%.2f];\n", a, b, num[0],
			100 * sqrt(w) + 1, 1 + 5 * w);
	}
	fputs("}\n", fp);
	free(nodes);
	free(shown_id);
	hpa_graph_release(&graph);
	return 0;
}
