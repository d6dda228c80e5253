/*
 * A compile unit's DIEs read by hand (dies.h): its abbreviations into a
 * table by code, each with the size of its attributes when that is fixed,
 * then DIE after DIE.
 */
#include "hpa/compat.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/xalloc.h"
#include "dies.h"
#include "dwread.h"

#define VAR_SIZE 0xff       /* a form whose size is in its value */
#define NO_FORM 0xfe        /* a form not handled here */
#define MAX_CODES 65536     /* codes this high are not a compiler's */

void die_find_sections(struct die_sections *s, Dwarf *dbg)
{
	static const char *const names[] = {
		".debug_info", ".debug_abbrev", ".debug_ranges", ".debug_rnglists", ".debug_addr",
		".debug_aranges", ".debug_str", ".debug_line_str", ".debug_str_offsets",
	};
	const unsigned char *data[9];
	size_t size[9];
	Elf *elf = dwarf_getelf(dbg);
	GElf_Ehdr eh;

	memset(s, 0, sizeof(*s));
	s->dbg = dbg;
	if (!elf || !gelf_getehdr(elf, &eh) || eh.e_type == ET_REL)
		return;   /* a relocatable file's DWARF needs its relocations: libdw's */
	dw_sections(dbg, names, 9, data, size);
	s->info = data[0];
	s->info_size = size[0];
	s->abbrev = data[1];
	s->abbrev_size = size[1];
	s->ranges = data[2];
	s->ranges_size = size[2];
	s->rnglists = data[3];
	s->rnglists_size = size[3];
	s->addr = data[4];
	s->addr_size = size[4];
	s->aranges = data[5];
	s->aranges_size = size[5];
	s->str = data[6];
	s->str_size = size[6];
	s->line_str = data[7];
	s->line_str_size = size[7];
	s->str_offsets = data[8];
	s->str_offsets_size = size[8];
}

/* The size of a form's value in unit u: fixed, VAR_SIZE, or NO_FORM. */
static unsigned form_size(const struct die_unit *u, unsigned form)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return 0;
	case DW_FORM_data1:
	case DW_FORM_ref1:
	case DW_FORM_flag:
	case DW_FORM_strx1:
	case DW_FORM_addrx1:
		return 1;
	case DW_FORM_data2:
	case DW_FORM_ref2:
	case DW_FORM_strx2:
	case DW_FORM_addrx2:
		return 2;
	case DW_FORM_strx3:
	case DW_FORM_addrx3:
		return 3;
	case DW_FORM_data4:
	case DW_FORM_ref4:
	case DW_FORM_strx4:
	case DW_FORM_addrx4:
	case DW_FORM_ref_sup4:
		return 4;
	case DW_FORM_data8:
	case DW_FORM_ref8:
	case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return 8;
	case DW_FORM_data16:
		return 16;
	case DW_FORM_addr:
		return u->addr_size;
	case DW_FORM_ref_addr:
		return u->version == 2 ? u->addr_size : u->offset_size;
	case DW_FORM_strp:
	case DW_FORM_line_strp:
	case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_GNU_strp_alt:
		return u->offset_size;
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_block:
	case DW_FORM_exprloc:
	case DW_FORM_string:
	case DW_FORM_sdata:
	case DW_FORM_udata:
	case DW_FORM_ref_udata:
	case DW_FORM_strx:
	case DW_FORM_addrx:
	case DW_FORM_loclistx:
	case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index:
	case DW_FORM_GNU_str_index:
		return VAR_SIZE;
	default:   /* DW_FORM_indirect among them */
		return NO_FORM;
	}
}

/* Past a value of a variable-size form (its number, if it is one, to *v). */
static void skip_var(struct cursor *c, unsigned form, uint64_t *v)
{
	uint64_t len = 0;

	switch (form) {
	case DW_FORM_block1:
		len = rd_n(c, 1);
		break;
	case DW_FORM_block2:
		len = rd_n(c, 2);
		break;
	case DW_FORM_block4:
		len = rd_n(c, 4);
		break;
	case DW_FORM_block:
	case DW_FORM_exprloc:
		len = rd_uleb(c);
		break;
	case DW_FORM_string:
		rd_str(c);
		return;
	case DW_FORM_sdata:
		*v = (uint64_t)rd_sleb(c);
		return;
	default:   /* the ULEB128 forms */
		*v = rd_uleb(c);
		return;
	}
	if (len > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		c->p = c->end;
	} else {
		c->p += len;
	}
}

static int read_abbrevs(struct die_unit *u, uint64_t off)
{
	const struct die_sections *s = u->s;
	struct cursor c;
	size_t aspecs = 0, alloc = 0;
	uint64_t max_code = 0;

	if (!s->abbrev || off >= s->abbrev_size)
		return -1;
	c.p = s->abbrev + off;
	c.end = s->abbrev + s->abbrev_size;
	c.bad = false;
	for (;;) {
		uint64_t code = rd_uleb(&c), tag, name, form;
		struct die_abbrev *a;
		uint32_t fixed = 0;

		if (c.bad)
			return -1;
		if (!code)
			break;
		tag = rd_uleb(&c);
		if (c.bad || code >= MAX_CODES || !tag || tag > UINT32_MAX)
			return -1;
		if (code >= u->nabbrevs) {
			size_t n = code + 1 > 2 * u->nabbrevs ? code + 1 : 2 * u->nabbrevs;
			u->abbrevs = xgrow(u->abbrevs, alloc * sizeof(*u->abbrevs),
					   st_mult(n, sizeof(*u->abbrevs)));
			memset(u->abbrevs + alloc, 0, (n - alloc) * sizeof(*u->abbrevs));
			alloc = u->nabbrevs = n;
		}
		a = &u->abbrevs[code];
		if (a->tag)
			return -1;   /* a code twice */
		if (code > max_code)
			max_code = code;
		a->tag = (uint32_t)tag;
		a->children = rd_n(&c, 1) != 0;
		a->first = (uint32_t)u->nspecs;
		for (;;) {
			struct die_spec *sp;
			unsigned size;
			uint32_t at;

			name = rd_uleb(&c);
			form = rd_uleb(&c);
			if (c.bad)
				return -1;
			if (!name && !form)
				break;
			size = form_size(u, (unsigned)form);
			if (name > UINT16_MAX || form > UINT16_MAX || size == NO_FORM)
				return -1;
			HPA_GROW(u->specs, u->nspecs + 1, aspecs);
			sp = &u->specs[u->nspecs++];
			sp->name = (uint16_t)name;
			sp->form = (uint16_t)form;
			sp->size = (uint8_t)size;
			sp->implicit = form == DW_FORM_implicit_const ? rd_sleb(&c) : 0;
			at = fixed;
			if (size == VAR_SIZE || fixed == UINT32_MAX)
				fixed = UINT32_MAX;
			else
				fixed += size;
			if (name == DW_AT_declaration)
				a->declaration = true;
			if (name == DW_AT_low_pc || name == DW_AT_high_pc || name == DW_AT_ranges)
				a->pc = true;
			if (name == DW_AT_sibling && !a->sibling) {   /* libdw takes the first */
				a->sibling = true;
				a->sib_form = (uint16_t)form;
				a->sib_at = at;   /* UINT32_MAX once a size varies */
			}
		}
		a->nspecs = (uint32_t)u->nspecs - a->first;
		a->fixed = fixed;
	}
	u->nabbrevs = (size_t)max_code + 1;
	return 0;
}

int die_unit_facts(Dwarf_Die *cu, struct die_unit_facts *f)
{
	Dwarf_Half version;
	Dwarf_Attribute attr;
	Dwarf_Word w;
	Dwarf_Off abbrev_off;
	uint8_t unit_type, addr_size, offset_size;

	memset(f, 0, sizeof(*f));
	if (!cu->cu ||
	    dwarf_cu_info(cu->cu, &version, &unit_type, NULL, NULL, NULL, &addr_size, &offset_size) != 0 ||
	    !dwarf_cu_die(cu->cu, &(Dwarf_Die){ 0 }, NULL, &abbrev_off, NULL, NULL, NULL, NULL))
		return -1;
	f->die_off = dwarf_dieoffset(cu);
	f->abbrev_off = abbrev_off;
	f->version = version;
	f->unit_type = unit_type;
	f->addr_size = addr_size;
	f->offset_size = offset_size;
	if (dwarf_lowpc(cu, &f->base) != 0 &&
	    dwarf_formaddr(dwarf_attr(cu, DW_AT_entry_pc, &attr), &f->base) != 0)
		f->base = 0;
	if ((dwarf_attr(cu, DW_AT_addr_base, &attr) || dwarf_attr(cu, DW_AT_GNU_addr_base, &attr)) &&
	    dwarf_formudata(&attr, &w) == 0) {
		f->addr_base = w;
		f->has_addr_base = true;
	}
	if (version >= 5 && dwarf_attr(cu, DW_AT_rnglists_base, &attr) &&
	    dwarf_formudata(&attr, &w) == 0 && w) {
		f->rnglists_base = w;
		f->has_rnglists_base = true;
	}
	if (version >= 5 && dwarf_attr(cu, DW_AT_str_offsets_base, &attr) &&
	    dwarf_formudata(&attr, &w) == 0) {
		f->str_offsets_base = w;
		f->has_str_offsets_base = true;
	}
	return 0;
}

int die_unit_init(struct die_unit *u, const struct die_sections *s, const struct die_unit_facts *f)
{
	struct cursor c;
	uint64_t len, start;
	size_t hdr;
	struct die d;

	memset(u, 0, sizeof(*u));
	u->s = s;
	if (!s->info || f->die_off >= s->info_size || f->version < 2 || f->version > 5 ||
	    (f->unit_type != DW_UT_compile && f->unit_type != DW_UT_partial) ||
	    (f->addr_size != 4 && f->addr_size != 8) || (f->offset_size != 4 && f->offset_size != 8))
		return -1;
	u->version = f->version;
	u->addr_size = f->addr_size;
	u->offset_size = f->offset_size;
	u->base = f->base;
	u->addr_base = f->addr_base;
	u->has_addr_base = f->has_addr_base;
	u->rnglists_base = f->rnglists_base;
	u->has_rnglists_base = f->has_rnglists_base;
	u->str_offsets_base = f->str_offsets_base;
	u->has_str_offsets_base = f->has_str_offsets_base;
	hdr = die_unit_header_size(f->version, f->offset_size);
	if (f->die_off < hdr)
		return -1;
	start = f->die_off - hdr;
	c.p = s->info + start;
	c.end = s->info + s->info_size;
	c.bad = false;
	len = rd_n(&c, 4);
	if (f->offset_size == 8 && len == 0xffffffff)
		len = rd_n(&c, 8);
	else if (f->offset_size == 8 || len >= 0xfffffff0)
		return -1;
	if (c.bad || len > (uint64_t)(c.end - c.p) || len < hdr - (f->offset_size == 8 ? 12 : 4) ||
	    rd_n(&c, 2) != f->version)
		return -1;
	u->start = s->info + start;
	u->end = c.p - 2 + len;
	if (read_abbrevs(u, f->abbrev_off) < 0 || die_read(u, s->info + f->die_off, &d, DIE_PC_NONE) < 0 ||
	    !d.ab) {
		die_unit_release(u);
		return -1;
	}
	u->first = d.ab->children ? d.next : u->end;
	return 0;
}

int die_unit_open(struct die_unit *u, struct die_sections *s, Dwarf_Die *cu)
{
	Dwarf *dbg = cu->cu ? dwarf_cu_getdwarf(cu->cu) : NULL;
	struct die_unit_facts f;

	memset(u, 0, sizeof(*u));
	if (!dbg)
		return -1;
	if (s->dbg != dbg)
		die_find_sections(s, dbg);
	if (die_unit_facts(cu, &f) < 0 || !s->info || f.die_off >= s->info_size ||
	    (const unsigned char *)cu->addr != s->info + f.die_off)
		return -1;   /* not the data libdw reads */
	return die_unit_init(u, s, &f);
}

/* Past an attribute's value: its number, for the forms that hold one (else 0). */
static uint64_t attr_value(struct cursor *c, const struct die_spec *sp)
{
	uint64_t v = 0;

	if (sp->size == VAR_SIZE)
		skip_var(c, sp->form, &v);
	else if (sp->size <= 8)
		v = rd_n(c, sp->size);
	else   /* data16: two halves */
		rd_n(c, 8), rd_n(c, 8);
	return v;
}

/* Where a DW_AT_sibling of `form` and value v points, NULL for a form that is not a reference. */
static const unsigned char *sibling_at(const struct die_unit *u, unsigned form, uint64_t v)
{
	switch (form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		return v < (uint64_t)(u->end - u->start) ? u->start + v : NULL;
	case DW_FORM_ref_addr:
		return v < u->s->info_size ? u->s->info + v : NULL;
	default:
		return NULL;
	}
}

int die_read(const struct die_unit *u, const unsigned char *p, struct die *d, enum die_pc which)
{
	struct cursor c = { p, u->end, false };
	const struct die_abbrev *a;
	const struct die_spec *sp, *end;
	uint64_t code;
	bool pc;

	d->off = (uint64_t)(p - u->s->info);
	d->low.at = d->high.at = d->ranges.at = NULL;
	d->sibling = NULL;
	code = rd_uleb(&c);
	if (c.bad)
		return -1;
	if (!code) {
		d->ab = NULL;
		d->next = c.p;
		return 0;
	}
	if (code >= u->nabbrevs || !u->abbrevs[code].tag)
		return -1;
	d->ab = a = &u->abbrevs[code];
	pc = a->pc && (which == DIE_PC_ALL || (which == DIE_PC_CODE && die_has_code(a->tag)));
	if (a->fixed != UINT32_MAX && !pc) {   /* no attribute to look at but the sibling */
		if (a->fixed > (size_t)(c.end - c.p))
			return -1;
		d->next = c.p + a->fixed;
		if (a->sibling) {
			struct cursor s = { c.p + a->sib_at, d->next, false };
			d->sibling = sibling_at(u, a->sib_form, rd_n(&s, form_size(u, a->sib_form)));
		}
		return 0;
	}
	sp = u->specs + a->first;
	for (end = sp + a->nspecs; sp < end; sp++) {
		const unsigned char *at = c.p;
		uint64_t v = attr_value(&c, sp);

		switch (sp->name) {
		case DW_AT_low_pc:
			if (pc && !d->low.at)
				d->low = (struct die_attr){ sp->form, at, sp->implicit };
			break;
		case DW_AT_high_pc:
			if (pc && !d->high.at)
				d->high = (struct die_attr){ sp->form, at, sp->implicit };
			break;
		case DW_AT_ranges:
			if (pc && !d->ranges.at)
				d->ranges = (struct die_attr){ sp->form, at, sp->implicit };
			break;
		case DW_AT_sibling:
			if (!d->sibling)
				d->sibling = sibling_at(u, sp->form, v);
			break;
		default:
			break;
		}
	}
	if (c.bad)
		return -1;
	d->next = c.p;
	return 0;
}

const unsigned char *die_skip_children(const struct die_unit *u, const struct die *d)
{
	const unsigned char *p = d->next;
	size_t depth = 1;

	if (!d->ab || !d->ab->children)
		return d->next;
	if (d->sibling && d->sibling >= d->next && d->sibling <= u->end)
		return d->sibling;
	while (depth) {
		struct die c;

		if (p >= u->end)
			return u->end;
		if (die_read(u, p, &c, DIE_PC_NONE) < 0)
			return NULL;
		if (!c.ab) {
			depth--;
		} else if (c.ab->children) {
			if (c.sibling && c.sibling >= c.next && c.sibling <= u->end) {
				p = c.sibling;
				continue;
			}
			depth++;
		}
		p = c.next;
	}
	return p;
}

/* The values of an attribute's forms, as libdw's dwarf_formudata() reads them for DW_AT_high_pc. */
static bool is_const_form(unsigned form)
{
	return form == DW_FORM_data1 || form == DW_FORM_data2 || form == DW_FORM_data4 ||
	       form == DW_FORM_data8 || form == DW_FORM_udata || form == DW_FORM_sdata ||
	       form == DW_FORM_implicit_const;
}

static uint64_t const_value(const struct die_unit *u, const struct die_attr *a)
{
	struct cursor c = { a->at, u->end, false };

	switch (a->form) {
	case DW_FORM_udata:
		return rd_uleb(&c);
	case DW_FORM_sdata:
		return (uint64_t)rd_sleb(&c);
	case DW_FORM_implicit_const:
		return (uint64_t)a->implicit;
	default:
		return rd_n(&c, form_size(u, a->form));
	}
}

static bool is_addr_form(unsigned form)
{
	return form == DW_FORM_addr || form == DW_FORM_addrx || form == DW_FORM_GNU_addr_index ||
	       form == DW_FORM_addrx1 || form == DW_FORM_addrx2 || form == DW_FORM_addrx3 ||
	       form == DW_FORM_addrx4;
}

/* Entry idx of the unit's .debug_addr table: 1, 0 where libdw finds none, -1 to decline. */
static int addr_index(const struct die_unit *u, uint64_t idx, uint64_t *v)
{
	const struct die_sections *s = u->s;
	struct cursor c;

	if (!u->has_addr_base)
		return -1;   /* libdw then looks past the table's header: left to it */
	if (!s->addr || u->addr_base > s->addr_size ||
	    idx >= (s->addr_size - u->addr_base) / u->addr_size)
		return 0;
	c.p = s->addr + u->addr_base + idx * u->addr_size;
	c.end = s->addr + s->addr_size;
	c.bad = false;
	*v = rd_n(&c, u->addr_size);
	return 1;
}

/* An address attribute's value, as dwarf_formaddr() gives it: 1, 0 for none, -1 to decline. */
static int attr_addr(const struct die_unit *u, const struct die_attr *a, uint64_t *v)
{
	struct cursor c = { a->at, u->end, false };
	uint64_t idx;

	if (!a->at || !is_addr_form(a->form))
		return 0;
	if (a->form == DW_FORM_addr) {
		*v = rd_n(&c, u->addr_size);
		return c.bad ? -1 : 1;
	}
	idx = a->form == DW_FORM_addrx || a->form == DW_FORM_GNU_addr_index ?
		rd_uleb(&c) : rd_n(&c, form_size(u, a->form));
	return c.bad ? -1 : addr_index(u, idx, v);
}

static void push_range(struct die_range **r, size_t *n, size_t *alloc, uint64_t low, uint64_t high)
{
	if (high <= low)
		return;
	HPA_GROW(*r, *n + 1, *alloc);
	(*r)[*n].low = low;
	(*r)[*n].high = high;
	(*n)++;
}

/* Where d's DW_AT_ranges list starts in its section: 0, or -1 to decline. */
static int list_offset(const struct die_unit *u, const struct die *d, uint64_t *off)
{
	const struct die_sections *s = u->s;
	struct cursor c = { d->ranges.at, u->end, false };
	unsigned form = d->ranges.form;
	uint64_t idx;

	if (form == DW_FORM_sec_offset)
		*off = rd_n(&c, u->offset_size);
	else if (u->version <= 3 && (form == DW_FORM_data4 || form == DW_FORM_data8))
		*off = rd_n(&c, form_size(u, form));
	else if (form != DW_FORM_rnglistx || u->version < 5 || !u->has_rnglists_base || !s->rnglists)
		return -1;
	else {   /* an index into the offsets after the unit's DW_AT_rnglists_base */
		idx = rd_uleb(&c);
		if (c.bad || u->rnglists_base > s->rnglists_size ||
		    idx >= (s->rnglists_size - u->rnglists_base) / u->offset_size)
			return -1;
		c.p = s->rnglists + u->rnglists_base + idx * u->offset_size;
		c.end = s->rnglists + s->rnglists_size;
		*off = rd_n(&c, u->offset_size) + u->rnglists_base;
	}
	return c.bad ? -1 : 0;
}

/* A DWARF 2-4 list in .debug_ranges: pairs, a base address selection, a pair of zeros to end. */
static int ranges_v4(const struct die_unit *u, struct cursor *c, struct die_range **r, size_t *n,
		     size_t *alloc)
{
	uint64_t base = u->base, escape = u->addr_size == 8 ? UINT64_MAX : 0xffffffff;

	for (;;) {
		uint64_t b = rd_n(c, u->addr_size), e = rd_n(c, u->addr_size);

		if (c->bad)
			return -1;
		if (b == escape) {
			if (e == escape)
				return -1;
			base = e;
		} else if (!b && !e) {
			return 0;
		} else {
			push_range(r, n, alloc, b + base, e + base);
		}
	}
}

/* A DWARF 5 list in .debug_rnglists: DW_RLE_* entries up to DW_RLE_end_of_list. */
static int ranges_v5(const struct die_unit *u, struct cursor *c, struct die_range **r, size_t *n,
		     size_t *alloc)
{
	uint64_t base = u->base;

	for (;;) {
		uint64_t b = 0, e = 0;
		unsigned kind = (unsigned)rd_n(c, 1);

		switch (kind) {
		case DW_RLE_end_of_list:
			return c->bad ? -1 : 0;
		case DW_RLE_base_addressx:
			if (addr_index(u, rd_uleb(c), &base) <= 0)
				return -1;
			continue;
		case DW_RLE_startx_endx:
			if (addr_index(u, rd_uleb(c), &b) <= 0 || addr_index(u, rd_uleb(c), &e) <= 0)
				return -1;
			break;
		case DW_RLE_startx_length:
			if (addr_index(u, rd_uleb(c), &b) <= 0)
				return -1;
			e = b + rd_uleb(c);
			break;
		case DW_RLE_offset_pair:
			b = rd_uleb(c) + base;
			e = rd_uleb(c) + base;
			break;
		case DW_RLE_base_address:
			base = rd_n(c, u->addr_size);
			continue;
		case DW_RLE_start_end:
			b = rd_n(c, u->addr_size);
			e = rd_n(c, u->addr_size);
			break;
		case DW_RLE_start_length:
			b = rd_n(c, u->addr_size);
			e = b + rd_uleb(c);
			break;
		default:
			return -1;
		}
		if (c->bad)
			return -1;
		push_range(r, n, alloc, b, e);
	}
}

int die_ranges(const struct die_unit *u, const struct die *d, struct die_range **r, size_t *n,
	       size_t *alloc)
{
	const struct die_sections *s = u->s;
	uint64_t low = 0, high = 0, off;
	int ok_low = 0, ok_high = 0;
	struct cursor c;

	*n = 0;
	/* dwarf_ranges(): DW_AT_high_pc (an address, or low_pc plus a constant) and DW_AT_low_pc */
	if (d->high.at) {
		if (!is_addr_form(d->high.form) && !is_const_form(d->high.form))
			return -1;
		ok_low = attr_addr(u, &d->low, &low);
		if (ok_low < 0)
			return -1;
		if (is_addr_form(d->high.form))
			ok_high = attr_addr(u, &d->high, &high);
		else if (ok_low)
			high = low + const_value(u, &d->high), ok_high = 1;
		if (ok_high < 0)
			return -1;
		if (ok_high && ok_low) {
			push_range(r, n, alloc, low, high);
			return 0;
		}
	}
	if (!d->ranges.at)
		return 0;
	if (list_offset(u, d, &off) < 0)
		return -1;
	c.p = u->version < 5 ? s->ranges : s->rnglists;
	c.end = c.p + (u->version < 5 ? s->ranges_size : s->rnglists_size);
	c.bad = false;
	if (!c.p || off >= (uint64_t)(c.end - c.p))
		return -1;
	c.p += off;
	return u->version < 5 ? ranges_v4(u, &c, r, n, alloc) : ranges_v5(u, &c, r, n, alloc);
}

void die_unit_release(struct die_unit *u)
{
	free(u->abbrevs);
	free(u->specs);
	u->abbrevs = NULL;
	u->specs = NULL;
	u->nabbrevs = u->nspecs = 0;
}

/* A string attribute's value, as dwarf_formstring() gives it: 1, or -1 for a form left to libdw. */
static int attr_string(const struct die_unit *u, unsigned form, const unsigned char *at,
		       const char **out)
{
	const struct die_sections *s = u->s;
	struct cursor c = { at, u->end, false };
	uint64_t off, idx;

	switch (form) {
	case DW_FORM_string:
		*out = rd_str(&c);
		return *out ? 1 : -1;
	case DW_FORM_strp:
		*out = str_at(s->str, s->str_size, rd_n(&c, u->offset_size));
		return *out && !c.bad ? 1 : -1;
	case DW_FORM_line_strp:
		*out = str_at(s->line_str, s->line_str_size, rd_n(&c, u->offset_size));
		return *out && !c.bad ? 1 : -1;
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:   /* an index into the unit's offsets in .debug_str_offsets */
		idx = form == DW_FORM_strx ? rd_uleb(&c) : rd_n(&c, form_size(u, form));
		if (c.bad || !u->has_str_offsets_base || !s->str_offsets ||
		    u->str_offsets_base > s->str_offsets_size ||
		    idx >= (s->str_offsets_size - u->str_offsets_base) / u->offset_size)
			return -1;
		c.p = s->str_offsets + u->str_offsets_base + idx * u->offset_size;
		c.end = s->str_offsets + s->str_offsets_size;
		off = rd_n(&c, u->offset_size);
		*out = str_at(s->str, s->str_size, off);
		return *out && !c.bad ? 1 : -1;
	default:
		return -1;
	}
}

/* An integer attribute's value, as dwarf_formudata() gives it: 1, or -1 for a form left to libdw. */
static int attr_udata(const struct die_unit *u, const struct die_attr *a, uint64_t *v)
{
	if (!is_const_form(a->form))
		return -1;
	*v = const_value(u, a);
	return 1;
}

/* The DIE a reference attribute names, within the unit: NULL when libdw should follow it. */
static const unsigned char *ref_target(const struct die_unit *u, const struct die_attr *a)
{
	struct cursor c = { a->at, u->end, false };
	uint64_t v;

	switch (a->form) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
		v = rd_n(&c, form_size(u, a->form));
		break;
	case DW_FORM_ref_udata:
		v = rd_uleb(&c);
		break;
	case DW_FORM_ref_addr:   /* another unit's: libdw's */
	default:
		return NULL;
	}
	if (c.bad || v >= (uint64_t)(u->end - u->start) || u->start + v < u->first)
		return NULL;
	return u->start + v;
}

enum { FA_NAME, FA_LINKAGE, FA_MIPS, FA_FILE, FA_LINE, FA_ORIGIN, FA_SPEC, FA_N };

/* Which of die_fn_attrs()'s attributes DW_AT_ `name` is; -1 for none. */
static int fa_of(unsigned name)
{
	switch (name) {
	case DW_AT_name:
		return FA_NAME;
	case DW_AT_linkage_name:
		return FA_LINKAGE;
	case DW_AT_MIPS_linkage_name:
		return FA_MIPS;
	case DW_AT_decl_file:
		return FA_FILE;
	case DW_AT_decl_line:
		return FA_LINE;
	case DW_AT_abstract_origin:
		return FA_ORIGIN;
	case DW_AT_specification:
		return FA_SPEC;
	default:
		return -1;
	}
}

int die_fn_attrs(const struct die_unit *u, uint64_t off, struct die_fn_attrs *out)
{
	struct die_attr found[FA_N];
	const unsigned char *p;
	int hops, i;

	memset(out, 0, sizeof(*out));
	memset(found, 0, sizeof(found));
	if (off >= u->s->info_size || u->s->info + off < u->first || u->s->info + off >= u->end)
		return -1;
	p = u->s->info + off;
	/* the DIE, then its origin's, ...: each attribute from the first that has it */
	for (hops = 0;; hops++) {
		struct cursor c = { p, u->end, false };
		struct die_attr here[FA_N];
		const struct die_abbrev *a;
		const struct die_spec *sp, *end;
		uint64_t code = rd_uleb(&c);

		if (hops == 16 || c.bad || !code || code >= u->nabbrevs || !u->abbrevs[code].tag)
			return -1;
		a = &u->abbrevs[code];
		memset(here, 0, sizeof(here));
		sp = u->specs + a->first;
		for (end = sp + a->nspecs; sp < end; sp++) {
			const unsigned char *at = c.p;
			int k;

			attr_value(&c, sp);
			k = fa_of(sp->name);
			if (k >= 0 && !here[k].at)   /* libdw takes a DIE's first */
				here[k] = (struct die_attr){ sp->form, at, sp->implicit };
		}
		if (c.bad)
			return -1;
		for (i = 0; i < FA_ORIGIN; i++)
			if (!found[i].at && here[i].at)
				found[i] = here[i];
		if (here[FA_ORIGIN].at)
			p = ref_target(u, &here[FA_ORIGIN]);
		else if (here[FA_SPEC].at)
			p = ref_target(u, &here[FA_SPEC]);
		else
			break;
		if (!p)
			return -1;
	}
	if ((found[FA_NAME].at && attr_string(u, found[FA_NAME].form, found[FA_NAME].at, &out->name) < 0) ||
	    (found[FA_LINKAGE].at &&
	     attr_string(u, found[FA_LINKAGE].form, found[FA_LINKAGE].at, &out->linkage) < 0))
		return -1;
	if (!out->linkage && found[FA_MIPS].at &&
	    attr_string(u, found[FA_MIPS].form, found[FA_MIPS].at, &out->linkage) < 0)
		return -1;
	if (found[FA_FILE].at) {
		if (attr_udata(u, &found[FA_FILE], &out->decl_file) < 0)
			return -1;
		out->has_decl_file = true;
	}
	if (found[FA_LINE].at) {
		if (attr_udata(u, &found[FA_LINE], &out->decl_line) < 0)
			return -1;
		out->has_decl_line = true;
	}
	return 0;
}
