/*
 * A compile unit's line program, decoded by hand (lines.h): the header's
 * directories and files, then the rows of the state machine, into one
 * array that is sorted only when its sequences are out of order.
 */
#include "hpa/compat.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "dwread.h"
#include "lines.h"

static void find_sections(struct line_sections *s, Dwarf *dbg)
{
	static const char *const names[] = { ".debug_line", ".debug_line_str", ".debug_str" };
	const unsigned char *data[3];
	size_t size[3];

	dw_sections(dbg, names, 3, data, size);
	s->dbg = dbg;
	s->line = data[0];
	s->line_size = size[0];
	s->line_str = data[1];
	s->line_str_size = size[1];
	s->str = data[2];
	s->str_size = size[2];
}

/* One DWARF 5 entry's path and directory index by its format; false if a form is not known. */
static bool read_entry(struct cursor *c, const struct line_sections *s, const uint64_t *fmt,
		       size_t nfmt, unsigned offset_size, const char **path, uint64_t *dir)
{
	size_t i;

	*path = NULL;
	*dir = 0;
	for (i = 0; i < nfmt; i++) {
		uint64_t type = fmt[2 * i], form = fmt[2 * i + 1], v = 0;
		const char *str = NULL;

		switch (form) {
		case DW_FORM_string:
			str = rd_str(c);
			break;
		case DW_FORM_line_strp:
			str = str_at(s->line_str, s->line_str_size, rd_n(c, offset_size));
			if (!str)
				return false;
			break;
		case DW_FORM_strp:
			str = str_at(s->str, s->str_size, rd_n(c, offset_size));
			if (!str)
				return false;
			break;
		case DW_FORM_udata:
			v = rd_uleb(c);
			break;
		case DW_FORM_data1:
			v = rd_n(c, 1);
			break;
		case DW_FORM_data2:
			v = rd_n(c, 2);
			break;
		case DW_FORM_data4:
			v = rd_n(c, 4);
			break;
		case DW_FORM_data8:
			v = rd_n(c, 8);
			break;
		case DW_FORM_data16:
			rd_n(c, 8);
			rd_n(c, 8);
			break;
		case DW_FORM_block:
			v = rd_uleb(c);
			if (v > (uint64_t)(c->end - c->p))
				return false;
			c->p += v;
			v = 0;
			break;
		default:
			return false;
		}
		if (type == DW_LNCT_path)
			*path = str;
		else if (type == DW_LNCT_directory_index)
			*dir = v;
	}
	return !c->bad;
}

/* A file's name as libdw gives it: absolute as written, else under its directory. */
static char *join(const char *dir, const char *name)
{
	return name[0] == '/' || !dir ? xstrdup(name) : hpa_xasprintf("%s/%s", dir, name);
}

static int cmp_row(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;   /* the end of a sequence before a row at its address */
	return (x->order > y->order) - (x->order < y->order);
}

static bool rows_sorted(const struct cu_lines *t)
{
	size_t i;

	for (i = 1; i < t->nrows; i++)
		if (cmp_row(&t->rows[i - 1], &t->rows[i]) > 0)
			return false;
	return true;
}

/* The directories (DWARF 5) and the files, into t; false when libdw should read them. */
static bool read_files(struct cu_lines *t, struct cursor *c, const struct line_sections *s,
		       unsigned version, unsigned offset_size, const char *comp_dir)
{
	const char **dirs = NULL;
	size_t ndirs = 0, adirs = 0, afiles = 0, k;
	uint64_t fmt[2 * 16], n, i, dir;
	size_t nfmt;
	const char *name;
	bool ok = false;
	int pass;

	if (version < 5) {
		HPA_GROW(dirs, 1, adirs);
		dirs[ndirs++] = comp_dir;
		while (c->p < c->end && *c->p) {
			HPA_GROW(dirs, ndirs + 1, adirs);
			dirs[ndirs++] = rd_str(c);
		}
		skip_end(c);   /* the empty string that ends them */
		HPA_GROW(t->files, 1, afiles);
		t->files[t->nfiles++] = xstrdup("???");   /* file 0: none before DWARF 5 */
		while (c->p < c->end && *c->p) {
			name = rd_str(c);
			dir = rd_uleb(c);
			rd_uleb(c);   /* modification time */
			rd_uleb(c);   /* length */
			if (c->bad || !name || dir >= ndirs)
				goto out;
			HPA_GROW(t->files, t->nfiles + 1, afiles);
			t->files[t->nfiles++] = join(dirs[dir], name);
		}
		skip_end(c);
		ok = !c->bad;
		goto out;
	}
	/* DWARF 5: the directories, then the files, each list with its entries' format */
	for (pass = 0; pass < 2; pass++) {
		nfmt = (size_t)rd_n(c, 1);
		if (nfmt > 16)
			goto out;
		for (k = 0; k < 2 * nfmt; k++)
			fmt[k] = rd_uleb(c);
		n = rd_uleb(c);
		if (c->bad || n > (uint64_t)(c->end - c->p))
			goto out;
		for (i = 0; i < n; i++) {
			if (!read_entry(c, s, fmt, nfmt, offset_size, &name, &dir) || !name)
				goto out;
			if (!pass) {
				HPA_GROW(dirs, ndirs + 1, adirs);
				dirs[ndirs++] = name;
				continue;
			}
			if (dir >= ndirs)
				goto out;
			HPA_GROW(t->files, t->nfiles + 1, afiles);
			t->files[t->nfiles++] = join(dirs[dir], name);
		}
	}
	ok = !c->bad;
out:
	free(dirs);
	return ok;
}

/* a + b, wrapping as the line register does in a hostile file (no signed overflow). */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

static void add_row(struct cu_lines *t, size_t *alloc, uint64_t addr, uint64_t file, int64_t line,
		    bool end)
{
	struct line_row *r;

	if (t->nrows == *alloc) {
		/*
		 * Doubling in place (xrealloc), not HPA_GROW: its room for
		 * growth, sized for the profile's large tables, would take
		 * megabytes of fresh pages for each compile unit.
		 */
		*alloc = *alloc ? 2 * *alloc : 256;
		t->rows = xrealloc(t->rows, st_mult(*alloc, sizeof(*t->rows)));
	}
	r = &t->rows[t->nrows];
	r->addr = addr;
	r->file = file > UINT32_MAX ? UINT32_MAX : (uint32_t)file;
	r->line = line > INT32_MAX || line < INT32_MIN ? 0 : (int32_t)line;
	r->order = (uint32_t)t->nrows;
	r->end = end;
	t->nrows++;
}

/* A line program's header, as its opcodes need it. */
struct line_header {
	unsigned version, offset_size, min_insn, line_range, opcode_base;
	int64_t line_base;
	const unsigned char *lengths;    /* standard opcodes' operand counts */
	struct cursor prog;              /* the opcodes */
};

/* The line program's state: the row being made, and the rows' room. */
struct line_state {
	uint64_t addr, file;
	int64_t line;
	size_t arows;
};

/* The unit's header up to its file tables (c is left at them); false if hpa declines it. */
static bool line_header_read(struct line_header *h, struct cursor *c)
{
	uint64_t unit_length, header_length;

	h->offset_size = 4;
	unit_length = rd_n(c, 4);
	if (unit_length == 0xffffffff) {
		h->offset_size = 8;
		unit_length = rd_n(c, 8);
	} else if (unit_length >= 0xfffffff0) {
		return false;
	}
	if (c->bad || unit_length > (uint64_t)(c->end - c->p))
		return false;
	c->end = c->p + unit_length;
	h->version = (unsigned)rd_n(c, 2);
	if (h->version < 2 || h->version > 5)
		return false;
	if (h->version >= 5) {
		unsigned address_size = (unsigned)rd_n(c, 1);
		if (rd_n(c, 1) != 0 || address_size != 8)   /* a segment selector; not x86-64 or arm64 */
			return false;
	}
	header_length = rd_n(c, h->offset_size);
	if (c->bad || header_length > (uint64_t)(c->end - c->p))
		return false;
	h->prog.p = c->p + header_length;
	h->prog.end = c->end;
	h->prog.bad = false;
	h->min_insn = (unsigned)rd_n(c, 1);
	if (h->version >= 4 && rd_n(c, 1) != 1)
		return false;   /* VLIW operation indexes */
	rd_n(c, 1);   /* default_is_stmt: rows are kept either way */
	h->line_base = (int8_t)rd_n(c, 1);
	h->line_range = (unsigned)rd_n(c, 1);
	h->opcode_base = (unsigned)rd_n(c, 1);
	if (c->bad || !h->line_range || !h->opcode_base || h->opcode_base - 1 > (size_t)(c->end - c->p))
		return false;
	h->lengths = c->p;
	c->p += h->opcode_base - 1;
	return true;
}

/* An extended opcode (after its 0); false if hpa declines the program. */
static bool extended_op(struct cu_lines *t, struct line_state *st, struct cursor *prog)
{
	uint64_t len = rd_uleb(prog);
	const unsigned char *next;
	unsigned sub;

	if (prog->bad || !len || len > (uint64_t)(prog->end - prog->p))
		return false;
	next = prog->p + len;
	sub = *prog->p++;
	if (sub == DW_LNE_end_sequence) {
		add_row(t, &st->arows, st->addr, st->file, st->line, true);
		st->addr = 0;
		st->file = 1;
		st->line = 1;
	} else if (sub == DW_LNE_set_address) {
		if (len != 9)
			return false;
		st->addr = rd_n(prog, 8);
	} else if (sub == DW_LNE_define_file) {
		return false;
	}
	prog->p = next;   /* set_discriminator and the rest: skipped */
	return true;
}

/* A standard opcode (below opcode_base, not 0). */
static void standard_op(struct cu_lines *t, struct line_state *st, const struct line_header *h,
			struct cursor *prog, unsigned op)
{
	unsigned k;

	switch (op) {
	case DW_LNS_copy:
		add_row(t, &st->arows, st->addr, st->file, st->line, false);
		break;
	case DW_LNS_advance_pc:
		st->addr += (uint64_t)h->min_insn * rd_uleb(prog);
		break;
	case DW_LNS_advance_line:
		st->line = wrap_add(st->line, rd_sleb(prog));
		break;
	case DW_LNS_set_file:
		st->file = rd_uleb(prog);
		break;
	case DW_LNS_const_add_pc:
		st->addr += (uint64_t)h->min_insn * ((255 - h->opcode_base) / h->line_range);
		break;
	case DW_LNS_fixed_advance_pc:
		st->addr += rd_n(prog, 2);
		break;
	case DW_LNS_set_column:
	case DW_LNS_set_isa:
		rd_uleb(prog);
		break;
	case DW_LNS_negate_stmt:
	case DW_LNS_set_basic_block:
	case DW_LNS_set_prologue_end:
	case DW_LNS_set_epilogue_begin:
		break;
	default:   /* an opcode of a later version: its operands are ULEBs */
		for (k = 0; k < h->lengths[op - 1]; k++)
			rd_uleb(prog);
		break;
	}
}

/* The line program's rows into t; false if hpa declines it. */
static bool run_program(struct cu_lines *t, struct line_header *h)
{
	struct line_state st = { 0, 1, 1, 0 };
	struct cursor *prog = &h->prog;

	while (prog->p < prog->end && !prog->bad) {
		unsigned op = *prog->p++;

		if (op >= h->opcode_base) {
			unsigned adj = op - h->opcode_base;
			st.addr += (uint64_t)h->min_insn * (adj / h->line_range);
			st.line = wrap_add(st.line, h->line_base + (int64_t)(adj % h->line_range));
			add_row(t, &st.arows, st.addr, st.file, st.line, false);
		} else if (op == 0) {
			if (!extended_op(t, &st, prog))
				return false;
		} else {
			standard_op(t, &st, h, prog, op);
		}
	}
	return !prog->bad;
}

int cu_lines_read(struct cu_lines *t, struct line_sections *secs, Dwarf_Die *cu)
{
	Dwarf_Attribute attr;
	Dwarf_Word off;
	struct line_header h;
	struct cursor c;
	const char *comp_dir;
	Dwarf *dbg;

	memset(t, 0, sizeof(*t));
	dbg = cu->cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	if (dbg && secs->dbg != dbg)
		find_sections(secs, dbg);
	if (!secs->line || dwarf_formudata(dwarf_attr(cu, DW_AT_stmt_list, &attr), &off) != 0 ||
	    off >= secs->line_size)
		return -1;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	c.p = secs->line + off;
	c.end = secs->line + secs->line_size;
	c.bad = false;
	if (!line_header_read(&h, &c))
		return -1;
	if (!read_files(t, &c, secs, h.version, h.offset_size, comp_dir) || !run_program(t, &h)) {
		cu_lines_release(t);
		return -1;
	}
	if (!rows_sorted(t))
		qsort(t->rows, t->nrows, sizeof(*t->rows), cmp_row);
	/* As libdw does: the row at the highest address ends a sequence, whatever it was. */
	if (t->nrows)
		t->rows[t->nrows - 1].end = true;
	return 0;
}

/* The first of sorted pcs[from, npcs) whose CU-relative address is at or above addr. */
static size_t first_pc_at(const uint64_t *pcs, size_t from, size_t npcs, uint64_t bias, uint64_t addr)
{
	size_t lo = from, hi = npcs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pcs[mid] < bias || pcs[mid] - bias < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last of rows [from, nrows) at or below addr; row `from` is. */
static size_t last_row_at(const struct cu_lines *t, size_t from, uint64_t addr)
{
	size_t lo = from + 1, hi = t->nrows;

	while (lo < hi) {   /* the first row above addr */
		size_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* The last row at or below addr, or NULL when the first is above it. */
static const struct line_row *row_at(const struct cu_lines *t, uint64_t addr)
{
	return t->nrows && t->rows[0].addr <= addr ? &t->rows[last_row_at(t, 0, addr)] : NULL;
}

/* Once answered: the answer of addr (one row each, by address), or NULL. */
static const struct line_row *answer_of(const struct cu_lines *t, uint64_t addr)
{
	const struct line_row *r = row_at(t, addr);

	return r && r->addr == addr ? r : NULL;
}

const struct line_row *cu_lines_find(const struct cu_lines *t, uint64_t addr)
{
	const struct line_row *r;

	if (t->answered)
		return answer_of(t, addr);
	r = row_at(t, addr);
	return r && !r->end ? r : NULL;
}

/*
 * Each address gets the last row at or below it, as cu_lines_find()
 * picks it, and the addresses up to the next row the same: none when that
 * row ends a sequence (the last row does, cu_lines_read), nor below the
 * first row.  A search per row that holds addresses (or gap they fall
 * in), not a walk of every row: a unit's addresses are few.
 */
void cu_lines_answer(struct cu_lines *t, const uint64_t *pcs, size_t npcs, uint64_t bias)
{
	struct line_row *ans = NULL;
	size_t nans = 0, aans = 0, j = 0, k;

	if (t->answered)
		return;
	k = t->nrows ? first_pc_at(pcs, 0, npcs, bias, t->rows[0].addr) : npcs;
	while (k < npcs) {
		uint64_t next;

		j = last_row_at(t, j, pcs[k] - bias);
		if (j + 1 == t->nrows)
			break;
		next = t->rows[j + 1].addr;
		if (t->rows[j].end) {
			k = first_pc_at(pcs, k, npcs, bias, next);
			continue;
		}
		for (; k < npcs && pcs[k] - bias < next; k++) {
			if (nans == aans) {
				aans = aans ? 2 * aans : 16;
				ans = xrealloc(ans, st_mult(aans, sizeof(*ans)));
			}
			ans[nans] = t->rows[j];
			ans[nans++].addr = pcs[k] - bias;
		}
	}
	free(t->rows);
	t->rows = ans;   /* its room trimmed: only a few hundred bytes a unit should stay */
	if (nans)
		t->rows = xrealloc(ans, nans * sizeof(*ans));
	t->nrows = nans;
	t->pcs = pcs;
	t->npcs = npcs;
	t->bias = bias;
	t->answered = true;
}

const struct line_row *cu_lines_lookup(const struct cu_lines *t, uint64_t addr, bool *known)
{
	const struct line_row *r;
	size_t k;

	*known = true;
	if (!t->answered)
		return cu_lines_find(t, addr);
	if ((r = answer_of(t, addr)))
		return r;
	if (addr > UINT64_MAX - t->bias) {
		*known = false;
		return NULL;
	}
	k = first_pc_at(t->pcs, 0, t->npcs, t->bias, addr);
	*known = k < t->npcs && t->pcs[k] - t->bias == addr;   /* asked, and no row holds it */
	return NULL;
}

const char *cu_lines_file(const struct cu_lines *t, uint64_t idx)
{
	return idx < t->nfiles ? t->files[idx] : NULL;
}

void cu_lines_release(struct cu_lines *t)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
