#include "hpa/compat.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpa/diag.h"
#include "hpa/clickhouse.h"
#include "hpa/coverage.h"
#include "hpa/diff.h"
#include "hpa/fetch.h"
#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/output.h"
#include "hpa/profile.h"
#include "hpa/push.h"
#include "hpa/reader.h"
#include "hpa/remote.h"
#include "hpa/report.h"
#include "hpa/run.h"
#include "hpa/series.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/strip.h"
#include "hpa/symbolize.h"
#include "hpa/timing.h"
#include "hpa/unsample.h"
#include "hpa/view.h"
#include "hpa/waste.h"
#include "hpa/xalloc.h"

/*
 * A profile without a maps section (or cut before its first line): with a
 * BINARY linked at a fixed address, attribute every address to it; a PIE
 * BINARY is never mapped at 0, where jeprof puts any BINARY and shows its
 * absolute addresses as offsets.  Warn either way.
 */
static void handle_missing_maps(struct hpa_profile *prof, uint32_t input, const char *binary)
{
	struct hpa_input *in = hpa_profile_input(prof, input);
	struct hpa_pos pos = { in->path, 0 };
	const char *what;

	if (!hpa_input_without_maps(in))
		return;   /* (an empty dump was named when read) */
	what = in->has_maps ? "its maps section is cut before a complete line" :
		"no MAPPED_LIBRARIES section";
	if (!binary) {
		hpa_warn_at(&pos, "%s; addresses cannot be attributed to modules", what);
		return;
	}
	if (!hpa_elf_is_fixed(binary)) {
		/* A PIE program or library: where it was loaded is what the maps said. */
		hpa_warn_at(&pos, "%s, and %s is position-independent: where it was loaded is "
			    "unknown, so its addresses stay unmapped 0xADDR and no function is "
			    "named", what, binary);
		return;
	}
	hpa_warn_at(&pos, "%s; all addresses are attributed to %s (linked at a fixed address)",
		    what, binary);
	{
		struct hpa_mapping m = { 0 };
		/* A path as maps lines write them: "prog" would read as a pseudo-file. */
		char *path = binary[0] == '/' || binary[0] == '.' ? xstrdup(binary) :
			hpa_xasprintf("./%s", binary);
		m.start = 0;
		m.limit = UINT64_MAX;
		memcpy(m.perms, "r-xp", 5);
		m.path = path;
		m.input = input;
		hpa_profile_add_mapping(prof, &m);
		free(path);
		in = hpa_profile_input(prof, input);
		in->map_first = (uint32_t)prof->mappings_nr - 1;
		in->map_nr = 1;
		hpa_profile_assign_mappings(prof, input);
	}
}

/* What reading the run's dumps needs (read_here, after_read). */
struct run_reading {
	const struct hpa_opts *opts;
	const char **paths;          /* the dumps in series order, then the --base */
	double t;                    /* when the dump being read was begun */
	bool fold;                   /* fold the series as it is read (profile.h) */
	size_t mark;                 /* the samples before the dump just read */
};

/* A dump not read ahead: a file, standard input, or a URL (http://...) served by a running program. */
static int read_here(void *ctx, struct hpa_profile *prof, size_t i)
{
	struct run_reading *rr = ctx;
	const char *what = rr->paths[i];

	if (hpa_is_url(what))
		return hpa_read_url(prof, what, &rr->opts->http, NULL, NULL);
	if (hpa_is_clickhouse_url(what))
		return hpa_read_clickhouse(prof, what, &rr->opts->http, rr->opts->per_profile);
	return hpa_read_profile(prof, what);
}

/*
 * Whether the series is folded as it is read (profile.h, struct
 * hpa_dump_changes): for --growth's tables (text, CSV, folded gains),
 * whose passes read each dump's values from the fold; several dumps, no
 * base, all threads.  Its flame graph reads them per sample.
 */
static bool folds(const struct hpa_opts *opts)
{
	return opts->growth && opts->mode != HPA_MODE_SVG && !opts->base && opts->profiles_nr > 1 &&
	       opts->thread == HPA_THREAD_ALL;
}

/* Dump i is in the run's profile: its maps checked, the frames shared before the next. */
static int after_read(void *ctx, struct hpa_profile *prof, size_t i)
{
	struct run_reading *rr = ctx;
	const struct hpa_opts *opts = rr->opts;
	uint32_t input = (uint32_t)prof->inputs_nr;

	if (i == opts->profiles_nr) {   /* the base: counted negatively */
		hpa_profile_input(prof, input)->is_base = true;
		hpa_profile_input(prof, input)->weight = -1;
	}
	handle_missing_maps(prof, input, opts->binary);
	if (i < opts->profiles_nr && prof->inputs_nr > 1 &&
	    (i + 1 < opts->profiles_nr || opts->base || rr->fold))
		hpa_unify_locations_so_far(prof);   /* more to read, or a fold: share the frames first */
	if (rr->fold) {   /* its stacks have the ids of the same stacks before */
		hpa_unsample_profile(prof);
		hpa_profile_fold_dump(prof, rr->mark, 1u << opts->value);
		rr->mark = prof->samples_nr;
	}
	hpa_timing(rr->t, "read %s%s", rr->paths[i], i == opts->profiles_nr ? " (base)" : "");
	rr->t = hpa_now();
	return 0;
}

/* Every input hpa reads, so that no output is written over one. */
static const char **all_inputs(const struct hpa_opts *opts, size_t *nr)
{
	const char **inputs = xcalloc(opts->profiles_nr + 5, sizeof(*inputs));
	size_t i;

	for (i = 0; i < opts->profiles_nr; i++)
		inputs[i] = opts->profiles[i];
	inputs[i++] = opts->binary;
	inputs[i++] = opts->base;
	inputs[i++] = opts->stats;
	inputs[i++] = opts->status_file;
	inputs[i++] = opts->smaps_file;
	*nr = i;
	return inputs;
}

static int write_one(const struct hpa_profile *prof, const struct hpa_opts *opts,
		     const struct hpa_write_opts *wo, const char *path, hpa_writer_fn *report)
{
	struct hpa_output out;
	size_t nr;
	const char **inputs = all_inputs(opts, &nr);
	int rc = hpa_output_open(&out, path, inputs, nr);

	free(inputs);
	if (rc)
		return rc;
	rc = report(out.fp, prof, wo);
	rc = hpa_output_close(&out, rc == 0) < 0 ? -1 : rc;
	if (!rc)
		printf("%s\n", path);   /* what --outdir wrote, one file a line */
	return rc;
}

/* What an input's files are named after: a file's base name; a URL's host and path, never its query. */
static char *file_stem(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (hpa_is_url(path))
		return hpa_url_file_name(path);
	return xstrdup(slash ? slash + 1 : path);
}

/*
 * Width of the "N-" put before each dump's file names when their own
 * names would not sort in dump order (jeprof.PID.9... after .10...), or
 * two dumps share a name; 0 when they sort as they are.
 */
static int order_prefix(const struct hpa_profile *prof)
{
	size_t i;
	int w = 1;

	for (i = 1; i < prof->inputs_nr; i++) {
		char *a = file_stem(prof->inputs[i - 1].path), *b = file_stem(prof->inputs[i].path);
		bool sorted = strcmp(a, b) < 0;
		free(a);
		free(b);
		if (!sorted)
			break;
	}
	if (i >= prof->inputs_nr)
		return 0;
	for (i = prof->inputs_nr; i >= 10; i /= 10)
		w++;
	return w;
}

/*
 * What the passes that make the model give the passes after it, beside
 * the profile: the symbols, every frame's names and the allocator cut
 * (`cut`: NULL when nothing is cut, with --keep-internal or without
 * symbols).
 */
struct model_out {
	struct hpa_symbols syms;
	struct hpa_names names;
	struct hpa_cuts cuts;
	const struct hpa_cuts *cut;
	uint32_t *frames;            /* the stacks' frames with the base matched by symbol, or NULL: the profile's */
};

/*
 * A view of the report's, given what the passes before it gave: the
 * model's names and cut, the base pass's weights and drops.
 */
static void view_given(struct hpa_view_opts *vo, const struct model_out *mo, const struct hpa_base_out *base)
{
	vo->symbols = &mo->syms;
	vo->names = &mo->names;
	vo->cuts = mo->cut;
	vo->frames = mo->frames;
	vo->weights = base->weights;
	vo->dropped = base->dropped;
}

/*
 * --outdir: per dump a flame graph (--svg) and folded stacks (--collapse),
 * and per adjacent pair their differential ones, from one model
 * symbolized once: each file's view selects its dumps (weights 1, -1 for
 * the one before, 0 for the others), the profile unchanged.
 * Names sort in dump order.
 */
static int write_outdir(const struct hpa_profile *prof, const struct hpa_opts *opts,
			const struct model_out *mo, const struct hpa_base_out *base)
{
	bool svg = opts->mode == HPA_MODE_SVG, folded = opts->mode == HPA_MODE_COLLAPSE ||
		opts->svg_and_collapse;
	struct hpa_write_opts wo = hpa_opts_write(opts), single;
	double *weights = xcalloc(prof->inputs_nr + 1, sizeof(*weights));
	bool *bases = xcalloc(prof->inputs_nr + 1, sizeof(*bases));
	int w = order_prefix(prof), rc = 0;
	size_t i, j;

	view_given(&wo.view, mo, base);   /* --drop_negative's drops of a two-column folded file too */
	wo.view.weights = weights;   /* which dumps each file shows: the profile stays as read */
	wo.view.bases = bases;
	single = wo;
	single.diff_columns = false;   /* a dump alone has no before column */
	rc = hpa_output_make_dirs(opts->outdir);
	for (i = 0; i < prof->inputs_nr && !rc; i++) {
		char *name = file_stem(prof->inputs[i].path), *path;
		char *stem = w ? hpa_xasprintf("%s/%0*zu-%s", opts->outdir, w, i + 1, name) :
			hpa_xasprintf("%s/%s", opts->outdir, name);

		free(name);
		for (j = 0; j < 2 && !rc; j++) {   /* the dump, then it against the one before */
			if (j == 1 && i == 0)
				break;
			memset(weights, 0, prof->inputs_nr * sizeof(*weights));
			memset(bases, 0, prof->inputs_nr * sizeof(*bases));
			weights[i] = 1;
			if (j == 1) {
				weights[i - 1] = -1;
				bases[i - 1] = true;
			}
			if (svg) {
				path = hpa_xasprintf("%s%s.svg", stem, j ? ".diff" : "");
				rc = write_one(prof, opts, &wo, path, hpa_report_svg);
				free(path);
			}
			if (folded && !rc) {
				path = hpa_xasprintf("%s%s.collapse", stem, j ? ".diff" : "");
				rc = write_one(prof, opts, j ? &wo : &single, path, hpa_report_collapse);
				free(path);
			}
		}
		free(stem);
	}
	free(weights);
	free(bases);
	return rc;
}

/* A usage error found once the inputs are known: said as the command line's are; returns -2 (exit 2). */
static int HPA_PRINTF(1, 2) refuse(const char *fmt, ...)
{
	va_list ap;

	fputs("hpa: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'hpa --help' for more information.\n", stderr);
	return -2;
}

/*
 * A two-column folded file brings its own base (its first column): it
 * stands alone.  The options about a base need one, from --base or so.
 * Returns -2 for a usage error.
 */
static int check_bases(const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	size_t i, bases = 0;

	for (i = 0; i < prof->inputs_nr; i++) {
		const struct hpa_input *in = &prof->inputs[i];
		if (!in->is_base)
			continue;
		bases++;
		if (in->own_base && (opts->base || opts->profiles_nr > 1))
			return hpa_error("%s: a two-column (differential) folded file holds its own "
					 "base; give it alone, without --base or other profiles", in->path);
	}
	if (!bases && !opts->outdir && (opts->drop_negative || opts->normalize || opts->diff_columns)) {
		return refuse("--drop_negative, --normalize and --diff-columns need --base (or a "
			      "two-column folded profile)");
	}
	return 0;
}

/*
 * Does anything this run writes or matches use source files and lines?
 * Reports by function (text, folded stacks, flame graphs, graphs, peeks,
 * trees, threads, growth) show names only, so the symbolizer can skip the
 * line programs, most of libdw's work.  A filter may match "file:line";
 * --base then matches the base's frames by name alone, which names the same
 * rows.
 */
static bool shows_lines(const struct hpa_opts *opts)
{
	if (opts->granularity != HPA_BY_FUNCTION || opts->focus.set || opts->ignore.set ||
	    opts->show.set || opts->hide.set)
		return true;
	switch (opts->mode) {
	case HPA_MODE_TEXT:
	case HPA_MODE_COLLAPSE:
	case HPA_MODE_THREADS:
	case HPA_MODE_SVG:
	case HPA_MODE_CSV:
	case HPA_MODE_PEEK:
	case HPA_MODE_TREE:
	case HPA_MODE_DOT:
		return false;
	case HPA_MODE_TRACES:
	case HPA_MODE_PROTO:
	case HPA_MODE_LIST:
	case HPA_MODE_HTML:
	default:
		return true;
	}
}

/* Does any report of this run show or select threads (jemalloc's "tN:" samples)? */
static bool shows_threads(const struct hpa_opts *opts)
{
	return opts->thread != HPA_THREAD_ALL || opts->mode == HPA_MODE_THREADS ||
		opts->mode == HPA_MODE_PROTO || opts->mode == HPA_MODE_HTML;
}

/*
 * Whether this run's report needs each thread's own samples stored apart
 * (hpa_profile_split_threads): views of one thread (--thread N,
 * --threads) and the page's thread tabs, which it has with two threads or
 * more.  --proto's thread labels read a sample one thread holds whole as
 * that thread's (hpa_sample_own_thread); the other reports read the
 * all-threads samples only.
 */
static bool splits_threads(const struct hpa_opts *opts, const struct hpa_profile *prof)
{
	if (opts->thread != HPA_THREAD_ALL || opts->mode == HPA_MODE_THREADS)
		return true;
	return opts->mode == HPA_MODE_HTML && prof->threads_nr >= 2;
}

/* Read every dump, in series order (`order`: series.h), then the --base; 0 or -1 after reporting. */
static int read_inputs(struct hpa_profile *prof, const struct hpa_opts *opts, const size_t *order)
{
	const char **paths = xcalloc(opts->profiles_nr + 2, sizeof(*paths));
	struct run_reading rr = { opts, paths, hpa_now(), folds(opts), 0 };
	/* A fold's dumps one at a time: its work per dump is on this thread, and a dump read ahead only waits in memory. */
	struct hpa_read_series rs = { paths, opts->profiles_nr + (opts->base != NULL), rr.fold, read_here,
				      after_read, &rr };
	size_t i;
	int rc;

	for (i = 0; i < opts->profiles_nr; i++)
		paths[i] = opts->profiles[order[i]];
	paths[i] = opts->base;
	rc = hpa_read_series(prof, &rs);
	free(paths);
	return rc;
}

/*
 * Symbols for every frame (unless --no-symbols), every frame's names, the
 * base's frames matched by symbol and the allocator cut into *mo (the cut
 * left empty without symbols).
 */
static int symbolize_and_name(const struct hpa_profile *prof, const struct hpa_opts *opts, struct model_out *mo)
{
	struct hpa_sym_opts so = { opts->binary, opts->sysroot, opts->debug_dirs,
				   opts->debug_dirs_nr, opts->debuginfod, getenv("PPROF_BINARY_PATH"),
				   !shows_lines(opts) };
	double t = hpa_now();
	int rc;

	if (opts->no_symbols) {
		hpa_name_frames(prof, &mo->syms, &mo->names);
		if (opts->base)   /* by the names the files carry */
			mo->frames = hpa_match_base_by_symbols(prof, &mo->syms);
		hpa_name_distinct(prof, &mo->names, NULL);
		hpa_timing(t, "name frames");
		return 0;
	}
	rc = hpa_symbolize(prof, &so, &mo->syms);
	if (!rc)
		hpa_symbolize_remote(prof, &opts->http, &mo->syms);
	hpa_timing(t, "symbolize (all modules)");
	if (rc)
		return rc;
	t = hpa_now();
	hpa_name_frames(prof, &mo->syms, &mo->names);   /* every frame's names, once, for every writer */
	hpa_timing(t, "name frames");
	if (opts->base)
		mo->frames = hpa_match_base_by_symbols(prof, &mo->syms);
	t = hpa_now();
	hpa_mark_internal(prof, &mo->syms, mo->frames, &mo->cuts);
	mo->cut = opts->keep_internal ? NULL : &mo->cuts;
	hpa_timing(t, "mark allocator frames");
	t = hpa_now();
	hpa_name_distinct(prof, &mo->names, mo->cut);
	hpa_timing(t, "tell names apart");
	hpa_warn_unsymbolized(prof, &mo->syms, &so, opts->value, mo->cut);
	hpa_warn_allocator_only(prof, &mo->cuts, opts->value);
	return 0;
}

/* What a run has before it reads the profiles: --stats, --status, --smaps, and the series order. */
struct run_stats {
	bool set;
	struct hpa_alloc_stats st;
	struct hpa_proc_mem pm;
	bool has_pm;
	enum hpa_series_key series_key;
	long long series_pid;        /* the dumps' process, -1 unknown or several */
};

/* The --stats rows as CSV (into the --html page's Memory tab); NULL after reporting. */
static char *rss_text(const struct hpa_profile *prof, const struct hpa_write_opts *wo,
		      struct run_stats *rs)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int rc;

	if (!mem) {
		hpa_error("out of memory");
		return NULL;
	}
	rc = hpa_report_rss(mem, prof, wo, &rs->st, rs->has_pm ? &rs->pm : NULL, true);
	fclose(mem);
	if (rc) {
		free(text);
		return NULL;
	}
	return text;
}

/* --push: the writer's rows into memory, then into ClickHouse. */
static int push_report(const struct hpa_profile *prof, const struct hpa_opts *opts, const struct model_out *mo,
		       const struct hpa_base_out *base, const struct hpa_writer *writer)
{
	struct hpa_write_opts wo = hpa_opts_write(opts);
	char *rows = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&rows, &len);
	int rc;

	if (!mem)
		return hpa_error("out of memory");
	view_given(&wo.view, mo, base);
	rc = writer->write(mem, prof, &wo);
	if (fclose(mem) != 0 && !rc)
		rc = hpa_error("out of memory");
	if (!rc)
		rc = hpa_push_profile(opts, prof, rows, len);
	free(rows);
	return rc;
}

/*
 * The selected report (after the RSS breakdown of --stats) to --output or
 * standard output; its views take the allocator cut and what the base
 * pass gave.
 */
static int write_report(const struct hpa_profile *prof, const struct hpa_opts *opts, const struct model_out *mo,
			const struct hpa_base_out *base, struct run_stats *rs)
{
	const struct hpa_writer *writer = hpa_writer_for(opts->mode, opts->growth);
	struct hpa_write_opts wo = hpa_opts_write(opts);
	const struct hpa_profile *dumps = opts->profiles_nr ? prof : NULL;
	struct hpa_output out;

	if (opts->mode == HPA_MODE_PUSH)
		return push_report(prof, opts, mo, base, writer);
	size_t nr;
	const char **inputs = all_inputs(opts, &nr);
	char *memory = NULL;
	struct hpa_waste waste = { 0 };
	int rc = hpa_output_open(&out, opts->output, inputs, nr);
	double t;

	free(inputs);
	if (rc)
		return rc;
	view_given(&wo.view, mo, base);
	wo.series_order = hpa_series_key_text(rs->series_key);
	wo.series_pid = rs->series_pid;
	if (rs->set && opts->mode == HPA_MODE_HTML) {   /* into the page: the rows, the graph of empty bytes */
		wo.memory = memory = rss_text(dumps, &wo, rs);
		hpa_waste_compute(&rs->st, prof, wo.view.dropped, &waste);
		wo.waste = waste.empty;
		rc = memory ? 0 : -1;
	} else if (rs->set && opts->mode == HPA_MODE_SVG) {   /* the flame graph of empty bytes */
		hpa_waste_compute(&rs->st, prof, wo.view.dropped, &waste);
		wo.view.values = waste.empty;
		wo.value_label = "empty bytes charged to sites";
	} else if (rs->set) {
		rc = hpa_report_rss(out.fp, dumps, &wo, &rs->st, rs->has_pm ? &rs->pm : NULL,
				    opts->mode == HPA_MODE_CSV);
		if (!rc && dumps && opts->mode != HPA_MODE_CSV)
			fputc('\n', out.fp);
	}
	t = hpa_now();
	if (!rc && dumps && writer)
		rc = writer->write(out.fp, prof, &wo);
	if (hpa_output_close(&out, rc == 0) < 0)
		rc = -1;
	hpa_timing(t, "group and write (--%s)", writer ? writer->name : "stats");
	free(memory);
	hpa_waste_release(&waste);
	return rc;
}

/*
 * The passes after the model is made, none of which changes it: the base
 * pass, the filter checks, the report.  The views take the allocator cut
 * (NULL: none) and what the base pass gives.
 */
static int report(const struct hpa_profile *prof, const struct hpa_opts *opts, const struct model_out *mo,
		  struct run_stats *rs)
{
	struct hpa_base_opts bo = hpa_opts_base(opts);
	struct hpa_base_out base = { NULL, NULL };
	double t = hpa_now();
	int rc;

	view_given(&bo.view, mo, &base);   /* no weights or drops yet: the inputs' own */
	rc = hpa_apply_base(prof, &bo, &base);
	view_given(&bo.view, mo, &base);
	if (!rc && opts->mode != HPA_MODE_THREADS)   /* a filter that selects nothing says so */
		hpa_view_check_filters(prof, &bo.view);
	hpa_timing(t, "base and filter checks");
	if (!rc && opts->mode == HPA_MODE_SVG && !opts->outdir && !opts->growth && opts->profiles_nr > 1)
		hpa_warn("%zu profiles summed into one flame graph; --growth ranks what grew across "
			 "them, --outdir DIR draws one graph per dump and one per adjacent pair",
			 opts->profiles_nr);
	if (!rc)
		rc = opts->outdir ? write_outdir(prof, opts, mo, &base) : write_report(prof, opts, mo, &base, rs);
	hpa_base_out_release(&base);
	return rc;
}

/*
 * Everything after the dumps are read: reading ends (unsampled, unified, the
 * reading indexes dropped), the model is made (symbolized and named, the
 * base's frames matched by symbol) with the allocator cut beside it; then
 * the report on a model no pass changes.
 */
static int analyze(struct hpa_profile *prof, const struct hpa_opts *opts, struct run_stats *rs)
{
	struct model_out mo;
	double t = hpa_now();
	int rc;

	if (splits_threads(opts, prof))
		hpa_profile_split_threads(prof);
	hpa_unsample_profile(prof);
	hpa_unify_locations(prof);
	hpa_timing(t, "unsample and unify locations");
	memset(&mo, 0, sizeof(mo));
	hpa_profile_end_reading(prof, &mo.syms);   /* reading ends: its indexes' memory to the passes after */
	rc = symbolize_and_name(prof, opts, &mo);
	if (!rc) {
		rc = report(prof, opts, &mo, rs);
	}
	hpa_names_release(&mo.names);
	hpa_cuts_release(&mo.cuts);
	free(mo.frames);
	hpa_symbols_release(&mo.syms);
	return rc;
}

/* Whether the report takes the dumps as a series, one after the other (not a sum). */
static bool reports_series(const struct hpa_opts *opts)
{
	return opts->profiles_nr > 1 && (opts->growth || opts->outdir || opts->mode == HPA_MODE_HTML);
}

/* Input i's program: its first executable file mapping (a build-id's mapping: the build-id); NULL without maps. */
static const char *program_of(const struct hpa_profile *prof, size_t i, bool *by_build_id)
{
	const struct hpa_input *in = &prof->inputs[i];
	uint32_t m;

	for (m = in->map_first; m < in->map_first + in->map_nr; m++) {
		const struct hpa_mapping *map = &prof->mappings[m];
		if (*map->path && *map->path != '[' && map->perms[2] == 'x') {
			*by_build_id = map->build_id != 0;
			return map->build_id ? hpa_profile_str(prof, map->build_id) : map->path;
		}
	}
	return NULL;
}

/*
 * The dumps of a series are one program's: two whose programs differ (the
 * executable's path or build-id) are refused for a series (-2), said in a
 * warning for a sum.
 */
static int check_programs(const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	const char *first = NULL, *p;
	size_t i, at = 0;
	bool id0 = false, id;

	for (i = 0; i < prof->inputs_nr; i++) {
		if (prof->inputs[i].is_base || !(p = program_of(prof, i, &id)))
			continue;
		if (!first) {
			first = p;
			id0 = id;
			at = i;
		} else if (id == id0 && strcmp(first, p)) {
			break;
		}
	}
	if (i == prof->inputs_nr)
		return 0;
	if (!reports_series(opts)) {
		hpa_warn("%s and %s are dumps of different programs (%s and %s): summed", prof->inputs[at].path,
			 prof->inputs[i].path, first, p);
		return 0;
	}
	return refuse("%s and %s are dumps of different programs (%s and %s): a series is one "
		      "program's; give the dumps of one", prof->inputs[at].path, prof->inputs[i].path, first, p);
}

/* Read the dumps of one series (`order`: series.h) and the --base, and report. */
static int run_series(const struct hpa_opts *opts, const size_t *order, struct run_stats *rs)
{
	struct hpa_profile prof;
	int rc;

	hpa_profile_init(&prof);
	prof.no_thread_samples = !shows_threads(opts);
	rc = read_inputs(&prof, opts, order);
	if (!rc)
		rc = check_bases(&prof, opts);
	if (!rc)
		rc = check_programs(&prof, opts);
	if (!rc)
		rc = analyze(&prof, opts, rs);
	hpa_profile_release(&prof);
	return rc;
}

/* Two dumps of different processes, for messages: the first dumps of processes 0 and 1. */
static void two_processes(const struct hpa_opts *opts, const struct hpa_series_order *so,
			  const char **a, const char **b)
{
	size_t k;

	*a = *b = NULL;
	for (k = 0; k < opts->profiles_nr; k++) {
		if (so->process[k] == 0 && !*a)
			*a = opts->profiles[so->order[k]];
		if (so->process[k] == 1 && !*b)
			*b = opts->profiles[so->order[k]];
	}
}

/*
 * Dumps of several processes (series.h): --growth and --outdir take each
 * process's dumps as a series of its own (--outdir into a folder per
 * process), one after the other; an --html page shows one series, so it
 * refuses; every other report sums them, as jeprof does, and says so.
 */
static int run_processes(const struct hpa_opts *opts, const struct hpa_series_order *so,
			 struct run_stats *rs)
{
	const char *a, *b;
	size_t p, k, n;
	int rc = 0;

	two_processes(opts, so, &a, &b);
	if (opts->mode == HPA_MODE_HTML || (opts->growth && opts->output))
		return refuse("%s and %s are dumps of two processes (PIDs %lld and %lld): %s shows one "
			      "series; give the dumps of one process%s", a, b, so->pids[0], so->pids[1],
			      opts->mode == HPA_MODE_HTML ? "a page" : "--growth --output",
			      opts->mode == HPA_MODE_HTML ? ", or use --outdir for a folder per process" : "");
	if (!opts->growth && !opts->outdir) {
		hpa_warn("%s and %s are dumps of two processes (PIDs %lld and %lld; %zu in all): "
			 "summed, as jeprof does; --growth and --outdir keep each process apart",
			 a, b, so->pids[0], so->pids[1], so->nprocesses);
		return run_series(opts, so->order, rs);
	}
	for (p = 0, k = 0; p < so->nprocesses && !rc; p++, k += n) {
		struct hpa_opts one = *opts;
		char *dir = opts->outdir ? hpa_xasprintf("%s/%lld", opts->outdir, so->pids[p]) : NULL;
		const char **dumps = xcalloc(opts->profiles_nr + 1, sizeof(*dumps));
		size_t *order = xcalloc(opts->profiles_nr + 1, sizeof(*order));

		for (n = 0; k + n < opts->profiles_nr && so->process[k + n] == p; n++) {
			dumps[n] = opts->profiles[so->order[k + n]];
			order[n] = n;
		}
		one.profiles = dumps;
		one.profiles_nr = n;
		one.outdir = dir;
		if (opts->growth)
			printf("%sProcess %lld: %zu dump%s\n", p ? "\n" : "", so->pids[p], n, n == 1 ? "" : "s");
		fflush(stdout);
		if (!rc)
			rc = run_series(&one, order, rs);
		free(dumps);
		free(order);
		free(dir);
	}
	return rc;
}

/*
 * Two dumps of one process with the same sequence number: two runs (the
 * sequence starts again with each process).  A series refuses them (-2); a
 * sum says so (0).
 */
static int repeated_seq(const struct hpa_opts *opts, const struct hpa_series_order *so)
{
	const char *a = opts->profiles[so->repeat[0]], *b = opts->profiles[so->repeat[1]];

	if (!reports_series(opts)) {
		hpa_warn("%s and %s have the same sequence number: dumps of two runs, summed", a, b);
		return 0;
	}
	return refuse("%s and %s have the same sequence number: dumps of two runs (the sequence starts "
		      "again with each process); give the dumps of one", a, b);
}

static int run_inputs(const struct hpa_opts *opts);

int hpa_run(const struct hpa_opts *opts)
{
	if (opts->watch)
		return hpa_watch(opts);
	if (opts->push)
		return hpa_push_run(opts, run_inputs);
	return run_inputs(opts);
}

/* The run of the PROFILEs given: statistics first, then the series (or the processes') and the report. */
static int run_inputs(const struct hpa_opts *opts)
{
	struct hpa_series_order so;
	struct run_stats rs = { 0 };
	double t0 = hpa_now();
	int rc;

	if (opts->stats) {   /* first: a wrong statistics file fails before any symbolization */
		struct hpa_stats_source src = { opts->stats, opts->status_file, opts->smaps_file,
						opts->pid, opts->rss, &opts->http };
		if (hpa_load_stats(&src, &rs.st, &rs.pm, &rs.has_pm) < 0)
			return -1;
		rs.set = true;
		hpa_timing(t0, "read statistics %s", opts->stats);
	}
	hpa_series_order(opts->profiles, opts->profiles_nr, &so);
	rs.series_key = so.key;
	rs.series_pid = so.nprocesses == 1 ? so.pids[0] : -1;
	rc = so.repeat[0] >= 0 ? repeated_seq(opts, &so) : 0;
	if (!rc)
		rc = so.nprocesses > 1 ? run_processes(opts, &so, &rs) : run_series(opts, so.order, &rs);
	hpa_series_order_release(&so);
	if (rs.set) {
		hpa_alloc_stats_release(&rs.st);
		hpa_proc_mem_release(&rs.pm);
	}
	hpa_timing(t0, "total");
	hpa_timing_peak_rss();
	return rc;
}
