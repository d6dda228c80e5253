/*
 * src/sym/dies.c against libdw: for every compile unit of each ELF file
 * named on the command line, every DIE in the order libdw's dwarf_child()
 * and dwarf_siblingof() give them, with its tag, whether it has children
 * and DW_AT_declaration, its ranges as dwarf_ranges() gives them, and
 * where its next sibling is.  The files are programs the build compiled
 * with DWARF 5 and DWARF 4, in C and C++.  Then the first unit's
 * .debug_info and .debug_abbrev cut short at every length and with bytes
 * changed: dies.c must decline or read them within their bounds (ASan
 * watches) and come to an end, naming each DIE they read; and the same for
 * .debug_aranges.  Last, the CU that .debug_aranges gives
 * for the start of each run of entries (and the bytes around it) against
 * libdwfl's dwfl_module_addrdie().
 */
#include "hpa/compat.h"

#include <limits.h>
#include <stdlib.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "../../src/sym/dies.h"
#include "dwunits.h"

static size_t compared, with_ranges;

/* One DIE as both readers see it. */
struct seen {
	uint64_t off;
	unsigned tag, depth;
	bool children, declaration;
	struct die_range r[8];
	size_t nr;
	uint64_t next;           /* its next sibling's offset, 0 for none */
};

struct list {
	struct seen *v;
	size_t n, alloc;
};

static struct seen *push(struct list *l)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 256;
		l->v = realloc(l->v, l->alloc * sizeof(*l->v));
		if (!l->v)
			abort();
	}
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	return &l->v[l->n++];
}

static void libdw_list(struct list *l, Dwarf_Die *first, unsigned depth)
{
	Dwarf_Die cur = *first, child, sib;

	if (depth > 200)
		return;
	do {
		struct seen *s = push(l);
		size_t at = l->n - 1;
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;

		s->off = dwarf_dieoffset(&cur);
		s->tag = (unsigned)dwarf_tag(&cur);
		s->depth = depth;
		s->children = dwarf_haschildren(&cur) > 0;
		s->declaration = dwarf_hasattr(&cur, DW_AT_declaration);
		while ((off = dwarf_ranges(&cur, off, &base, &start, &end)) > 0)
			if (end > start && s->nr < 8) {
				s->r[s->nr].low = start;
				s->r[s->nr++].high = end;
			}
		sib = cur;
		if (dwarf_siblingof(&sib, &sib) == 0)
			s->next = dwarf_dieoffset(&sib);
		if (s->children && dwarf_child(&cur, &child) == 0)
			libdw_list(l, &child, depth + 1);
		(void)at;
	} while (dwarf_siblingof(&cur, &cur) == 0);
}

/*
 * The DIEs from p to the end of their list; returns where that ends (*bad
 * when dies.c declined).  strict: where children end is where skipping them
 * goes (malformed input may point DW_AT_sibling anywhere).
 */
static const unsigned char *own_list(struct list *l, const struct die_unit *u, const unsigned char *p,
				     unsigned depth, bool *bad, bool strict)
{
	struct die_range *r = NULL;
	size_t nr = 0, ar = 0;

	while (p < u->end) {
		struct die d;
		struct seen *s;
		size_t at, i;
		const unsigned char *skip;

		if (die_read(u, p, &d, DIE_PC_ALL) < 0) {
			*bad = true;
			break;
		}
		if (!d.ab) {
			p = d.next;
			break;
		}
		s = push(l);
		at = l->n - 1;
		s->off = d.off;
		s->tag = d.ab->tag;
		s->depth = depth;
		s->children = d.ab->children;
		s->declaration = d.ab->declaration;
		if (die_ranges(u, &d, &r, &nr, &ar) < 0) {
			*bad = true;
			break;
		}
		for (i = 0; i < nr && i < 8; i++)
			s->r[s->nr++] = r[i];
		skip = die_skip_children(u, &d);
		if (!skip) {
			*bad = true;
			break;
		}
		if (d.ab->children && depth < 200) {
			p = own_list(l, u, d.next, depth + 1, bad, strict);
			if (*bad)
				break;
			if (strict && p != skip && !(d.sibling && d.sibling == skip)) {
				fprintf(stderr, "DIE %#llx: children end at %#llx, skipped to %#llx\n",
					(unsigned long long)d.off, (unsigned long long)(p - u->s->info),
					(unsigned long long)(skip - u->s->info));
				test_failures++;
			}
		} else {
			p = skip;
		}
		/* its next sibling: what follows it, unless that ends the list */
		if (p < u->end && *p)
			l->v[at].next = (uint64_t)(p - u->s->info);
	}
	free(r);
	return p;
}

static void compare(const struct list *a, const struct list *b, const char *path)
{
	size_t i, k;

	CHECK_INT_EQ(b->n, a->n);
	for (i = 0; i < a->n && i < b->n; i++) {
		const struct seen *x = &a->v[i], *y = &b->v[i];
		bool same = x->off == y->off && x->tag == y->tag && x->depth == y->depth &&
			x->children == y->children && x->declaration == y->declaration &&
			x->nr == y->nr && x->next == y->next;

		for (k = 0; same && k < x->nr; k++)
			same = x->r[k].low == y->r[k].low && x->r[k].high == y->r[k].high;
		compared++;
		with_ranges += x->nr > 0;
		if (!same) {
			fprintf(stderr, "%s: DIE %#llx (libdw: tag %#x depth %u, %zu ranges, next %#llx), "
				"dies.c: %#llx tag %#x depth %u, %zu ranges, next %#llx\n", path,
				(unsigned long long)x->off, x->tag, x->depth, x->nr,
				(unsigned long long)x->next, (unsigned long long)y->off, y->tag, y->depth,
				y->nr, (unsigned long long)y->next);
			test_failures++;
			return;
		}
	}
}

/* Read the whole unit from sections s; true if dies.c read it to its end. */
static bool read_all(const struct die_sections *s, const struct die_unit_facts *f)
{
	struct die_unit u;
	struct list l = { 0 };
	bool bad = false;

	size_t i;

	if (die_unit_init(&u, s, f) != 0)
		return false;
	own_list(&l, &u, u.first, 0, &bad, false);
	for (i = 0; i < l.n; i++) {   /* the naming of each DIE read, whatever it finds */
		struct die_fn_attrs fa;
		die_fn_attrs(&u, l.v[i].off, &fa);
	}
	die_unit_release(&u);
	free(l.v);
	return !bad;
}

/* The first unit read from copies of .debug_info and .debug_abbrev cut at every length, then flipped. */
static void check_malformed(const struct die_sections *real, const struct die_unit_facts *f)
{
	struct die_sections s = *real;
	size_t len, i, declined = 0, whole = 0;
	unsigned char *copy;
	int which;

	for (which = 0; which < 2; which++) {
		const unsigned char *orig = which ? real->abbrev : real->info;
		size_t size = which ? real->abbrev_size : real->info_size, max = size < 2048 ? size : 2048;

		for (len = 0; len < max; len++) {
			unsigned char *cut = malloc(len ? len : 1);   /* exactly len: ASan sees a read past it */

			if (!cut)
				abort();
			memcpy(cut, orig, len);
			if (which) {
				s.abbrev = cut;
				s.abbrev_size = len;
			} else {
				s.info = cut;
				s.info_size = len;
			}
			if (!read_all(&s, f))
				declined++;
			free(cut);
		}
		s = *real;
		copy = malloc(size);
		if (!copy)
			abort();
		for (i = 0; i < max; i++) {
			memcpy(copy, orig, size);
			copy[i] ^= (unsigned char)(i & 1 ? 0xff : 0x80);
			if (which) {
				s.abbrev = copy;
			} else {
				s.info = copy;
			}
			whole += read_all(&s, f);
		}
		s = *real;
		free(copy);
	}
	CHECK(declined > 0);   /* a unit cut inside its header is declined */
	CHECK(whole > 0);      /* a changed constant is still read */
}

struct file {
	const char *path;
	struct die_sections secs;
	size_t cus;
};

static size_t named, named_own;

static bool same_str(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

/*
 * A function DIE's names, declaring line and file index: dies.c's
 * die_fn_attrs() against libdw's dwarf_attr_integrate() (what naming a
 * frame asks), where dies.c does not decline.
 */
static void check_names(Dwarf *dbg, const struct die_unit *u, uint64_t off, const char *path)
{
	Dwarf_Die die;
	Dwarf_Attribute attr;
	struct die_fn_attrs fa;
	const char *linkage;
	Dwarf_Word file = 0;
	int line = 0;
	bool has_file, has_line;

	if (!dwarf_offdie(dbg, off, &die))
		return;
	named++;
	if (die_fn_attrs(u, off, &fa) != 0)
		return;
	named_own++;
	linkage = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_linkage_name, &attr));
	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &attr));
	has_line = dwarf_decl_line(&die, &line) == 0;
	has_file = dwarf_formudata(dwarf_attr_integrate(&die, DW_AT_decl_file, &attr), &file) == 0;
	if (!same_str(fa.linkage, linkage) || !same_str(fa.name, dwarf_diename(&die)) ||
	    has_line != (fa.has_decl_line && fa.decl_line <= INT_MAX) ||
	    (has_line && (uint64_t)line != fa.decl_line) || has_file != fa.has_decl_file ||
	    (has_file && file != fa.decl_file)) {
		fprintf(stderr, "%s: DIE %#llx: libdw %s / %s line %d file %llu; dies.c %s / %s line %llu "
			"file %llu\n", path, (unsigned long long)off, linkage ? linkage : "-",
			dwarf_diename(&die) ? dwarf_diename(&die) : "-", line, (unsigned long long)file,
			fa.linkage ? fa.linkage : "-", fa.name ? fa.name : "-",
			(unsigned long long)fa.decl_line, (unsigned long long)fa.decl_file);
		test_failures++;
	}
}

/*
 * .debug_aranges cut at every length and flipped: dies.c declines or reads
 * within bounds (ASan watches), and its lookups stay within .debug_info.
 */
static void check_aranges_malformed(const struct die_sections *real)
{
	struct die_sections s = *real;
	size_t len, i, declined = 0, max = real->aranges_size < 2048 ? real->aranges_size : 2048;
	unsigned char *copy = malloc(real->aranges_size);

	if (!copy)
		abort();
	for (len = 0; len <= max; len++) {
		unsigned char *cut = malloc(len ? len : 1);   /* exactly len: ASan sees a read past it */
		struct die_aranges a;

		if (!cut)
			abort();
		memcpy(cut, real->aranges, len);
		s.aranges = cut;
		s.aranges_size = len;
		declined += die_aranges_read(&a, &s) != 0;
		die_aranges_release(&a);
		free(cut);
	}
	s.aranges_size = real->aranges_size;
	for (i = 0; i < max; i++) {
		struct die_aranges a;
		uint64_t off;
		size_t k;

		memcpy(copy, real->aranges, real->aranges_size);
		copy[i] ^= (unsigned char)(i & 1 ? 0xff : 0x80);
		s.aranges = copy;
		if (die_aranges_read(&a, &s) == 0)
			for (k = 0; k < a.nruns; k++) {
				die_aranges_find(&a, &s, a.runs[k].start, &off);
				die_aranges_find(&a, &s, a.runs[k].start - 1, &off);
			}
		die_aranges_release(&a);
	}
	CHECK(declined > 0);   /* a table cut inside a header is declined */
	free(copy);
}

static void check_unit(Dwarf *dbg, Dwarf_Die *cu, void *ctx)
{
	struct file *file = ctx;
	Dwarf_Die child;
	struct die_unit u;
	struct die_unit_facts f;
	struct list a = { 0 }, b = { 0 };
	bool bad = false;

	size_t i;

	CHECK_INT_EQ(die_unit_open(&u, &file->secs, cu), 0);
	if (dwarf_child(cu, &child) == 0)
		libdw_list(&a, &child, 0);
	if (u.s) {
		own_list(&b, &u, u.first, 0, &bad, true);
		CHECK(!bad);
		compare(&a, &b, file->path);
		for (i = 0; i < a.n; i++)
			if (a.v[i].tag == DW_TAG_subprogram || a.v[i].tag == DW_TAG_inlined_subroutine)
				check_names(dbg, &u, a.v[i].off, file->path);
		die_unit_release(&u);
	}
	if (!file->cus && die_unit_facts(cu, &f) == 0)
		check_malformed(&file->secs, &f);
	if (!file->cus && file->secs.aranges)
		check_aranges_malformed(&file->secs);
	free(a.v);
	free(b.v);
	file->cus++;
}

static size_t looked_up;

/* One address: dies.c's CU for it against dwfl_module_addrdie()'s. */
static void check_addr(Dwfl_Module *mod, const struct die_aranges *a, const struct die_sections *s,
		       Dwarf_Addr bias, uint64_t addr, const char *path)
{
	Dwarf_Addr b;
	Dwarf_Die *want = dwfl_module_addrdie(mod, addr + bias, &b);
	uint64_t got = 0;
	int r = die_aranges_find(a, s, addr, &got);

	looked_up++;
	if (r < 0 || (want ? r != 1 || got != dwarf_dieoffset(want) : r != 0)) {
		fprintf(stderr, "%s: at %#llx libdwfl says CU %#llx, dies.c %d %#llx\n", path,
			(unsigned long long)addr, want ? (unsigned long long)dwarf_dieoffset(want) : 0ULL,
			r, (unsigned long long)got);
		test_failures++;
	}
}

/* .debug_aranges: the CU of each run's start, the byte before it, and the last entry's end. */
static void check_aranges(const char *path)
{
	static const Dwfl_Callbacks cb = { .find_debuginfo = dwfl_standard_find_debuginfo,
					   .section_address = dwfl_offline_section_address };
	Dwfl *dwfl = dwfl_begin(&cb);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, path, path, -1) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	struct die_sections s;
	struct die_aranges a;
	size_t i;

	dwfl_report_end(dwfl, NULL, NULL);
	CHECK(dw != NULL);
	if (!dw) {
		dwfl_end(dwfl);
		return;
	}
	die_find_sections(&s, dw);
	if (!s.aranges) {   /* clang's default: libdwfl decides */
		CHECK_INT_EQ(die_aranges_read(&a, &s), -1);
		dwfl_end(dwfl);
		return;
	}
	CHECK_INT_EQ(die_aranges_read(&a, &s), 0);
	CHECK(a.nruns > 0);
	for (i = 0; i < a.nruns; i++) {
		uint64_t start = a.runs[i].start;

		check_addr(mod, &a, &s, bias, start, path);
		check_addr(mod, &a, &s, bias, start + 1, path);
		if (start)
			check_addr(mod, &a, &s, bias, start - 1, path);
	}
	check_addr(mod, &a, &s, bias, a.last_end - 1, path);
	check_addr(mod, &a, &s, bias, a.last_end, path);
	check_addr(mod, &a, &s, bias, a.last_end + 1, path);
	die_aranges_release(&a);
	dwfl_end(dwfl);
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
		check_aranges(argv[i]);
	}
	CHECK(compared > 1000);
	CHECK(with_ranges > 100);
	CHECK(looked_up > 100);
	CHECK(named_own > 1000 && named_own * 10 > named * 9);   /* nearly all read by dies.c */
	fprintf(stderr, "%zu function DIEs named, %zu by dies.c\n", named, named_own);
	fprintf(stderr, "%zu DIEs compared, %zu with ranges; %zu addresses' CUs\n", compared,
		with_ranges, looked_up);
	TEST_MAIN_END();
}
