/*
 * In-process symbolization with libdwfl.
 *
 * For each input, the files named in its maps section that hold at least one
 * profile address are reported to a Dwfl of their own at the bias the maps
 * line implies (computed from the file's PT_LOAD headers, so layouts whose
 * first segment is r--p, or where p_offset != p_vaddr, come out right).
 * Every location is then looked up once, at addr - 1: all heap-profile
 * frames are return addresses, the leaf included.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "hpa/diag.h"
#include "hpa/symbolize.h"
#include "hpa/timing.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "elfview.h"

struct module {
	const char *map_path;    /* path in the maps section */
	char *file;              /* file actually used */
	uint64_t start, offset;  /* lowest mapping of the file */
	const char *perms;
	uint64_t *pcs;           /* profile addresses in it, minus one */
	size_t npcs, apcs;
	Dwfl_Module *mod;
	char *why;               /* why it could not be used, or NULL */
	double secs;             /* --timing: opening it and naming its addresses */
	size_t named;            /* --timing: addresses looked up */
};

/* A subprogram or inlined-subroutine DIE of an indexed CU. */
struct fn_die {
	Dwarf_Die die;
	int32_t parent;          /* enclosing function DIE, -1 for none */
	uint32_t depth;
	bool inlined;
	bool call_known;         /* call_file/call_line read */
	uint32_t func;           /* function id, 0 until first needed */
	uint32_t call_file;      /* inlined: strtab id of DW_AT_call_file */
	uint32_t call_line;
};

/* One address range of a function DIE. */
struct fn_range {
	Dwarf_Addr low, high;    /* CU-relative (file) addresses, high exclusive */
	uint32_t die;            /* index into dies */
	uint32_t depth;
};

/*
 * Per-CU index: every function and inline instance with its ranges, built
 * in one walk of the CU's DIE tree and searched per address, instead of one
 * dwarf_getscopes() walk of the CU per address.
 */
struct cu_index {
	Dwfl_Module *mod;
	Dwarf_Off off;           /* CU DIE offset: the key, with mod */
	Dwarf_Die cu;
	const char *comp_dir;    /* DW_AT_comp_dir, or NULL */
	struct fn_die *dies;
	size_t ndies, adies;
	struct fn_range *ranges;
	size_t nranges, aranges;
};

struct symbolizer {
	struct hpa_profile *prof;
	const struct hpa_sym_opts *opts;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	struct hpa_line *chain;  /* inline chain being built */
	size_t chain_nr, chain_alloc;
	struct cu_index *cus;    /* CUs indexed so far, for the current input */
	size_t ncus, acus;
	struct hpa_hashmap cu_by_key;
	struct cu_ranges *cu_ranges;   /* modules without .debug_aranges, for the current input */
	size_t ncu_ranges, acu_ranges;
};

/*
 * A module's compile units by their ranges, for files that have no
 * .debug_aranges (Go's), where libdw finds no CU for an address.
 */
struct cu_span {
	Dwarf_Addr low, high;
	Dwarf_Die cu;
};

struct cu_ranges {
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	struct cu_span *spans;   /* sorted by low */
	size_t nspans;
};

/* Mappings that are not files, or files never to open. */
static bool is_pseudo_path(const char *path)
{
	if (!path[0] || (path[0] != '/' && path[0] != '.'))
		return true;   /* "", [heap], [stack], [vdso], memfd:..., anon_inode:... */
	return !strncmp(path, "/dev/", 5) || !strncmp(path, "/memfd:", 7) ||
	       !strncmp(path, "/SYSV", 5) || !strncmp(path, "/anon_hugepage", 14) ||
	       !strncmp(path, "/proc/", 6) || !strncmp(path, "/sys/", 5);
}

static char *join_sysroot(const char *sysroot, const char *path)
{
	size_t n;
	char *out;

	if (!sysroot || path[0] != '/')
		return xstrdup(path);
	n = strlen(sysroot) + strlen(path) + 1;
	out = xmalloc(n);
	snprintf(out, n, "%s%s", sysroot, path);
	return out;
}

/* The main executable of an input: the first file mapping of its maps. */
static const char *main_path(const struct hpa_profile *prof, const struct hpa_input *in)
{
	uint32_t i;

	for (i = 0; i < in->map_nr; i++) {
		const struct hpa_mapping *m = &prof->mappings[in->map_first + i];
		if (!is_pseudo_path(m->path))
			return m->path;
	}
	return NULL;
}

/*
 * Open the module's file, check that it can be the one that ran, and report
 * it to libdwfl at the bias its maps line implies.
 */
static void report_module(struct symbolizer *s, Dwfl *dwfl, struct module *mod,
			  const struct hpa_input *in, const char *main)
{
	const char *base = strrchr(mod->map_path, '/');
	struct elf_view v;
	uint64_t bias = 0;

	base = base ? base + 1 : mod->map_path;
	if (s->opts->binary && main && !strcmp(mod->map_path, main))
		mod->file = xstrdup(s->opts->binary);
	else
		mod->file = join_sysroot(s->opts->sysroot, mod->map_path);
	mod->why = elf_view_open(&v, mod->file);
	if (!mod->why)
		mod->why = elf_view_bias(&v, mod->start, mod->offset, mod->perms, &bias);
	if (!mod->why && !(mod->start == 0 && mod->offset == 0 && in->map_nr == 1 &&
			   s->prof->mappings[in->map_first].limit == UINT64_MAX)) {
		/* Not for the catch-all of a profile without maps: nothing to check against. */
		mod->why = elf_view_check_mappings(&v, s->prof, in, mod->map_path, bias);
		if (!mod->why)
			mod->why = elf_view_check_addresses(&v, bias, mod->pcs, mod->npcs);
	}
	elf_view_close(&v);
	if (mod->why)
		return;
	mod->mod = dwfl_report_elf(dwfl, base, mod->file, -1, bias, true);
	if (!mod->mod)
		mod->why = hpa_xasprintf("%s: %s", mod->file, dwfl_errmsg(-1));
}

static void chain_push(struct symbolizer *s, uint32_t func, uint32_t file, uint32_t line)
{
	HPA_GROW(s->chain, s->chain_nr + 1, s->chain_alloc);
	s->chain[s->chain_nr].func = func;
	s->chain[s->chain_nr].file = file;
	s->chain[s->chain_nr].line = line;
	s->chain_nr++;
}

static void index_add_die(struct cu_index *ci, Dwarf_Die *die, int32_t *parent, bool inlined)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	size_t first = ci->nranges;
	uint32_t idx = (uint32_t)ci->ndies;
	uint32_t depth = *parent >= 0 ? ci->dies[*parent].depth + 1 : 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		HPA_GROW(ci->ranges, ci->nranges + 1, ci->aranges);
		ci->ranges[ci->nranges].low = start;
		ci->ranges[ci->nranges].high = end;
		ci->ranges[ci->nranges].die = idx;
		ci->ranges[ci->nranges].depth = depth;
		ci->nranges++;
	}
	if (ci->nranges == first)
		return;   /* a declaration, or code that was dropped: not a scope */
	HPA_GROW(ci->dies, ci->ndies + 1, ci->adies);
	memset(&ci->dies[idx], 0, sizeof(ci->dies[idx]));
	ci->dies[idx].die = *die;
	ci->dies[idx].parent = *parent;
	ci->dies[idx].depth = depth;
	ci->dies[idx].inlined = inlined;
	ci->ndies++;
	*parent = (int32_t)idx;
}

static void index_walk(struct cu_index *ci, Dwarf_Die *die, int32_t parent, unsigned level)
{
	Dwarf_Die cur = *die, child;

	if (level > 256)
		return;   /* pathological nesting: stop rather than recurse on */
	do {
		int tag = dwarf_tag(&cur);
		int32_t scope = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			index_add_die(ci, &cur, &scope, tag == DW_TAG_inlined_subroutine);
		if (dwarf_haschildren(&cur) > 0 && dwarf_child(&cur, &child) == 0)
			index_walk(ci, &child, scope, level + 1);
	} while (dwarf_siblingof(&cur, &cur) == 0);
}

static int cmp_range(const void *a, const void *b)
{
	const struct fn_range *x = a, *y = b;

	if (x->low != y->low)
		return x->low < y->low ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

static struct cu_index *cu_index_get(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	uint64_t key = hpa_hash64((uint64_t)(uintptr_t)mod ^ hpa_hash64(off));
	uint32_t id = hpa_hashmap_get(&s->cu_by_key, key);
	struct cu_index *ci;
	Dwarf_Die child;
	size_t i;

	if (id && s->cus[id - 1].mod == mod && s->cus[id - 1].off == off)
		return &s->cus[id - 1];
	if (id) {   /* a hash collision: look the slow way */
		for (i = 0; i < s->ncus; i++)
			if (s->cus[i].mod == mod && s->cus[i].off == off)
				return &s->cus[i];
	}
	HPA_GROW(s->cus, s->ncus + 1, s->acus);
	ci = &s->cus[s->ncus++];
	memset(ci, 0, sizeof(*ci));
	ci->mod = mod;
	ci->off = off;
	ci->cu = *cu;
	ci->comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &(Dwarf_Attribute){ 0 }));
	if (dwarf_child(cu, &child) == 0)
		index_walk(ci, &child, -1, 0);
	if (ci->nranges > 1)
		qsort(ci->ranges, ci->nranges, sizeof(*ci->ranges), cmp_range);
	if (!id)
		hpa_hashmap_put(&s->cu_by_key, key, (uint32_t)s->ncus);
	return ci;
}

static void cu_indexes_free(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->ncus; i++) {
		free(s->cus[i].dies);
		free(s->cus[i].ranges);
	}
	s->ncus = 0;
	hpa_hashmap_release(&s->cu_by_key);
}

static int cmp_span(const void *a, const void *b)
{
	const struct cu_span *x = a, *y = b;
	return (x->low > y->low) - (x->low < y->low);
}

static struct cu_ranges *cu_ranges_get(struct symbolizer *s, Dwfl_Module *mod)
{
	struct cu_ranges *r;
	Dwarf_Die *cu = NULL;
	Dwarf_Addr bias = 0;
	size_t i, aspans = 0;

	for (i = 0; i < s->ncu_ranges; i++)
		if (s->cu_ranges[i].mod == mod)
			return &s->cu_ranges[i];
	HPA_GROW(s->cu_ranges, s->ncu_ranges + 1, s->acu_ranges);
	r = &s->cu_ranges[s->ncu_ranges++];
	memset(r, 0, sizeof(*r));
	r->mod = mod;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias)) != NULL) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		r->bias = bias;
		while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
			if (end <= start)
				continue;
			HPA_GROW(r->spans, r->nspans + 1, aspans);
			r->spans[r->nspans].low = start;
			r->spans[r->nspans].high = end;
			r->spans[r->nspans].cu = *cu;
			r->nspans++;
		}
	}
	if (r->nspans > 1)
		qsort(r->spans, r->nspans, sizeof(*r->spans), cmp_span);
	return r;
}

/* The CU holding pc by its own ranges, when libdw's lookup finds none. */
static Dwarf_Die *cu_by_ranges(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc,
			       Dwarf_Addr *bias)
{
	struct cu_ranges *r = cu_ranges_get(s, mod);
	size_t lo = 0, hi = r->nspans;

	*bias = r->bias;
	while (lo < hi) {   /* first span with low > pc */
		size_t mid = lo + (hi - lo) / 2;
		if (r->spans[mid].low <= pc - r->bias)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && pc - r->bias < r->spans[lo - 1].high)
		return &r->spans[lo - 1].cu;
	return NULL;
}

static void cu_ranges_free(struct symbolizer *s)
{
	size_t i;

	for (i = 0; i < s->ncu_ranges; i++)
		free(s->cu_ranges[i].spans);
	s->ncu_ranges = 0;
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

static bool is_cxx_or_rust(Dwarf_Die *cu)
{
	enum hpa_lang l = cu_lang(cu);
	return l == HPA_LANG_CXX || l == HPA_LANG_RUST;
}

/*
 * A source file as the debug info names it, made absolute with the
 * compilation folder when it is relative (as addr2line, and so jeprof,
 * print it); NULL stays NULL.  Malloc'ed.
 */
static char *source_path(const struct cu_index *ci, const char *f)
{
	if (!f)
		return NULL;
	if (*f && *f != '/' && ci->comp_dir && *ci->comp_dir)
		return hpa_xasprintf("%s%s%s", ci->comp_dir,
				     ci->comp_dir[strlen(ci->comp_dir) - 1] == '/' ? "" : "/", f);
	return xstrdup(f);
}

static uint32_t intern_source(struct symbolizer *s, const struct cu_index *ci, const char *f)
{
	char *path = source_path(ci, f);
	uint32_t id = hpa_strtab_intern(&s->prof->strs, path ? path : "");

	free(path);
	return id;
}

/*
 * The function a DIE names, cached: its linkage name demangled, else its
 * DW_AT_name.  A C++ or Rust function with no linkage name (lambdas,
 * anonymous namespaces) is unqualified in DWARF, so for the physical frame
 * the ELF symbol at pc names it instead.
 */
static uint32_t die_function(struct symbolizer *s, struct cu_index *ci, struct fn_die *d,
			     Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Attribute attr;
	const char *linkage, *name;
	char *clean = NULL, *file;

	if (d->func)
		return d->func;
	linkage = dwarf_formstring(dwarf_attr_integrate(&d->die, DW_AT_linkage_name, &attr));
	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(&d->die, DW_AT_MIPS_linkage_name, &attr));
	name = dwarf_diename(&d->die);
	if (!linkage && !d->inlined && is_cxx_or_rust(&ci->cu))
		linkage = symtab_function(mod, pc);
	if (linkage)
		name = clean = clean_name(linkage);
	else if (!name)
		name = "??";
	file = source_path(ci, dwarf_decl_file(&d->die));
	d->func = hpa_profile_intern_function(s->prof, name, linkage ? linkage : name, file);
	free(file);
	if (!s->prof->funcs[d->func].lang)
		s->prof->funcs[d->func].lang = (uint8_t)cu_lang(&ci->cu);
	if (!s->prof->funcs[d->func].start_line) {
		int line = 0;
		if (dwarf_decl_line(&d->die, &line) == 0 && line > 0)
			s->prof->funcs[d->func].start_line = (uint32_t)line;
	}
	free(clean);
	return d->func;
}

/* Where an inline instance was called from, cached. */
static void inline_call_site(struct symbolizer *s, struct cu_index *ci, struct fn_die *d)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx, cl;
	Dwarf_Files *files;
	size_t nfiles;
	const char *cf = NULL;

	if (d->call_known)
		return;
	d->call_known = true;
	if (dwarf_formudata(dwarf_attr(&d->die, DW_AT_call_file, &attr), &idx) == 0 &&
	    dwarf_getsrcfiles(&ci->cu, &files, &nfiles) == 0 && idx < nfiles)
		cf = dwarf_filesrc(files, idx, NULL, NULL);
	d->call_file = intern_source(s, ci, cf);
	if (dwarf_formudata(dwarf_attr(&d->die, DW_AT_call_line, &attr), &cl) == 0)
		d->call_line = (uint32_t)cl;
}

/*
 * The inline chain of `pc` from DWARF, innermost first.  The innermost
 * frame's file:line comes from the line table; each caller's is the call
 * site of the inline instance inside it.  False if no function DIE holds pc.
 */
static bool dwarf_chain(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias);
	struct cu_index *ci;
	Dwarf_Line *dl;
	uint32_t file = 0, line = 0;
	int32_t d;

	if (!cu)
		cu = cu_by_ranges(s, mod, pc, &bias);
	if (!cu)
		return false;
	ci = cu_index_get(s, mod, cu);
	d = innermost(ci, pc - bias);
	if (d < 0)
		return false;
	dl = dwarf_getsrc_die(&ci->cu, pc - bias);
	if (dl) {
		int ln = 0;
		const char *f = dwarf_linesrc(dl, NULL, NULL);
		dwarf_lineno(dl, &ln);
		file = intern_source(s, ci, f);
		line = ln > 0 ? (uint32_t)ln : 0;
	}
	for (; d >= 0; d = ci->dies[d].parent) {
		struct fn_die *fd = &ci->dies[d];

		chain_push(s, die_function(s, ci, fd, mod, pc), file, line);
		if (!fd->inlined)
			break;
		inline_call_site(s, ci, fd);
		file = fd->call_file;
		line = fd->call_line;
	}
	return true;
}

/* Name from .symtab/.dynsym: only a function symbol with a size containing pc. */
static bool symtab_name(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
	const char *name = symtab_function(mod, pc);
	char *clean;

	if (!name)
		return false;
	clean = clean_name(name);
	chain_push(s, hpa_profile_intern_function(s->prof, clean, name, NULL), 0, 0);
	free(clean);
	return true;
}

static void symbolize_loc(struct symbolizer *s, Dwfl *dwfl, uint32_t loc)
{
	uint64_t addr = s->prof->locs[loc].addr;
	Dwarf_Addr pc = addr ? addr - 1 : 0;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	enum hpa_sym_source src = HPA_SYM_NONE;

	s->chain_nr = 0;
	if (!mod || s->prof->locs[loc].line_nr)
		return;   /* no module, or named already (a symbolized pprof input) */
	if (dwarf_chain(s, mod, pc)) {
		src = HPA_SYM_DWARF;
	} else {
		s->chain_nr = 0;
		if (symtab_name(s, mod, pc))
			src = HPA_SYM_SYMTAB;
	}
	if (src != HPA_SYM_NONE)
		hpa_profile_set_lines(s->prof, loc, s->chain, s->chain_nr, src);
}

static int symbolize_input(struct symbolizer *s, uint32_t input)
{
	struct hpa_profile *prof = s->prof;
	const struct hpa_input *in = hpa_profile_input(prof, input);
	const char *main = main_path(prof, in);
	struct module *mods = NULL;
	uint32_t *mod_of_map, *build_ids;
	size_t nmods = 0, amods = 0, i;
	Dwfl *dwfl;

	if (!in->map_nr)
		return 0;
	/* One module per mapped file that holds a location of this input. */
	mod_of_map = xcalloc(in->map_nr, sizeof(*mod_of_map));
	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping;
		const struct hpa_mapping *map;
		size_t j;

		if (!m || m < in->map_first || m >= in->map_first + in->map_nr ||
		    mod_of_map[m - in->map_first])
			continue;
		map = &prof->mappings[m];
		if (is_pseudo_path(map->path))
			continue;
		for (j = 0; j < nmods; j++)
			if (!strcmp(mods[j].map_path, map->path))
				break;
		if (j == nmods) {
			uint32_t k;
			HPA_GROW(mods, nmods + 1, amods);
			memset(&mods[nmods], 0, sizeof(mods[nmods]));
			mods[nmods].map_path = map->path;
			mods[nmods].start = UINT64_MAX;
			/* The lowest mapping of the file fixes the bias. */
			for (k = 0; k < in->map_nr; k++) {
				const struct hpa_mapping *o = &prof->mappings[in->map_first + k];
				if (!strcmp(o->path, map->path) && o->start < mods[nmods].start) {
					mods[nmods].start = o->start;
					mods[nmods].offset = o->offset;
					mods[nmods].perms = o->perms;
				}
			}
			nmods++;
		}
		mod_of_map[m - in->map_first] = (uint32_t)j + 1;
	}

	dwfl = dwfl_begin(&s->callbacks);
	if (!dwfl) {
		free(mod_of_map);
		free(mods);
		return hpa_error("cannot start libdwfl: %s", dwfl_errmsg(-1));
	}
	/* Each module's addresses, for the checks before it is used. */
	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping, j;
		struct module *mod;
		if (!m || m < in->map_first || m >= in->map_first + in->map_nr ||
		    !(j = mod_of_map[m - in->map_first]))
			continue;
		mod = &mods[j - 1];
		HPA_GROW(mod->pcs, mod->npcs + 1, mod->apcs);
		mod->pcs[mod->npcs++] = prof->locs[i].addr ? prof->locs[i].addr - 1 : 0;
	}
	dwfl_report_begin(dwfl);
	for (i = 0; i < nmods; i++) {
		double t = hpa_now();
		report_module(s, dwfl, &mods[i], in, main);
		mods[i].secs += hpa_now() - t;
	}
	if (dwfl_report_end(dwfl, NULL, NULL) != 0) {
		/* Nothing reported can be used: every module stays unnamed, and says why. */
		for (i = 0; i < nmods; i++)
			if (!mods[i].why)
				mods[i].why = hpa_xasprintf("libdwfl: %s", dwfl_errmsg(-1));
		for (i = 0; i < nmods; i++)
			mods[i].mod = NULL;
	}
	/* The build-id of each module that could be used. */
	build_ids = xcalloc(nmods + 1, sizeof(*build_ids));
	for (i = 0; i < nmods; i++) {
		const unsigned char *bits;
		GElf_Addr vaddr;
		int n = mods[i].mod ? dwfl_module_build_id(mods[i].mod, &bits, &vaddr) : 0;

		if (n > 0 && n <= 64) {
			char hex[129];
			int b;
			for (b = 0; b < n; b++)
				sprintf(hex + 2 * b, "%02x", bits[b]);
			build_ids[i] = hpa_strtab_intern(&prof->strs, hex);
		}
	}
	/* Remember, per mapping of each module's file, what was opened and what went wrong. */
	for (i = 0; i < in->map_nr; i++) {
		struct hpa_mapping *map = &prof->mappings[in->map_first + i];
		uint32_t j;

		for (j = 0; j < nmods && strcmp(mods[j].map_path, map->path); j++)
			;
		if (j++ == nmods)
			continue;
		map->sym_file = hpa_strtab_intern(&prof->strs, mods[j - 1].file);
		map->build_id = build_ids[j - 1];
		if (mods[j - 1].why)
			map->sym_error = hpa_strtab_intern(&prof->strs, mods[j - 1].why);
	}

	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping, j;
		if (!m || m < in->map_first || m >= in->map_first + in->map_nr)
			continue;
		j = mod_of_map[m - in->map_first];
		if (j && mods[j - 1].mod) {
			double t = hpa_timing_on ? hpa_now() : 0;
			symbolize_loc(s, dwfl, (uint32_t)i);
			if (hpa_timing_on) {
				mods[j - 1].secs += hpa_now() - t;
				mods[j - 1].named++;
			}
		}
	}
	for (i = 0; i < nmods; i++) {
		const char *base = strrchr(mods[i].map_path, '/');
		hpa_timing_secs(mods[i].secs, "symbolize %s (%zu addresses)",
				base ? base + 1 : mods[i].map_path, mods[i].named);
	}

	free(build_ids);
	cu_indexes_free(s);
	cu_ranges_free(s);
	dwfl_end(dwfl);
	for (i = 0; i < nmods; i++) {
		free(mods[i].file);
		free(mods[i].why);
		free(mods[i].pcs);
	}
	free(mods);
	free(mod_of_map);
	return 0;
}

int hpa_symbolize(struct hpa_profile *prof, const struct hpa_sym_opts *opts)
{
	struct symbolizer s;
	char cwd[PATH_MAX];
	size_t i, n;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.prof = prof;
	s.opts = opts;
	if (!opts->debuginfod) {
		unsetenv("DEBUGINFOD_URLS");   /* libdwfl would query it on its own */
	} else {
		/* Bounded: 10 s without progress, 60 s per download, unless set. */
		setenv("DEBUGINFOD_TIMEOUT", "10", 0);
		setenv("DEBUGINFOD_MAXTIME", "60", 0);
	}
	elf_version(EV_CURRENT);

	/*
	 * ":.debug:/usr/lib/debug[:SYSROOT/usr/lib/debug][:DIR...]"; libdwfl
	 * takes a relative DIR from the binary's folder, the user means the
	 * current one.
	 */
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	n = 64 + (opts->sysroot ? strlen(opts->sysroot) : 0);
	for (i = 0; i < opts->debug_dirs_nr; i++)
		n += strlen(opts->debug_dirs[i]) + strlen(cwd) + 2;
	s.debuginfo_path = xmalloc(n);
	strcpy(s.debuginfo_path, ":.debug:/usr/lib/debug");
	if (opts->sysroot) {
		strcat(s.debuginfo_path, ":");
		strcat(s.debuginfo_path, opts->sysroot);
		strcat(s.debuginfo_path, "/usr/lib/debug");
	}
	for (i = 0; i < opts->debug_dirs_nr; i++) {
		strcat(s.debuginfo_path, ":");
		if (opts->debug_dirs[i][0] != '/' && cwd[0]) {
			strcat(s.debuginfo_path, cwd);
			strcat(s.debuginfo_path, "/");
		}
		strcat(s.debuginfo_path, opts->debug_dirs[i]);
	}
	s.callbacks.find_elf = dwfl_build_id_find_elf;
	s.callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s.callbacks.section_address = dwfl_offline_section_address;
	s.callbacks.debuginfo_path = &s.debuginfo_path;

	for (i = 1; i <= prof->inputs_nr && !rc; i++)
		rc = symbolize_input(&s, (uint32_t)i);
	free(s.debuginfo_path);
	free(s.chain);
	free(s.cus);
	free(s.cu_ranges);
	return rc;
}
