#include "hpa/compat.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

void hpa_sb_reserve(struct hpa_strbuf *sb, size_t more)
{
	if (more > SIZE_MAX - sb->len - 1)
		HPA_BUG("string of %zu + %zu bytes", sb->len, more);
	HPA_GROW(sb->buf, sb->len + more + 1, sb->alloc);
}

void hpa_sb_add_slow(struct hpa_strbuf *sb, const void *data, size_t len)
{
	hpa_sb_reserve(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void hpa_sb_vaddf(struct hpa_strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	va_copy(again, ap);
	hpa_sb_reserve(sb, 64);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	if (n < 0)
		HPA_BUG("bad format \"%s\"", fmt);
	if ((size_t)n >= sb->alloc - sb->len) {
		hpa_sb_reserve(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
	}
	va_end(again);
	sb->len += (size_t)n;
}

void hpa_sb_addf(struct hpa_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hpa_sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

char *hpa_sb_detach(struct hpa_strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");

	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

void hpa_sb_release(struct hpa_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *hpa_xasprintf(const char *fmt, ...)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	hpa_sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	return hpa_sb_detach(&sb);
}

/* Two digits at a time: half the divisions (an HTML page writes millions of integers). */
static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of u (at least 1). */
static size_t digits10(unsigned long long u)
{
	size_t n = 1;

	while (u >= 10000) {
		u /= 10000;
		n += 4;
	}
	if (u >= 100)
		n += u >= 1000 ? 3 : 2;
	else if (u >= 10)
		n++;
	return n;
}

/* digits10() of a 32-bit u by compares: no division. */
static size_t digits10_32(uint32_t u)
{
	if (u < 100000)
		return u < 100 ? 1 + (u >= 10) : u < 1000 ? 3 : u < 10000 ? 4 : 5;
	return u < 10000000 ? 6 + (u >= 1000000) : u < 100000000 ? 8 : u < 1000000000 ? 9 : 10;
}

/*
 * Written in place, last digits first, with no copy: the length known
 * first.  Past 2^32 two digits at a time in 64-bit arithmetic, then (most
 * numbers a page writes, from the start) in 32-bit.
 */
size_t hpa_lltoa(char *out, long long v)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	size_t n = (v < 0) + (u <= UINT32_MAX ? digits10_32((uint32_t)u) : digits10(u));
	char *p = out + n;
	uint32_t w;

	while (u > UINT32_MAX) {
		unsigned d = (unsigned)(u % 100);

		u /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * d, 2);
	}
	for (w = (uint32_t)u; w >= 100;) {
		uint32_t d = w % 100;

		w /= 100;
		p -= 2;
		memcpy(p, digit_pairs + 2 * d, 2);
	}
	if (w >= 10) {
		p -= 2;
		memcpy(p, digit_pairs + 2 * w, 2);
	} else {
		*--p = (char)('0' + w);
	}
	if (v < 0)
		*--p = '-';
	return n;
}

/* |v| = m / 2^s exactly (m < 2^53), read off the IEEE 754 double's fields (frexp and ldexp are calls). */
static uint64_t double_parts(double v, int *s)
{
	uint64_t bits, m;
	int be;

	memcpy(&bits, &v, sizeof(bits));
	be = (int)(bits >> 52 & 0x7ff);
	m = bits & (((uint64_t)1 << 52) - 1);
	if (!be) {
		*s = 1074;   /* subnormal */
		return m;
	}
	*s = 1075 - be;
	return m | (uint64_t)1 << 52;
}

/* (m / 2^s) * mult rounded to an integer: the exact value, half to even, as glibc's printf. */
static unsigned __int128 scaled_round(uint64_t m, int s, uint64_t mult)
{
	unsigned __int128 n = (unsigned __int128)m * mult, half, r, q;   /* < 2^117 */

	if (s <= 0)
		return n << -s;   /* an integer already */
	if (s > 117)
		return 0;         /* below one half */
	half = (unsigned __int128)1 << (s - 1);
	q = n >> s;
	r = n & (((unsigned __int128)1 << s) - 1);
	if (r > half || (r == half && (q & 1)))
		q++;
	return q;
}

size_t hpa_fixed(char *out, double v, unsigned prec)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000, 1000000000 };
	unsigned __int128 q;
	uint64_t m, ip, fp;
	int s, len = 0, k;
	char digits[24];

	/* Beyond 2^53 (and NaN, infinities, prec past 9) printf itself decides. */
	if (prec > 9 || !(fabs(v) < 9007199254740992.0))
		return (size_t)snprintf(out, HPA_FIXED_MAX, "%.*f", (int)prec, v);
	m = double_parts(v, &s);
	q = scaled_round(m, s, pow10[prec]);
	if (q >> 64) {   /* 128-bit division only where it is needed: it is a library call */
		ip = (uint64_t)(q / pow10[prec]);
		fp = (uint64_t)(q % pow10[prec]);
	} else {
		ip = (uint64_t)q / pow10[prec];
		fp = (uint64_t)q % pow10[prec];
	}
	if (signbit(v))
		out[len++] = '-';
	k = 0;
	do {
		digits[k++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (k)
		out[len++] = digits[--k];
	if (prec) {
		out[len++] = '.';
		for (k = (int)prec - 1; k >= 0; k--) {
			out[len + k] = (char)('0' + fp % 10);
			fp /= 10;
		}
		len += (int)prec;
	}
	out[len] = '\0';
	return (size_t)len;
}

size_t hpa_g17(char *out, double v)
{
	static const uint64_t p10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
		100000000, 1000000000, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
		10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL };
	double a = fabs(v);
	uint64_t m, ip, q, frac;
	int s, n = 1, d, len = 0, k;

	if (!(a >= 1 && a < 1e15))
		return (size_t)snprintf(out, HPA_FIXED_MAX, "%.17g", v);
	m = double_parts(v, &s);
	for (ip = (uint64_t)a; n < 16 && ip >= p10[n]; n++)
		;                                  /* n digits before the point */
	/*
	 * 17 significant digits: d decimals.  Rounding never carries into an
	 * 18th (a double is never within 5e-17 of a power of ten but at it);
	 * printf decides if it would.
	 */
	d = 17 - n;
	q = (uint64_t)scaled_round(m, s, p10[d]);   /* below 10^17 + 1: a = m / 2^s, 3 <= s <= 52 */
	if (q >= p10[17])
		return (size_t)snprintf(out, HPA_FIXED_MAX, "%.17g", v);
	if (v < 0)
		out[len++] = '-';
	ip = q / p10[d];
	frac = q % p10[d];
	len += (int)hpa_lltoa(out + len, (long long)ip);
	if (frac) {   /* %g drops the trailing zeros, and the point with them */
		while (frac % 10 == 0) {
			frac /= 10;
			d--;
		}
		out[len++] = '.';
		for (k = d - 1; k >= 0; k--) {
			out[len + k] = (char)('0' + frac % 10);
			frac /= 10;
		}
		len += d;
	}
	out[len] = '\0';
	return (size_t)len;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

bool hpa_has_controls(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (is_control((unsigned char)s[i]))
			return true;
	return false;
}

char *hpa_shown_copy(const char *s)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	size_t len = strlen(s);

	if (!hpa_has_controls(s, len))
		return NULL;
	hpa_sb_add_shown(&sb, s, len);
	return hpa_sb_detach(&sb);
}

void hpa_sb_add_shown(struct hpa_strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, from = 0;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!is_control(c))
			continue;
		hpa_sb_add(sb, s + from, i - from);
		hpa_sb_add(sb, "\\x", 2);
		hpa_sb_addc(sb, hex[c >> 4]);
		hpa_sb_addc(sb, hex[c & 15]);
		from = i + 1;
	}
	hpa_sb_add(sb, s + from, len - from);
}

/* Whether byte c of a string needs a look in hpa_sb_add_json() (0xe2 may start U+2028/9; 0 ends it). */
static bool json_special(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c == 0x7f ||
	       c == 0xe2;
}

/* hpa_sb_add_json(): the bytes between two that need a look are added as one piece. */
void hpa_sb_add_json(struct hpa_strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	hpa_sb_addc(sb, '"');
	for (;; p++) {
		if (!json_special(*p))
			continue;
		hpa_sb_add(sb, run, (size_t)(p - run));
		run = p + 1;
		if (!*p)
			break;
		if (*p == '"' || *p == '\\')
			hpa_sb_addf(sb, "\\%c", *p);
		else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			hpa_sb_addf(sb, "\\u%04x", 0x2000 | (p[2] - 0x80));
			p += 2;
			run = p + 1;
		} else if (*p == 0xe2)
			hpa_sb_addc(sb, (char)*p);
		else
			hpa_sb_addf(sb, "\\u%04x", *p);
	}
	hpa_sb_addc(sb, '"');
}
