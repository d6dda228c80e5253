/*
 * Table-driven option parsing in the style of jeprof's Getopt::Long: one or
 * two leading dashes, "--opt=value" or "--opt value", and any unambiguous
 * prefix of a long name.  --help is generated from the same table.
 */
#include "hpa/compat.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/clickhouse.h"
#include "hpa/opts.h"
#include "hpa/report.h"
#include "hpa/xalloc.h"

/*
 * What an option does with its value.  Each entry names its target field in
 * struct hpa_opts (offsetof), so parsing is this table and one loop.
 */
enum opt_kind {
	K_FLAG,      /* bool = true */
	K_CHOICE,    /* one of a group: the entries with the same field; int = choice */
	K_STRING,    /* const char * = the value */
	K_PARSE,     /* parse(): convert and check the value, store it */
	K_HELP,
	K_VERSION
};

struct opt_def {
	const char *name;
	char short_name;
	enum opt_kind kind;
	size_t off;           /* target field */
	int choice;           /* K_CHOICE: the value stored */
	int (*parse)(struct hpa_opts *opts, void *field, const char *opt, const char *val);
	const char *arg;      /* NULL: no argument */
	const char *section;  /* starts a new --help section */
	const char *help;     /* NULL: another spelling, not listed */
	bool alias;           /* another spelling of a choice (left out of conflict lists) */
};

#define F(field) offsetof(struct hpa_opts, field)
#define FLAG(n, field, sec, h) { n, 0, K_FLAG, F(field), 0, NULL, NULL, sec, h, false }
#define CHOICE(n, field, v, sec, h) { n, 0, K_CHOICE, F(field), (int)(v), NULL, NULL, sec, h, false }
#define STRING(n, field, arg, sec, h) { n, 0, K_STRING, F(field), 0, NULL, arg, sec, h, false }
#define PARSE(n, field, fn, arg, sec, h) { n, 0, K_PARSE, F(field), 0, fn, arg, sec, h, false }

static int usage_error(const char *fmt, const char *arg);

static int nonempty_file(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	(void)opts;
	if (!*val)
		return usage_error("option '%s' needs a file name", opt);
	*(const char **)field = val;
	return 0;
}

static int nonempty_dir(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	(void)opts;
	if (!*val)
		return usage_error("option '%s' needs a directory", opt);
	*(const char **)field = val;
	return 0;
}

static int add_debug_dir(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	(void)field, (void)opt;
	opts->debug_dirs[opts->debug_dirs_nr++] = val;
	return 0;
}

/* Append to a struct hpa_path_list (room for every argument was made up front). */
static int add_path(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	struct hpa_path_list *l = field;

	(void)opts;
	if (!*val)
		return usage_error("option '%s' needs a path", opt);
	l->v[l->nr++] = val;
	return 0;
}

/* --label KEY=VALUE: KEY a name (letters, digits, '_'), VALUE any text. */
static int add_label(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	size_t k = strspn(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	(void)field, (void)opt;
	if (!k || val[k] != '=' || (val[0] >= '0' && val[0] <= '9'))
		return usage_error("--label needs KEY=VALUE, KEY of letters, digits and '_': '%s'", val);
	opts->labels[opts->labels_nr++] = val;
	return 0;
}

static int add_header(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	const char *colon = strchr(val, ':');
	size_t nlen = colon ? (size_t)(colon - val) : 0;

	(void)field, (void)opt;
	/* Never echo the value: it is often a token. */
	if (!colon || !nlen || strcspn(val, " \t") < nlen || strpbrk(val, "\r\n"))
		return usage_error("%s", "--header needs one 'Name: value' line");
	opts->http.headers[opts->http.headers_nr++] = val;
	return 0;
}

static int parse_regex(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	struct hpa_filter_re *f = field;
	int rc;

	(void)opts;
	if (f->set) {
		regfree(&f->re);
		f->set = false;
	}
	rc = regcomp(&f->re, val, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, &f->re, msg, sizeof(msg));
		fprintf(stderr, "hpa: %s: bad regular expression '%s': %s\n", opt, val, msg);
		fputs("Try 'hpa --help' for more information.\n", stderr);
		return HPA_OPTS_USAGE;
	}
	f->set = true;
	f->src = val;
	return 0;
}

static int parse_unit(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	static const char *const names[] = { "", "auto", "B", "KiB", "MiB", "GiB" };
	size_t i;

	(void)opts, (void)opt;
	for (i = 1; i < HPA_ARRAY_SIZE(names); i++) {
		if (!strcasecmp(val, names[i])) {
			*(enum hpa_unit *)field = (enum hpa_unit)i;
			return 0;
		}
	}
	return usage_error("--unit needs auto, B, KiB, MiB or GiB, not '%s'", val);
}

static int parse_thread(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	long t = strtol(val, &end, 10);

	(void)opts, (void)opt;
	if (*end || end == val || t < 0 || t > INT32_MAX)
		return usage_error("--thread needs a thread number, not '%s'", val);
	*(int32_t *)field = (int32_t)t;
	return 0;
}

static int parse_width(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	unsigned long w = strtoul(val, &end, 10);

	(void)opts, (void)opt;
	if (*end || end == val || w < 100 || w > 100000)
		return usage_error("--width needs a number of pixels from 100 to 100000, not '%s'", val);
	*(unsigned *)field = (unsigned)w;
	return 0;
}

static int parse_minwidth(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	double w = strtod(val, &end);
	bool pct = *end == '%';

	(void)opt;
	if (pct)
		end++;
	if (*end || end == val || !(w >= 0) || (pct && w > 100))
		return usage_error("--minwidth needs pixels or a percentage, not '%s'", val);
	*(double *)field = w;
	opts->minwidth_pct = pct;
	return 0;
}

static int parse_endpoint(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	(void)opts, (void)opt;
	if (strcmp(val, "brpc") && strcmp(val, "gperftools") && strcmp(val, "greptime") &&
	    strcmp(val, "tikv"))
		return usage_error("--endpoint is one of brpc, gperftools, greptime, tikv, not '%s'", val);
	*(const char **)field = val;
	return 0;
}

/* Seconds, or with a suffix s, m or h: --timeout and --interval. */
static int parse_time(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	double t = strtod(val, &end);

	(void)opts, (void)opt;
	if (end == val || !(t > 0))
		return usage_error("--timeout and --interval need a positive time such as 30, 30s, 10m or 1h, not '%s'", val);
	if (*end == 's' || *end == 'm' || *end == 'h') {
		t *= *end == 'm' ? 60 : *end == 'h' ? 3600 : 1;
		end++;
	}
	if (*end)
		return usage_error("--timeout and --interval need a time such as 30, 30s, 10m or 1h, not '%s'", val);
	*(double *)field = t;
	return 0;
}

/* Bytes, or with a suffix KB, MB or GB (also K, MiB, ...). */
static int parse_size(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	double b = strtod(val, &end);

	(void)opts, (void)opt;
	if (end == val || !(b >= 0))
		return usage_error("--threshold and --rss need a size such as 512KB or 20MB, not '%s'", val);
	if (!strcasecmp(end, "kb") || !strcasecmp(end, "k") || !strcasecmp(end, "kib"))
		b *= 1024;
	else if (!strcasecmp(end, "mb") || !strcasecmp(end, "m") || !strcasecmp(end, "mib"))
		b *= 1048576;
	else if (!strcasecmp(end, "gb") || !strcasecmp(end, "g") || !strcasecmp(end, "gib"))
		b *= 1073741824.0;
	else if (*end && strcasecmp(end, "b"))
		return usage_error("--threshold and --rss need a size such as 512KB or 20MB, not '%s'", val);
	*(double *)field = b;
	return 0;
}

static int parse_pid(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	long p = strtol(val, &end, 10);

	(void)opts, (void)opt;
	if (*end || end == val || p <= 0)
		return usage_error("--pid needs a process id, not '%s'", val);
	*(long *)field = p;
	return 0;
}

static int parse_nodecount(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	unsigned long n = strtoul(val, &end, 10);

	(void)opts, (void)opt;
	if (*end || end == val || val[0] == '-')
		return usage_error("--nodecount needs a count, not '%s'", val);
	*(size_t *)field = n;
	return 0;
}

static int parse_nodefraction(struct hpa_opts *opts, void *field, const char *opt, const char *val)
{
	char *end;
	double f = strtod(val, &end);

	(void)opts, (void)opt;
	if (*end || end == val || !(f >= 0 && f <= 1))
		return usage_error("--nodefraction needs a number from 0 to 1, not '%s'", val);
	*(double *)field = f;
	return 0;
}

static const struct opt_def options[] = {
	CHOICE("text", mode, HPA_MODE_TEXT, "Output (one of)",
	       "top list by flat and cumulative value, as jeprof --text (default)"),
	CHOICE("collapse", mode, HPA_MODE_COLLAPSE, NULL,
	       "folded stacks \"root;...;leaf VALUE\", one line per stack, sorted (flame graphs)"),
	{ "collapsed", 0, K_CHOICE, F(mode), HPA_MODE_COLLAPSE, NULL, NULL, NULL,
	  "same as --collapse (jeprof's name)", true },
	CHOICE("traces", mode, HPA_MODE_TRACES, NULL, "every stack with its value, largest first"),
	CHOICE("threads", mode, HPA_MODE_THREADS, NULL,
	       "per-thread totals (jemalloc tN lines), with thread names"),
	CHOICE("proto", mode, HPA_MODE_PROTO, NULL,
	       "pprof protobuf, gzipped and symbolized (go tool pprof, Parca, Pyroscope)"),
	CHOICE("svg", mode, HPA_MODE_SVG, NULL, "interactive flame graph; differential with --base"),
	CHOICE("html", mode, HPA_MODE_HTML, NULL,
	       "one self-contained HTML report: summary, top table, flame graph, callers and callees"),
	CHOICE("csv", mode, HPA_MODE_CSV, NULL, "with --growth: the per-dump series as CSV; with --stats: every row of the breakdown, "
	       "the size classes and the sites"),
	PARSE("peek", peek, parse_regex, "RE", NULL,
	      "callers and callees of each function matching RE, as pprof -peek"),
	PARSE("list", list, parse_regex, "RE", NULL,
	      "source lines of each function matching RE with flat and cum, as pprof -list"),
	CHOICE("tree", mode, HPA_MODE_TREE, NULL,
	       "callers and callees of the first --nodecount functions (80), as pprof -tree"),
	CHOICE("dot", mode, HPA_MODE_DOT, NULL,
	       "the call graph as GraphViz DOT text (hpa never runs GraphViz)"),
	CHOICE("inuse_space", value, HPA_INUSE_SPACE, "Value (one of)",
	       "bytes in use at dump time (default)"),
	CHOICE("inuse_objects", value, HPA_INUSE_OBJECTS, NULL, "objects in use at dump time"),
	CHOICE("alloc_space", value, HPA_ALLOC_SPACE, NULL,
	       "bytes allocated since start (jemalloc: needs prof_accum:true)"),
	CHOICE("alloc_objects", value, HPA_ALLOC_OBJECTS, NULL, "objects allocated since start"),
	FLAG("show_bytes", show_bytes, "Report", "print sizes in bytes (B) instead of MB (2^20 bytes, as jeprof)"),
	FLAG("cum", cum, NULL, "sort rows by cumulative value instead of flat"),
	CHOICE("functions", granularity, HPA_BY_FUNCTION, "Granularity (one of)",
	       "one row per function, inlined ones marked (inline) (default)"),
	CHOICE("lines", granularity, HPA_BY_LINE, NULL, "one row per function and source line"),
	CHOICE("addresses", granularity, HPA_BY_ADDRESS, NULL,
	       "one row per address and inline level, with function and line"),
	CHOICE("files", granularity, HPA_BY_FILE, NULL, "one row per source file"),
	FLAG("keep-internal", keep_internal, "Symbols",
	     "keep allocator frames (malloc, operator new, jemalloc/tcmalloc internals)"),
	FLAG("no-symbols", no_symbols, NULL,
	     "do not symbolize: rows are MODULE+0xOFFSET, allocator frames kept"),
	STRING("sysroot", sysroot, "DIR", NULL,
	       "look for every mapped file under DIR (profiles from containers, other hosts)"),
	PARSE("debug-dir", debug_dirs, add_debug_dir, "DIR", NULL,
	      "also look for separate debug files in DIR (by build-id and debuglink); repeatable"),
	PARSE("source-path", source_paths, add_path, "DIR", NULL,
	      "--list: look for source files under DIR (by their path, then its tails); repeatable"),
	PARSE("trim-path", trim_paths, add_path, "PREFIX", NULL,
	      "--list: cut PREFIX (the build folder) off source paths first; repeatable"),
	PARSE("source_path", source_paths, add_path, "DIR", NULL, NULL),   /* pprof's names */
	PARSE("trim_path", trim_paths, add_path, "PREFIX", NULL, NULL),
	FLAG("debuginfod", debuginfod, NULL,
	     "allow debuginfod downloads (DEBUGINFOD_URLS; otherwise ignored)"),
	{ "output", 'o', K_PARSE, F(output), 0, nonempty_file, "FILE", NULL,
	  "write to FILE (created only if the run succeeds) instead of stdout", false },
	FLAG("growth", growth, "Selection",
	     "the PROFILEs are a series of dumps: classify stacks and functions (leak, plateau, churn, shrink, flat), leaks first"),
	PARSE("expect-growth", expect_growth, parse_regex, "RE", NULL,
	      "with --growth: stacks and functions matching RE grow by design (a cache): listed apart"),
	PARSE("thread", thread, parse_thread, "N", NULL,
	      "report jemalloc thread N only (its tN lines) instead of all threads"),
	PARSE("base", base, nonempty_file, "FILE", NULL,
	      "subtract profile FILE, matching frames by module and offset (across runs and ASLR)"),
	FLAG("drop_negative", drop_negative, NULL, "with --base: drop stacks whose difference is negative"),
	FLAG("normalize", normalize, NULL, "with --base: scale the base to the profile's total first"),
	FLAG("diff-columns", diff_columns, NULL,
	     "with --base --collapse (or --outdir): print \"stack BEFORE AFTER\" (differential flame graphs)"),
	PARSE("focus", focus, parse_regex, "RE", NULL, "keep only stacks with a frame matching RE"),
	PARSE("ignore", ignore, parse_regex, "RE", NULL, "drop stacks with a frame matching RE"),
	PARSE("show", show, parse_regex, "RE", NULL, "keep only frames matching RE"),
	PARSE("hide", hide, parse_regex, "RE", NULL, "drop frames matching RE"),
	PARSE("nodecount", nodecount, parse_nodecount, "N", NULL, "--text: print at most N rows"),
	PARSE("nodefraction", nodefraction, parse_nodefraction, "F", NULL,
	      "--text: drop rows whose |cum| is at most F times |Total|"),
	FLAG("icicle", icicle, "Flame graphs", "root on top"),
	PARSE("unit", unit, parse_unit, "UNIT", NULL,
	      "auto, B, KiB, MiB or GiB (auto: 3 significant digits; text reports default to jeprof's MB)"),
	FLAG("short-names", short_names, NULL,
	     "--collapse: short names, as --text, the flame graph's boxes and --traces show"),
	FLAG("reverse", reverse, NULL,
	     "--svg, --collapse: stacks leaf first (which allocation sites dominate, across callers)"),
	STRING("title", title, "TEXT", NULL, "title (default: Flame Graph)"),
	STRING("subtitle", subtitle, "TEXT", NULL, "second title line"),
	PARSE("width", width, parse_width, "PIXELS", NULL, "image width (default 1200)"),
	PARSE("minwidth", minwidth, parse_minwidth, "W", NULL,
	      "leave out frames narrower than W pixels (default 0.1), or W% of the total"),
	PARSE("outdir", outdir, nonempty_dir, "DIR", NULL,
	      "several dumps: --svg DIR/DUMP.svg and DUMP.diff.svg per adjacent pair, --collapse "
	      "DUMP.collapse and DUMP.diff.collapse, or both"),
	STRING("push", push, "URL", "A fleet in ClickHouse",
	       "insert each PROFILE's stacks, symbolized here, into ClickHouse at "
	       "clickhouse+http(s)://HOST:PORT/DATABASE (its table made when missing; a profile pushed "
	       "again is not inserted twice)"),
	PARSE("label", labels, add_label, "KEY=VALUE", NULL,
	      "--push: label each profile (host=..., version=...); repeatable"),
	FLAG("per-profile", per_profile, NULL,
	     "a clickhouse+http:// PROFILE or --base: the mean of the profiles it matches, not their sum"),
	PARSE("endpoint", http.endpoint, parse_endpoint, "KIND", "Servers",
	      "URL kind: brpc, gperftools (GET /pprof/heap), greptime (POST /debug/prof/mem), tikv"),
	PARSE("timeout", http.timeout, parse_time, "SECONDS", NULL,
	      "per HTTP request (default 60; connect at most 5)"),
	PARSE("header", http.headers, add_header, "HEADER", NULL,
	      "send HEADER, 'Name: value' (a token, say), with each request; repeatable"),
	PARSE("cacert", http.cacert, nonempty_file, "FILE", NULL,
	      "https: trust the CAs in FILE instead of the system's (pprof: -tls_ca)"),
	PARSE("cert", http.cert, nonempty_file, "FILE", NULL,
	      "https: client certificate, PEM (pprof: -tls_cert)"),
	PARSE("key", http.key, nonempty_file, "FILE", NULL,
	      "https: the client certificate's key, PEM (pprof: -tls_key)"),
	FLAG("insecure", http.insecure, NULL,
	     "https: do not verify the server's certificate (unsafe; never the default)"),
	PARSE("tls_ca", http.cacert, nonempty_file, "FILE", NULL, NULL),
	PARSE("tls_cert", http.cert, nonempty_file, "FILE", NULL, NULL),
	PARSE("tls_key", http.key, nonempty_file, "FILE", NULL, NULL),
	STRING("watch", watch, "URL", NULL,
	       "poll URL and save a profile into --outdir whenever in-use memory grew by --threshold"),
	PARSE("interval", interval, parse_time, "TIME", NULL,
	      "--watch: time between checks, e.g. 30s, 10m (default 60s)"),
	PARSE("threshold", threshold, parse_size, "SIZE", NULL,
	      "--watch: growth that triggers a save, e.g. 20MB (default 10MB)"),
	PARSE("pid", pid, parse_pid, "PID", NULL,
	      "--watch: decide on the RSS of local process PID; --stats: read its status and smaps"),
	STRING("stats", stats, "FILE|URL", "Memory beyond the profile",
	       "allocator statistics (jemalloc malloc_stats_print text or JSON, tcmalloc GetStats): "
	       "break RSS down; with --watch, saved beside each dump"),
	PARSE("status", status_file, nonempty_file, "FILE", NULL,
	      "--stats: a saved /proc/PID/status (VmRSS, RssAnon, RssFile)"),
	PARSE("smaps", smaps_file, nonempty_file, "FILE", NULL,
	      "--stats: a saved /proc/PID/smaps (or smaps_rollup): splits memory outside the allocator"),
	PARSE("rss", rss, parse_size, "SIZE", NULL, "--stats: the process's RSS, e.g. 3.7GB"),
	{ "quiet", 'q', K_FLAG, F(quiet), 0, NULL, NULL, "Other", "no warnings on standard error (errors still print; --html still lists them)", false },
	FLAG("timing", timing, NULL, "print each pass's time (read, symbolize per module, write, ...) and the peak RSS to stderr"),
	{ "help", 'h', K_HELP, 0, 0, NULL, NULL, NULL, "print this help and exit", false },
	{ "version", 'V', K_VERSION, 0, 0, NULL, NULL, NULL, "print the version and exit", false },
};

/* The choice fields are enums stored through an int. */
_Static_assert(sizeof(enum hpa_mode) == sizeof(int) && sizeof(enum hpa_value) == sizeof(int) &&
	       sizeof(enum hpa_granularity) == sizeof(int), "choice fields are int-sized enums");

void hpa_opts_usage(FILE *fp)
{
	size_t i;

	fputs("usage: hpa [OPTIONS] [BINARY] [PROFILE...]\n"
	      "\n"
	      "Analyze jemalloc (heap_v2) and gperftools/tcmalloc (heap profile:) heap\n"
	      "profiles, pprof protobuf and folded stacks (frame;frame;... VALUE).\n"
	      "Several PROFILEs are summed.  With no PROFILE, or \"-\", the profile is\n"
	      "read from standard input.  BINARY, the program that wrote the profile, is\n"
	      "recognised as the first argument when it is an ELF file.\n",
	      fp);
	for (i = 0; i < HPA_ARRAY_SIZE(options); i++) {
		const struct opt_def *o = &options[i];
		char left[64];

		if (!o->help)   /* another spelling of the option before */
			continue;
		if (o->section)
			fprintf(fp, "\n%s:\n", o->section);
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(fp, "  %-22s %s\n", left, o->help);
	}
	fputs("\nEnvironment: PPROF_BINARY_PATH, folders where mapped files not at their\n"
	      "path are looked for (by build-id, name and path); HPA_CACHE_DIR, where\n"
	      "uncompressed debug files are kept (\"off\": none); DEBUGINFOD_URLS, used\n"
	      "with --debuginfod only.\n"
	      "\nExit status: 0 success, 1 bad input or failed output, 2 usage error.\n"
	      "See hpa(1) for the input formats and report semantics.\n", fp);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hpa: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'hpa --help' for more information.\n", stderr);
	return HPA_OPTS_USAGE;
}

/*
 * jeprof's and pprof's options that hpa does not have, with the nearest hpa
 * way: an unknown option from a jeprof habit gets an answer, not a shrug.
 */
static const struct {
	const char *name;
	const char *advice;
} foreign[] = {
#define PICTURE "hpa draws no PostScript, PDF or bitmap; --svg writes an interactive flame " \
	"graph (any browser opens it), --dot a call graph for GraphViz"
	{ "pdf", PICTURE }, { "ps", PICTURE }, { "gif", PICTURE }, { "png", PICTURE },
	{ "gv", PICTURE }, { "evince", PICTURE }, { "web", PICTURE },
#undef PICTURE
	{ "callgrind", "hpa writes no callgrind file; --proto writes a pprof file, and "
	  "'go tool pprof -callgrind FILE' converts it" },
	{ "disasm", "hpa does not disassemble; --list RE prints source lines with their values, "
	  "--addresses a row per address" },
	{ "weblist", "--list RE prints the source of the matching functions with a value per line" },
	{ "interactive", "hpa is not interactive; --proto writes a pprof file for "
	  "'go tool pprof FILE', which is" },
	{ "raw", "--proto writes a self-contained, symbolized profile (and hpa reads jeprof --raw "
	  "files as they are)" },
	{ "symbols", "hpa symbolizes in-process; --text --addresses lists each address with its "
	  "function and line" },
	{ "retain", "--show RE keeps only the frames matching RE" },
	{ "exclude", "--hide RE drops the frames matching RE" },
	{ "lib_prefix", "--sysroot DIR looks for every mapped file under DIR" },
	{ "add_lib", "hpa takes the libraries from the profile's maps section; --sysroot DIR looks "
	  "for them under another root" },
	{ "top", "--text is the top list (--nodecount N rows)" },
	{ "sample_index", "--inuse_space, --inuse_objects, --alloc_space or --alloc_objects" },
	{ "tagfocus", "--thread N keeps one jemalloc thread" },
	{ "http", "--svg writes a flame graph file; --proto one for 'go tool pprof -http'" },
};

/* The option whose name `name` (length len) is, or abbreviates. */
static const struct opt_def *find_long(const char *name, size_t len, const char *arg)
{
	const struct opt_def *hit = NULL;
	char list[256] = "";
	size_t i, j;
	int nr = 0;

	for (i = 0; i < HPA_ARRAY_SIZE(options); i++) {
		if (strncmp(options[i].name, name, len))
			continue;
		if (strlen(options[i].name) == len)
			return &options[i];
		/* Spellings of one option (collapse, collapsed) are one candidate. */
		for (j = 0; hit && j < i; j++)
			if (!strncmp(options[j].name, name, len) && options[j].off == options[i].off &&
			    options[j].kind == options[i].kind && options[j].choice == options[i].choice)
				break;
		if (hit && j < i)
			continue;
		if (strlen(list) + strlen(options[i].name) + 8 < sizeof(list))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s--%s",
				 nr ? ", " : "", options[i].name);
		hit = &options[i];
		nr++;
	}
	if (nr == 1)
		return hit;
	if (nr) {
		fprintf(stderr, "hpa: option '%s' is ambiguous: %s\n", arg, list);
		fputs("Try 'hpa --help' for more information.\n", stderr);
		return NULL;
	}
	for (i = 0; i < HPA_ARRAY_SIZE(foreign); i++) {
		if (strlen(foreign[i].name) == len && !strncmp(foreign[i].name, name, len)) {
			fprintf(stderr, "hpa: --%s is a jeprof/pprof option hpa does not have: %s\n",
				foreign[i].name, foreign[i].advice);
			fputs("Try 'hpa --help' for more information.\n", stderr);
			return NULL;
		}
	}
	usage_error("unknown option '%s'", arg);
	return NULL;
}

static const struct opt_def *find_short(char c, const char *arg)
{
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(options); i++)
		if (options[i].short_name == c)
			return &options[i];
	usage_error("unknown option '%s'", arg);
	return NULL;
}

/*
 * A choice from a group (the entries that share its field): a different
 * choice of the same group given before is a usage error.  given[] holds,
 * per group leader, the option that chose.
 */
static int choose(const struct opt_def *o, const char *arg, const char **given, struct hpa_opts *opts)
{
	size_t lead, i;
	int *field = (int *)((char *)opts + o->off);

	for (lead = 0; options[lead].kind != K_CHOICE || options[lead].off != o->off; lead++)
		;
	if (given[lead] && o->off == offsetof(struct hpa_opts, mode) &&
	    ((*field == HPA_MODE_SVG && o->choice == HPA_MODE_COLLAPSE) ||
	     (*field == HPA_MODE_COLLAPSE && o->choice == HPA_MODE_SVG))) {
		opts->svg_and_collapse = true;   /* both, for --outdir (checked at the end) */
		*field = HPA_MODE_SVG;
		return 0;
	}
	if (given[lead] && *field != o->choice) {
		fprintf(stderr, "hpa: %s conflicts with %s: give at most one of", arg, given[lead]);
		for (i = lead; i < HPA_ARRAY_SIZE(options); i++)
			if (options[i].kind == K_CHOICE && options[i].off == o->off && !options[i].alias)
				fprintf(stderr, "%s --%s", i == lead ? "" : ",", options[i].name);
		fputs("\nTry 'hpa --help' for more information.\n", stderr);
		return HPA_OPTS_USAGE;
	}
	given[lead] = arg;
	*field = o->choice;
	return 0;
}

static bool is_elf_file(const char *path)
{
	struct stat st;
	unsigned char magic[4];
	FILE *fp;
	bool elf = false;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	fp = fopen(path, "rb");
	if (!fp)
		return false;
	if (fread(magic, 1, 4, fp) == 4)
		elf = !memcmp(magic, "\177ELF", 4);
	fclose(fp);
	return elf;
}

/* Whether a PROFILE or the --base is what `is` says. */
static bool any_input(const struct hpa_opts *opts, bool (*is)(const char *))
{
	size_t i;

	if (opts->base && is(opts->base))
		return true;
	for (i = 0; i < opts->profiles_nr; i++)
		if (is(opts->profiles[i]))
			return true;
	return false;
}

static bool is_server(const char *s)
{
	return hpa_is_url(s) || hpa_is_clickhouse_url(s);
}

static bool any_url(const struct hpa_opts *opts)
{
	return opts->watch || opts->push || (opts->stats && hpa_is_url(opts->stats)) || any_input(opts, is_server);
}

/* One option, already found, with its value (or NULL): HPA_OPTS_RUN, _EXIT or _USAGE. */
static int apply_option(struct hpa_opts *opts, const struct opt_def *o, const char *a,
			const char *val, const char **given)
{
	void *field = (char *)opts + o->off;
	int rc = 0;

	switch (o->kind) {
	case K_FLAG:
		*(bool *)field = true;
		break;
	case K_CHOICE:
		rc = choose(o, a, given, opts);
		break;
	case K_STRING:
		*(const char **)field = val;
		break;
	case K_PARSE:
		rc = o->parse(opts, field, a, val);
		break;
	case K_HELP:
		hpa_opts_usage(stdout);
		return HPA_OPTS_EXIT;
	case K_VERSION:
		printf("hpa %s\n", HPA_VERSION);
		return HPA_OPTS_EXIT;
	}
	return rc ? HPA_OPTS_USAGE : HPA_OPTS_RUN;
}

/* argv into opts: options and their values, the other arguments in order. */
static int read_args(struct hpa_opts *opts, int argc, char **argv)
{
	const char *given[HPA_ARRAY_SIZE(options)] = { NULL };
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *val = NULL;
		const struct opt_def *o;
		int rc;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				opts->profiles[opts->profiles_nr++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			opts->profiles[opts->profiles_nr++] = a;
			continue;
		}
		name = a + 1 + (a[1] == '-');
		eq = strchr(name, '=');
		if (a[1] != '-' && !a[2])
			o = find_short(a[1], a);
		else
			o = find_long(name, eq ? (size_t)(eq - name) : strlen(name), a);
		if (!o)
			return HPA_OPTS_USAGE;
		if (o->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_error("option '%s' needs an argument", a);
		} else if (eq) {
			return usage_error("option '%s' takes no argument", a);
		}
		rc = apply_option(opts, o, a, val, given);
		if (rc != HPA_OPTS_RUN)
			return rc;
	}
	return HPA_OPTS_RUN;
}

/*
 * --watch, --stats and the network options against each other: USAGE, RUN
 * for a run with nothing more to check (--watch; --stats alone), or
 * CHECK_ON.
 */
#define CHECK_ON 2   /* not one of HPA_OPTS_*: go on checking */

/* --push, --label and --per-profile: USAGE, or CHECK_ON. */
static int check_push(struct hpa_opts *opts)
{
	if (opts->labels_nr && !opts->push)
		return usage_error("%s", "--label goes with --push");
	if (opts->per_profile && !any_input(opts, hpa_is_clickhouse_url))
		return usage_error("%s", "--per-profile goes with a clickhouse+http:// PROFILE or --base");
	if (!opts->push)
		return CHECK_ON;
	if (!strncasecmp(opts->push, "clickhouse://", 13))
		return usage_error("%s", "--push: clickhouse:// is ClickHouse's native protocol, which hpa does "
				   "not speak; name its HTTP interface: clickhouse+http://HOST:8123/DATABASE");
	if (strncasecmp(opts->push, "clickhouse+http://", 18) && strncasecmp(opts->push, "clickhouse+https://", 19))
		return usage_error("%s", "--push takes ClickHouse's HTTP interface: "
				   "clickhouse+http://HOST:PORT/DATABASE (or clickhouse+https://)");
	if (!opts->profiles_nr || opts->base || opts->growth || opts->outdir || opts->watch || opts->stats ||
	    opts->mode != HPA_MODE_TEXT || opts->output)
		return usage_error("%s", "--push takes one PROFILE or more and no output option, --base, "
				   "--growth, --outdir, --watch, --stats or --output");
	opts->mode = HPA_MODE_PUSH;
	return CHECK_ON;
}

static int check_sources(struct hpa_opts *opts)
{
	if (opts->http.key && !opts->http.cert)
		return usage_error("%s", "--key goes with --cert (the client certificate)");
	if ((opts->http.cacert || opts->http.cert || opts->http.insecure || opts->http.headers_nr) &&
	    !any_url(opts))
		return usage_error("%s", "--cacert, --cert, --key, --insecure and --header go with a URL");
	if (opts->watch) {
		if (!opts->outdir || opts->profiles_nr || opts->base)
			return usage_error("%s", "--watch URL needs --outdir DIR and no PROFILE or --base");
		if (opts->status_file || opts->smaps_file || opts->rss >= 0)
			return usage_error("%s", "--status, --smaps and --rss do not go with --watch: it records "
					   "the RSS of --pid");
		return HPA_OPTS_RUN;
	}
	if ((opts->pid && !opts->stats) || opts->interval > 0 || opts->threshold > 0)
		return usage_error("%s", "--pid, --interval and --threshold go with --watch (--pid also "
				   "with --stats)");
	if (!opts->stats && (opts->status_file || opts->smaps_file || opts->rss >= 0))
		return usage_error("%s", "--status, --smaps and --rss go with --stats");
	if (opts->stats && opts->pid && (opts->status_file || opts->smaps_file || opts->rss >= 0))
		return usage_error("%s", "--pid reads the live process: give it without --status, "
				   "--smaps or --rss");
	if (opts->stats && (opts->profiles_nr > 1 || opts->base || opts->growth || opts->outdir ||
			    (opts->mode != HPA_MODE_TEXT && opts->mode != HPA_MODE_HTML &&
			     opts->mode != HPA_MODE_CSV && opts->mode != HPA_MODE_SVG) ||
			    ((opts->mode == HPA_MODE_HTML || opts->mode == HPA_MODE_SVG) && !opts->profiles_nr)))
		return usage_error("%s", "--stats goes with --text, --csv, --svg or --html and one PROFILE "
				   "(--text and --csv: or none): the statistics are of one moment");
	if (opts->stats && !opts->profiles_nr)
		return HPA_OPTS_RUN;   /* the breakdown alone */
	return CHECK_ON;
}

/* The PROFILEs: standard input when none is given, and it read once at most. */
static int check_profiles(struct hpa_opts *opts)
{
	size_t i;
	int stdin_nr;

	if (!opts->profiles_nr) {
		if (isatty(STDIN_FILENO))
			return usage_error("%s", "no PROFILE given and standard input is a terminal");
		opts->profiles[opts->profiles_nr++] = "-";
	}
	stdin_nr = opts->base && !strcmp(opts->base, "-");
	for (i = 0; i < opts->profiles_nr; i++)
		if (!strcmp(opts->profiles[i], "-") && ++stdin_nr > 1)
			return usage_error("%s", "standard input ('-') can be read only once");
	return HPA_OPTS_RUN;
}

/* The output mode and the options that go with some modes only. */
static int check_mode(struct hpa_opts *opts)
{
	if (opts->svg_and_collapse && !opts->outdir)
		return usage_error("%s", "--svg and --collapse together go with --outdir (one file "
				   "of each kind per dump); give one of them");
	if (opts->diff_columns && opts->mode != HPA_MODE_COLLAPSE && !opts->svg_and_collapse)
		return usage_error("%s", "--diff-columns goes with --collapse");
	if (opts->growth && opts->profiles_nr < 2)
		return usage_error("--growth needs a series of two or more PROFILEs; %s given",
				   opts->profiles_nr ? "one was" : "none was");
	if (opts->growth && opts->base)
		return usage_error("%s", "--growth takes no --base: each dump is compared with the one before");
	if (opts->growth && opts->outdir)
		return usage_error("%s", "--growth and --outdir are two reports of a series; give one");
	if (opts->growth && !hpa_writer_for(opts->mode, opts->growth))
		return usage_error("%s", "--growth writes --text, --svg, --collapse or --csv; give one of them");
	if (opts->expect_growth.set && !opts->growth)
		return usage_error("%s", "--expect-growth goes with --growth");
	if (opts->growth && opts->cum)
		return usage_error("%s", "--cum does not go with --growth: its rows are ranked by steady growth");
	if (opts->peek.set || opts->list.set) {   /* a report of its own: the default --text gives way */
		const char *name = opts->peek.set ? "--peek" : "--list";
		if (opts->peek.set && opts->list.set)
			return usage_error("%s", "--peek and --list are two reports; give one");
		if (opts->mode != HPA_MODE_TEXT || opts->growth)
			return usage_error("%s is a report of its own; give it without another output "
					   "option or --growth", name);
		opts->mode = opts->peek.set ? HPA_MODE_PEEK : HPA_MODE_LIST;
	}
	if ((opts->source_paths.nr || opts->trim_paths.nr) && opts->mode != HPA_MODE_LIST)
		return usage_error("%s", "--source-path and --trim-path go with --list");
	if (opts->short_names && opts->mode != HPA_MODE_COLLAPSE && opts->mode != HPA_MODE_TRACES &&
	    !opts->svg_and_collapse)
		return usage_error("%s", "--short-names goes with --collapse (or --traces, which has them)");
	if (opts->reverse && opts->mode != HPA_MODE_SVG && opts->mode != HPA_MODE_COLLAPSE)
		return usage_error("%s", "--reverse goes with --svg or --collapse");
	if (opts->reverse && opts->growth)
		return usage_error("%s", "--reverse does not go with --growth");
	if (!hpa_writer_for(opts->mode, opts->growth) && !opts->stats)   /* the only mode with no writer of its own */
		return usage_error("%s", "--csv goes with --growth or --stats");
	if (opts->outdir && ((opts->mode != HPA_MODE_SVG && opts->mode != HPA_MODE_COLLAPSE) ||
			     opts->output || opts->base))
		return usage_error("%s", "--outdir goes with --svg or --collapse (or both), without "
				   "--output and --base");
	return HPA_OPTS_RUN;
}

int hpa_opts_parse(struct hpa_opts *opts, int argc, char **argv)
{
	int rc;

	memset(opts, 0, sizeof(*opts));
	opts->mode = HPA_MODE_TEXT;
	opts->value = HPA_INUSE_SPACE;
	opts->thread = HPA_THREAD_ALL;
	opts->rss = -1;
	opts->profiles = xcalloc((size_t)argc + 1, sizeof(*opts->profiles));
	opts->debug_dirs = xcalloc((size_t)argc + 1, sizeof(*opts->debug_dirs));
	opts->source_paths.v = xcalloc((size_t)argc + 1, sizeof(*opts->source_paths.v));
	opts->trim_paths.v = xcalloc((size_t)argc + 1, sizeof(*opts->trim_paths.v));
	opts->http.headers = xcalloc((size_t)argc + 1, sizeof(*opts->http.headers));
	opts->labels = xcalloc((size_t)argc + 1, sizeof(*opts->labels));
	rc = read_args(opts, argc, argv);
	if (rc != HPA_OPTS_RUN)
		return rc;
	/* [BINARY] PROFILE...: the first argument is the binary if it is ELF. */
	if (opts->profiles_nr && strcmp(opts->profiles[0], "-") &&
	    is_elf_file(opts->profiles[0])) {
		opts->binary = opts->profiles[0];
		memmove(opts->profiles, opts->profiles + 1,
			(opts->profiles_nr - 1) * sizeof(*opts->profiles));
		opts->profiles_nr--;
	}
	rc = check_push(opts);
	if (rc == CHECK_ON)
		rc = check_sources(opts);
	if (rc != CHECK_ON)
		return rc;
	rc = check_profiles(opts);
	return rc != HPA_OPTS_RUN ? rc : check_mode(opts);
}

void hpa_opts_release(struct hpa_opts *opts)
{
	struct hpa_filter_re *res[] = { &opts->focus, &opts->ignore, &opts->show, &opts->hide,
					&opts->peek, &opts->list, &opts->expect_growth };
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(res); i++)
		if (res[i]->set)
			regfree(&res[i]->re);
	free(opts->profiles);
	free(opts->debug_dirs);
	free(opts->source_paths.v);
	free(opts->trim_paths.v);
	opts->source_paths.v = opts->trim_paths.v = NULL;
	free(opts->http.headers);
	opts->http.headers = NULL;
	free(opts->labels);
	opts->labels = NULL;
	opts->profiles = NULL;
	opts->debug_dirs = NULL;
}
