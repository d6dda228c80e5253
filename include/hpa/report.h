/*
 * Report writers.  Each takes the model and the options and writes one
 * format to `fp`; none re-parses another writer's output.
 */
#ifndef HPA_REPORT_H
#define HPA_REPORT_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

/*
 * jeprof --text: "Total:" line, then flat, flat%, sum%, cum, cum%, name rows.
 * Returns 0, or -1 after reporting (e.g. --alloc_* without such data).
 */
int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --collapse: folded stacks, one line per distinct stack, sorted. */
int hpa_report_collapse(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --proto: gzip-compressed pprof protobuf, symbolized and self-contained. */
int hpa_report_pprof(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --svg: an interactive flame graph; differential when a --base was read. */
int hpa_report_svg(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --growth: per-dump series of stacks and functions ranked by steady growth
 * (text table, --csv, --collapse of the gain). */
int hpa_report_growth(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --traces: every distinct stack with its value, largest first. */
int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --peek RE: callers and callees of the matching functions, as pprof -peek;
 * --tree: of the first --nodecount functions, as pprof -tree. */
int hpa_report_peek(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --list RE: the source lines of the matching functions with flat and cum, as pprof -list. */
int hpa_report_list(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --html with --stats: the RSS breakdown as text, for the report's Memory tab (or NULL). */
extern const char *hpa_html_memory;

/* --html: one self-contained HTML report. */
int hpa_report_html(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --dot: the call graph as GraphViz DOT text. */
int hpa_report_dot(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

/* --threads: per-thread totals with thread names. */
int hpa_report_threads(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

struct hpa_alloc_stats;
struct hpa_proc_mem;


/* The RSS breakdown (and jemalloc's empty slab space by site); prof may be NULL. */
int hpa_report_rss(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts,
		   const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm);

/*
 * Escape for XML and HTML text and attributes, at most `max_chars`
 * characters (SIZE_MAX: all); invalid UTF-8 and control bytes become U+FFFD.
 */
void hpa_put_escaped(FILE *fp, const char *s, size_t max_chars);

/* A writer: one output format from the model. */
typedef int hpa_writer_fn(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts);

struct hpa_writer {
	enum hpa_mode mode;
	bool series;               /* for --growth */
	const char *name;
	hpa_writer_fn *write;
};

/* The writer for the options' output mode and --growth; NULL if there is none. */
const struct hpa_writer *hpa_writer_for(const struct hpa_opts *opts);

/* --alloc_* on a profile without accumulated data: an error (-1) saying so. */
int hpa_check_value_data(const struct hpa_profile *prof, const struct hpa_opts *opts);

/* Format a value as jeprof's Unparse: "%d" truncation, or MB with one decimal. */
void hpa_format_value(char *buf, size_t size, double v, const struct hpa_opts *opts);

/* jeprof's Percent: "%.1f%%" of x*100/total; nan, +inf, -inf when total is 0. */
void hpa_format_percent(char *buf, size_t size, double x, double total);

/* The "Active filters: focus=RE ..." line of a report, when any is set (as pprof prints it). */
void hpa_active_filters(FILE *fp, const struct hpa_view_opts *vo);

/* Bytes in `unit` (HPA_UNIT_AUTO: the unit that keeps 3 significant digits, named). */
void hpa_format_bytes(char *buf, size_t size, double v, enum hpa_unit unit);

/* A total with its unit: "24.4 MB", "25626804 B", "24.4MiB" (--unit auto), "12 objects". */
void hpa_format_total(char *buf, size_t size, double v, const struct hpa_opts *opts);

/* "objects", "B", "MB" or --unit's; "" for --unit auto (each value is named). */
const char *hpa_units(const struct hpa_opts *opts);

#endif
