/*
 * src/sym/lines.c against libdw: for every compile unit of each ELF file
 * named on the command line, the files and, at every address where a row
 * of libdw's line table starts (and the byte before and after it), the
 * file and line that dwarf_getsrc_die() gives.  The files are programs
 * the build compiled with DWARF 5 and DWARF 4, in C and C++.  Then the
 * first unit's program cut short at every length and with bytes changed:
 * lines.c must decline or read it within its bounds (ASan watches).
 */
#include "hpa/compat.h"

#include <stdlib.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "../../src/sym/lines.h"
#include "dwunits.h"

static size_t compared;

static void check_at(struct cu_lines *t, Dwarf_Die *cu, Dwarf_Addr a, const char *path)
{
	Dwarf_Line *want = dwarf_getsrc_die(cu, a);
	const struct line_row *got = cu_lines_find(t, a);
	const char *wf = want ? dwarf_linesrc(want, NULL, NULL) : NULL;
	const char *gf = got && got->file < t->nfiles ? t->files[got->file] : NULL;
	int wl = 0;

	compared++;
	if (want)
		dwarf_lineno(want, &wl);
	if (!want != !got || (want && (wl != got->line || !wf != !gf || (wf && strcmp(wf, gf))))) {
		fprintf(stderr, "%s: at %#llx libdw says %s:%d, lines.c %s:%d\n", path,
			(unsigned long long)a, wf ? wf : "-", wl, gf ? gf : "-", got ? got->line : -1);
		test_failures++;
	}
}

/* The first CU of `dbg` read from a copy of .debug_line cut at every length, then with each byte flipped. */
static void check_malformed(Dwarf *dbg, Dwarf_Die *cu, const struct line_sections *real)
{
	struct line_sections secs = *real;
	struct cu_lines t;
	size_t len, i, declined = 0, tries = 0;
	unsigned char *copy;
	Dwarf_Attribute attr;
	Dwarf_Word off;

	if (dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &attr), &off) != 0 || off != 0)
		return;   /* the first unit's program starts the section */
	copy = malloc(real->line_size);
	CHECK(copy != NULL);
	if (!copy)
		return;
	secs.dbg = dbg;
	for (len = 0; len < real->line_size && len < 4096; len++) {
		unsigned char *cut = malloc(len ? len : 1);   /* exactly len: ASan sees a read past it */

		CHECK(cut != NULL);
		if (!cut)
			break;
		memcpy(cut, real->line, len);
		secs.line = cut;
		secs.line_size = len;
		tries++;
		if (cu_lines_read(&t, &secs, cu) != 0)
			declined++;
		cu_lines_release(&t);
		free(cut);
	}
	for (i = 0; i < real->line_size && i < 512; i++) {
		memcpy(copy, real->line, real->line_size);
		copy[i] ^= 0xff;
		secs.line = copy;
		secs.line_size = real->line_size;
		if (cu_lines_read(&t, &secs, cu) == 0)
			for (len = 1; len < t.nrows; len++)   /* what it read is sorted */
				CHECK(t.rows[len - 1].addr <= t.rows[len].addr);
		cu_lines_release(&t);
	}
	CHECK(declined > 0);   /* a program cut inside its header is declined */
	CHECK(tries > 0);
	free(copy);
}

static int cmp_addr(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * The same addresses answered at once (cu_lines_answer), as a module's
 * are, every other one asked: those the table knows and gives as libdw
 * does, the others it says it does not know.  With a bias, as a loaded
 * module's addresses have.
 */
static void check_answers(struct line_sections *secs, Dwarf_Die *cu, Dwarf_Lines *lines, size_t n,
			  const char *path)
{
	const uint64_t bias = 0x10000;
	uint64_t *pcs = malloc((3 * n + 1) * sizeof(*pcs));
	struct cu_lines t;
	size_t i, npcs = 0, k;

	CHECK(pcs != NULL);
	if (!pcs || cu_lines_read(&t, secs, cu) != 0) {
		free(pcs);
		return;
	}
	for (i = 0; i < n; i++) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
			continue;
		pcs[npcs++] = a + bias;
		pcs[npcs++] = a + 1 + bias;
		if (a)
			pcs[npcs++] = a - 1 + bias;
	}
	qsort(pcs, npcs, sizeof(*pcs), cmp_addr);
	for (i = k = 0; i < npcs; i++)   /* unique, then every other one */
		if (!k || pcs[i] != pcs[k - 1])
			pcs[k++] = pcs[i];
	for (i = npcs = 0; i < k; i += 2)
		pcs[npcs++] = pcs[i];
	cu_lines_answer(&t, pcs, npcs, bias);
	CHECK(t.answered);
	CHECK(t.nrows <= npcs);
	for (i = 0; i < k; i++) {
		uint64_t a = (i % 2 ? pcs[i / 2] + 1 : pcs[i / 2]) - bias;   /* asked, and a byte after */
		bool asked = !(i % 2), next_asked = i / 2 + 1 < npcs && pcs[i / 2 + 1] - bias == a;

		bool known;

		cu_lines_lookup(&t, a, &known);
		if (asked || next_asked) {
			CHECK(known);
			check_at(&t, cu, a, path);
		} else if (known) {
			fprintf(stderr, "%s: %#llx was not asked, yet answered\n", path, (unsigned long long)a);
			test_failures++;
		}
	}
	cu_lines_release(&t);
	free(pcs);
}

struct file {
	const char *path;
	struct line_sections secs;
	size_t cus;
};

static void check_unit(Dwarf *dbg, Dwarf_Die *cu, void *ctx)
{
	struct file *f = ctx;
	Dwarf_Lines *lines;
	Dwarf_Files *files;
	struct cu_lines t;
	size_t n, nfiles, i;

	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return;
	CHECK_INT_EQ(cu_lines_read(&t, &f->secs, cu), 0);
	if (dwarf_getsrcfiles(cu, &files, &nfiles) == 0) {
		CHECK_INT_EQ(t.nfiles, nfiles);
		for (i = 0; i < nfiles && i < t.nfiles; i++)
			CHECK_STR_EQ(t.files[i], dwarf_filesrc(files, i, NULL, NULL));
	}
	for (i = 0; i < n; i++) {
		Dwarf_Addr a;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
			continue;
		check_at(&t, cu, a, f->path);
		check_at(&t, cu, a + 1, f->path);
		if (a)
			check_at(&t, cu, a - 1, f->path);
	}
	if (!f->cus)
		check_malformed(dbg, cu, &f->secs);
	cu_lines_release(&t);
	check_answers(&f->secs, cu, lines, n, f->path);
	f->cus++;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {   /* each file: its units */
		struct file f;

		memset(&f, 0, sizeof(f));
		f.path = argv[i];
		for_each_unit(argv[i], check_unit, &f);
		CHECK(f.cus > 0);
	}
	CHECK(compared > 1000);
	fprintf(stderr, "%zu addresses compared\n", compared);
	TEST_MAIN_END();
}
