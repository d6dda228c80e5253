/*
 * Private to src/sym: reading DWARF's own encodings from a section held in
 * memory (lines.c, dies.c).  A cursor never reads past its end: a read
 * that would marks it bad, returns 0 and leaves it at the end, so a
 * decoder checks `bad` once per entry rather than after every field.
 */
#ifndef HPA_SYM_DWREAD_H
#define HPA_SYM_DWREAD_H

#include <elfutils/libdw.h>
#include <string.h>

#include "hpa/compat.h"

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static inline uint64_t rd_n(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if ((size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	for (i = 0; i < n; i++)   /* little-endian: the machines hpa reads profiles of */
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/* A LEB128 number's bits; *shift: how many it had, *sign: its top bit. */
static inline uint64_t rd_leb(struct cursor *c, unsigned *shift, bool *sign)
{
	uint64_t v = 0;

	*shift = 0;
	while (c->p < c->end) {
		unsigned char b = *c->p++;

		if (*shift < 64)
			v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
		if (!(b & 0x80)) {
			*sign = (b & 0x40) != 0;
			return v;
		}
	}
	c->bad = true;
	*sign = false;
	return 0;
}

static inline uint64_t rd_uleb(struct cursor *c)
{
	unsigned shift;
	bool sign;

	return rd_leb(c, &shift, &sign);
}

static inline int64_t rd_sleb(struct cursor *c)
{
	unsigned shift;
	bool sign;
	uint64_t v = rd_leb(c, &shift, &sign);

	if (sign && shift < 64)
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* Past the byte that ends a list of entries. */
static inline void skip_end(struct cursor *c)
{
	if (c->p < c->end)
		c->p++;
	else
		c->bad = true;
}

/* A NUL-terminated string at the cursor, or NULL. */
static inline const char *rd_str(struct cursor *c)
{
	const unsigned char *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
	const char *s = (const char *)c->p;

	if (!nul) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

/* The string at offset `off` of a string section, or NULL. */
static inline const char *str_at(const unsigned char *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)sec + off;
}

/*
 * The data of the named sections of dbg's ELF file, as libdw reads them:
 * data[i] and size[i] for names[i], NULL and 0 for a section the file lacks
 * or holds still compressed (libdw inflates what it reads; such a section
 * is left to it).
 */
void dw_sections(Dwarf *dbg, const char *const *names, size_t n, const unsigned char **data,
		 size_t *size);

#endif
