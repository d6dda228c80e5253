#include "hpa/compat.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"

bool hpa_diag_quiet;
bool hpa_warnings_off;

/* The warnings printed so far, for reports that list them (--html). */
static char *recorded[1000];
static size_t recorded_nr;

/* The calling thread's capture (hpa_diag_capture_begin()), or NULL: messages print. */
static _Thread_local struct hpa_diag_capture *capture;

/* "PATH:LINE: " or "PATH: " for pos (nothing without a path), at most size - 1 bytes. */
static void pos_text(char *out, size_t size, const struct hpa_pos *pos)
{
	out[0] = '\0';
	if (pos && pos->path) {
		if (pos->line)
			snprintf(out, size, "%s:%llu: ", pos->path, (unsigned long long)pos->line);
		else
			snprintf(out, size, "%s: ", pos->path);
	}
}

/*
 * s[0 .. len) at `out` with each control byte as \xNN (a name from a
 * profile may hold ESC ]0; ... BEL), as hpa_sb_add_shown() writes it; `out`
 * has room for 4 * len bytes.  Returns the end.
 */
static char *put_shown(char *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f) {
			*out++ = (char)c;
			continue;
		}
		*out++ = '\\';
		*out++ = 'x';
		*out++ = hex[c >> 4];
		*out++ = hex[c & 15];
	}
	return out;
}

/* A recorded warning: its position and text, cut at 511 and 2047 bytes. */
static void record_parts(const char *head, const char *body)
{
	size_t h = strnlen(head, 511), b = strnlen(body, 2047);
	char *m, *end;

	if (recorded_nr == HPA_ARRAY_SIZE(recorded) || !(m = malloc(4 * (h + b) + 1)))
		return;
	end = put_shown(put_shown(m, head, h), body, b);
	*end = '\0';
	recorded[recorded_nr++] = m;
}

static void record(const struct hpa_pos *pos, const char *fmt, va_list ap)
{
	char head[512], body[2048];

	if (recorded_nr == HPA_ARRAY_SIZE(recorded))
		return;
	pos_text(head, sizeof(head), pos);
	vsnprintf(body, sizeof(body), fmt, ap);
	record_parts(head, body);
}

/* Kept for hpa_diag_replay(), whole: a warning or an error. */
static void keep(bool warning, const struct hpa_pos *pos, const char *fmt, va_list ap)
{
	struct hpa_diag_capture *c = capture;
	char head[4096];
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return;
	if (c->nr == c->alloc) {
		size_t alloc = c->alloc ? c->alloc * 2 : 8;
		void *p = realloc(c->msgs, alloc * sizeof(*c->msgs));
		if (!p)
			return;
		c->msgs = p;
		c->alloc = alloc;
	}
	pos_text(head, sizeof(head), pos);
	c->msgs[c->nr].warning = warning;
	c->msgs[c->nr].head = strdup(head);
	c->msgs[c->nr].body = malloc((size_t)n + 1);
	if (!c->msgs[c->nr].head || !c->msgs[c->nr].body) {
		free(c->msgs[c->nr].head);
		free(c->msgs[c->nr].body);
		return;
	}
	vsnprintf(c->msgs[c->nr].body, (size_t)n + 1, fmt, ap);
	c->nr++;
}

/*
 * One line on standard error: "hpa: ", then the parts, each with its
 * control bytes as \xNN (a name from a profile may hold ESC ]0; ... BEL).
 */
static void print_line(const char *prefix, const char *head, const char *body)
{
	size_t p = strlen(prefix), h = strlen(head), b = strlen(body);
	char *line = malloc(5 + p + 4 * (h + b) + 2), *end;

	if (!line)
		return;
	memcpy(line, "hpa: ", 5);
	memcpy(line + 5, prefix, p);
	end = put_shown(put_shown(line + 5 + p, head, h), body, b);
	*end++ = '\n';
	*end = '\0';
	fflush(stdout);
	fputs(line, stderr);   /* one write: lines of two threads never mix */
	free(line);
}

void hpa_diag_capture_begin(struct hpa_diag_capture *c)
{
	memset(c, 0, sizeof(*c));
	capture = c;
}

void hpa_diag_capture_end(void)
{
	capture = NULL;
}

void hpa_diag_replay(struct hpa_diag_capture *c)
{
	size_t i;

	for (i = 0; i < c->nr && !hpa_diag_quiet; i++) {
		if (!(c->msgs[i].warning && hpa_warnings_off)) {
			print_line(c->msgs[i].warning ? "warning: " : "", c->msgs[i].head,
				   c->msgs[i].body);
		}
		if (c->msgs[i].warning)
			record_parts(c->msgs[i].head, c->msgs[i].body);
	}
	hpa_diag_capture_release(c);
}

void hpa_diag_capture_release(struct hpa_diag_capture *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->msgs[i].head);
		free(c->msgs[i].body);
	}
	free(c->msgs);
	memset(c, 0, sizeof(*c));
}

size_t hpa_diag_recorded_nr(void)
{
	return recorded_nr;
}

const char *hpa_diag_recorded(size_t i)
{
	return i < recorded_nr ? recorded[i] : "";
}

static void vreport(const char *prefix, const struct hpa_pos *pos,
		    const char *fmt, va_list ap)
{
	char head[4096];
	char *body;
	va_list aq;
	int n;

	if (hpa_diag_quiet)
		return;
	if (capture) {
		keep(*prefix != '\0', pos, fmt, ap);
		return;
	}
	if (*prefix && hpa_warnings_off)   /* -q: a warning is recorded (--html), not printed */
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0 || !(body = malloc((size_t)n + 1)))
		return;
	vsnprintf(body, (size_t)n + 1, fmt, ap);
	pos_text(head, sizeof(head), pos);
	print_line(prefix, head, body);
	free(body);
}

int hpa_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int hpa_error_at(const struct hpa_pos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("", pos, fmt, ap);
	va_end(ap);
	return -1;
}

void hpa_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", NULL, fmt, ap);
	va_end(ap);
	if (!hpa_diag_quiet && !capture) {
		va_start(ap, fmt);
		record(NULL, fmt, ap);
		va_end(ap);
	}
}

void hpa_warn_at(const struct hpa_pos *pos, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport("warning: ", pos, fmt, ap);
	va_end(ap);
	if (!hpa_diag_quiet && !capture) {
		va_start(ap, fmt);
		record(pos, fmt, ap);
		va_end(ap);
	}
}

const char *hpa_quote(const char *text, size_t len, char *out, size_t outsz)
{
	size_t i, n = 0;

	if (outsz < 8)
		HPA_BUG("quote buffer too small");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (n + 4 >= outsz) {
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		out[n++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	out[n] = '\0';
	return out;
}

void hpa_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "hpa: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
