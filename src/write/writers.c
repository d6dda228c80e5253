/*
 * The writers by output mode: one table, so the driver never switches on
 * the mode and a new writer is one row.
 */
#include "hpa/compat.h"

#include "hpa/diag.h"
#include "hpa/report.h"

static const struct hpa_writer writers[] = {
	{ HPA_MODE_TEXT, "text", hpa_report_text },
	{ HPA_MODE_COLLAPSE, "collapse", hpa_report_collapse },
	{ HPA_MODE_TRACES, "traces", hpa_report_traces },
	{ HPA_MODE_THREADS, "threads", hpa_report_threads },
	{ HPA_MODE_PROTO, "proto", hpa_report_pprof },
	{ HPA_MODE_SVG, "svg", hpa_report_svg },
	{ HPA_MODE_CSV, "growth", hpa_report_growth },
};

const struct hpa_writer *hpa_writer_for(const struct hpa_opts *opts)
{
	/* --growth: its own tables (text, --csv, --collapse); --svg colours the graph. */
	enum hpa_mode mode = opts->growth && opts->mode != HPA_MODE_SVG ? HPA_MODE_CSV : opts->mode;
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(writers); i++)
		if (writers[i].mode == mode)
			return &writers[i];
	HPA_BUG("no writer for mode %d", (int)mode);
}
