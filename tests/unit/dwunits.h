/*
 * For the tests of hpa's own DWARF readers (t-lines, t-dies): every
 * compile unit of an ELF file, as libdw opens them.
 */
#ifndef HPA_TEST_DWUNITS_H
#define HPA_TEST_DWUNITS_H

#include <fcntl.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "test.h"

/* fn(dbg, unit DIE, ctx) for each unit of the file at path (a failed check if it has no DWARF). */
static void for_each_unit(const char *path, void (*fn)(Dwarf *dbg, Dwarf_Die *cu, void *ctx),
			  void *ctx)
{
	int fd = open(path, O_RDONLY);
	Dwarf *dbg = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;

	CHECK(dbg != NULL);
	if (!dbg) {
		fprintf(stderr, "%s: no DWARF\n", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dbg, off + hsize, &cu))
			fn(dbg, &cu, ctx);
		off = next;
	}
	dwarf_end(dbg);
	close(fd);
}

#endif
