/*
 * The symbolizer's modules as its passes share them (symbolize.c runs the
 * workers and copies their names into the profile; modfile.c finds each
 * module's file and debug file; dwindex.c indexes its DWARF and names its
 * addresses).  Private to src/sym.
 */
#ifndef HPA_SYM_SYMBOLIZER_H
#define HPA_SYM_SYMBOLIZER_H

#include "hpa/compat.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdatomic.h>

#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/symbols.h"
#include "dies.h"
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
	const struct hpa_profile *prof;   /* read only */
	const struct hpa_symbols *known;  /* the symbols before: read only until the workers are done */
	const struct hpa_sym_opts *opts;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	size_t nthreads;         /* processors this process may use */
	struct module *mods;     /* every module of every input */
	size_t nmods, amods;
	atomic_size_t next;      /* next of `order` for a worker */
	size_t *order;           /* the modules, most addresses first */
};

/* modfile.c */

/* Mappings that are not files, or files never to open. */
bool is_pseudo_path(const char *path);

/*
 * Find the module's file (BINARY for the main program, else its mapped
 * path under --sysroot, else in PPROF_BINARY_PATH), check that it can be
 * the one that ran, and report it to its Dwfl at the bias its maps line
 * implies.
 */
void report_module(const struct symbolizer *s, struct module *m);

/*
 * libdwfl's standard search keeps the debug file it finds and inflates it
 * whatever this callback answers: so the files it would find (by build-id
 * under each folder of the search path, by debug link beside the module,
 * in its .debug folder and under each folder) are checked first, and with
 * a bomb among them there is no separate debug file.
 */
int find_debuginfo_guarded(Dwfl_Module *mod, void **userdata, const char *modname,
			   Dwarf_Addr base, const char *file, const char *debuglink,
			   GElf_Word crc, char **debuginfo_file_name);

/* dwindex.c */

/*
 * The indexes 0..n-1 of pcs in ascending order of pcs: least significant
 * byte first, skipping the bytes they all share (the high ones, in one
 * module).
 */
uint32_t *order_by_addr(const uint64_t *pcs, size_t n);

/* pcs in ascending order, a new array. */
uint64_t *sorted_pcs(const uint64_t *pcs, size_t n);

/*
 * Name pc k of module o (the module itself, or a part whose address a
 * worker took over) with worker module m's files: the frames go to m's
 * tables, where o's result arrays point.
 */
void symbolize_pc(struct module *m, struct module *o, size_t k);

#endif
