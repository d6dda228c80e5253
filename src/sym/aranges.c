/*
 * .debug_aranges read by hand (dies.h): the address ranges of each compile
 * unit, sorted for a binary search by address.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/xalloc.h"
#include "dies.h"
#include "dwread.h"

struct arange_entry {
	uint64_t addr, len, cu;
	size_t order;            /* place in the section: equal addresses keep it */
};

static int cmp_entry(const void *a, const void *b)
{
	const struct arange_entry *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

int die_aranges_read(struct die_aranges *a, const struct die_sections *s)
{
	struct arange_entry *e = NULL;
	size_t n = 0, alloc = 0, i;
	struct cursor c;

	memset(a, 0, sizeof(*a));
	if (!s->aranges || !s->info)
		return -1;
	c.p = s->aranges;
	c.end = s->aranges + s->aranges_size;
	c.bad = false;
	while (c.p < c.end) {   /* one set per CU: its header, then (address, length) pairs */
		const unsigned char *set = c.p, *set_end;
		uint64_t len = rd_n(&c, 4), cu;
		unsigned os = 4, asize;

		if (len == 0xffffffff) {
			len = rd_n(&c, 8);
			os = 8;
		} else if (len >= 0xfffffff0) {
			goto decline;
		}
		if (c.bad || len > (uint64_t)(c.end - c.p))
			goto decline;
		set_end = c.p + len;
		if (rd_n(&c, 2) != 2)
			goto decline;
		cu = rd_n(&c, os);
		asize = (unsigned)rd_n(&c, 1);
		if (c.bad || (asize != 4 && asize != 8) || rd_n(&c, 1) != 0 || cu >= s->info_size)
			goto decline;
		c.p += (2 * asize - (size_t)(c.p - set) % (2 * asize)) % (2 * asize);
		for (;;) {
			uint64_t addr = rd_n(&c, asize), l = rd_n(&c, asize);

			if (c.bad)
				goto decline;
			if (!addr && !l) {   /* the end, or (a producer's bug) a pair of zeros inside */
				if (c.p >= set_end)
					break;
				continue;
			}
			HPA_GROW(e, n + 1, alloc);
			e[n] = (struct arange_entry){ addr, l, cu, n };
			n++;
		}
	}
	if (!n) {
		free(e);
		return 0;
	}
	qsort(e, n, sizeof(*e), cmp_entry);
	a->runs = xmalloc(st_mult(n, sizeof(*a->runs)));
	for (i = 0; i < n; i++)
		if (!i || e[i].cu != e[i - 1].cu)
			a->runs[a->nruns++] = (struct die_arange_run){ e[i].addr, e[i].cu };
	a->last_end = e[n - 1].addr + e[n - 1].len;
	free(e);
	return 0;
decline:
	free(e);
	return -1;
}

int die_aranges_find(const struct die_aranges *a, const struct die_sections *s, uint64_t addr,
		     uint64_t *die_off)
{
	size_t lo = 0, hi = a->nruns, idx;
	struct cursor c;
	uint64_t len, off;
	unsigned version, os = 4;

	for (;;) {   /* libdwfl's search, step for step */
		if (lo >= hi)
			return 0;
		idx = lo + (hi - lo) / 2;
		if (addr < a->runs[idx].start) {
			hi = idx;
			continue;
		}
		if (addr > a->runs[idx].start) {
			if (idx + 1 < a->nruns) {
				if (addr >= a->runs[idx + 1].start) {
					lo = idx + 1;
					continue;
				}
			} else if (addr > a->last_end) {
				return 0;
			}
		}
		break;
	}
	/* the CU's first DIE: past its header, whose size its version and unit type give */
	off = a->runs[idx].cu;
	c.p = s->info + off;
	c.end = s->info + s->info_size;
	c.bad = false;
	len = rd_n(&c, 4);
	if (len == 0xffffffff) {
		len = rd_n(&c, 8);
		os = 8;
	}
	version = (unsigned)rd_n(&c, 2);
	if (c.bad || version < 2 || version > 5 || len > (uint64_t)(c.end - c.p) + 2)
		return -1;
	if (version == 5) {
		unsigned type = (unsigned)rd_n(&c, 1);
		if (type != DW_UT_compile && type != DW_UT_partial)
			return -1;
	}
	*die_off = off + die_unit_header_size(version, os);
	return *die_off < s->info_size ? 1 : -1;
}

void die_aranges_release(struct die_aranges *a)
{
	free(a->runs);
	memset(a, 0, sizeof(*a));
}
