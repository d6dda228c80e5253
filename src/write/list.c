/*
 * --list RE: the source of each function whose name matches RE, with flat
 * and cum per line (the grouping engine's hpa_group_source), in the layout
 * of pprof -list: a ROUTINE header per function and source file, its sums,
 * then "flat cum LINE:text".  A function's lines come from the DWARF line
 * table (the innermost frame's line, an inlined caller's call site); the
 * text from the source file, found where it was built or through
 * --source-path and --trim-path.  A file not found still gives the table,
 * and says where hpa looked.
 *
 * A profile names the files, so a profile could name /etc/shadow: only a
 * regular text file (no NUL byte) under a folder the binaries' DWARF
 * records (a unit's build folder, a source file's folder), a --source-path
 * folder or the current folder is read
 * (after symbolic links are followed), and for a profile from a server only
 * under --source-path.  Control bytes in the text are shown as \xNN.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

/* Source files larger than this are not read (a generated file, not a source). */
#define MAX_SOURCE (64u << 20)
/* Functions longer than this many lines print the lines near their values only. */
#define LONG_FUNCTION 60
/* Lines shown around each line with a value in a long function. */
#define CONTEXT 4

struct source_file {
	uint32_t path;           /* profile string id */
	char *data;              /* the file's text, NULL if not found */
	char **lines;            /* lines[1..nlines], NUL-terminated in data */
	size_t nlines;
	char *where;             /* found: the path read; else where hpa looked */
	bool refused;            /* a candidate was there but not to be read */
};

struct routine {
	const struct hpa_source_routine *r;
	size_t first, n;         /* its lines: the sorted lines[first .. first + n) */
	double line_cum;         /* the sum of its lines' cum */
};

struct lister {
	FILE *fp;
	const struct hpa_profile *prof;
	const struct hpa_symbols *syms;
	const struct hpa_write_opts *opts;
	char **roots;               /* the folders sources may be read from, real paths */
	size_t roots_nr;
	bool remote;                /* a profile came from a server */
	bool refused;               /* a source file was there but not to be read */
	struct source_file *files;
	size_t files_nr, files_alloc, missing;
	double total;               /* the view's, for percentages */
};

static bool match_function(void *ctx, const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_write_opts *opts = ctx;
	const struct hpa_frame_name *n = hpa_frame_name(prof, opts->view.names, f);

	return regexec(&opts->list->re, hpa_profile_str(prof, n->full), 0, NULL, 0) == 0 ||
	       regexec(&opts->list->re, hpa_profile_str(prof, n->shortn), 0, NULL, 0) == 0;
}

static int cmp_lines(const void *pa, const void *pb)
{
	const struct hpa_source_line *a = pa, *b = pb;

	if (a->routine != b->routine)
		return a->routine < b->routine ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}


static int cmp_routines(const void *pa, const void *pb, void *lister)
{
	const struct lister *ls = lister;
	const struct hpa_source_routine *a = ((const struct routine *)pa)->r;
	const struct hpa_source_routine *b = ((const struct routine *)pb)->r;
	int c;

	if (fabs(a->cum) != fabs(b->cum))
		return fabs(a->cum) > fabs(b->cum) ? -1 : 1;
	if (fabs(a->flat) != fabs(b->flat))
		return fabs(a->flat) > fabs(b->flat) ? -1 : 1;
	c = strcmp(hpa_profile_str(ls->prof, ls->syms->funcs[a->func].name),
		   hpa_profile_str(ls->prof, ls->syms->funcs[b->func].name));
	if (c)
		return c;
	return strcmp(hpa_profile_str(ls->prof, a->file), hpa_profile_str(ls->prof, b->file));
}

/* Is the real path `real` in one of the folders sources may be read from? */
static bool allowed(const struct lister *ls, const char *real)
{
	for (size_t i = 0; i < ls->roots_nr; i++) {
		size_t n = strlen(ls->roots[i]);
		if (n && !strncmp(real, ls->roots[i], n) && (real[n] == '/' || ls->roots[i][n - 1] == '/'))
			return true;
	}
	return false;
}

/* Add `dir` (as its real path, when it exists) to the folders sources may be read from. */
static void add_root(struct lister *ls, const char *dir)
{
	char *real = realpath(dir, NULL);

	if (!real)
		return;
	for (size_t i = 0; i < ls->roots_nr; i++)
		if (!strcmp(ls->roots[i], real)) {
			free(real);
			return;
		}
	ls->roots = xrealloc(ls->roots, st_mult(ls->roots_nr + 1, sizeof(*ls->roots)));
	ls->roots[ls->roots_nr++] = real;
}

/*
 * Read `path` whole into f if it is a regular text file of sane size under
 * an allowed folder; 0, or -1 when it is not there, -2 when it is there
 * but refused.
 */
static int load(struct source_file *f, const char *path, const struct lister *ls)
{
	struct stat st;
	FILE *in;
	size_t n, i, nl = 0;
	char *p, *real;
	bool ok;

	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISREG(st.st_mode) || (uintmax_t)st.st_size > MAX_SOURCE)
		return -2;
	real = realpath(path, NULL);
	ok = real && allowed(ls, real);
	free(real);
	if (!ok)
		return -2;
	in = fopen(path, "rb");
	if (!in)
		return -1;
	f->data = xmalloc((size_t)st.st_size + 1);
	n = fread(f->data, 1, (size_t)st.st_size, in);
	fclose(in);
	f->data[n] = '\0';
	if (memchr(f->data, '\0', n)) {   /* not text */
		free(f->data);
		f->data = NULL;
		return -2;
	}
	for (i = 0; i < n; i++)
		nl += f->data[i] == '\n';
	f->lines = xmalloc(st_mult(nl + 2, sizeof(*f->lines)));
	f->nlines = 0;
	for (p = f->data; *p || p < f->data + n;) {
		char *end = memchr(p, '\n', (size_t)(f->data + n - p));

		f->lines[++f->nlines] = p;
		if (!end)
			break;
		*end = '\0';
		if (end > p && end[-1] == '\r')
			end[-1] = '\0';
		p = end + 1;
		if (p == f->data + n)
			break;
	}
	f->where = xstrdup(path);
	return 0;
}

/* `path` with the first --trim-path prefix it starts with cut off, or NULL. */
static const char *trimmed(const char *path, const struct hpa_write_opts *opts)
{
	size_t i;

	for (i = 0; i < opts->trim_paths.nr; i++) {
		const char *t = opts->trim_paths.v[i];
		size_t len = strlen(t);

		while (len > 1 && t[len - 1] == '/')
			len--;
		if (!strncmp(path, t, len) && (path[len] == '/' || t[len - 1] == '/')) {
			path += len;
			while (*path == '/')
				path++;
			return *path ? path : NULL;
		}
	}
	return NULL;
}

static bool try_path(struct source_file *f, const char *path, const struct lister *ls,
		     struct hpa_strbuf *looked, size_t *tries)
{
	int rc = load(f, path, ls);

	if (!rc)
		return true;
	f->refused |= rc == -2;
	if (++*tries <= 6)
		hpa_sb_addf(looked, "%s%s%s", looked->len ? ", " : "", path,
			    rc == -2 ? " (there, but not a text file under the binary's build folders, "
				       "--source-path or the current folder: not read)" : "");
	return false;
}

/*
 * Find the source file `path` (as the debug info records it): each
 * --source-path DIR joined with the path after --trim-path's prefix (or
 * with the whole path), then with ever shorter tails of it; then the path
 * itself, and with --trim-path, what is left of it from the current folder.
 */
static void find_source(struct source_file *f, const char *path, const struct lister *ls)
{
	struct hpa_strbuf looked = HPA_STRBUF_INIT;
	const struct hpa_write_opts *opts = ls->opts;
	const char *rel = trimmed(path, opts), *tail;
	size_t i, tries = 0;

	if (!*path) {
		f->where = xstrdup("the debug info names no file");
		return;
	}
	if (ls->remote && !opts->source_paths.nr) {
		f->where = xstrdup("nowhere: the profile came from a server, so sources are read only "
				   "under --source-path DIR");
		return;
	}
	for (i = 0; i < opts->source_paths.nr; i++) {
		for (tail = rel ? rel : path; *tail == '/'; tail++)
			;
		while (*tail) {
			char *cand = hpa_xasprintf("%s/%s", opts->source_paths.v[i], tail);
			bool ok = try_path(f, cand, ls, &looked, &tries);
			const char *slash = strchr(tail, '/');

			free(cand);
			if (ok)
				goto found;
			if (!slash)
				break;
			tail = slash + 1;
		}
	}
	if (try_path(f, path, ls, &looked, &tries) || (rel && try_path(f, rel, ls, &looked, &tries)))
		goto found;
	if (tries > 6)
		hpa_sb_addf(&looked, " and %zu more", tries - 6);
	f->where = hpa_sb_detach(&looked);
	return;
found:
	hpa_sb_release(&looked);
}

static struct source_file *source_of(struct lister *ls, uint32_t path)
{
	struct source_file *f;
	size_t i;

	for (i = 0; i < ls->files_nr; i++)
		if (ls->files[i].path == path)
			return &ls->files[i];
	HPA_GROW(ls->files, ls->files_nr + 1, ls->files_alloc);
	f = &ls->files[ls->files_nr++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	find_source(f, hpa_profile_str(ls->prof, path), ls);
	if (!f->data && *hpa_profile_str(ls->prof, path))
		ls->missing++;
	ls->refused |= f->refused;
	return f;
}

static void value(char *buf, size_t size, double v, const struct hpa_write_opts *opts)
{
	if (v == 0)
		snprintf(buf, size, ".");
	else
		hpa_format_value(buf, size, v, opts);
}

static void print_line(struct lister *ls, const struct hpa_source_line *l, uint32_t line, const char *text)
{
	char flat[48] = ".", cum[48] = ".";

	if (l) {
		value(flat, sizeof(flat), l->flat, ls->opts);
		value(cum, sizeof(cum), l->cum, ls->opts);
	}
	if (line)
		fprintf(ls->fp, "%10s %10s %8u:", flat, cum, line);
	else
		fprintf(ls->fp, "%10s %10s %8s:", flat, cum, "?");
	for (; text && *text; text++) {   /* a tab stays; other control bytes as \xNN */
		unsigned char c = (unsigned char)*text;
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			fprintf(ls->fp, "\\x%02x", c);
		else
			putc(c, ls->fp);
	}
	putc('\n', ls->fp);
}

/* Columns of indentation of `s` (tabs to multiples of 8). */
static size_t indent_of(const char *s)
{
	size_t col = 0;

	for (; *s == ' ' || *s == '\t'; s++)
		col = *s == '\t' ? (col / 8 + 1) * 8 : col + 1;
	return col;
}

/*
 * The lines to print of a function whose valued lines span lo..hi (both at
 * least 1): from its declaration (when known and above lo) to the brace
 * that closes it (the first line after hi that starts with '}' no deeper
 * than the declaration), else a few lines past hi; never past the file's
 * end (*end < *begin: nothing of the file to print).
 */
static void span(const struct source_file *src, uint32_t decl, uint32_t lo, uint32_t hi,
		 uint64_t *begin, uint64_t *end)
{
	uint64_t l, limit, n = src->nlines;
	size_t depth;

	*begin = decl && decl <= lo ? decl : (lo > 3 ? lo - 3 : 1);
	*end = (uint64_t)hi + 5;
	if (decl && decl <= lo && decl <= n && hi < n) {
		depth = indent_of(src->lines[decl]);
		limit = (uint64_t)hi + 500 < n ? (uint64_t)hi + 500 : n;
		for (l = (uint64_t)hi + 1; l <= limit; l++) {
			const char *t = src->lines[l];
			if (indent_of(t) <= depth && t[strspn(t, " \t")] == '}') {
				*end = l;
				break;
			}
		}
	}
	if (*end > n)
		*end = n;
}

static void print_routine(struct lister *ls, const struct routine *rt, const struct hpa_source_line *lines)
{
	const struct hpa_profile *prof = ls->prof;
	const struct hpa_source_routine *r = rt->r;
	const struct hpa_function *fn = &ls->syms->funcs[r->func];
	const struct hpa_source_line *rl = lines + rt->first;
	struct source_file *src = r->file ? source_of(ls, r->file) : NULL;
	uint32_t lo = 0, hi = 0, decl = 0;
	uint64_t begin, end, l;
	size_t i, k;
	bool skipping = false;
	char flat[48], cum[48], pct[48];

	for (i = 0; i < rt->n; i++) {
		if (rl[i].line && (!lo || rl[i].line < lo))
			lo = rl[i].line;
		if (rl[i].line > hi)
			hi = rl[i].line;
	}
	hpa_format_value(flat, sizeof(flat), r->flat, ls->opts);
	hpa_format_value(cum, sizeof(cum), r->cum, ls->opts);
	hpa_format_percent(pct, sizeof(pct), r->cum, ls->total);
	fprintf(ls->fp, "ROUTINE ======================== %s in %s\n", hpa_profile_str(prof, fn->name),
		r->file ? hpa_profile_str(prof, r->file) : "??");
	fprintf(ls->fp, "%10s %10s (flat, cum) %s of Total\n", flat, cum, pct);
	if (fabs(rt->line_cum - r->cum) > 1e-6 * fmax(1, fabs(r->cum)))
		fputs("  (its lines' cum add up to more: samples pass through more than one of them, "
		      "as in recursion)\n", ls->fp);
	if (!src || !src->data || !hi) {
		if (!src || !hi)
			fputs("  (no line information: only the name is known, from a symbol table or the "
			      "profile itself)\n", ls->fp);
		else
			fprintf(ls->fp, "  (source not found; looked for %s)\n", src->where);
		for (i = 0; i < rt->n; i++)
			print_line(ls, &rl[i], rl[i].line, NULL);
		return;
	}
	if (fn->filename == r->file)
		decl = fn->start_line;
	span(src, decl, lo, hi, &begin, &end);
	if (strcmp(src->where, hpa_profile_str(prof, r->file)))
		fprintf(ls->fp, "  (source read from %s)\n", src->where);
	if (hi > src->nlines)
		fprintf(ls->fp, "  (%s has %zu lines, fewer than the debug info says: not the source the "
			"binary was built from?)\n", src->where, src->nlines);
	for (k = 0; k < rt->n && !rl[k].line; k++)   /* line 0: an address the line table does not cover */
		print_line(ls, &rl[k], 0, NULL);
	for (l = begin; l <= end; l++) {
		const struct hpa_source_line *here = NULL;
		bool near;

		while (k < rt->n && rl[k].line < l)
			k++;
		if (k < rt->n && rl[k].line == l)
			here = &rl[k];
		/* A long function shows its start, its end and the lines near a value. */
		near = end - begin < LONG_FUNCTION || l < begin + 3 || l + 2 > end ||
		       (k < rt->n && rl[k].line - l <= CONTEXT) ||
		       (k > 0 && rl[k - 1].line && l - rl[k - 1].line <= CONTEXT);
		if (!near) {
			if (!skipping)
				fprintf(ls->fp, "%10s %10s %8s\n", "", "", "...");
			skipping = true;
			continue;
		}
		skipping = false;
		print_line(ls, here, (uint32_t)l, src->lines[l]);
	}
	for (; k < rt->n; k++)   /* past the end of the file */
		if (rl[k].line > end)
			print_line(ls, &rl[k], rl[k].line, NULL);
}

int hpa_report_list(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_source_groups g;
	struct routine *routines;
	struct lister ls;
	size_t i, nr;
	char num[48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	memset(&ls, 0, sizeof(ls));
	ls.fp = fp;
	ls.prof = prof;
	ls.syms = vo.symbols;
	ls.opts = opts;
	for (i = 0; i < opts->source_paths.nr; i++)
		add_root(&ls, opts->source_paths.v[i]);
	for (i = 0; i < prof->inputs_nr; i++)
		ls.remote |= prof->inputs[i].remote;
	if (!ls.remote) {
		add_root(&ls, ".");
		for (i = 0; i < ls.syms->source_dirs_nr; i++)
			add_root(&ls, hpa_profile_str(prof, ls.syms->source_dirs[i]));
	}
	hpa_group_source(prof, &vo, match_function, (void *)opts, &g);
	ls.total = g.total;
	if (g.lines_nr > 1)
		qsort(g.lines, g.lines_nr, sizeof(*g.lines), cmp_lines);
	routines = xcalloc(g.routines_nr + 1, sizeof(*routines));
	for (i = 0; i < g.routines_nr; i++)
		routines[i].r = &g.routines[i];
	for (i = g.lines_nr; i-- > 0;) {   /* each routine's lines are one sorted run */
		struct routine *rt = &routines[g.lines[i].routine];
		rt->first = i;
		rt->n++;
		rt->line_cum += g.lines[i].cum;
	}
	for (i = nr = 0; i < g.routines_nr; i++)   /* a routine of zeros is no row, as in --text */
		if (routines[i].r->flat != 0 || routines[i].r->cum != 0)
			routines[nr++] = routines[i];
	if (nr > 1)
		qsort_r(routines, nr, sizeof(*routines), cmp_routines, &ls);

	hpa_format_total(num, sizeof(num), g.total, opts);
	fprintf(fp, "Total: %s\n", num);
	hpa_active_filters(fp, &vo);
	if (!nr)
		fprintf(fp, "No function matches '%s'.\n", opts->list->src ? opts->list->src : "");
	for (i = 0; i < nr; i++)
		print_routine(&ls, &routines[i], g.lines);
	if (ls.missing)
		hpa_warn("%zu of %zu source files not found%s; --source-path DIR and --trim-path PREFIX "
			 "say where to look", ls.missing, ls.files_nr,
			 ls.remote && !opts->source_paths.nr ? " (a profile from a server: sources are "
			 "read only under --source-path)" : ls.refused ? " or not read (a profile names "
			 "the files: only those under the binary's build folders, --source-path or the "
			 "current folder are read)" : "");
	for (i = 0; i < ls.files_nr; i++) {
		free(ls.files[i].data);
		free(ls.files[i].lines);
		free(ls.files[i].where);
	}
	free(ls.files);
	for (i = 0; i < ls.roots_nr; i++)
		free(ls.roots[i]);
	free(ls.roots);
	free(routines);
	free(g.lines);
	free(g.routines);
	return 0;
}
