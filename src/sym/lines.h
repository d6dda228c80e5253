/*
 * Private to src/sym: a compile unit's line program (DWARF 2 to 5, section
 * 6.2), decoded in one pass into one array.  libdw's own decoding allocates
 * every row on its own and sorts them all, which was most of symbolizing
 * with file:line (three times the cost of names alone); this gives the
 * same answers as dwarf_getsrc_die() and dwarf_getsrcfiles() (the row with
 * the highest address at or below pc, the last of equal ones, none when
 * that row ends a sequence; file names as libdw joins them), and declines
 * what it does not handle, for libdw to decide instead.
 */
#ifndef HPA_SYM_LINES_H
#define HPA_SYM_LINES_H

#include <elfutils/libdw.h>

#include "hpa/compat.h"

struct line_row {
	uint64_t addr;           /* CU-relative (file) address */
	uint32_t file;           /* index into files */
	int32_t line;
	uint32_t order;          /* place in the program: ties keep it */
	bool end;                /* ends a sequence: no line */
};

/* The sections a module's line programs read, found once per file. */
struct line_sections {
	Dwarf *dbg;              /* whose sections they are; NULL: none looked for yet */
	const unsigned char *line, *line_str, *str;
	size_t line_size, line_str_size, str_size;
};

struct cu_lines {
	char **files;            /* as dwarf_filesrc() names them; NULL for none */
	size_t nfiles;
	struct line_row *rows;   /* sorted by address, then end first, then order; */
	size_t nrows;            /* once answered, the answers by address */
	const uint64_t *pcs;     /* once answered: the addresses asked (cu_lines_answer) */
	size_t npcs;
	uint64_t bias;
	bool answered;
};

/* Decode the line program of `cu`: 0, or -1 when libdw should (nothing is kept). */
int cu_lines_read(struct cu_lines *t, struct line_sections *secs, Dwarf_Die *cu);

/* The row for `addr` (CU-relative), or NULL when no row holds it. */
const struct line_row *cu_lines_find(const struct cu_lines *t, uint64_t addr);

/*
 * Find the rows of the CU-relative addresses pcs[i] - bias (pcs ascending,
 * kept by the caller until release) and keep only those, dropping the
 * rest: a module's tables held whole until its end took megabytes (7 MiB
 * of rows for 19k addresses), where the answers take a few hundred bytes
 * per unit.  Afterwards cu_lines_find() knows those addresses alone.
 */
void cu_lines_answer(struct cu_lines *t, const uint64_t *pcs, size_t npcs, uint64_t bias);

/*
 * cu_lines_find(), saying in *known whether the table knows `addr`: every
 * address until answered, afterwards those asked.
 */
const struct line_row *cu_lines_lookup(const struct cu_lines *t, uint64_t addr, bool *known);

/* File `idx` of the CU's table (a row's, or a DW_AT_*_file value's), or NULL. */
const char *cu_lines_file(const struct cu_lines *t, uint64_t idx);

void cu_lines_release(struct cu_lines *t);

#endif
