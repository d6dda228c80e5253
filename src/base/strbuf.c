#include "hpa/compat.h"

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

void hpa_sb_add(struct hpa_strbuf *sb, const void *data, size_t len)
{
	grow(sb, len);
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void hpa_sb_adds(struct hpa_strbuf *sb, const char *s)
{
	hpa_sb_add(sb, s, strlen(s));
}

void hpa_sb_addc(struct hpa_strbuf *sb, char c)
{
	hpa_sb_add(sb, &c, 1);
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
