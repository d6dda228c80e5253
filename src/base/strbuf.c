#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

static void grow(struct hpa_strbuf *sb, size_t more)
{
	if (more > SIZE_MAX - sb->len - 1)
		HPA_BUG("string of %zu + %zu bytes", sb->len, more);
	HPA_GROW(sb->buf, sb->len + more + 1, sb->alloc);
}

void hpa_sb_add_slow(struct hpa_strbuf *sb, const void *data, size_t len)
{
	grow(sb, len);
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
	grow(sb, 64);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	if (n < 0)
		HPA_BUG("bad format \"%s\"", fmt);
	if ((size_t)n >= sb->alloc - sb->len) {
		grow(sb, (size_t)n);
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

size_t hpa_fixed(char *out, double v, unsigned prec)
{
	static const uint64_t pow10[] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					  100000000, 1000000000 };
	unsigned __int128 n, q;
	uint64_t m, ip, fp, bits;
	int s, len = 0, k, be;
	char digits[24];

	/* Beyond 2^53 (and NaN, infinities, prec past 9) printf itself decides. */
	if (prec > 9 || !(fabs(v) < 9007199254740992.0))
		return (size_t)snprintf(out, HPA_FIXED_MAX, "%.*f", (int)prec, v);
	/* |v| = m * 2^-s exactly, read off the IEEE 754 double's fields (frexp and ldexp are calls). */
	memcpy(&bits, &v, sizeof(bits));
	be = (int)(bits >> 52 & 0x7ff);
	m = bits & (((uint64_t)1 << 52) - 1);
	if (be) {
		m |= (uint64_t)1 << 52;
		s = 1075 - be;
	} else {
		s = 1074;                          /* subnormal */
	}
	n = (unsigned __int128)m * pow10[prec];    /* < 2^83: |v| * 10^prec = n / 2^s */
	if (s <= 0) {
		q = n << -s;                       /* an integer already: |v| < 2^53 */
	} else if (s >= 100) {
		q = 0;                             /* below 2^-47 * 10^-9: nowhere near 1/2 */
	} else {
		unsigned __int128 half = (unsigned __int128)1 << (s - 1), r;

		q = n >> s;
		r = n & (((unsigned __int128)1 << s) - 1);
		if (r > half || (r == half && (q & 1)))
			q++;
	}
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
