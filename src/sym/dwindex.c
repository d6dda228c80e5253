/*
 * A module's DWARF as the symbolizer reads it (symbolizer.h): compile
 * units indexed when an address falls in them, the function and inline
 * chain of each address, and the symbol table's names where there is no
 * DWARF.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>


#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "symbolizer.h"

/* Does [low, high) (CU-relative) hold one of the module's addresses? */
static bool wanted(const struct module *m, const struct cu_index *ci, Dwarf_Addr low,
		   Dwarf_Addr high)
{
	size_t lo = 0, hi = m->nwanted;

	low += ci->bias;
	high += ci->bias;
	while (lo < hi) {   /* first address >= low */
		size_t mid = lo + (hi - lo) / 2;
		if (m->wanted[mid] < low)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nwanted && m->wanted[lo] < high;
}

enum die_kind { DIE_NO_CODE, DIE_ELSEWHERE, DIE_INDEXED };

/* One walk of a CU's DIE tree, by hpa's own reader (u) or by libdw's (u NULL). */
struct walk {
	const struct module *m;
	struct cu_index *ci;
	const struct die_unit *u;
	struct die_range *r;     /* the ranges of the DIE at hand, the empty ones left out */
	size_t nr, ar;
};

/*
 * Index a function DIE whose ranges hold one of the module's addresses.
 * DIE_NO_CODE: it has no ranges (a declaration, an abstract instance, code
 * that was dropped); DIE_ELSEWHERE: none of its ranges holds an address.
 */
static enum die_kind index_add_die(struct walk *w, const Dwarf_Die *die, int32_t *parent,
				   bool inlined)
{
	struct cu_index *ci = w->ci;
	uint32_t idx = (uint32_t)ci->ndies;
	uint32_t depth = *parent >= 0 ? ci->dies[*parent].depth + 1 : 0;
	bool hit = false;
	size_t i;

	for (i = 0; i < w->nr && !hit; i++)
		hit = wanted(w->m, ci, w->r[i].low, w->r[i].high);
	if (!hit)   /* every range of a DIE that is kept, none of one that is not */
		return w->nr ? DIE_ELSEWHERE : DIE_NO_CODE;
	for (i = 0; i < w->nr; i++) {
		HPA_GROW(ci->ranges, ci->nranges + 1, ci->aranges);
		ci->ranges[ci->nranges].low = w->r[i].low;
		ci->ranges[ci->nranges].high = w->r[i].high;
		ci->ranges[ci->nranges].die = idx;
		ci->ranges[ci->nranges].depth = depth;
		ci->nranges++;
	}
	HPA_GROW(ci->dies, ci->ndies + 1, ci->adies);
	memset(&ci->dies[idx], 0, sizeof(ci->dies[idx]));
	ci->dies[idx].die = *die;
	ci->dies[idx].parent = *parent;
	ci->dies[idx].depth = depth;
	ci->dies[idx].inlined = inlined;
	ci->ndies++;
	*parent = (int32_t)idx;
	return DIE_INDEXED;
}

static bool is_type_tag(int tag)
{
	switch (tag) {
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_interface_type:
		return true;
	default:
		return false;
	}
}

enum step { STEP_SKIP, STEP_ENTER, STEP_ENTER_UNLESS_DECLARATION };

/*
 * What the walk does with a DIE (its ranges in w->r for the tags that have
 * code): what is skipped is the inside of an inlined call or a block that
 * holds no address (the bulk of optimized C++), and at file scope in C and
 * C++ the inside of a type, which declares functions but defines none.  A
 * function that holds none is still entered: a local class's methods and a
 * lambda's body are defined inside the function whose class they are,
 * elsewhere in memory.  A subprogram without code is entered unless it is
 * a declaration (whose children are only parameters).
 */
static enum step walk_step(struct walk *w, const Dwarf_Die *die, int tag, int32_t *scope,
			   unsigned *fn_level)
{
	size_t i;

	switch (tag) {
	case DW_TAG_inlined_subroutine:
		return index_add_die(w, die, scope, true) == DIE_ELSEWHERE ? STEP_SKIP : STEP_ENTER;
	case DW_TAG_subprogram:
		(*fn_level)++;
		return index_add_die(w, die, scope, false) == DIE_NO_CODE ?
			STEP_ENTER_UNLESS_DECLARATION : STEP_ENTER;
	case DW_TAG_lexical_block:   /* skipped when it has code and none holds an address */
		for (i = 0; i < w->nr; i++)
			if (wanted(w->m, w->ci, w->r[i].low, w->r[i].high))
				return STEP_ENTER;
		return w->nr ? STEP_SKIP : STEP_ENTER;
	default:
		return is_type_tag(tag) && !*fn_level && w->ci->c_family ? STEP_SKIP : STEP_ENTER;
	}
}

#define WALK_LEVELS 256   /* pathological nesting: deeper DIEs are not looked at */

/* The walk by libdw, for a CU hpa's reader declines. */
static void libdw_walk(struct walk *w, Dwarf_Die *die, int32_t parent, unsigned level,
		       unsigned fn_level)
{
	Dwarf_Die cur = *die, child;

	if (level > WALK_LEVELS)
		return;
	do {
		int tag = dwarf_tag(&cur);
		int32_t scope = parent;
		unsigned fl = fn_level;
		enum step st;

		w->nr = 0;
		if (die_has_code((unsigned)tag)) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&cur, off, &base, &start, &end)) > 0)
				if (end > start) {
					HPA_GROW(w->r, w->nr + 1, w->ar);
					w->r[w->nr].low = start;
					w->r[w->nr++].high = end;
				}
		}
		st = walk_step(w, &cur, tag, &scope, &fl);
		if (st == STEP_ENTER_UNLESS_DECLARATION && dwarf_hasattr(&cur, DW_AT_declaration))
			st = STEP_SKIP;
		if (st != STEP_SKIP && dwarf_haschildren(&cur) > 0 && dwarf_child(&cur, &child) == 0)
			libdw_walk(w, &child, scope, level + 1, fl);
	} while (dwarf_siblingof(&cur, &cur) == 0);
}

/*
 * The walk by hpa's reader: the DIEs from *p to the end of their list of
 * siblings, *p then past it.  False when the unit is not as expected.
 */
static bool own_walk(struct walk *w, const unsigned char **p, int32_t parent, unsigned level,
		     unsigned fn_level)
{
	const struct die_unit *u = w->u;
	const unsigned char *at = *p;

	while (at < u->end) {
		struct die d;
		int32_t scope = parent;
		unsigned fl = fn_level;
		enum step st;
		int tag;

		if (die_read(u, at, &d, DIE_PC_CODE) < 0)
			return false;
		if (!d.ab) {   /* the end of the list */
			at = d.next;
			break;
		}
		tag = (int)d.ab->tag;
		w->nr = 0;
		if (die_has_code((unsigned)tag) && die_ranges(u, &d, &w->r, &w->nr, &w->ar) < 0)
			return false;
		st = walk_step(w, &(Dwarf_Die){ .addr = (void *)(u->s->info + d.off), .cu = w->ci->cu.cu },
			       tag, &scope, &fl);
		if (st == STEP_ENTER_UNLESS_DECLARATION && d.ab->declaration)
			st = STEP_SKIP;
		if (!d.ab->children) {
			at = d.next;
		} else if (st != STEP_SKIP && level < WALK_LEVELS) {
			at = d.next;
			if (!own_walk(w, &at, scope, level + 1, fl))
				return false;
		} else if (!(at = die_skip_children(u, &d))) {
			return false;
		}
	}
	*p = at;
	return true;
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* A compile unit's language, as far as names care. */
static enum hpa_lang cu_lang(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return HPA_LANG_CXX;
	case DW_LANG_Rust:
		return HPA_LANG_RUST;
	case DW_LANG_Go:
		return HPA_LANG_GO;
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return HPA_LANG_C;
	default:   /* none, assembler, Fortran, ...: decided by the name's shape */
		return HPA_LANG_UNKNOWN;
	}
}

static struct cu_index *cu_index_get(struct module *m, Dwarf_Die *cu, Dwarf_Addr bias)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint32_t id = hpa_hashmap_get(&m->cu_by_off, off);
	struct cu_index *ci;
	Dwarf_Die child;
	enum hpa_lang lang;
	struct walk w = { 0 };
	if (id)
		return &m->cus[id - 1];
	HPA_GROW(m->cus, m->ncus + 1, m->acus);
	ci = &m->cus[m->ncus++];
	memset(ci, 0, sizeof(*ci));
	ci->off = off;
	ci->cu = *cu;
	ci->bias = bias;
	ci->comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &(Dwarf_Attribute){ 0 }));
	ci->lang = lang = cu_lang(cu);
	ci->c_family = lang == HPA_LANG_C || lang == HPA_LANG_CXX;
	w.m = m;
	w.ci = ci;
	if (die_unit_open(&ci->unit, &m->die_secs, cu) == 0) {   /* kept: naming reads it too */
		const unsigned char *p = ci->unit.first;

		w.u = &ci->unit;
		ci->own_unit = own_walk(&w, &p, -1, 0, 0);
		if (!ci->own_unit) {
			ci->ndies = ci->nranges = 0;   /* libdw's walk decides */
			die_unit_release(&ci->unit);
		}
	}
	if (!ci->own_unit && dwarf_child(cu, &child) == 0) {
		w.u = NULL;
		libdw_walk(&w, &child, -1, 0, 0);
	}
	free(w.r);
	if (ci->nranges > 1)
		qsort(ci->ranges, ci->nranges, sizeof(*ci->ranges), cmp_range);
	hpa_hashmap_put(&m->cu_by_off, off, (uint32_t)m->ncus);
	return ci;
}

static int cmp_span(const void *a, const void *b)
{
	const struct cu_span *x = a, *y = b;
	return (x->low > y->low) - (x->low < y->low);
}

/* Append the ranges of `cu` to spans[] (growing *alloc). */
static void add_cu_spans(struct cu_span **spans, size_t *nr, size_t *alloc, Dwarf_Die *cu)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		HPA_GROW(*spans, *nr + 1, *alloc);
		(*spans)[*nr].low = start;
		(*spans)[*nr].high = end;
		(*spans)[*nr].cu = *cu;
		(*nr)++;
	}
}

static void spans_build(struct module *m)
{
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;
	size_t aspans = 0;

	m->spans_built = true;
	while ((cu = dwfl_module_nextcu(m->mod, cu, &bias)) != NULL) {
		m->span_bias = bias;
		add_cu_spans(&m->spans, &m->nspans, &aspans, cu);
	}
	if (m->nspans > 1)
		qsort(m->spans, m->nspans, sizeof(*m->spans), cmp_span);
}

/* The CU holding pc by its own ranges, when libdw's lookup finds none. */
static Dwarf_Die *cu_by_ranges(struct module *m, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	size_t lo = 0, hi;

	if (!m->spans_built)
		spans_build(m);
	hi = m->nspans;
	*bias = m->span_bias;
	while (lo < hi) {   /* first span with low > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (m->spans[mid].low <= pc - m->span_bias)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc - m->span_bias < m->spans[lo - 1].high)
		return &m->spans[lo - 1].cu;
	return NULL;
}

/*
 * A module with few addresses (a system library the program entered at
 * main() or malloc()) finds their CUs by looking at the CUs in order, each
 * once, up to the one that holds the address: libdw's lookup by
 * .debug_aranges reads every CU of the file first (thousands in libc),
 * while the CUs such frames are in come early in link order (libc's
 * startup code is its third).  NULL when no CU says it holds pc; libdw's
 * lookup then decides.
 */
#define SCAN_MAX 16

static Dwarf_Die *cu_by_scan(struct module *m, Dwarf_Addr pc, Dwarf_Addr *bias)
{
	size_t i = 0;

	for (;;) {
		Dwarf_Addr b = 0;
		Dwarf_Die *cu;

		for (; i < m->nseen; i++)
			if (pc - m->span_bias >= m->seen[i].low && pc - m->span_bias < m->seen[i].high) {
				*bias = m->span_bias;
				return &m->seen[i].cu;
			}
		if (m->scan_done)
			return NULL;
		cu = dwfl_module_nextcu(m->mod, m->scanned, &b);
		if (!cu) {
			m->scan_done = true;
		} else {
			m->scanned = cu;
			m->span_bias = b;
			add_cu_spans(&m->seen, &m->nseen, &m->aseen, cu);
		}
	}
}

/*
 * The CU that libdwfl's dwfl_module_addrdie() gives for pc, from hpa's own
 * reading of .debug_aranges (dies.h): 1 with *cu, 0 for none, -1 when
 * libdwfl should look.  libdw's reading interns every CU the table names
 * and allocates each entry, per worker: long for a large C++ binary.
 */
static int cu_by_aranges(struct module *m, Dwarf_Addr pc, Dwarf_Addr *bias, Dwarf_Die **cu)
{
	Dwarf *dw;
	uint64_t off;
	uint32_t id;
	int r;

	if (m->aranges_state < 0 || !(dw = dwfl_module_getdwarf(m->mod, bias)))
		return -1;
	if (!m->aranges_state) {
		if (m->die_secs.dbg != dw)
			die_find_sections(&m->die_secs, dw);
		m->aranges_state = die_aranges_read(&m->aranges, &m->die_secs) == 0 ? 1 : -1;
		if (m->aranges_state < 0)
			return -1;
	}
	r = die_aranges_find(&m->aranges, &m->die_secs, pc - *bias, &off);
	if (r <= 0)
		return r;
	if ((id = hpa_hashmap_get(&m->cu_by_off, off)) != 0) {   /* indexed already */
		*cu = &m->cus[id - 1].cu;
		return 1;
	}
	if (!dwarf_offdie(dw, off, &m->ar_die))
		return -1;
	*cu = &m->ar_die;
	return 1;
}

/* The innermost function DIE whose ranges hold `pc` (CU-relative), or -1. */
static int32_t innermost(const struct cu_index *ci, Dwarf_Addr pc)
{
	size_t lo = 0, hi = ci->nranges;

	while (lo < hi) {   /* first range with low > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (ci->ranges[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/*
	 * Ranges nest: of those holding pc, the innermost starts last (and
	 * sorts after its parent when both start at the same address).
	 */
	while (lo-- > 0)
		if (pc < ci->ranges[lo].high)
			return (int32_t)ci->ranges[lo].die;
	return -1;
}

/* Demangled, clone-suffix-free copy of a symbol name. */
static char *clean_name(const char *name)
{
	char *out = hpa_demangle(name);

	if (!out)
		out = xstrdup(name);
	hpa_strip_clone_suffix(out);
	return out;
}

/* The function symbol (.symtab/.dynsym) whose extent holds pc, or NULL. */
static const char *symtab_function(Dwfl_Module *mod, Dwarf_Addr pc)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	int type;

	if (!name)
		return NULL;
	type = GELF_ST_TYPE(sym.st_info);
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_size || off >= sym.st_size)
		return NULL;
	return name;
}

/*
 * A source file as the debug info names it, made absolute with the
 * compilation folder when it is relative (as addr2line, and so jeprof,
 * print it), in the module's string table; NULL is 0.
 */
#define SOURCE_MEMO 512   /* slots, a power of two */

static uint32_t module_source(struct module *m, const struct cu_index *ci, const char *f)
{
	struct source_memo *slot;
	uint32_t id;
	char *path;

	if (!f || !*f)
		return 0;
	if (!m->source_memo)
		m->source_memo = xcalloc(SOURCE_MEMO, sizeof(*m->source_memo));
	slot = &m->source_memo[hpa_hash64((uintptr_t)f ^ ci->off << 16) & (SOURCE_MEMO - 1)];
	if (slot->f == f && slot->cu == ci->off)
		return slot->id;
	if (ci->comp_dir && *ci->comp_dir)   /* where --list may read sources */
		hpa_hashmap_put(&m->comp_dirs, hpa_strtab_intern(&m->strs, ci->comp_dir), 1);
	if (*f == '/' || !ci->comp_dir || !*ci->comp_dir) {
		id = hpa_strtab_intern(&m->strs, f);
	} else {
		path = hpa_xasprintf("%s%s%s", ci->comp_dir,
				     ci->comp_dir[strlen(ci->comp_dir) - 1] == '/' ? "" : "/", f);
		id = hpa_strtab_intern(&m->strs, path);
		free(path);
	}
	{   /* and the folder of the source file it names (a build of /src/a.c in /build) */
		const char *full = hpa_strtab_get(&m->strs, id), *slash = strrchr(full, '/');
		if (slash && slash > full)
			hpa_hashmap_put(&m->comp_dirs, hpa_strtab_intern_len(&m->strs, full, (size_t)(slash - full)), 1);
	}
	*slot = (struct source_memo){ f, ci->off, id };
	return id;
}

static uint32_t add_func(struct module *m, const char *name, const char *linkage, uint32_t file,
			 enum hpa_lang lang, uint32_t start_line)
{
	struct sym_func *f;

	HPA_GROW(m->funcs, m->nfuncs + 1, m->afuncs);
	f = &m->funcs[m->nfuncs];
	f->name = hpa_strtab_intern(&m->strs, name);
	f->linkage = linkage ? hpa_strtab_intern(&m->strs, linkage) : 0;
	f->file = file;
	f->lang = (uint8_t)lang;
	f->start_line = start_line;
	f->id = 0;
	return (uint32_t)m->nfuncs++;
}

/*
 * Is the CU's line program decoded here (read on first need), rather than
 * by libdw?  Its rows are read once for all the module's addresses and
 * only their answers kept (cu_lines_answer).
 */
static bool own_lines(struct module *m, struct cu_index *ci)
{
	if (!ci->lines_state) {
		ci->lines_state = cu_lines_read(&ci->lines, &m->line_secs, &ci->cu) == 0 ? 1 : -1;
		if (ci->lines_state > 0 && m->wanted)
			cu_lines_answer(&ci->lines, m->wanted, m->nwanted, ci->bias);
	}
	return ci->lines_state > 0;
}

/*
 * The file a DIE's DW_AT_decl_file names (NULL for none), as
 * dwarf_decl_file() gives it, from the CU's files when they are read here.
 */
static const char *decl_file(struct module *m, struct cu_index *ci, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;

	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr))
		return NULL;
	if (attr.cu != ci->cu.cu || !own_lines(m, ci))   /* another CU's index (an abstract origin) */
		return dwarf_decl_file(die);
	if (dwarf_formudata(&attr, &idx) != 0 || idx == 0)   /* 0: none, for libdw */
		return NULL;
	return cu_lines_file(&ci->lines, idx);
}

/*
 * The function a DIE names, cached: its linkage name demangled, else its
 * DW_AT_name.  A C++ or Rust function with no linkage name (lambdas,
 * anonymous namespaces) is unqualified in DWARF, so for the physical frame
 * the ELF symbol at pc names it instead.
 */
static uint32_t die_function(struct module *m, struct cu_index *ci, struct fn_die *d,
			     Dwarf_Addr pc)
{
	Dwarf_Attribute attr;
	struct die_fn_attrs fa;
	const char *linkage, *name, *file;
	char *clean = NULL;
	bool own = false;
	int line = 0;

	if (d->func)
		return d->func - 1;
	if (ci->own_unit && die_fn_attrs(&ci->unit, dwarf_dieoffset(&d->die), &fa) == 0) {
		own = true;   /* the same answers, the DIEs read once */
		linkage = fa.linkage;
		name = fa.name;
		line = fa.has_decl_line && fa.decl_line <= INT_MAX ? (int)fa.decl_line : 0;
	} else {
		linkage = dwarf_formstring(dwarf_attr_integrate(&d->die, DW_AT_linkage_name, &attr));
		if (!linkage)
			linkage = dwarf_formstring(dwarf_attr_integrate(&d->die, DW_AT_MIPS_linkage_name,
									&attr));
		name = dwarf_diename(&d->die);
		if (dwarf_decl_line(&d->die, &line) != 0 || line < 0)
			line = 0;
	}
	if (!linkage && !d->inlined && (ci->lang == HPA_LANG_CXX || ci->lang == HPA_LANG_RUST))
		linkage = symtab_function(m->mod, pc);
	if (linkage)
		name = clean = clean_name(linkage);
	else if (!name)
		name = "??";
	if (m->no_lines) {
		line = 0;
		file = NULL;
	} else if (!own) {
		file = decl_file(m, ci, &d->die);
	} else if (!fa.has_decl_file) {   /* as decl_file() decides, from the attribute read here */
		file = NULL;
	} else if (!own_lines(m, ci)) {
		file = dwarf_decl_file(&d->die);
	} else {
		file = fa.decl_file ? cu_lines_file(&ci->lines, fa.decl_file) : NULL;   /* 0: none */
	}
	d->func = 1 + add_func(m, name, linkage, m->no_lines ? 0 : module_source(m, ci, file),
			       ci->lang, (uint32_t)line);
	free(clean);
	return d->func - 1;
}

/* The file and line of CU-relative `pc` from the line table; both stay 0 when no row holds it. */
static void pc_source(struct module *m, struct cu_index *ci, Dwarf_Addr pc, uint32_t *file,
		      uint32_t *line)
{
	bool known = false;
	const struct line_row *r = own_lines(m, ci) ? cu_lines_lookup(&ci->lines, pc, &known) : NULL;
	const char *f;
	int ln = 0;

	if (known) {   /* else libdw: the CU's program is not read here, or pc was not asked */
		if (!r)
			return;
		f = cu_lines_file(&ci->lines, r->file);
		ln = r->line;
	} else {
		Dwarf_Line *dl = dwarf_getsrc_die(&ci->cu, pc);

		if (!dl)
			return;
		f = dwarf_linesrc(dl, NULL, NULL);
		dwarf_lineno(dl, &ln);
	}
	*file = module_source(m, ci, f);
	*line = ln > 0 ? (uint32_t)ln : 0;
}

/* Where an inline instance was called from, cached. */
static void inline_call_site(struct module *m, struct cu_index *ci, struct fn_die *d)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx, cl;
	Dwarf_Files *files;
	size_t nfiles;
	const char *cf = NULL;

	if (d->call_known)
		return;
	d->call_known = true;
	if (m->no_lines)
		return;
	if (dwarf_formudata(dwarf_attr(&d->die, DW_AT_call_file, &attr), &idx) == 0) {
		if (own_lines(m, ci))
			cf = cu_lines_file(&ci->lines, idx);
		else if (dwarf_getsrcfiles(&ci->cu, &files, &nfiles) == 0 && idx < nfiles)
			cf = dwarf_filesrc(files, idx, NULL, NULL);
	}
	d->call_file = module_source(m, ci, cf);
	if (dwarf_formudata(dwarf_attr(&d->die, DW_AT_call_line, &attr), &cl) == 0)
		d->call_line = (uint32_t)cl;
}

static void push_frame(struct module *m, uint32_t func, uint32_t file, uint32_t line)
{
	HPA_GROW(m->frames, m->nframes + 1, m->aframes);
	m->frames[m->nframes].func = func;
	m->frames[m->nframes].file = file;
	m->frames[m->nframes].line = line;
	m->nframes++;
}

/*
 * The inline chain of `pc` from DWARF, innermost first.  The innermost
 * frame's file:line comes from the line table; each caller's is the call
 * site of the inline instance inside it; with no_lines every frame has
 * none.  False if no function DIE holds pc.
 */
static bool dwarf_chain(struct module *m, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu;
	struct cu_index *ci;
	uint32_t file = 0, line = 0;
	int32_t d;

	if (m->no_dwarf)
		return false;
	cu = m->npcs <= SCAN_MAX ? cu_by_scan(m, pc, &bias) : NULL;

	if (!cu && cu_by_aranges(m, pc, &bias, &cu) < 0)
		cu = dwfl_module_addrdie(m->mod, pc, &bias);
	if (!cu)
		cu = cu_by_ranges(m, pc, &bias);
	if (!cu)
		return false;
	ci = cu_index_get(m, cu, bias);
	d = innermost(ci, pc - bias);
	if (d < 0)
		return false;
	if (!m->no_lines)
		pc_source(m, ci, pc - bias, &file, &line);
	for (; d >= 0; d = ci->dies[d].parent) {
		struct fn_die *fd = &ci->dies[d];

		push_frame(m, die_function(m, ci, fd, pc), file, line);
		if (!fd->inlined)
			break;
		inline_call_site(m, ci, fd);
		file = fd->call_file;
		line = fd->call_line;
	}
	return true;
}

/* Name from .symtab/.dynsym: only a function symbol with a size containing pc. */
static bool symtab_name(struct module *m, Dwarf_Addr pc)
{
	const char *name = symtab_function(m->mod, pc);
	char *clean;

	if (!name)
		return false;
	clean = clean_name(name);
	push_frame(m, add_func(m, clean, name, 0, HPA_LANG_UNKNOWN, 0), 0, 0);
	free(clean);
	return true;
}

/*
 * The indexes 0..n-1 of pcs in ascending order of pcs: least significant
 * byte first, skipping the bytes they all share (the high ones, in one
 * module).
 */
uint32_t *order_by_addr(const uint64_t *pcs, size_t n)
{
	uint32_t *idx = xmalloc((n + 1) * sizeof(*idx)), *tmp = xmalloc((n + 1) * sizeof(*tmp)), *t;
	size_t count[256], i, b;

	for (i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	for (b = 0; b < 64 && n > 1; b += 8) {
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[pcs[i] >> b & 255]++;
		if (count[pcs[0] >> b & 255] == n)
			continue;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[pcs[idx[i]] >> b & 255]++] = idx[i];
		t = idx;
		idx = tmp;
		tmp = t;
	}
	free(tmp);
	return idx;
}

/* pcs in ascending order, a new array. */
uint64_t *sorted_pcs(const uint64_t *pcs, size_t n)
{
	uint32_t *idx = order_by_addr(pcs, n);
	uint64_t *out = xmalloc((n + 1) * sizeof(*out));
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = pcs[idx[i]];
	free(idx);
	return out;
}

/*
 * Name pc k of module o (the module itself, or a part whose address a
 * worker took over) with worker module m's files: the frames go to m's
 * tables, where o's result arrays point.
 */
void symbolize_pc(struct module *m, struct module *o, size_t k)
{
	Dwarf_Addr pc = o->pcs[k];
	size_t first = m->nframes;

	o->res_first[k] = (uint32_t)first;
	o->res_nr[k] = 0;
	o->res_src[k] = HPA_SYM_NONE;
	if (dwfl_addrmodule(m->dwfl, pc) != m->mod)
		return;
	if (dwarf_chain(m, pc)) {
		o->res_src[k] = HPA_SYM_DWARF;
	} else {
		m->nframes = first;
		if (symtab_name(m, pc))
			o->res_src[k] = HPA_SYM_SYMTAB;
	}
	if (m->nframes - first > UINT16_MAX)
		m->nframes = first + UINT16_MAX;
	o->res_nr[k] = (uint16_t)(m->nframes - first);
}
