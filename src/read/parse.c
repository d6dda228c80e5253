#include "hpa/compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hpa/unsample.h"
#include "hpa/xalloc.h"
#include "read.h"

void read_note(struct reader *r, enum read_note note)
{
	struct read_note_count *n = &r->notes[note];

	if (!n->count++)
		n->first_line = r->io.pos.line;
}

int read_err(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	return -1;
}

int read_fail(struct reader *r)
{
	return hpa_error_at(&r->io.pos, "%s", r->err);
}

int read_line_failed(struct reader *r)
{
	if (r->io.newline)
		return read_fail(r);
	/* A last line without newline that does not parse: the file was cut. */
	hpa_warn_at(&r->io.pos, "incomplete last line ignored; the profile looks truncated");
	r->io.newline = true;   /* reported: no second "no newline" warning */
	return 0;
}

const char *read_quote(const char *line, char *out, size_t outsz)
{
	return hpa_quote(line, strlen(line), out, outsz);
}

bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

void skip_blanks(const char **p)
{
	while (is_blank(**p))
		(*p)++;
}

char *trim(char *line, size_t *len)
{
	while (*len && is_blank(line[*len - 1]))
		line[--*len] = '\0';
	while (*len && is_blank(*line)) {
		line++;
		(*len)--;
	}
	return line;
}

/* Digit values plus one, 0 for non-hex bytes (constant: readers run on several threads). */
static const unsigned char hex_table[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hexval(char c)
{
	return hex_table[(unsigned char)c] - 1;
}

int hex_digit(char c)
{
	return hexval(c);
}

int parse_u64(struct reader *r, const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	char q[32];

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*s - '0'), &v)) {
			read_err(r, "number %s does not fit in 64 bits",
				 hpa_quote(*p, strspn(*p, "0123456789"), q, sizeof(q)));
			return -2;
		}
	}
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, char c)
{
	skip_blanks(p);
	if (**p != c)
		return -1;
	(*p)++;
	skip_blanks(p);
	return 0;
}

int parse_counts(struct reader *r, const char **p, uint64_t raw[HPA_NVALUES])
{
	const char *s = *p;
	char q[80];
	int rc;

	skip_blanks(&s);
	rc = parse_u64(r, &s, &raw[HPA_INUSE_OBJECTS]);
	if (!rc)
		rc = expect(&s, ':');
	if (!rc)
		rc = parse_u64(r, &s, &raw[HPA_INUSE_SPACE]);
	if (!rc)
		rc = expect(&s, '[');
	if (!rc)
		rc = parse_u64(r, &s, &raw[HPA_ALLOC_OBJECTS]);
	if (!rc)
		rc = expect(&s, ':');
	if (!rc)
		rc = parse_u64(r, &s, &raw[HPA_ALLOC_SPACE]);
	if (!rc)
		rc = expect(&s, ']');
	if (rc == -2)
		return -1;
	if (rc) {
		s = *p;
		skip_blanks(&s);
		return read_err(r, "malformed counts \"%s\" (expected OBJECTS: BYTES [OBJECTS: BYTES])",
				read_quote(s, q, sizeof(q)));
	}
	*p = s;
	return 0;
}

#if defined(__SSE2__)
#include <emmintrin.h>

/*
 * The common token, at most 16 hex digits then a blank or the end, read 16
 * bytes at a time (the line has HPA_LINEIO_PAD bytes after its end): which
 * bytes are digits in one compare, their values paired into bytes in a
 * few more.  Returns the bytes used, or 0 for anything else (the scalar
 * loop then reads it, and says what is wrong).
 */
static size_t hex16(const char *p, uint64_t *out)
{
	const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
	/* (x - lo) < n, unsigned, as a signed compare after moving lo to -128 */
	const __m128i dig = _mm_cmplt_epi8(_mm_add_epi8(b, _mm_set1_epi8((char)(0x80 - '0'))),
					   _mm_set1_epi8((char)(-128 + 10)));
	const __m128i alp = _mm_cmplt_epi8(_mm_add_epi8(_mm_or_si128(b, _mm_set1_epi8(0x20)),
						     _mm_set1_epi8((char)(0x80 - 'a'))),
					   _mm_set1_epi8((char)(-128 + 6)));
	const __m128i hex = _mm_or_si128(dig, alp);
	unsigned mask = ~(unsigned)_mm_movemask_epi8(hex) & 0xffff;
	size_t n = mask ? (size_t)__builtin_ctz(mask) : 16;
	__m128i v, pairs;
	uint64_t packed;

	if (!n || n == 16 || (p[n] && !is_blank(p[n])))
		return 0;
	/* a digit's value: its low four bits, plus 9 for a letter; 0 where no digit */
	v = _mm_and_si128(_mm_add_epi8(_mm_and_si128(b, _mm_set1_epi8(0x0f)),
				       _mm_and_si128(alp, _mm_set1_epi8(9))), hex);
	/* two digits a byte, the first high: (even << 4) | odd in each 16-bit lane */
	pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(v, _mm_set1_epi16(0x00ff)), 4),
			     _mm_srli_epi16(v, 8));
	pairs = _mm_packus_epi16(pairs, pairs);
	packed = (uint64_t)_mm_cvtsi128_si64(pairs);
	*out = __builtin_bswap64(packed) >> (4 * (16 - n));
	return n;
}
#endif

/*
 * The hex digits at *p, one or two at a time, into *out; *p past them.
 * -1 after reporting a token (from `tok`) that is not an address.
 */
static int hex_scalar(struct reader *r, const char *tok, const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t a = 0;
	size_t digits = 0;
	int d;
	char q[48];

	/* Two digits a step: half the shifts in the chain that adds them up. */
	while ((d = hexval(*p)) >= 0) {
		int d1 = hexval(p[1]);

		if (d1 < 0) {
			a = a << 4 | (unsigned)d;
			digits++;
			p++;
			break;
		}
		a = a << 8 | (unsigned)(d << 4 | d1);
		digits += 2;
		p += 2;
	}
	if ((*p && !is_blank(*p)) || p == tok) {
		while (*p && !is_blank(*p))
			p++;
		return read_err(r, "bad address \"%s\" in stack (expected hex)",
				hpa_quote(tok, (size_t)(p - tok), q, sizeof(q)));
	}
	if (digits > 16)
		return read_err(r, "address \"%s\" is longer than 16 hex digits",
				hpa_quote(tok, (size_t)(p - tok), q, sizeof(q)));
	*pp = p;
	*out = a;
	return 0;
}

int parse_addrs(struct reader *r, const char *p)
{
	r->addrs_nr = 0;
	for (;;) {
		const char *tok;
		uint64_t a = 0;
		size_t used = 0;

		while (is_blank(*p))
			p++;
		if (!*p)
			return 0;
		tok = p;
		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		while (*p == '0')
			p++;   /* leading zeros do not count toward the 16 digits */
#if defined(__SSE2__)
		used = hex16(p, &a);
#endif
		if (used)
			p += used;
		else if (hex_scalar(r, tok, &p, &a) < 0)
			return -1;
		if (r->addrs_nr == r->addrs_alloc)
			HPA_GROW(r->addrs, r->addrs_nr + 1, r->addrs_alloc);
		r->addrs[r->addrs_nr++] = a;
	}
}

void read_sample_notes(struct reader *r, const uint64_t raw[HPA_NVALUES])
{
	const struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	unsigned notes, i;

	for (i = 0; i < HPA_NVALUES; i++) {
		if (raw[i] > (UINT64_C(1) << 53)) {
			read_note(r, NOTE_IMPRECISE);
			break;
		}
	}
	notes = hpa_unsample_notes(in->sampling, raw);   /* unsampling is a pass of its own */
	if (notes & HPA_UNSAMPLE_BYTES_WITHOUT_OBJECTS)
		read_note(r, NOTE_BYTES_WITHOUT_OBJECTS);
	if (notes & HPA_UNSAMPLE_OBJECTS_WITHOUT_BYTES)
		read_note(r, NOTE_OBJECTS_WITHOUT_BYTES);
}

void read_send_sample(struct reader *r, int32_t thread, const uint64_t raw[HPA_NVALUES])
{
	double v[HPA_NVALUES];
	unsigned i;

	for (i = 0; i < HPA_NVALUES; i++)
		v[i] = (double)raw[i];
	read_pipe_sample(r, thread, v);
}

void read_add_sample(struct reader *r, int32_t thread, const uint64_t raw[HPA_NVALUES])
{
	read_sample_notes(r, raw);
	read_send_sample(r, thread, raw);
}
