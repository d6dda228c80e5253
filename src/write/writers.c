/*
 * The writers by output mode: one table, so the driver never switches on
 * the mode and a new writer is one row.
 */
#include "hpa/compat.h"

#include "hpa/diag.h"
#include "hpa/report.h"

/* A row per (mode, series): --growth reads the inputs as one series of dumps. */
static const struct hpa_writer writers[] = {
	{ HPA_MODE_TEXT, false, "text", hpa_report_text },
	{ HPA_MODE_COLLAPSE, false, "collapse", hpa_report_collapse },
	{ HPA_MODE_TRACES, false, "traces", hpa_report_traces },
	{ HPA_MODE_THREADS, false, "threads", hpa_report_threads },
	{ HPA_MODE_PROTO, false, "proto", hpa_report_pprof },
	{ HPA_MODE_SVG, false, "svg", hpa_report_svg },
	{ HPA_MODE_PEEK, false, "peek", hpa_report_peek },
	{ HPA_MODE_TREE, false, "tree", hpa_report_peek },
	{ HPA_MODE_DOT, false, "dot", hpa_report_dot },
	{ HPA_MODE_LIST, false, "list", hpa_report_list },
	{ HPA_MODE_HTML, false, "html", hpa_report_html },
	{ HPA_MODE_PUSH, false, "push", hpa_report_push },
	{ HPA_MODE_TEXT, true, "growth", hpa_report_growth },
	{ HPA_MODE_CSV, true, "growth csv", hpa_report_growth },
	{ HPA_MODE_COLLAPSE, true, "growth collapse", hpa_report_growth },
	{ HPA_MODE_SVG, true, "growth svg", hpa_report_svg },   /* coloured by steadiness */
};

const struct hpa_writer *hpa_writer_for(enum hpa_mode mode, bool growth)
{
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(writers); i++)
		if (writers[i].mode == mode && writers[i].series == growth)
			return &writers[i];
	return NULL;
}
