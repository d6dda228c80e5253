/*
 * The symbols: what is known of the code at each location of a profile,
 * its inline chain of (function, file, line), innermost first, and of each
 * mapping, the file the symbolizer read for it.  A table of its own beside
 * the profile, which no pass after reading changes: reading hands it out
 * with what the files carried (a pprof file's functions, folded names, a
 * symbolized jemalloc dump: hpa_profile_end_reading), the symbolizer extends
 * it (hpa_symbolize, hpa_symbolize_remote), and every pass after that takes
 * it as an argument.  Its string ids are the profile's (profile.h: strs).
 *
 *   function     (name, system name, file), interned; names are string ids
 *   line         one frame of a location's inline chain: function + file:line
 *   chain        a location's lines, a slice of lines[]
 *   slot         one number per frame: the index of its line in lines[], or
 *                past them, lines_nr + location id, for a location without
 *                symbols (one frame); tables by frame are indexed by slot
 */
#ifndef HPA_SYMBOLS_H
#define HPA_SYMBOLS_H

#include "hpa/compat.h"
#include "hpa/hashmap.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"

/* Where a location's names came from. */
enum hpa_sym_source {
	HPA_SYM_NONE,      /* not symbolized (no module, no debug info, no symbol) */
	HPA_SYM_DWARF,     /* DWARF: functions, inline frames, file:line */
	HPA_SYM_SYMTAB     /* ELF symbol table (.symtab or .dynsym): function only */
};

/* A function's source language, when its names need one to be shortened right. */
enum hpa_lang {
	HPA_LANG_UNKNOWN,      /* decided from the name's shape */
	HPA_LANG_C,
	HPA_LANG_CXX,
	HPA_LANG_RUST,
	HPA_LANG_GO,
	HPA_LANG_OTHER         /* known, and none of the above: names kept whole */
};

struct hpa_function {
	uint32_t name;         /* demangled name (string id) */
	uint32_t system_name;  /* name in the binary, e.g. mangled (string id) */
	uint32_t filename;     /* source file (string id), 0 if unknown */
	uint32_t start_line;   /* line of its declaration, 0 if unknown */
	uint8_t lang;          /* enum hpa_lang, from DWARF when hpa symbolized it */
};

struct hpa_line {
	uint32_t func;     /* function id */
	uint32_t file;     /* source file of this frame (string id), 0 if unknown */
	uint32_t line;     /* 0 if unknown */
};

/* A location's inline chain. */
struct hpa_chain {
	uint32_t first;    /* index into lines[] of the innermost frame */
	uint16_t nr;       /* chain length; 0 = not symbolized */
	uint8_t source;    /* enum hpa_sym_source */
};

/* What the symbolizer made of a mapping (string ids, 0 = none). */
struct hpa_map_symbols {
	bool set;          /* the symbolizer looked for its file: the rest holds */
	uint32_t file;     /* the file it read */
	uint32_t error;    /* why that file could not be used */
	uint32_t build_id; /* the file's GNU build-id, lowercase hex */
};

struct hpa_symbols {
	struct hpa_function *funcs;     /* [0] unused */
	size_t funcs_nr, funcs_alloc;
	struct hpa_hashmap func_by_hash;
	uint32_t *func_next;            /* same-hash chain */

	struct hpa_line *lines;
	size_t lines_nr, lines_alloc;

	struct hpa_chain *chains;       /* by location id, every location of the profile */
	size_t chains_nr, chains_alloc;

	struct hpa_map_symbols *maps;   /* by mapping id, or NULL before the symbolizer */
	size_t maps_nr;
	/*
	 * The folders the binaries' DWARF records (each unit that named a
	 * frame: its DW_AT_comp_dir and the folder of each source file it
	 * names), as string ids: where --list may read.
	 */
	uint32_t *source_dirs;
	size_t source_dirs_nr, source_dirs_alloc;
};

void hpa_symbols_init(struct hpa_symbols *syms);
void hpa_symbols_release(struct hpa_symbols *syms);

/*
 * Intern a function, its strings into `strs` as hpa_strtab_intern_shown()
 * (NULL counts as "").  Returns its id.
 */
uint32_t hpa_symbols_intern_function(struct hpa_symbols *syms, struct hpa_strtab *strs,
				     const char *name, const char *system_name, const char *filename);

/* Give location `loc` its inline chain (innermost first, the physical function last), copied from `lines`. */
void hpa_symbols_set_chain(struct hpa_symbols *syms, uint32_t loc, const struct hpa_line *lines,
			   size_t nr, enum hpa_sym_source source);

/* A chain for every location id below locs_nr (the new ones empty). */
void hpa_symbols_cover(struct hpa_symbols *syms, size_t locs_nr);

/* Add folder `dir` (a string id) to source_dirs, once. */
void hpa_symbols_add_source_dir(struct hpa_symbols *syms, uint32_t dir);

/* Mapping `m`'s entry of maps[], made for every mapping below maps_nr when missing. */
struct hpa_map_symbols *hpa_symbols_map(struct hpa_symbols *syms, uint32_t m, size_t maps_nr);

/* Mapping `m`'s build-id: the symbolizer's when it looked, else the one read (string id, 0 = none). */
uint32_t hpa_map_build_id(const struct hpa_profile *prof, const struct hpa_symbols *syms, uint32_t m);

static inline const struct hpa_chain *hpa_chain_of(const struct hpa_symbols *syms, uint32_t loc)
{
	return &syms->chains[loc];
}

/* Slots of every frame: lines, then one per location. */
static inline size_t hpa_symbols_slots(const struct hpa_symbols *syms)
{
	return syms->lines_nr + syms->chains_nr;
}

/* A frame's slot: its index in lines[], or past them for unknown frames. */
static inline size_t hpa_frame_slot(const struct hpa_symbols *syms, struct hpa_frame f)
{
	const struct hpa_chain *c = &syms->chains[f.loc];
	return c->nr ? c->first + f.level : syms->lines_nr + f.loc;
}

/*
 * The base matched by symbol (--base; model/identity.c): a frame of the
 * base whose location no profile stack has, but whose inline chain
 * (function, file, line at every level) a location of the profile has,
 * becomes that location, so a diff against another build of the program
 * matches by symbol (--addresses and --proto too).  Returns the frames
 * table so matched (prof->frames' layout, a new array) for the views to
 * read (hpa_view_opts.frames), or NULL when no frame moves (the same build
 * on both sides, the usual case).  The profile is unchanged.
 */
uint32_t *hpa_match_base_by_symbols(const struct hpa_profile *prof, const struct hpa_symbols *syms);

/* Per location, the slot of its level 0 (a new array): hpa_frame_slot() without reading chains. */
uint32_t *hpa_symbols_slot0(const struct hpa_symbols *syms);

#endif
