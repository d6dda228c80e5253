/*
 * In-process symbolization with libdwfl.
 *
 * Each file named in an input's maps section that holds at least one
 * profile address is a module: opened in a Dwfl of its own at the bias its
 * maps line implies (computed from the file's PT_LOAD headers, so layouts
 * whose first segment is r--p, or where p_offset != p_vaddr, come out
 * right), and every one of its addresses is looked up once, at addr - 1:
 * all heap-profile frames are return addresses, the leaf included.
 *
 * Modules are independent, so they are symbolized in parallel, one worker
 * thread per processor.  A worker writes only to its module: names, files
 * and inline chains go to the module's own string table and arrays, and the
 * main thread copies them into the profile afterwards, in location order, so
 * the profile's ids come out the same whatever the threads did first.
 *
 * Within a module, only what the addresses need is read: a compile unit is
 * indexed when an address falls in it, and inside it, an inlined call or a
 * block whose ranges hold none of the module's addresses is skipped whole.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>


#include "hpa/diag.h"
#include "hpa/task.h"
#include "hpa/timing.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "debuginfod.h"
#include "elfview.h"
#include "symbolizer.h"

/*
 * The parts of a split module share its addresses out as they go: each
 * takes CHUNK addresses at a time from the low end of its own stretch,
 * and once that is done, from the high end of the stretch with the most
 * left, so a worker that is faster (a lighter stretch, or a processor
 * with less else to do) takes over instead of waiting.  The two ends
 * meet; each side goes on through compile units it has read.
 */
#define CHUNK 8

struct claim {
	size_t nparts;
	size_t *mod;             /* per part: its index in the symbolizer's modules */
	uint64_t *sorted;        /* every address of the module, ascending: what each part wants */
	struct hpa_share *share; /* per part: its addresses (of by_addr) not yet taken */
};

static void work_parts(const struct symbolizer *s, struct module *m)
{
	struct claim *c = m->claim;
	size_t j;

	for (;;) {
		size_t from, to, q;
		bool down;
		struct module *o;

		if (!hpa_share_take(c->share, m->part_no, CHUNK, &q, &from, &to, &down))
			break;
		o = &s->mods[c->mod[q]];
		for (j = 0; j < to - from; j++) {
			size_t k = o->by_addr[down ? to - 1 - j : from + j];

			m->named++;
			if (s->known->chains[o->locs[k]].nr)
				continue;   /* named already (pprof input) */
			symbolize_pc(m, o, k);
			o->res_mod[k] = (uint32_t)(m - s->mods);
		}
	}
}

/* A worker's whole job for one module: open it, check it, name its addresses. */
static void module_work(const struct symbolizer *s, struct module *m)
{
	double t = hpa_now();
	const unsigned char *bits;
	GElf_Addr vaddr;
	size_t k;
	int n;

	m->no_lines = s->opts->no_lines;
	m->dwfl = dwfl_begin(&s->callbacks);
	if (!m->dwfl) {
		m->no_dwfl = true;
		m->why = hpa_xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		return;
	}
	dwfl_report_begin(m->dwfl);
	report_module(s, m);
	if (dwfl_report_end(m->dwfl, NULL, NULL) != 0) {
		if (!m->why)
			m->why = hpa_xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		m->mod = NULL;
	}
	n = m->mod ? dwfl_module_build_id(m->mod, &bits, &vaddr) : 0;
	if (!elf_build_id_hex(bits, n, m->build_id))
		m->build_id[0] = '\0';
	if (m->mod && m->claim) {   /* a part: any of the module's addresses may come its way */
		m->wanted = m->claim->sorted;
		m->nwanted = m->all_npcs;
		work_parts(s, m);
	} else if (m->mod) {
		m->wanted = sorted_pcs(m->pcs, m->npcs);
		m->nwanted = m->npcs;
		for (k = 0; k < m->npcs; k++)
			if (!s->known->chains[m->locs[k]].nr)   /* else named already (pprof input) */
				symbolize_pc(m, m, k);
		m->named = m->npcs;
	}
	for (k = 0; k < m->ncus; k++) {
		free(m->cus[k].dies);
		free(m->cus[k].ranges);
		cu_lines_release(&m->cus[k].lines);
		die_unit_release(&m->cus[k].unit);
	}
	free(m->cus);
	m->cus = NULL;
	hpa_hashmap_release(&m->cu_by_off);
	free(m->spans);
	m->spans = NULL;
	free(m->source_memo);   /* its texts go with the units and libdw */
	m->source_memo = NULL;
	free(m->seen);
	m->seen = NULL;
	die_aranges_release(&m->aranges);
	if (!m->claim)
		free(m->wanted);
	m->wanted = NULL;
	dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	m->secs = hpa_now() - t;
}

/* A member of the crew: the next module not yet taken, until none is left. */
static void worker(void *arg, size_t member)
{
	struct symbolizer *s = arg;
	size_t i;

	(void)member;
	while ((i = atomic_fetch_add(&s->next, 1)) < s->nmods)
		module_work(s, &s->mods[s->order[i]]);
}

static const struct module *sort_mods;   /* for cmp_job: qsort has no context */

static int cmp_job(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	size_t nx = sort_mods[x].npcs, ny = sort_mods[y].npcs;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Every module on a crew of as many threads as the budget gives (task.h),
 * the caller's included; the modules with most addresses first (the parts of a split
 * one among them), so that the small ones fill in beside them at the end
 * instead of delaying a part that is started last.
 */
static void run_workers(struct symbolizer *s)
{
	size_t nthreads = s->nthreads, i;

	s->order = xmalloc(st_mult(s->nmods, sizeof(*s->order)));
	for (i = 0; i < s->nmods; i++) {   /* before any worker: parts write each other's */
		struct module *m = &s->mods[i];

		s->order[i] = i;
		m->res_first = xcalloc(m->npcs + 1, sizeof(*m->res_first));
		m->res_nr = xcalloc(m->npcs + 1, sizeof(*m->res_nr));
		m->res_src = xcalloc(m->npcs + 1, sizeof(*m->res_src));
	}
	sort_mods = s->mods;
	qsort(s->order, s->nmods, sizeof(*s->order), cmp_job);
	sort_mods = NULL;

	if (nthreads > s->nmods)
		nthreads = s->nmods;
	if (nthreads > 64)
		nthreads = 64;
	hpa_crew_run(nthreads, worker, s);
	free(s->order);
	s->order = NULL;
}

/*
 * A module with many addresses is shared by several workers: each opens the
 * file on its own and names the addresses of one stretch of the module
 * (cut where the sorted addresses are, so each mostly reads compile units
 * of its own).  The checks still see every address.  Part k's addresses keep
 * their location order, as copying the results needs.
 */
#define SPLIT_MIN 64     /* addresses a part gets at least */

/* Module m's addresses in [lo, hi), in location order, to q (which may be m); they are q's now. */
static void take_stretch(const struct module *m, uint64_t lo, uint64_t hi, struct module *q,
			 uint32_t qi, uint32_t *where)
{
	uint64_t *pcs = xmalloc((m->npcs + 1) * sizeof(*pcs));
	uint32_t *locs = xmalloc((m->npcs + 1) * sizeof(*locs));
	size_t k, n = 0;

	for (k = 0; k < m->npcs; k++) {
		if (m->pcs[k] < lo || m->pcs[k] >= hi)
			continue;
		pcs[n] = m->pcs[k];
		locs[n++] = m->locs[k];
		where[m->locs[k]] = qi + 1;
	}
	q->pcs = pcs;
	q->locs = locs;
	q->npcs = q->apcs = n;
}

static void split_module(struct symbolizer *s, size_t idx, uint32_t *where)
{
	struct module *m = &s->mods[idx], whole;
	size_t parts = m->npcs / SPLIT_MIN, p;
	uint64_t *sorted, *cut;
	size_t *sizes;
	struct claim *c;

	if (parts > s->nthreads)
		parts = s->nthreads;
	if (parts < 2)
		return;
	sorted = sorted_pcs(m->pcs, m->npcs);
	cut = xmalloc((parts + 1) * sizeof(*cut));   /* part p: cut[p] <= pc < cut[p + 1] */
	cut[0] = 0;
	for (p = 1; p < parts; p++)
		cut[p] = sorted[m->npcs * p / parts];
	cut[parts] = UINT64_MAX;   /* above every pc: an address is at most 2^64 - 1 */

	/* Part 0 is the module itself; its whole list stays, owned, for the checks. */
	c = xcalloc(1, sizeof(*c));
	c->nparts = parts;
	c->sorted = sorted;
	c->mod = xcalloc(parts, sizeof(*c->mod));
	sizes = xcalloc(parts, sizeof(*sizes));
	m->parts = parts;
	whole = *m;
	for (p = 1; p < parts; p++) {
		struct module *q;

		HPA_GROW(s->mods, s->nmods + 1, s->amods);
		q = &s->mods[s->nmods];
		memset(q, 0, sizeof(*q));
		q->input = whole.input;
		q->map_path = whole.map_path;
		q->start = whole.start;
		q->offset = whole.offset;
		q->perms = whole.perms;
		q->part_of = (int32_t)idx;
		q->parts = 1;
		q->all_pcs = whole.pcs;
		q->all_npcs = whole.npcs;
		hpa_strtab_init(&q->strs);
		c->mod[p] = s->nmods;
		take_stretch(&whole, cut[p], cut[p + 1], q, (uint32_t)s->nmods++, where);
	}
	m = &s->mods[idx];
	c->mod[0] = idx;
	take_stretch(&whole, cut[0], cut[1], m, (uint32_t)idx, where);
	free(whole.locs);
	free(cut);
	for (p = 0; p < parts; p++) {
		struct module *q = &s->mods[c->mod[p]];

		q->claim = c;
		q->part_no = p;
		q->by_addr = order_by_addr(q->pcs, q->npcs);
		q->res_mod = xcalloc(q->npcs + 1, sizeof(*q->res_mod));
		sizes[p] = q->npcs;
	}
	c->share = hpa_share_new(sizes, parts);
	free(sizes);
}

/* Collect the modules of one input: each mapped file that holds one of its locations. */
static void collect_modules(struct symbolizer *s, uint32_t input, uint32_t *where)
{
	const struct hpa_profile *prof = s->prof;
	const struct hpa_input *in = &prof->inputs[input - 1];
	size_t first = s->nmods, i;
	uint32_t *mod_of_map;
	size_t last;

	if (!in->map_nr)
		return;
	mod_of_map = xcalloc(in->map_nr, sizeof(*mod_of_map));
	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping, j;
		const struct hpa_mapping *map;
		struct module *mod;

		if (!m || m < in->map_first || m >= in->map_first + in->map_nr)
			continue;
		j = mod_of_map[m - in->map_first];
		if (!j) {
			map = &prof->mappings[m];
			if (is_pseudo_path(map->path))
				continue;
			for (j = (uint32_t)first; j < s->nmods; j++)
				if (!strcmp(s->mods[j].map_path, map->path))
					break;
			if (j == s->nmods) {
				uint32_t k;
				HPA_GROW(s->mods, s->nmods + 1, s->amods);
				mod = &s->mods[s->nmods++];
				memset(mod, 0, sizeof(*mod));
				mod->input = input;
				mod->map_path = map->path;
				mod->start = UINT64_MAX;
				mod->part_of = -1;
				mod->parts = 1;
				hpa_strtab_init(&mod->strs);
				/* The lowest mapping of the file fixes the bias. */
				for (k = 0; k < in->map_nr; k++) {
					const struct hpa_mapping *o = &prof->mappings[in->map_first + k];
					if (!strcmp(o->path, map->path) && o->start < mod->start) {
						mod->start = o->start;
						mod->offset = o->offset;
						mod->perms = o->perms;
					}
				}
			}
			mod_of_map[m - in->map_first] = ++j;
		}
		mod = &s->mods[j - 1];
		if (mod->npcs == mod->apcs) {
			HPA_GROW(mod->pcs, mod->npcs + 1, mod->apcs);
			mod->locs = xrealloc(mod->locs, mod->apcs * sizeof(*mod->locs));
		}
		mod->pcs[mod->npcs] = prof->locs[i].addr ? prof->locs[i].addr - 1 : 0;
		mod->locs[mod->npcs] = (uint32_t)i;
		mod->npcs++;
		where[i] = j;
	}
	free(mod_of_map);
	last = s->nmods;
	for (i = first; i < last; i++) {
		s->mods[i].all_pcs = s->mods[i].pcs;
		s->mods[i].all_npcs = s->mods[i].npcs;
	}
	for (i = first; i < last; i++)
		split_module(s, i, where);
}

/* The module's build folders into the symbols' source_dirs, each once. */
static void add_source_dirs(struct hpa_symbols *out, struct hpa_strtab *strs, struct module *m)
{
	for (size_t i = 0; i < m->comp_dirs.cap; i++)
		if (m->comp_dirs.slots[i].val)
			hpa_symbols_add_source_dir(out, hpa_strtab_intern_shown(strs,
				hpa_strtab_get(&m->strs, (uint32_t)m->comp_dirs.slots[i].key)));
	hpa_hashmap_release(&m->comp_dirs);
}

/* Copy a module's function into the symbols, once. */
static uint32_t profile_func(struct hpa_symbols *out, struct hpa_strtab *strs, struct module *m, uint32_t f)
{
	struct sym_func *sf = &m->funcs[f];
	struct hpa_function *pf;
	const char *name = hpa_strtab_get(&m->strs, sf->name);

	if (sf->id)
		return sf->id;
	sf->id = hpa_symbols_intern_function(out, strs, name,
					     sf->linkage ? hpa_strtab_get(&m->strs, sf->linkage) : name,
					     hpa_strtab_get(&m->strs, sf->file));
	pf = &out->funcs[sf->id];
	if (!pf->lang)
		pf->lang = sf->lang;
	if (!pf->start_line)
		pf->start_line = sf->start_line;
	return sf->id;
}

/* The mappings of an input's modules [first, last): the file read, its build-id, what went wrong. */
static void apply_mappings(struct symbolizer *s, struct hpa_symbols *out, const struct hpa_input *in,
			   size_t first, size_t last)
{
	const struct hpa_profile *prof = s->prof;
	uint32_t *build_ids = xcalloc(last - first, sizeof(*build_ids));
	size_t i, j;

	for (j = first; j < last; j++)
		if (s->mods[j].build_id[0])
			build_ids[j - first] = hpa_strtab_intern_shown(prof->strs, s->mods[j].build_id);
	for (i = 0; i < in->map_nr; i++) {
		uint32_t m = in->map_first + (uint32_t)i;
		struct hpa_map_symbols *ms;

		for (j = first; j < last && strcmp(s->mods[j].map_path, prof->mappings[m].path); j++)
			;
		if (j == last)
			continue;
		ms = hpa_symbols_map(out, m, prof->mappings_nr);
		ms->set = true;
		ms->file = hpa_strtab_intern_shown(prof->strs, s->mods[j].file);
		ms->build_id = build_ids[j - first];
		if (s->mods[j].why)
			ms->error = hpa_strtab_intern_shown(prof->strs, s->mods[j].why);
	}
	free(build_ids);
	for (j = first; j < last; j++)
		add_source_dirs(out, prof->strs, &s->mods[j]);
}

/* Location loc's inline chain as module m (or the part that named it) found it. */
static void apply_location(struct symbolizer *s, struct hpa_symbols *out, struct module *m, uint32_t loc,
			   struct hpa_line **chain, size_t *achain)
{
	size_t k = m->cursor++, f, nr;   /* a module's locations were collected in location order */
	struct module *r;

	if (!m->res_nr || !(nr = m->res_nr[k]))
		return;
	r = m->res_mod ? &s->mods[m->res_mod[k]] : m;   /* the part that named it */
	if (!r->str_ids)
		r->str_ids = xcalloc(r->strs.nr + 1, sizeof(*r->str_ids));
	HPA_GROW(*chain, nr, *achain);
	for (f = 0; f < nr; f++) {   /* each frame's file, then its function, as they were met */
		const struct sym_frame *fr = &r->frames[m->res_first[k] + f];

		if (fr->file && !r->str_ids[fr->file])
			r->str_ids[fr->file] = hpa_strtab_intern_shown(s->prof->strs, hpa_strtab_get(&r->strs, fr->file));
		(*chain)[f].file = fr->file ? r->str_ids[fr->file] : 0;
		(*chain)[f].func = profile_func(out, s->prof->strs, r, fr->func);
		(*chain)[f].line = fr->line;
	}
	hpa_symbols_set_chain(out, loc, *chain, nr, (enum hpa_sym_source)m->res_src[k]);
}

/* --timing: each module's time (the longest of its parts) and addresses. */
static void time_modules(const struct symbolizer *s, size_t first, size_t last)
{
	size_t j, q;

	for (j = first; j < last; j++) {
		const struct module *m = &s->mods[j];
		const char *base = strrchr(m->map_path, '/');
		double secs = m->secs;
		size_t named = m->named;

		if (m->part_of >= 0)
			continue;
		for (q = j + 1; q < last; q++)   /* its parts: the longest, and all addresses */
			if (s->mods[q].part_of == (int32_t)j) {
				secs = secs > s->mods[q].secs ? secs : s->mods[q].secs;
				named += s->mods[q].named;
			}
		if (m->parts > 1)
			hpa_timing_secs(secs, "symbolize %s (%zu addresses, %zu workers)",
					base ? base + 1 : m->map_path, named, m->parts);
		else
			hpa_timing_secs(secs, "symbolize %s (%zu addresses)",
					base ? base + 1 : m->map_path, named);
	}
}

/*
 * Copy what the workers found into the symbols: per input, the file used
 * for each mapping, its build-id and what went wrong, then every location's
 * chain in location order.
 */
static void apply_input(struct symbolizer *s, struct hpa_symbols *out, uint32_t input, const uint32_t *where)
{
	const struct hpa_profile *prof = s->prof;
	struct hpa_line *chain = NULL;
	size_t achain = 0, i, j, first = SIZE_MAX, last = 0;

	for (j = 0; j < s->nmods; j++)
		if (s->mods[j].input == input) {
			if (first == SIZE_MAX)
				first = j;
			last = j + 1;
		}
	if (first == SIZE_MAX)
		return;
	apply_mappings(s, out, &prof->inputs[input - 1], first, last);
	for (i = 1; i < prof->locs_nr; i++)
		if (where[i] && s->mods[where[i] - 1].input == input)
			apply_location(s, out, &s->mods[where[i] - 1], (uint32_t)i, &chain, &achain);
	free(chain);
	time_modules(s, first, last);
}

/*
 * libdwfl's debug file search path: ":.debug:/usr/lib/debug[:SYSROOT/usr/lib/debug][:DIR...]";
 * libdwfl takes a relative DIR from the binary's folder, the user means the
 * current one.
 */
static char *debuginfo_path(const struct hpa_sym_opts *opts)
{
	char cwd[PATH_MAX], *path;
	size_t i, n;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	n = 64 + (opts->sysroot ? strlen(opts->sysroot) : 0);
	for (i = 0; i < opts->debug_dirs_nr; i++)
		n += strlen(opts->debug_dirs[i]) + strlen(cwd) + 2;
	path = xmalloc(n);
	strcpy(path, ":.debug:/usr/lib/debug");
	if (opts->sysroot) {
		strcat(path, ":");
		strcat(path, opts->sysroot);
		strcat(path, "/usr/lib/debug");
	}
	for (i = 0; i < opts->debug_dirs_nr; i++) {
		strcat(path, ":");
		if (opts->debug_dirs[i][0] != '/' && cwd[0]) {
			strcat(path, cwd);
			strcat(path, "/");
		}
		strcat(path, opts->debug_dirs[i]);
	}
	return path;
}

static void module_release(struct module *m)
{
	free(m->file);
	free(m->why);
	if (m->part_of < 0 && m->all_pcs != m->pcs)
		free((void *)m->all_pcs);
	if (m->claim && !m->part_no) {   /* part 0 owns what the parts share */
		hpa_share_free(m->claim->share);
		free(m->claim->mod);
		free(m->claim->sorted);
		free(m->claim);
	}
	free(m->by_addr);
	free(m->res_mod);
	free(m->pcs);
	free(m->locs);
	free(m->funcs);
	free(m->frames);
	free(m->res_first);
	free(m->res_nr);
	free(m->res_src);
	free(m->str_ids);
	hpa_hashmap_release(&m->comp_dirs);
	hpa_strtab_release(&m->strs);
}

static void symbolizer_release(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->nmods; i++)
		module_release(&s->mods[i]);
	free(s->mods);
	free(s->debuginfo_path);
}

int hpa_symbolize(const struct hpa_profile *prof, const struct hpa_sym_opts *opts, struct hpa_symbols *syms)
{
	struct symbolizer sz, *s = &sz;
	uint32_t *where;             /* per location: its module + 1, 0 for none */
	size_t i;

	if (syms->chains_nr != prof->locs_nr)
		HPA_BUG("symbols of %zu locations for %zu", syms->chains_nr, prof->locs_nr);
	memset(s, 0, sizeof(*s));
	s->prof = prof;
	s->known = syms;
	s->opts = opts;
	if (opts->debuginfod) {
		/* Bounded: without progress, and per download, unless set. */
		setenv("DEBUGINFOD_TIMEOUT", "10", 0);
		setenv("DEBUGINFOD_MAXTIME", "60", 0);
		if (hpa_debuginfod_enable() < 0)
			hpa_warn("--debuginfod: libdebuginfod.so.1 cannot be loaded "
				 "(apt-get install libdebuginfod1); only local debug files are used");
	}
	elf_version(EV_CURRENT);
	s->debuginfo_path = debuginfo_path(opts);
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	s->callbacks.find_debuginfo = find_debuginfo_guarded;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	s->nthreads = hpa_processors();
	where = xcalloc(prof->locs_nr + 1, sizeof(*where));
	for (i = 1; i <= prof->inputs_nr; i++)
		collect_modules(s, (uint32_t)i, where);
	if (s->nmods)
		run_workers(s);
	for (i = 0; i < s->nmods; i++)
		if (s->mods[i].no_dwfl) {
			hpa_error("cannot start %s", s->mods[i].why);
			free(where);
			symbolizer_release(s);
			return -1;
		}
	for (i = 1; i <= prof->inputs_nr; i++)   /* the workers are done: what they found goes in */
		apply_input(s, syms, (uint32_t)i, where);
	free(where);
	symbolizer_release(s);
	return 0;
}
