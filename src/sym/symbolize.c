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

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
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
#include "hpa/task.h"
#include "hpa/timing.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "debuginfod.h"
#include "dies.h"
#include "elfview.h"
#include "lines.h"

/* A function as a worker found it, in its module's string table. */
struct sym_func {
	uint32_t name, linkage, file;   /* module strtab ids; linkage 0: as name */
	uint32_t start_line;
	uint8_t lang;
	uint32_t id;                    /* profile function id, once copied */
};

/* One frame of an address's inline chain. */
struct sym_frame {
	uint32_t func;                  /* index into the module's funcs */
	uint32_t file, line;            /* module strtab id, 0 = unknown */
};

/* A subprogram or inlined-subroutine DIE of an indexed CU. */
struct fn_die {
	Dwarf_Die die;
	int32_t parent;          /* enclosing function DIE, -1 for none */
	uint32_t depth;
	bool inlined;
	bool call_known;         /* call_file/call_line read */
	uint32_t func;           /* index + 1 into the module's funcs, 0 until needed */
	uint32_t call_file;      /* inlined: module strtab id of DW_AT_call_file */
	uint32_t call_line;
};

/* One address range of a function DIE. */
struct fn_range {
	Dwarf_Addr low, high;    /* CU-relative (file) addresses, high exclusive */
	uint32_t die;            /* index into dies */
	uint32_t depth;
};

/*
 * Per-CU index: the functions and inline instances that hold one of the
 * module's addresses, with their ranges, built in one walk of the CU's DIE
 * tree and searched per address.
 */
struct cu_index {
	Dwarf_Off off;           /* CU DIE offset: the key */
	Dwarf_Die cu;
	Dwarf_Addr bias;
	const char *comp_dir;    /* DW_AT_comp_dir, or NULL */
	enum hpa_lang lang;      /* its language, as far as names care (cu_lang()) */
	bool c_family;           /* C or C++: no function is defined inside a type at file scope */
	struct fn_die *dies;
	size_t ndies, adies;
	struct fn_range *ranges;
	size_t nranges, aranges;
	struct cu_lines lines;   /* its line program, once read */
	int lines_state;         /* 0: not read yet, 1: read, -1: libdw reads it */
	struct die_unit unit;    /* hpa's reading of its DIEs, when it walked them */
	bool own_unit;
};

/*
 * A module's compile units by their ranges, for files that have no
 * .debug_aranges (Go's), where libdw finds no CU for an address.
 */
struct cu_span {
	Dwarf_Addr low, high;
	Dwarf_Die cu;
};

struct module {
	uint32_t input;
	const char *map_path;    /* path in the maps section */
	char *file;              /* file actually used */
	bool no_dwarf;           /* its DWARF would inflate past the bound (elf_inflate_check) */
	uint64_t start, offset;  /* lowest mapping of the file */
	const char *perms;
	uint64_t *pcs;           /* profile addresses in it, minus one */
	uint32_t *locs;          /* the location of each */
	size_t npcs, apcs;
	uint64_t *wanted;        /* pcs sorted, for skipping what holds none */
	size_t nwanted;
	struct claim *claim;     /* a part: the addresses shared out among the parts */
	uint32_t *by_addr;       /* a part: its pcs' indexes in address order */
	uint32_t *res_mod;       /* a part: per pc, the part whose frames hold its result */
	size_t part_no;          /* a part: which (0 is the module itself) */
	const uint64_t *all_pcs; /* every address of the module, for the checks (part 0 owns it) */
	size_t all_npcs;
	int32_t part_of;         /* a part: the module it is part of, else -1 */
	size_t parts;            /* a whole module: how many workers share it */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char *why;               /* why it could not be used, or NULL */
	bool no_dwfl;            /* libdwfl could not even start */
	bool no_lines;           /* name functions only: no line program is read */
	char build_id[129];      /* hex, or "" */
	double secs;             /* --timing: opening it and naming its addresses */
	size_t named;            /* --timing: addresses looked up */

	/* What the worker found. */
	struct hpa_strtab strs;
	/*
	 * module_source()'s answers by the text's address and unit: a unit
	 * names a few files thousands of times (each function's, each row's,
	 * each call site's), each time the same string of its table or
	 * libdw's, which stay until the module is done.
	 */
	struct source_memo { const char *f; Dwarf_Off cu; uint32_t id; } *source_memo;
	struct hpa_hashmap comp_dirs;   /* folders the DWARF records: each naming unit's comp_dir, each named file's folder (strs id -> 1) */
	struct sym_func *funcs;
	size_t nfuncs, afuncs;
	struct sym_frame *frames;
	size_t nframes, aframes;
	uint32_t *res_first;     /* per pc: its first frame in frames[] */
	uint16_t *res_nr;        /* per pc: frames, 0 = not named */
	uint8_t *res_src;        /* per pc: enum hpa_sym_source */
	size_t cursor;           /* copying: the next pc */
	uint32_t *str_ids;       /* copying: module strtab id -> profile's, 0 = not yet */

	/* The worker's indexes. */
	struct cu_index *cus;
	size_t ncus, acus;
	struct hpa_hashmap cu_by_off;
	struct cu_span *spans;   /* sorted by low; built on first need */
	size_t nspans;
	Dwarf_Addr span_bias;
	bool spans_built;
	Dwarf_Die *scanned;      /* few addresses: the last CU looked at in order */
	struct line_sections line_secs;
	struct die_sections die_secs;
	struct die_aranges aranges;   /* .debug_aranges, read on first need */
	int aranges_state;       /* 0: not read yet, 1: read, -1: libdw's lookup decides */
	Dwarf_Die ar_die;        /* the CU cu_by_aranges() found last */
	struct cu_span *seen;    /* the ranges of the CUs looked at so far */
	size_t nseen, aseen;
	bool scan_done;
};

struct symbolizer {
	struct hpa_profile *prof;
	const struct hpa_sym_opts *opts;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	size_t nthreads;         /* processors this process may use */
	struct module *mods;     /* every module of every input */
	size_t nmods, amods;
	atomic_size_t next;      /* next of `order` for a worker */
	size_t *order;           /* the modules, most addresses first */
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
 * libdw inflates every compressed debug section of a file it opens: one
 * whose claim passes the bound (a decompression bomb) keeps its DWARF
 * unread, and its names come from the symbol table (said once, by the
 * module's first part).
 */
static void inflate_guard(struct module *m)
{
	int fd = open(m->file, O_RDONLY | O_CLOEXEC);
	uint64_t total;
	char *why;

	if (fd < 0)
		return;
	why = elf_inflate_check_fd(fd, m->file, &total);
	close(fd);
	if (!why)
		return;
	m->no_dwarf = true;
	if (!m->part_no)
		hpa_warn("%s; its DWARF is not read, names come from its symbol table", why);
	free(why);
}

/* Is the file at `path`, if there is one, a decompression bomb?  Says so once. */
static bool is_bomb(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t total;
	struct stat st;
	char *why;

	if (fd < 0)
		return false;
	why = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? elf_inflate_check_fd(fd, path, &total) : NULL;
	close(fd);
	if (why)
		hpa_warn("%s; that debug file is not used", why);
	free(why);
	return why != NULL;
}

/*
 * libdwfl's standard search keeps the debug file it finds and inflates it
 * whatever this callback answers: so the files it would find (by build-id
 * under each folder of the search path, by debug link beside the module,
 * in its .debug folder and under each folder) are checked first, and with
 * a bomb among them there is no separate debug file.
 */
static int find_debuginfo_guarded(Dwfl_Module *mod, void **userdata, const char *modname,
				  Dwarf_Addr base, const char *file, const char *debuglink,
				  GElf_Word crc, char **debuginfo_file_name)
{
	const char *path = userdata && *userdata ? *userdata : "", *p, *end;
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[129];
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	bool bomb = false;
	char *dir = file ? xstrdup(file) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;

	if (slash)
		*slash = '\0';
	for (p = path; !bomb && p; p = *end ? end + 1 : NULL) {
		char *cand;
		end = p + strcspn(p, ":");
		if (*p != '/')
			continue;
		if (n > 0 && elf_build_id_hex(bits, n, hex)) {
			cand = hpa_xasprintf("%.*s/.build-id/%.2s/%s.debug", (int)(end - p), p, hex, hex + 2);
			bomb = is_bomb(cand);
			free(cand);
		}
		if (!bomb && debuglink && slash) {
			cand = hpa_xasprintf("%.*s%s/%s", (int)(end - p), p, dir, debuglink);
			bomb = is_bomb(cand);
			free(cand);
		}
	}
	if (!bomb && debuglink && slash) {
		char *a = hpa_xasprintf("%s/%s", dir, debuglink), *b = hpa_xasprintf("%s/.debug/%s", dir, debuglink);
		bomb = (strcmp(a, file) && is_bomb(a)) || is_bomb(b);
		free(a);
		free(b);
	}
	free(dir);
	if (bomb)
		return -1;
	return hpa_find_debuginfo(mod, userdata, modname, base, file, debuglink, crc, debuginfo_file_name);
}

/* Open `file` and check that it can be the module that ran; NULL when it can, else why not. */
static char *check_file(const struct symbolizer *s, const struct module *m, const char *file,
			uint64_t *bias)
{
	const struct hpa_input *in = hpa_profile_input(s->prof, m->input);
	struct elf_view v;
	char *why;

	*bias = 0;
	why = elf_view_open(&v, file);
	if (!why)
		why = elf_view_bias(&v, m->start, m->offset, m->perms, bias);
	if (!why && !(m->start == 0 && m->offset == 0 && in->map_nr == 1 &&
		      s->prof->mappings[in->map_first].limit == UINT64_MAX)) {
		/* Not for the catch-all of a profile without maps: nothing to check against. */
		why = elf_view_check_mappings(&v, s->prof, in, m->map_path, *bias);
		if (!why)
			why = elf_view_check_addresses(&v, *bias, m->all_pcs, m->all_npcs);
	}
	elf_view_close(&v);
	return why;
}

/* The build-id a mapping of the module's file carries in the profile (pprof), or "". */
static const char *mapping_build_id(const struct symbolizer *s, const struct module *m)
{
	const struct hpa_input *in = hpa_profile_input(s->prof, m->input);
	uint32_t i;

	for (i = 0; i < in->map_nr; i++) {
		const struct hpa_mapping *map = &s->prof->mappings[in->map_first + i];
		if (map->build_id && !strcmp(map->path, m->map_path))
			return hpa_profile_str(s->prof, map->build_id);
	}
	return "";
}

/*
 * PPROF_BINARY_PATH, as pprof searches it: in each folder, DIR/BUILDID/NAME
 * (with the profile's build-id), DIR/NAME and DIR/MAPPED-PATH.  The first
 * file that can be the module is used.  Returns it, or NULL.
 */
static char *search_binary_path(const struct symbolizer *s, const struct module *m, uint64_t *bias)
{
	const char *list = s->opts->binary_path, *build_id = mapping_build_id(s, m);
	const char *base = strrchr(m->map_path, '/');

	base = base ? base + 1 : m->map_path;
	for (; list && *list; list += strcspn(list, ":") + (list[strcspn(list, ":")] == ':')) {
		int dl = (int)strcspn(list, ":");   /* one folder of the list */
		char *tries[3];
		size_t n = 0, i;
		int found = -1;

		if (!dl)
			continue;
		if (*build_id)
			tries[n++] = hpa_xasprintf("%.*s/%s/%s", dl, list, build_id, base);
		tries[n++] = hpa_xasprintf("%.*s/%s", dl, list, base);
		if (m->map_path[0] == '/')
			tries[n++] = hpa_xasprintf("%.*s%s", dl, list, m->map_path);
		for (i = 0; i < n && found < 0; i++) {
			char *why = check_file(s, m, tries[i], bias);
			if (!why)
				found = (int)i;
			free(why);
		}
		for (i = 0; i < n; i++)
			if ((int)i != found)
				free(tries[i]);
		if (found >= 0)
			return tries[found];
	}
	return NULL;
}

/*
 * Find the module's file (BINARY for the main program, else its mapped
 * path under --sysroot, else in PPROF_BINARY_PATH), check that it can be
 * the one that ran, and report it to its Dwfl at the bias its maps line
 * implies.
 */
static void report_module(const struct symbolizer *s, struct module *m)
{
	const struct hpa_input *in = hpa_profile_input(s->prof, m->input);
	const char *main = main_path(s->prof, in);
	const char *base = strrchr(m->map_path, '/');
	bool given = s->opts->binary && main && !strcmp(m->map_path, main);
	uint64_t bias = 0;

	base = base ? base + 1 : m->map_path;
	m->file = given ? xstrdup(s->opts->binary) : join_sysroot(s->opts->sysroot, m->map_path);
	m->why = check_file(s, m, m->file, &bias);
	if (m->why && given) {   /* the wrong BINARY: is the file the profile names the one? */
		char *own = join_sysroot(s->opts->sysroot, m->map_path);
		uint64_t own_bias;

		if (strcmp(own, m->file)) {
			char *no = check_file(s, m, own, &own_bias);
			if (!no) {
				char *why = hpa_xasprintf("%s; the profile's own %s is there and fits: "
							  "give it as BINARY, or no BINARY", m->why, own);
				free(m->why);
				m->why = why;
			}
			free(no);
		}
		free(own);
	}
	if (m->why && !given && s->opts->binary_path) {
		char *found = search_binary_path(s, m, &bias);
		if (found) {
			free(m->file);
			free(m->why);
			m->file = found;
			m->why = NULL;
		} else {
			char *why = hpa_xasprintf("%s; not in PPROF_BINARY_PATH either", m->why);
			free(m->why);
			m->why = why;
		}
	}
	if (m->why)
		return;
	inflate_guard(m);
	m->mod = dwfl_report_elf(m->dwfl, base, m->file, -1, bias, true);
	if (m->mod) {   /* find_debuginfo_guarded() gets the search path as the module's user data */
		void **ud = NULL;
		dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud)
			*ud = s->debuginfo_path;
	}
	if (!m->mod)
		m->why = hpa_xasprintf("%s: %s", m->file, dwfl_errmsg(-1));
}

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
 * .debug_aranges reads every CU of the file first (2,000 in libc, 10 ms),
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
 * and allocates each entry: 10-17 ms for a 222 MB C++ binary, per worker.
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
static uint32_t *order_by_addr(const uint64_t *pcs, size_t n)
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
static uint64_t *sorted_pcs(const uint64_t *pcs, size_t n)
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
static void symbolize_pc(struct module *m, struct module *o, size_t k)
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
			if (s->prof->locs[o->locs[k]].line_nr)
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
			if (!s->prof->locs[m->locs[k]].line_nr)   /* else named already (pprof input) */
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
	struct hpa_profile *prof = s->prof;
	const struct hpa_input *in = hpa_profile_input(prof, input);
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

/* The module's build folders into the profile's source_dirs, each once. */
static void add_source_dirs(struct hpa_profile *prof, struct module *m)
{
	for (size_t i = 0; i < m->comp_dirs.cap; i++) {
		uint32_t id, k;

		if (!m->comp_dirs.slots[i].val)
			continue;
		id = hpa_profile_intern_text(prof, hpa_strtab_get(&m->strs, (uint32_t)m->comp_dirs.slots[i].key));
		for (k = 0; k < prof->source_dirs_nr && prof->source_dirs[k] != id; k++)
			;
		if (k == prof->source_dirs_nr) {
			HPA_GROW(prof->source_dirs, prof->source_dirs_nr + 1, prof->source_dirs_alloc);
			prof->source_dirs[prof->source_dirs_nr++] = id;
		}
	}
	hpa_hashmap_release(&m->comp_dirs);
}

/* Copy a module's function into the profile, once. */
static uint32_t profile_func(struct hpa_profile *prof, struct module *m, uint32_t f)
{
	struct sym_func *sf = &m->funcs[f];
	struct hpa_function *pf;
	const char *name = hpa_strtab_get(&m->strs, sf->name);

	if (sf->id)
		return sf->id;
	sf->id = hpa_profile_intern_function(prof, name,
					     sf->linkage ? hpa_strtab_get(&m->strs, sf->linkage) : name,
					     hpa_strtab_get(&m->strs, sf->file));
	pf = &prof->funcs[sf->id];
	if (!pf->lang)
		pf->lang = sf->lang;
	if (!pf->start_line)
		pf->start_line = sf->start_line;
	return sf->id;
}

/*
 * Copy what the workers found into the profile: per input, the file used
 * for each mapping, its build-id and what went wrong, then every location's
 * chain in location order.
 */
static void apply_input(struct symbolizer *s, uint32_t input, const uint32_t *where)
{
	struct hpa_profile *prof = s->prof;
	const struct hpa_input *in = hpa_profile_input(prof, input);
	struct hpa_line *chain = NULL;
	size_t achain = 0, i, j, first = SIZE_MAX, last = 0;
	uint32_t *build_ids;

	for (j = 0; j < s->nmods; j++)
		if (s->mods[j].input == input) {
			if (first == SIZE_MAX)
				first = j;
			last = j + 1;
		}
	if (first == SIZE_MAX)
		return;
	build_ids = xcalloc(last - first, sizeof(*build_ids));
	for (j = first; j < last; j++)
		if (s->mods[j].build_id[0])
			build_ids[j - first] = hpa_profile_intern_text(prof, s->mods[j].build_id);
	for (i = 0; i < in->map_nr; i++) {
		struct hpa_mapping *map = &prof->mappings[in->map_first + i];

		for (j = first; j < last && strcmp(s->mods[j].map_path, map->path); j++)
			;
		if (j == last)
			continue;
		map->sym_file = hpa_profile_intern_text(prof, s->mods[j].file);
		map->build_id = build_ids[j - first];
		if (s->mods[j].why)
			map->sym_error = hpa_profile_intern_text(prof, s->mods[j].why);
	}
	free(build_ids);
	for (j = first; j < last; j++)
		add_source_dirs(prof, &s->mods[j]);

	for (i = 1; i < prof->locs_nr; i++) {
		struct module *m, *r;
		size_t k, f, nr;

		if (!where[i] || s->mods[where[i] - 1].input != input)
			continue;
		m = &s->mods[where[i] - 1];
		k = m->cursor++;   /* a module's locations were collected in location order */
		if (!m->res_nr || !(nr = m->res_nr[k]))
			continue;
		r = m->res_mod ? &s->mods[m->res_mod[k]] : m;   /* the part that named it */
		if (!r->str_ids)
			r->str_ids = xcalloc(r->strs.nr + 1, sizeof(*r->str_ids));
		HPA_GROW(chain, nr, achain);
		for (f = 0; f < nr; f++) {   /* each frame's file, then its function, as they were met */
			const struct sym_frame *fr = &r->frames[m->res_first[k] + f];

			if (fr->file && !r->str_ids[fr->file])
				r->str_ids[fr->file] = hpa_profile_intern_text(prof,
									 hpa_strtab_get(&r->strs, fr->file));
			chain[f].file = fr->file ? r->str_ids[fr->file] : 0;
			chain[f].func = profile_func(prof, r, fr->func);
			chain[f].line = fr->line;
		}
		hpa_profile_set_lines(prof, (uint32_t)i, chain, nr, (enum hpa_sym_source)m->res_src[k]);
	}
	free(chain);
	for (j = first; j < last; j++) {
		const struct module *m = &s->mods[j];
		const char *base = strrchr(m->map_path, '/');
		double secs = m->secs;
		size_t named = m->named, q;

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

int hpa_symbolize(struct hpa_profile *prof, const struct hpa_sym_opts *opts)
{
	struct symbolizer s;
	char cwd[PATH_MAX];
	uint32_t *where;
	size_t i, n;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.prof = prof;
	s.opts = opts;
	if (opts->debuginfod) {
		/* Bounded: 10 s without progress, 60 s per download, unless set. */
		setenv("DEBUGINFOD_TIMEOUT", "10", 0);
		setenv("DEBUGINFOD_MAXTIME", "60", 0);
		if (hpa_debuginfod_enable() < 0)
			hpa_warn("--debuginfod: libdebuginfod.so.1 cannot be loaded "
				 "(apt-get install libdebuginfod1); only local debug files are used");
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
	s.callbacks.find_debuginfo = find_debuginfo_guarded;
	s.callbacks.section_address = dwfl_offline_section_address;
	s.callbacks.debuginfo_path = &s.debuginfo_path;

	s.nthreads = hpa_processors();
	where = xcalloc(prof->locs_nr + 1, sizeof(*where));
	for (i = 1; i <= prof->inputs_nr; i++)
		collect_modules(&s, (uint32_t)i, where);
	if (s.nmods)
		run_workers(&s);
	for (i = 0; i < s.nmods && !rc; i++)
		if (s.mods[i].no_dwfl)
			rc = hpa_error("cannot start %s", s.mods[i].why);
	for (i = 1; i <= prof->inputs_nr && !rc; i++)
		apply_input(&s, (uint32_t)i, where);

	for (i = 0; i < s.nmods; i++) {
		struct module *m = &s.mods[i];
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
	free(s.mods);
	free(where);
	free(s.debuginfo_path);
	return rc;
}
