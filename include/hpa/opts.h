/*
 * Command-line options as plain data.  Only the driver (main.c, run.c,
 * watch.c) reads them: it gives each stage that stage's own parameters
 * (hpa_opts_view, hpa_opts_write, hpa_opts_base and the like).
 */
#ifndef HPA_OPTS_H
#define HPA_OPTS_H

#include <stdio.h>

#include "hpa/compat.h"
#include "hpa/fetch.h"
#include "hpa/diff.h"
#include "hpa/group.h"
#include "hpa/profile.h"
#include "hpa/report.h"
#include "hpa/view.h"

struct hpa_opts {
	enum hpa_mode mode;
	enum hpa_value value;        /* --inuse_space (default) ... */
	bool show_bytes;             /* --show_bytes */
	bool cum;                    /* --cum: sort by cumulative value */
	enum hpa_granularity granularity;
	bool keep_internal;          /* --keep-internal: keep allocator frames */
	bool no_symbols;             /* --no-symbols: rows are addresses */
	const char *sysroot;         /* --sysroot DIR */
	const char **debug_dirs;     /* --debug-dir DIR, repeatable */
	size_t debug_dirs_nr;
	bool debuginfod;             /* --debuginfod */
	int32_t thread;              /* --thread N, or HPA_THREAD_ALL */
	const char *base;            /* --base FILE */
	bool drop_negative;          /* --drop_negative */
	bool normalize;              /* --normalize */
	bool diff_columns;           /* --diff-columns: collapse as "stack BEFORE AFTER" */
	bool svg_and_collapse;       /* --svg and --collapse both (with --outdir): mode is SVG */
	struct hpa_filter_re focus, ignore, show, hide;
	struct hpa_filter_re peek;   /* --peek RE: the functions whose callers and callees to show */
	struct hpa_filter_re list;   /* --list RE: the functions whose source lines to show */
	struct hpa_filter_re expect_growth;   /* --expect-growth RE: --growth rows whose growth is expected */
	struct hpa_path_list source_paths;   /* --source-path DIR, repeatable */
	struct hpa_path_list trim_paths;     /* --trim-path PREFIX, repeatable */
	bool icicle;                 /* --icicle: root on top */
	bool reverse;                /* --reverse: stacks leaf first (--svg, --collapse) */
	bool short_names;            /* --short-names: --collapse with short names */
	enum hpa_unit unit;          /* --unit */
	const char *title, *subtitle;
	unsigned width;              /* --width, pixels */
	double minwidth;             /* --minwidth: pixels, or percent if minwidth_pct */
	bool minwidth_pct;
	const char *outdir;          /* --outdir DIR: one file per dump and pair */
	bool growth;                 /* --growth: the inputs are a series of dumps */
	bool quiet;                  /* -q, --quiet: no warnings */
	bool timing;                 /* --timing: each pass's time to stderr */
	struct hpa_http_opts http;   /* --endpoint, --timeout, --cacert, --cert, --key,
					--insecure, --header */
	const char *watch;           /* --watch URL */
	double interval;             /* --interval, seconds */
	double threshold;            /* --threshold, bytes */
	long pid;                    /* --pid PID: decide on its RSS; --stats: its /proc files */
	const char *stats;           /* --stats FILE|URL */
	const char *status_file;     /* --status FILE */
	const char *smaps_file;      /* --smaps FILE */
	double rss;                  /* --rss SIZE, bytes; < 0 unset */
	const char *push;            /* --push clickhouse+http://HOST:PORT/DATABASE */
	const char **labels;         /* --label KEY=VALUE, repeatable */
	bool per_profile;            /* --per-profile: a ClickHouse source's sums divided by its profiles */
	size_t labels_nr;
	size_t nodecount;            /* --nodecount N, 0 = all rows */
	double nodefraction;         /* --nodefraction F, 0 = all rows */
	const char *output;          /* --output FILE; NULL = standard output */
	const char *binary;          /* optional BINARY argument */
	const char **profiles;       /* PROFILE arguments; "-" = standard input */
	size_t profiles_nr;
};

/* Parse results. */
enum {
	HPA_OPTS_RUN = 0,    /* go on and run */
	HPA_OPTS_EXIT = 1,   /* --help or --version printed; exit 0 */
	HPA_OPTS_USAGE = -1  /* usage error printed; exit 2 */
};

/*
 * Fill `opts` from argv (borrowed for the process lifetime; `opts->profiles`
 * is allocated and freed by hpa_opts_release).
 */
int hpa_opts_parse(struct hpa_opts *opts, int argc, char **argv);
void hpa_opts_release(struct hpa_opts *opts);

/*
 * Each stage's parameters from the command line's (pointers into `opts`,
 * valid while it is).
 */
struct hpa_view_opts hpa_opts_view(const struct hpa_opts *opts);
struct hpa_write_opts hpa_opts_write(const struct hpa_opts *opts);
struct hpa_base_opts hpa_opts_base(const struct hpa_opts *opts);

/* The --help text, generated from the option table. */
void hpa_opts_usage(FILE *fp);

#endif
