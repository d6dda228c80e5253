/*
 * A growing string: append bytes, strings or printf output, then use
 * `buf` (always NUL-terminated once anything was added) or detach it.
 * Allocation failures abort, as everywhere in hpa.
 */
#ifndef HPA_STRBUF_H
#define HPA_STRBUF_H

#include <stdarg.h>
#include <string.h>

#include "hpa/compat.h"

struct hpa_strbuf {
	char *buf;     /* NULL until something is added */
	size_t len, alloc;
};

#define HPA_STRBUF_INIT { NULL, 0, 0 }

/* hpa_sb_add() when the buffer must grow first. */
void hpa_sb_add_slow(struct hpa_strbuf *sb, const void *data, size_t len);

/* Inline: reports append millions of short pieces (an HTML page's numbers). */
static inline void hpa_sb_add(struct hpa_strbuf *sb, const void *data, size_t len)
{
	if (sb->alloc - sb->len > len) {   /* room for it and the NUL: the buffer exists */
		memcpy(sb->buf + sb->len, data, len);
		sb->len += len;
		sb->buf[sb->len] = '\0';
		return;
	}
	hpa_sb_add_slow(sb, data, len);
}

static inline void hpa_sb_adds(struct hpa_strbuf *sb, const char *s)
{
	hpa_sb_add(sb, s, strlen(s));
}

static inline void hpa_sb_addc(struct hpa_strbuf *sb, char c)
{
	if (sb->alloc - sb->len > 1) {
		sb->buf[sb->len++] = c;
		sb->buf[sb->len] = '\0';
		return;
	}
	hpa_sb_add_slow(sb, &c, 1);
}
void hpa_sb_addf(struct hpa_strbuf *sb, const char *fmt, ...) HPA_PRINTF(2, 3);
void hpa_sb_vaddf(struct hpa_strbuf *sb, const char *fmt, va_list ap) HPA_PRINTF(2, 0);

/*
 * Text from a profile or a server is shown, never obeyed: a control byte
 * (below 0x20, or 0x7f) in it could retitle or rewrite a terminal (ESC ]0;
 * ... BEL).  hpa_has_controls() says whether s[0 .. len) holds one;
 * hpa_sb_add_shown() appends s with each written as \xNN.
 */
bool hpa_has_controls(const char *s, size_t len);
void hpa_sb_add_shown(struct hpa_strbuf *sb, const char *s, size_t len);
/* A malloc'ed copy of `s` as hpa_sb_add_shown() writes it, or NULL when it holds no control byte. */
char *hpa_shown_copy(const char *s);

/* The string, now the caller's to free ("" when empty); sb is left empty. */
char *hpa_sb_detach(struct hpa_strbuf *sb);
void hpa_sb_release(struct hpa_strbuf *sb);

/*
 * `s` as a JSON string, quotes included: '"', '\\', control bytes and
 * '<', '>', '&' escaped (safe inside an HTML script element), U+2028 and
 * U+2029 too (JavaScript's line ends).
 */
void hpa_sb_add_json(struct hpa_strbuf *sb, const char *s);

/*
 * printf("%.17g", v) into out (room for HPA_FIXED_MAX bytes), the same bytes:
 * for 1 <= |v| < 1e15 (the values reports write) exactly by integer
 * arithmetic, rounding the exact binary value half to even as glibc does;
 * other values by printf.  Returns the length.
 */
size_t hpa_g17(char *out, double v);

/* printf("%lld", v) into out (room for HPA_LLTOA_MAX bytes, no NUL added); returns the length. */
#define HPA_LLTOA_MAX 20
size_t hpa_lltoa(char *out, long long v);
/* Room for `more` bytes after sb's (and the NUL). */
void hpa_sb_reserve(struct hpa_strbuf *sb, size_t more);
/* printf("%lld", v) appended to sb, written in place; inline, as hpa_sb_add(). */
static inline void hpa_sb_add_int(struct hpa_strbuf *sb, long long v)
{
	if (sb->alloc - sb->len <= HPA_LLTOA_MAX)
		hpa_sb_reserve(sb, HPA_LLTOA_MAX);
	sb->len += hpa_lltoa(sb->buf + sb->len, v);
	sb->buf[sb->len] = '\0';
}

/*
 * printf("%.*f", prec, v) into out (room for HPA_FIXED_MAX bytes), the
 * same bytes (rounding the exact binary value half to even, as glibc),
 * without printf's multi-precision arithmetic: a flame graph writes eight
 * such numbers per frame.  prec at most 9.  Returns the length.
 */
#define HPA_FIXED_MAX 352
size_t hpa_fixed(char *out, double v, unsigned prec);

/* A malloc'ed printf result (asprintf that aborts on failure). */
char *hpa_xasprintf(const char *fmt, ...) HPA_PRINTF(1, 2);

#endif
