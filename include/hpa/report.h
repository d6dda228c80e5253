/*
 * Report writers.  Each takes the profile and its own parameters (struct
 * hpa_write_opts, filled by the driver) and writes one format to `fp`;
 * none re-parses another writer's output.
 */
#ifndef HPA_REPORT_H
#define HPA_REPORT_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

enum hpa_mode {
	HPA_MODE_TEXT,       /* --text */
	HPA_MODE_COLLAPSE,   /* --collapse */
	HPA_MODE_TRACES,     /* --traces */
	HPA_MODE_THREADS,    /* --threads */
	HPA_MODE_PROTO,      /* --proto */
	HPA_MODE_SVG,        /* --svg */
	HPA_MODE_CSV,        /* --csv (with --growth) */
	HPA_MODE_PEEK,       /* --peek RE */
	HPA_MODE_TREE,       /* --tree */
	HPA_MODE_DOT,        /* --dot */
	HPA_MODE_LIST,       /* --list RE */
	HPA_MODE_HTML,       /* --html */
	HPA_MODE_PUSH        /* --push URL: rows for ClickHouse */
};

/* --unit: how byte values are written. */
enum hpa_unit {
	HPA_UNIT_DEFAULT,   /* each report's own: jeprof's MB (or --show_bytes) in text reports */
	HPA_UNIT_AUTO,      /* each value in the unit that keeps 3 significant digits */
	HPA_UNIT_B, HPA_UNIT_KIB, HPA_UNIT_MIB, HPA_UNIT_GIB
};

/* A repeatable option's values, in order. */
struct hpa_path_list {
	const char **v;
	size_t nr;
};

/* What the writers need of the command line, and nothing else. */
struct hpa_write_opts {
	enum hpa_mode mode;
	bool growth;                 /* the inputs are a series of dumps (--growth) */
	struct hpa_view_opts view;   /* the samples reported: value, thread, filters */
	bool show_bytes;             /* text values in bytes, not jeprof's MB */
	bool cum;                    /* rows by cumulative value */
	enum hpa_granularity granularity;
	enum hpa_unit unit;
	size_t nodecount;            /* at most this many rows; 0 = all */
	double nodefraction;         /* rows of at least this share; 0 = all */
	bool diff_columns;           /* folded "stack BEFORE AFTER" */
	bool reverse;                /* stacks leaf first */
	bool short_names;            /* folded stacks with short names */
	bool icicle;                 /* flame graph with the root on top */
	const char *title, *subtitle;
	const char *value_label;     /* what the values are, when not the value type (view.values set), or NULL */
	unsigned width;              /* flame graph width, pixels */
	double minwidth;             /* narrowest frame drawn: pixels, or percent if minwidth_pct */
	bool minwidth_pct;
	const char *binary;          /* the program named on the command line, or NULL */
	const struct hpa_filter_re *peek;    /* --peek's functions; never NULL */
	const struct hpa_filter_re *list;    /* --list's functions; never NULL */
	const struct hpa_filter_re *expect_growth;   /* --growth: rows listed apart, growth expected; or NULL */
	struct hpa_path_list source_paths;   /* where --list looks for sources */
	struct hpa_path_list trim_paths;     /* prefixes --list takes off file names */
	const char *memory;          /* --html: the --stats --csv rows for the Memory tab, or NULL */
	const double *waste;         /* --html with --stats: per sample, the empty bytes charged to it, or NULL */
	const char *series_order;    /* what ordered several dumps ("the sequence numbers in their names"), or NULL */
	long long series_pid;        /* the process the dumps are of (series.h), -1 unknown */
};

/*
 * jeprof --text: "Total:" line, then flat, flat%, sum%, cum, cum%, name rows.
 * Returns 0, or -1 after reporting (e.g. --alloc_* without such data).
 */
int hpa_report_text(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --collapse: folded stacks, one line per distinct stack, sorted. */
int hpa_report_collapse(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);
/* --push: a JSON object per distinct stack (names root first, the four values), for ClickHouse. */
int hpa_report_push(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --proto: gzip-compressed pprof protobuf, symbolized and self-contained. */
int hpa_report_pprof(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --svg: an interactive flame graph; differential when a --base was read. */
int hpa_report_svg(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --growth: per-dump series of stacks and functions ranked by steady growth
 * (text table, --csv, --collapse of the gain). */
int hpa_report_growth(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --traces: every distinct stack with its value, largest first. */
int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --peek RE: callers and callees of the matching functions, as pprof -peek;
 * --tree: of the first --nodecount functions, as pprof -tree. */
int hpa_report_peek(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --list RE: the source lines of the matching functions with flat and cum, as pprof -list. */
int hpa_report_list(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --html: one self-contained HTML report. */
int hpa_report_html(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --dot: the call graph as GraphViz DOT text. */
int hpa_report_dot(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* --threads: per-thread totals with thread names. */
int hpa_report_threads(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

struct hpa_alloc_stats;
struct hpa_proc_mem;


/*
 * --stats: the RSS breakdown, the size classes' empty bytes and the sites
 * charged with them (waste.h); prof may be NULL.  As text, or with `csv` as
 * CSV: one header line, then a line per row (kind rss, class, site, total).
 */
int hpa_report_rss(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts,
		   const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm, bool csv);

/* A quoted CSV field of the first `len` bytes of s (len < 0: all of it); quotes doubled. */
void hpa_csv_field(FILE *fp, const char *s, int len);

/*
 * Escape for XML and HTML text and attributes, at most `max_chars`
 * characters (SIZE_MAX: all); invalid UTF-8 and control bytes become U+FFFD.
 */
void hpa_put_escaped(FILE *fp, const char *s, size_t max_chars);

/* A writer: one output format from the model. */
typedef int hpa_writer_fn(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts);

struct hpa_writer {
	enum hpa_mode mode;
	bool series;               /* for --growth */
	const char *name;
	hpa_writer_fn *write;
};

/* The writer of an output mode, of a series (--growth) or not; NULL if there is none. */
const struct hpa_writer *hpa_writer_for(enum hpa_mode mode, bool growth);

/* --alloc_* on a profile without accumulated data: an error (-1) saying so. */
int hpa_check_value_data(const struct hpa_profile *prof, const struct hpa_write_opts *opts);

/* Format a value as jeprof's Unparse: "%d" truncation, or MB with one decimal. */
void hpa_format_value(char *buf, size_t size, double v, const struct hpa_write_opts *opts);

/* jeprof's Percent: "%.1f%%" of x*100/total; nan, +inf, -inf when total is 0. */
void hpa_format_percent(char *buf, size_t size, double x, double total);

/* The colours of every differential graph (flame.c's diff_colour, the page's), said the same way. */
#define HPA_DIFF_LEGEND "legend: red grew, blue shrank, grey unchanged; the deeper, the more bytes " \
	"(or objects) changed, the largest change of the graph deepest"

/* The legend of every growth graph's colours, by class (growth.h): the flame graph's, the page's. */
#define HPA_GROWTH_LEGEND "legend: red leak (grows in most steps), orange plateau (grew, then stays), " \
	"purple churn (up and down), blue shrink, grey flat; the deeper, the larger the frame's swing " \
	"between its smallest and largest dump"

/* The "Active filters: focus=RE ..." line of a report, when any is set (as pprof prints it). */
void hpa_active_filters(FILE *fp, const struct hpa_view_opts *vo);

/* Bytes in `unit` (HPA_UNIT_AUTO: the unit that keeps 3 significant digits, named). */
void hpa_format_bytes(char *buf, size_t size, double v, enum hpa_unit unit);

/* A total with its unit: "24.4 MB", "25626804 B", "24.4MiB" (--unit auto), "12 objects". */
void hpa_format_total(char *buf, size_t size, double v, const struct hpa_write_opts *opts);

/* "objects", "B", "MB" or --unit's; "" for --unit auto (each value is named). */
const char *hpa_units(const struct hpa_write_opts *opts);

#endif
