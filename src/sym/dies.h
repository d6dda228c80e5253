/*
 * Private to src/sym: a compile unit's DIEs read by hand (DWARF 2 to 5,
 * section 7.5), for the walk that indexes a unit's functions.  libdw
 * answers each question about a DIE (its tag, its next sibling, its
 * ranges, whether it has an attribute) by scanning its attributes again,
 * and that walk was most of symbolizing a large C++ binary; here a DIE's
 * attributes are read once, in order, with each abbreviation's fixed size
 * known in advance.  The answers are libdw's: the same DIEs in the same
 * order, dwarf_ranges()'s ranges (DW_AT_low_pc/DW_AT_high_pc, else
 * DW_AT_ranges in .debug_ranges or .debug_rnglists), dwarf_hasattr()'s
 * yes or no.  A unit with anything not handled here (an unknown form or
 * unit type, DW_FORM_indirect, split DWARF, sections still compressed)
 * is declined, for libdw to walk instead.
 */
#ifndef HPA_SYM_DIES_H
#define HPA_SYM_DIES_H

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "hpa/compat.h"

/* The sections a module's walks read, found once per file. */
struct die_sections {
	Dwarf *dbg;              /* whose sections they are; NULL: none looked for yet */
	const unsigned char *info, *abbrev, *ranges, *rnglists, *addr, *aranges;
	size_t info_size, abbrev_size, ranges_size, rnglists_size, addr_size, aranges_size;
	const unsigned char *str, *line_str, *str_offsets;
	size_t str_size, line_str_size, str_offsets_size;
};

struct die_spec {
	uint16_t name, form;
	uint8_t size;            /* bytes of a fixed-size form, else VAR_SIZE */
	int64_t implicit;        /* DW_FORM_implicit_const's value */
};

struct die_abbrev {
	uint32_t tag;            /* 0: no abbreviation has this code */
	bool children;
	bool declaration;        /* has DW_AT_declaration */
	bool pc;                 /* has DW_AT_low_pc, DW_AT_high_pc or DW_AT_ranges */
	bool sibling;            /* has DW_AT_sibling */
	uint16_t sib_form;
	uint32_t sib_at;         /* fixed sizes: where DW_AT_sibling's value is among them */
	uint32_t first, nspecs;  /* its attributes: specs[first .. first + nspecs) */
	uint32_t fixed;          /* their size when every form has a fixed one, else UINT32_MAX */
};

struct die_unit {
	const struct die_sections *s;
	const unsigned char *start, *end;   /* the unit's header; its end */
	const unsigned char *first;         /* the unit DIE's first child (end: none) */
	unsigned version, addr_size, offset_size;
	uint64_t base;           /* the unit's base address, as dwarf_ranges() takes it */
	uint64_t addr_base, rnglists_base, str_offsets_base;
	bool has_addr_base, has_rnglists_base, has_str_offsets_base;
	struct die_abbrev *abbrevs;   /* by code */
	size_t nabbrevs;
	struct die_spec *specs;
	size_t nspecs;
};

/* An attribute's form and where its value is. */
struct die_attr {
	uint16_t form;
	const unsigned char *at; /* NULL: the DIE has none */
	int64_t implicit;
};

struct die {
	uint64_t off;            /* in .debug_info */
	const struct die_abbrev *ab;   /* NULL: the entry that ends a list of siblings */
	const unsigned char *next;     /* past it: its first child, or what follows it */
	struct die_attr low, high, ranges;   /* read when asked for */
	const unsigned char *sibling;  /* where DW_AT_sibling points, NULL for none */
};

struct die_range {
	uint64_t low, high;
};

/* What libdw says of a unit: its header, and the attributes of its DIE that reading the rest needs. */
struct die_unit_facts {
	uint64_t die_off;        /* the unit DIE's offset in .debug_info */
	uint64_t abbrev_off;
	unsigned version, unit_type, addr_size, offset_size;
	uint64_t base;           /* DW_AT_low_pc, else DW_AT_entry_pc, else 0 (dwarf_ranges()'s base) */
	uint64_t addr_base, rnglists_base, str_offsets_base;
	bool has_addr_base, has_rnglists_base, has_str_offsets_base;
};

int die_unit_facts(Dwarf_Die *cu, struct die_unit_facts *f);

/* Read the unit f describes from sections s: 0, or -1 to decline (nothing is kept). */
int die_unit_init(struct die_unit *u, const struct die_sections *s, const struct die_unit_facts *f);

/*
 * Open `cu` (a unit DIE) from the sections of its file, found once in *s:
 * 0, or -1 when libdw should walk it.
 */
int die_unit_open(struct die_unit *u, struct die_sections *s, Dwarf_Die *cu);

/* The sections of dbg's file that the reader uses. */
void die_find_sections(struct die_sections *s, Dwarf *dbg);

/* Which DIEs die_read() reads low_pc, high_pc and ranges of. */
enum die_pc {
	DIE_PC_NONE,
	DIE_PC_CODE,             /* those die_has_code() names */
	DIE_PC_ALL,
};

/* The tags whose ranges a function index looks at: subprograms, inlined calls, lexical blocks. */
static inline bool die_has_code(unsigned tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block;
}

/*
 * Read the DIE at p, with its low_pc, high_pc and ranges as `pc` says (its
 * sibling always).  0, or -1 when the unit is not as expected.
 */
int die_read(const struct die_unit *u, const unsigned char *p, struct die *d, enum die_pc pc);

/*
 * Where d's children end (what follows d), skipping them: by DW_AT_sibling
 * when it points forward, else reading them.  NULL when the unit is not as
 * expected.
 */
const unsigned char *die_skip_children(const struct die_unit *u, const struct die *d);

/*
 * d's ranges (read with pc) as dwarf_ranges() gives them, the empty ones
 * (high <= low) left out, into *r (growing *alloc): 0 with *n of them, or
 * -1 when a range list is not as expected.
 */
int die_ranges(const struct die_unit *u, const struct die *d, struct die_range **r, size_t *n,
	       size_t *alloc);

void die_unit_release(struct die_unit *u);

/*
 * What naming a function reads of its DIE, each attribute as
 * dwarf_attr_integrate() finds it: on the DIE, else on the DIE its
 * DW_AT_abstract_origin or DW_AT_specification names, and so on (16 at
 * most).  libdw scans the DIEs of that chain again for each attribute.
 */
struct die_fn_attrs {
	const char *name;                /* DW_AT_name, NULL for none */
	const char *linkage;             /* DW_AT_linkage_name, else DW_AT_MIPS_linkage_name */
	bool has_decl_file, has_decl_line;
	uint64_t decl_file, decl_line;
};

/* The attributes of the DIE at offset `off` of unit u: 0, or -1 when libdw should read them. */
int die_fn_attrs(const struct die_unit *u, uint64_t off, struct die_fn_attrs *a);

/*
 * .debug_aranges as libdwfl's dwfl_module_addrdie() reads it: libdw's
 * dwarf_getaranges() list (in section order, sorted by address, stable),
 * condensed into runs of entries of one CU; an address belongs to the run
 * that starts last at or below it (the gaps inside the module count as
 * the CU around them), or past the last run's start up to the end of the
 * last entry, that end included.  libdw reads the CU header of every
 * entry and allocates each entry on its own; this reads the section once
 * into one array.
 */
struct die_arange_run {
	uint64_t start;          /* the address of its first entry */
	uint64_t cu;             /* the offset of its CU's header in .debug_info */
};

struct die_aranges {
	struct die_arange_run *runs;
	size_t nruns;
	uint64_t last_end;       /* the last entry's address plus its length */
};

/* Read the table: 0, or -1 where libdw's reading would differ (it then decides). */
int die_aranges_read(struct die_aranges *a, const struct die_sections *s);

/*
 * The DIE offset of the CU whose run holds `addr` (a file address): 1, 0
 * for none, -1 when its header is not one this reader knows (libdw decides).
 */
int die_aranges_find(const struct die_aranges *a, const struct die_sections *s, uint64_t addr,
		     uint64_t *die_off);

void die_aranges_release(struct die_aranges *a);

/*
 * The size of a compile or partial unit's header: its length, version,
 * abbreviations' offset and address size (and DWARF 5's unit type).
 */
static inline size_t die_unit_header_size(unsigned version, unsigned offset_size)
{
	return (offset_size == 8 ? 12 : 4) + 2 + offset_size + 1 + (version >= 5);
}

#endif
