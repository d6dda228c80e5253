/*
 * Table-driven option parsing in the style of jeprof's Getopt::Long: one or
 * two leading dashes, "--opt=value" or "--opt value", and any unambiguous
 * prefix of a long name.  --help is generated from the same table.
 */
#include "hpa/compat.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/opts.h"
#include "hpa/xalloc.h"

enum opt_id {
	/* Output modes, in enum hpa_mode order. */
	OPT_TEXT,
	OPT_COLLAPSE,
	OPT_TRACES,
	OPT_THREADS,
	OPT_PROTO,
	OPT_SVG,
	OPT_CSV,
	OPT_COLLAPSED,   /* jeprof's spelling of --collapse */
	/* In enum hpa_value order, so the value is id - OPT_INUSE_OBJECTS. */
	OPT_INUSE_OBJECTS,
	OPT_INUSE_SPACE,
	OPT_ALLOC_OBJECTS,
	OPT_ALLOC_SPACE,
	OPT_SHOW_BYTES,
	OPT_CUM,
	/* In enum hpa_granularity order. */
	OPT_FUNCTIONS,
	OPT_LINES,
	OPT_ADDRESSES,
	OPT_FILES,
	OPT_KEEP_INTERNAL,
	OPT_NO_SYMBOLS,
	OPT_SYSROOT,
	OPT_DEBUG_DIR,
	OPT_DEBUGINFOD,
	OPT_OUTPUT,
	OPT_THREAD,
	OPT_BASE,
	OPT_DROP_NEGATIVE,
	OPT_NORMALIZE,
	OPT_DIFF_COLUMNS,
	OPT_FOCUS,
	OPT_IGNORE,
	OPT_SHOW,
	OPT_HIDE,
	OPT_ICICLE,
	OPT_TITLE,
	OPT_SUBTITLE,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_OUTDIR,
	OPT_GROWTH,
	OPT_ENDPOINT,
	OPT_TIMEOUT,
	OPT_CACERT,
	OPT_CERT,
	OPT_KEY,
	OPT_INSECURE,
	OPT_HEADER,
	OPT_WATCH,
	OPT_INTERVAL,
	OPT_THRESHOLD,
	OPT_PID,
	OPT_NODECOUNT,
	OPT_NODEFRACTION,
	OPT_HELP,
	OPT_VERSION
};

struct opt_def {
	const char *name;
	char short_name;
	enum opt_id id;
	const char *arg;     /* NULL: no argument */
	const char *section; /* starts a new --help section */
	const char *help;
};

static const struct opt_def options[] = {
	{ "text", 0, OPT_TEXT, NULL, "Output (one of)",
	  "top list by flat and cumulative value, as jeprof --text (default)" },
	{ "collapse", 0, OPT_COLLAPSE, NULL, NULL,
	  "folded stacks \"root;...;leaf VALUE\", one line per stack, sorted (flame graphs)" },
	{ "collapsed", 0, OPT_COLLAPSED, NULL, NULL, "same as --collapse (jeprof's name)" },
	{ "traces", 0, OPT_TRACES, NULL, NULL, "every stack with its value, largest first" },
	{ "threads", 0, OPT_THREADS, NULL, NULL,
	  "per-thread totals (jemalloc tN lines), with thread names" },
	{ "proto", 0, OPT_PROTO, NULL, NULL,
	  "pprof protobuf, gzipped and symbolized (go tool pprof, Parca, Pyroscope)" },
	{ "svg", 0, OPT_SVG, NULL, NULL,
	  "interactive flame graph; differential with --base" },
	{ "csv", 0, OPT_CSV, NULL, NULL, "with --growth: the per-dump series as CSV" },
	{ "inuse_space", 0, OPT_INUSE_SPACE, NULL, "Value (one of)",
	  "bytes in use at dump time (default)" },
	{ "inuse_objects", 0, OPT_INUSE_OBJECTS, NULL, NULL, "objects in use at dump time" },
	{ "alloc_space", 0, OPT_ALLOC_SPACE, NULL, NULL,
	  "bytes allocated since start (jemalloc: needs prof_accum:true)" },
	{ "alloc_objects", 0, OPT_ALLOC_OBJECTS, NULL, NULL, "objects allocated since start" },
	{ "show_bytes", 0, OPT_SHOW_BYTES, NULL, "Report",
	  "print sizes in bytes (B) instead of MB" },
	{ "cum", 0, OPT_CUM, NULL, NULL, "sort rows by cumulative value instead of flat" },
	{ "functions", 0, OPT_FUNCTIONS, NULL, "Granularity (one of)",
	  "one row per function, inlined ones marked (inline) (default)" },
	{ "lines", 0, OPT_LINES, NULL, NULL, "one row per function and source line" },
	{ "addresses", 0, OPT_ADDRESSES, NULL, NULL,
	  "one row per address and inline level, with function and line" },
	{ "files", 0, OPT_FILES, NULL, NULL, "one row per source file" },
	{ "keep-internal", 0, OPT_KEEP_INTERNAL, NULL, "Symbols",
	  "keep allocator frames (malloc, operator new, jemalloc/tcmalloc internals)" },
	{ "no-symbols", 0, OPT_NO_SYMBOLS, NULL, NULL,
	  "do not symbolize: rows are MODULE+0xOFFSET, allocator frames kept" },
	{ "sysroot", 0, OPT_SYSROOT, "DIR", NULL,
	  "look for every mapped file under DIR (profiles from containers, other hosts)" },
	{ "debug-dir", 0, OPT_DEBUG_DIR, "DIR", NULL,
	  "also look for separate debug files in DIR (by build-id and debuglink); repeatable" },
	{ "debuginfod", 0, OPT_DEBUGINFOD, NULL, NULL,
	  "allow debuginfod downloads (DEBUGINFOD_URLS; otherwise ignored)" },
	{ "output", 'o', OPT_OUTPUT, "FILE", NULL,
	  "write to FILE (created only if the run succeeds) instead of stdout" },
	{ "growth", 0, OPT_GROWTH, NULL, "Selection",
	  "the PROFILEs are a series of dumps: rank stacks and functions by steady growth" },
	{ "thread", 0, OPT_THREAD, "N", NULL,
	  "report jemalloc thread N only (its tN lines) instead of all threads" },
	{ "base", 0, OPT_BASE, "FILE", NULL,
	  "subtract profile FILE, matching frames by module and offset (across runs and ASLR)" },
	{ "drop_negative", 0, OPT_DROP_NEGATIVE, NULL, NULL,
	  "with --base: drop stacks whose difference is negative" },
	{ "normalize", 0, OPT_NORMALIZE, NULL, NULL,
	  "with --base: scale the base to the profile's total first" },
	{ "diff-columns", 0, OPT_DIFF_COLUMNS, NULL, NULL,
	  "with --base --collapse: print \"stack BEFORE AFTER\" (differential flame graphs)" },
	{ "focus", 0, OPT_FOCUS, "RE", NULL, "keep only stacks with a frame matching RE" },
	{ "ignore", 0, OPT_IGNORE, "RE", NULL, "drop stacks with a frame matching RE" },
	{ "show", 0, OPT_SHOW, "RE", NULL, "keep only frames matching RE" },
	{ "hide", 0, OPT_HIDE, "RE", NULL, "drop frames matching RE" },
	{ "nodecount", 0, OPT_NODECOUNT, "N", NULL, "--text: print at most N rows" },
	{ "nodefraction", 0, OPT_NODEFRACTION, "F", NULL,
	  "--text: drop rows whose |cum| is at most F times |Total|" },
	{ "icicle", 0, OPT_ICICLE, NULL, "Flame graphs", "root on top" },
	{ "title", 0, OPT_TITLE, "TEXT", NULL, "title (default: Flame Graph)" },
	{ "subtitle", 0, OPT_SUBTITLE, "TEXT", NULL, "second title line" },
	{ "width", 0, OPT_WIDTH, "PIXELS", NULL, "image width (default 1200)" },
	{ "minwidth", 0, OPT_MINWIDTH, "W", NULL,
	  "leave out frames narrower than W pixels (default 0.1), or W% of the total" },
	{ "outdir", 0, OPT_OUTDIR, "DIR", NULL,
	  "--svg with several dumps: DIR/DUMP.svg per dump and DIR/DUMP.diff.svg per adjacent pair" },
	{ "endpoint", 0, OPT_ENDPOINT, "KIND", "Servers",
	  "URL kind: brpc, gperftools (GET /pprof/heap), greptime (POST /debug/prof/mem), tikv" },
	{ "timeout", 0, OPT_TIMEOUT, "SECONDS", NULL, "per HTTP request (default 60; connect at most 5)" },
	{ "header", 0, OPT_HEADER, "HEADER", NULL,
	  "send HEADER, 'Name: value' (a token, say), with each request; repeatable" },
	{ "cacert", 0, OPT_CACERT, "FILE", NULL,
	  "https: trust the CAs in FILE instead of the system's (pprof: -tls_ca)" },
	{ "cert", 0, OPT_CERT, "FILE", NULL, "https: client certificate, PEM (pprof: -tls_cert)" },
	{ "key", 0, OPT_KEY, "FILE", NULL, "https: the client certificate's key, PEM (pprof: -tls_key)" },
	{ "insecure", 0, OPT_INSECURE, NULL, NULL,
	  "https: do not verify the server's certificate (unsafe; never the default)" },
	{ "tls_ca", 0, OPT_CACERT, "FILE", NULL, NULL },
	{ "tls_cert", 0, OPT_CERT, "FILE", NULL, NULL },
	{ "tls_key", 0, OPT_KEY, "FILE", NULL, NULL },
	{ "watch", 0, OPT_WATCH, "URL", NULL,
	  "poll URL and save a profile into --outdir whenever in-use memory grew by --threshold" },
	{ "interval", 0, OPT_INTERVAL, "TIME", NULL, "--watch: time between checks, e.g. 30s, 10m (default 60s)" },
	{ "threshold", 0, OPT_THRESHOLD, "SIZE", NULL, "--watch: growth that triggers a save, e.g. 20MB (default 10MB)" },
	{ "pid", 0, OPT_PID, "PID", NULL, "--watch: decide on the RSS of local process PID" },
	{ "help", 'h', OPT_HELP, NULL, "Other", "print this help and exit" },
	{ "version", 'V', OPT_VERSION, NULL, NULL, "print the version and exit" },
};

void hpa_opts_usage(FILE *fp)
{
	size_t i;

	fputs("usage: hpa [OPTIONS] [BINARY] [PROFILE...]\n"
	      "\n"
	      "Analyze jemalloc (heap_v2) and gperftools/tcmalloc (heap profile:) heap\n"
	      "profiles.  Several PROFILEs are summed.  With no PROFILE, or \"-\", the\n"
	      "profile is read from standard input.  BINARY, the program that wrote the\n"
	      "profile, is recognised as the first argument when it is an ELF file.\n",
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
	fputs("\nExit status: 0 success, 1 bad input or failed output, 2 usage error.\n"
	      "See hpa(1) for the input formats and report semantics.\n", fp);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hpa: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'hpa --help' for more information.\n", stderr);
	return HPA_OPTS_USAGE;
}

/* The option whose name `name` (length len) is, or abbreviates. */
static const struct opt_def *find_long(const char *name, size_t len, const char *arg)
{
	const struct opt_def *hit = NULL;
	size_t i;
	int nr = 0;

	for (i = 0; i < HPA_ARRAY_SIZE(options); i++) {
		if (strncmp(options[i].name, name, len))
			continue;
		if (strlen(options[i].name) == len)
			return &options[i];
		hit = &options[i];
		nr++;
	}
	if (nr == 1)
		return hit;
	usage_error(nr ? "option '%s' is ambiguous" : "unknown option '%s'", arg);
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
 * One of a group of mutually exclusive options: *given is the option that
 * set *choice before (NULL if none).  Repeating the same choice is fine.
 */
static int choose(const char **given, const char *arg, int value, int *choice,
		  const char *group)
{
	if (*given && *choice != value) {
		fprintf(stderr, "hpa: %s conflicts with %s: give at most one of %s\n", arg,
			*given, group);
		fputs("Try 'hpa --help' for more information.\n", stderr);
		return -1;
	}
	*given = arg;
	*choice = value;
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

static bool any_url(const struct hpa_opts *opts)
{
	size_t i;

	if (opts->watch || (opts->base && hpa_is_url(opts->base)))
		return true;
	for (i = 0; i < opts->profiles_nr; i++)
		if (hpa_is_url(opts->profiles[i]))
			return true;
	return false;
}

int hpa_opts_parse(struct hpa_opts *opts, int argc, char **argv)
{
	const char *value_opt = NULL, *granularity_opt = NULL, *mode_opt = NULL;
	int i, stdin_nr, choice;

	memset(opts, 0, sizeof(*opts));
	opts->mode = HPA_MODE_TEXT;
	opts->value = HPA_INUSE_SPACE;
	opts->thread = HPA_THREAD_ALL;
	opts->profiles = xcalloc((size_t)argc + 1, sizeof(*opts->profiles));
	opts->debug_dirs = xcalloc((size_t)argc + 1, sizeof(*opts->debug_dirs));
	opts->http.headers = xcalloc((size_t)argc + 1, sizeof(*opts->http.headers));

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *val = NULL;
		const struct opt_def *o;

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

		switch (o->id) {
		case OPT_TEXT:
		case OPT_COLLAPSE:
		case OPT_TRACES:
		case OPT_THREADS:
		case OPT_PROTO:
		case OPT_SVG:
		case OPT_CSV:
		case OPT_COLLAPSED:
			choice = (int)opts->mode;
			if (choose(&mode_opt, a, o->id == OPT_COLLAPSED ? HPA_MODE_COLLAPSE :
				   (int)(o->id - OPT_TEXT), &choice,
				   "--text, --collapse, --traces, --threads, --proto, --svg, --csv") < 0)
				return HPA_OPTS_USAGE;
			opts->mode = (enum hpa_mode)choice;
			break;
		case OPT_INUSE_SPACE:
		case OPT_INUSE_OBJECTS:
		case OPT_ALLOC_SPACE:
		case OPT_ALLOC_OBJECTS:
			choice = (int)opts->value;
			if (choose(&value_opt, a, (int)(o->id - OPT_INUSE_OBJECTS), &choice,
				   "--inuse_space, --inuse_objects, --alloc_space, --alloc_objects") < 0)
				return HPA_OPTS_USAGE;
			opts->value = (enum hpa_value)choice;
			break;
		case OPT_SHOW_BYTES:
			opts->show_bytes = true;
			break;
		case OPT_CUM:
			opts->cum = true;
			break;
		case OPT_FUNCTIONS:
		case OPT_LINES:
		case OPT_ADDRESSES:
		case OPT_FILES:
			choice = (int)opts->granularity;
			if (choose(&granularity_opt, a, (int)(o->id - OPT_FUNCTIONS), &choice,
				   "--functions, --lines, --addresses, --files") < 0)
				return HPA_OPTS_USAGE;
			opts->granularity = (enum hpa_granularity)choice;
			break;
		case OPT_KEEP_INTERNAL:
			opts->keep_internal = true;
			break;
		case OPT_NO_SYMBOLS:
			opts->no_symbols = true;
			break;
		case OPT_SYSROOT:
			opts->sysroot = val;
			break;
		case OPT_DEBUG_DIR:
			opts->debug_dirs[opts->debug_dirs_nr++] = val;
			break;
		case OPT_DEBUGINFOD:
			opts->debuginfod = true;
			break;
		case OPT_THREAD: {
			char *end;
			long t = strtol(val, &end, 10);
			if (*end || end == val || t < 0 || t > INT32_MAX)
				return usage_error("--thread needs a thread number, not '%s'", val);
			opts->thread = (int32_t)t;
			break;
		}
		case OPT_BASE:
			if (!*val)
				return usage_error("option '%s' needs a file name", a);
			opts->base = val;
			break;
		case OPT_DROP_NEGATIVE:
			opts->drop_negative = true;
			break;
		case OPT_NORMALIZE:
			opts->normalize = true;
			break;
		case OPT_DIFF_COLUMNS:
			opts->diff_columns = true;
			break;
		case OPT_FOCUS:
		case OPT_IGNORE:
		case OPT_SHOW:
		case OPT_HIDE: {
			struct hpa_filter_re *f = o->id == OPT_FOCUS ? &opts->focus :
				o->id == OPT_IGNORE ? &opts->ignore :
				o->id == OPT_SHOW ? &opts->show : &opts->hide;
			int rc;
			if (f->set) {
				regfree(&f->re);
				f->set = false;
			}
			rc = regcomp(&f->re, val, REG_EXTENDED | REG_NOSUB);
			if (rc) {
				char msg[256];
				regerror(rc, &f->re, msg, sizeof(msg));
				fprintf(stderr, "hpa: %s: bad regular expression '%s': %s\n", a, val, msg);
				fputs("Try 'hpa --help' for more information.\n", stderr);
				return HPA_OPTS_USAGE;
			}
			f->set = true;
			break;
		}
		case OPT_ICICLE:
			opts->icicle = true;
			break;
		case OPT_TITLE:
			opts->title = val;
			break;
		case OPT_SUBTITLE:
			opts->subtitle = val;
			break;
		case OPT_WIDTH: {
			char *end;
			unsigned long w = strtoul(val, &end, 10);
			if (*end || end == val || w < 100 || w > 100000)
				return usage_error("--width needs a number of pixels from 100 to 100000, not '%s'", val);
			opts->width = (unsigned)w;
			break;
		}
		case OPT_MINWIDTH: {
			char *end;
			double w = strtod(val, &end);
			opts->minwidth_pct = *end == '%';
			if (opts->minwidth_pct)
				end++;
			if (*end || end == val || !(w >= 0) || (opts->minwidth_pct && w > 100))
				return usage_error("--minwidth needs pixels or a percentage, not '%s'", val);
			opts->minwidth = w;
			break;
		}
		case OPT_ENDPOINT:
			if (strcmp(val, "brpc") && strcmp(val, "gperftools") && strcmp(val, "greptime") &&
			    strcmp(val, "tikv"))
				return usage_error("--endpoint is one of brpc, gperftools, greptime, tikv, not '%s'", val);
			opts->http.endpoint = val;
			break;
		case OPT_CACERT:
		case OPT_CERT:
		case OPT_KEY:
			if (!*val)
				return usage_error("option '%s' needs a file name", a);
			*(o->id == OPT_CACERT ? &opts->http.cacert :
			  o->id == OPT_CERT ? &opts->http.cert : &opts->http.key) = val;
			break;
		case OPT_INSECURE:
			opts->http.insecure = true;
			break;
		case OPT_HEADER: {
			const char *colon = strchr(val, ':');
			size_t nlen = colon ? (size_t)(colon - val) : 0;
			if (!colon || !nlen || strcspn(val, " \t") < nlen || strpbrk(val, "\r\n"))
				return usage_error("%s", "--header needs one 'Name: value' line");
			opts->http.headers[opts->http.headers_nr++] = val;
			break;
		}
		case OPT_TIMEOUT:
		case OPT_INTERVAL: {
			char *end;
			double t = strtod(val, &end);
			if (end == val || !(t > 0))
				return usage_error("--timeout and --interval need a positive time such as 30, 30s, 10m or 1h, not '%s'", val);
			if (*end == 's' || *end == 'm' || *end == 'h') {
				t *= *end == 'm' ? 60 : *end == 'h' ? 3600 : 1;
				end++;
			}
			if (*end)
				return usage_error("--timeout and --interval need a time such as 30, 30s, 10m or 1h, not '%s'", val);
			if (o->id == OPT_TIMEOUT)
				opts->http.timeout = t;
			else
				opts->interval = t;
			break;
		}
		case OPT_THRESHOLD: {
			char *end;
			double b = strtod(val, &end);
			if (end == val || !(b >= 0))
				return usage_error("--threshold needs a size, not '%s'", val);
			if (!strcasecmp(end, "kb") || !strcasecmp(end, "k") || !strcasecmp(end, "kib"))
				b *= 1024;
			else if (!strcasecmp(end, "mb") || !strcasecmp(end, "m") || !strcasecmp(end, "mib"))
				b *= 1048576;
			else if (!strcasecmp(end, "gb") || !strcasecmp(end, "g") || !strcasecmp(end, "gib"))
				b *= 1073741824.0;
			else if (*end && strcasecmp(end, "b"))
				return usage_error("--threshold needs a size such as 512KB or 20MB, not '%s'", val);
			opts->threshold = b;
			break;
		}
		case OPT_PID: {
			char *end;
			long p = strtol(val, &end, 10);
			if (*end || end == val || p <= 0)
				return usage_error("--pid needs a process id, not '%s'", val);
			opts->pid = p;
			break;
		}
		case OPT_WATCH:
			opts->watch = val;
			break;
		case OPT_GROWTH:
			opts->growth = true;
			break;
		case OPT_OUTDIR:
			if (!*val)
				return usage_error("option '%s' needs a directory", a);
			opts->outdir = val;
			break;
		case OPT_NODECOUNT: {
			char *end;
			unsigned long n = strtoul(val, &end, 10);
			if (*end || end == val || val[0] == '-')
				return usage_error("--nodecount needs a count, not '%s'", val);
			opts->nodecount = n;
			break;
		}
		case OPT_NODEFRACTION: {
			char *end;
			double f = strtod(val, &end);
			if (*end || end == val || !(f >= 0 && f <= 1))
				return usage_error("--nodefraction needs a number from 0 to 1, not '%s'", val);
			opts->nodefraction = f;
			break;
		}
		case OPT_OUTPUT:
			if (!*val)
				return usage_error("option '%s' needs a file name", a);
			opts->output = val;
			break;
		case OPT_HELP:
			hpa_opts_usage(stdout);
			return HPA_OPTS_EXIT;
		case OPT_VERSION:
			printf("hpa %s\n", HPA_VERSION);
			return HPA_OPTS_EXIT;
		}
	}

	/* [BINARY] PROFILE...: the first argument is the binary if it is ELF. */
	if (opts->profiles_nr && strcmp(opts->profiles[0], "-") &&
	    is_elf_file(opts->profiles[0])) {
		opts->binary = opts->profiles[0];
		memmove(opts->profiles, opts->profiles + 1,
			(opts->profiles_nr - 1) * sizeof(*opts->profiles));
		opts->profiles_nr--;
	}
	if (opts->http.key && !opts->http.cert)
		return usage_error("%s", "--key goes with --cert (the client certificate)");
	if ((opts->http.cacert || opts->http.cert || opts->http.insecure || opts->http.headers_nr) &&
	    !any_url(opts))
		return usage_error("%s", "--cacert, --cert, --key, --insecure and --header go with a URL");
	if (opts->watch) {
		if (!opts->outdir || opts->profiles_nr || opts->base)
			return usage_error("%s", "--watch URL needs --outdir DIR and no PROFILE or --base");
		return HPA_OPTS_RUN;
	}
	if (opts->pid || opts->interval > 0 || opts->threshold > 0)
		return usage_error("%s", "--pid, --interval and --threshold go with --watch");
	if (!opts->profiles_nr) {
		if (isatty(STDIN_FILENO))
			return usage_error("%s", "no PROFILE given and standard input is a terminal");
		opts->profiles[opts->profiles_nr++] = "-";
	}
	stdin_nr = opts->base && !strcmp(opts->base, "-");
	for (i = 0; (size_t)i < opts->profiles_nr; i++)
		if (!strcmp(opts->profiles[i], "-") && ++stdin_nr > 1)
			return usage_error("%s", "standard input ('-') can be read only once");
	if (!opts->base && (opts->drop_negative || opts->normalize || opts->diff_columns))
		return usage_error("%s", "--drop_negative, --normalize and --diff-columns need --base");
	if (opts->diff_columns && opts->mode != HPA_MODE_COLLAPSE)
		return usage_error("%s", "--diff-columns goes with --collapse");
	if (opts->growth && (opts->profiles_nr < 2 || opts->base || opts->outdir ||
			     (opts->mode != HPA_MODE_TEXT && opts->mode != HPA_MODE_SVG &&
			      opts->mode != HPA_MODE_COLLAPSE && opts->mode != HPA_MODE_CSV)))
		return usage_error("%s", "--growth needs two or more PROFILEs, no --base or --outdir, "
				   "and --text, --svg, --collapse or --csv");
	if (opts->mode == HPA_MODE_CSV && !opts->growth)
		return usage_error("%s", "--csv goes with --growth");
	if (opts->outdir && (opts->mode != HPA_MODE_SVG || opts->output || opts->base))
		return usage_error("%s", "--outdir goes with --svg, without --output and --base");
	return HPA_OPTS_RUN;
}

void hpa_opts_release(struct hpa_opts *opts)
{
	struct hpa_filter_re *res[] = { &opts->focus, &opts->ignore, &opts->show, &opts->hide };
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(res); i++)
		if (res[i]->set)
			regfree(&res[i]->re);
	free(opts->profiles);
	free(opts->debug_dirs);
	free(opts->http.headers);
	opts->http.headers = NULL;
	opts->profiles = NULL;
	opts->debug_dirs = NULL;
}
