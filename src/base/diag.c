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

static void record(const struct hpa_pos *pos, const char *fmt, va_list ap)
{
	char head[512] = "", body[2048];

	if (recorded_nr == HPA_ARRAY_SIZE(recorded))
		return;
	if (pos && pos->path) {
		if (pos->line)
			snprintf(head, sizeof(head), "%s:%llu: ", pos->path, (unsigned long long)pos->line);
		else
			snprintf(head, sizeof(head), "%s: ", pos->path);
	}
	vsnprintf(body, sizeof(body), fmt, ap);
	recorded[recorded_nr] = malloc(strlen(head) + strlen(body) + 1);
	if (!recorded[recorded_nr])
		return;
	strcpy(recorded[recorded_nr], head);
	strcat(recorded[recorded_nr++], body);
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
	if (hpa_diag_quiet)
		return;
	fflush(stdout);
	fputs("hpa: ", stderr);
	fputs(prefix, stderr);
	if (pos && pos->path) {
		if (pos->line)
			fprintf(stderr, "%s:%llu: ", pos->path,
				(unsigned long long)pos->line);
		else
			fprintf(stderr, "%s: ", pos->path);
	}
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
	if (hpa_warnings_off)
		return;
	va_start(ap, fmt);
	vreport("warning: ", NULL, fmt, ap);
	va_end(ap);
	if (!hpa_diag_quiet) {
		va_start(ap, fmt);
		record(NULL, fmt, ap);
		va_end(ap);
	}
}

void hpa_warn_at(const struct hpa_pos *pos, const char *fmt, ...)
{
	va_list ap;
	if (hpa_warnings_off)
		return;
	va_start(ap, fmt);
	vreport("warning: ", pos, fmt, ap);
	va_end(ap);
	if (!hpa_diag_quiet) {
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
