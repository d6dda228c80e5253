/*
 * Input dispatch (FORMATS.md section 1): header commands, markers, format
 * detection; then the format reader, the maps section, and the end-of-input
 * notes.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/reader.h"
#include "hpa/xalloc.h"
#include "read.h"

static const char *const note_text[NOTE_NR] = {
	[NOTE_BYTES_WITHOUT_OBJECTS] = "bytes recorded without objects; counts left unscaled",
	[NOTE_OBJECTS_WITHOUT_BYTES] = "objects recorded without bytes; counts left unscaled",
	[NOTE_EMPTY_STACK] = "stack with no frames; its counts are reported as <no stack>",
	[NOTE_STACK_WITHOUT_COUNTS] = "stack without counter lines; ignored",
	[NOTE_NO_TOTAL_LINE] = "record without a \"t*:\" line; its thread lines were summed instead",
	[NOTE_MAPS_LINE] = "unrecognized line in the maps section skipped",
	[NOTE_IMPRECISE] = "count above 2^53 cannot be represented exactly",
};

static void report_notes(struct reader *r)
{
	int i;

	for (i = 0; i < NOTE_NR; i++) {
		const struct read_note_count *n = &r->notes[i];
		struct hpa_pos pos = { r->io.pos.path, n->first_line };

		if (!n->count)
			continue;
		if (n->count == 1)
			hpa_warn_at(&pos, "%s", note_text[i]);
		else
			hpa_warn_at(&pos, "%s (%llu lines like this one)", note_text[i],
				    (unsigned long long)n->count);
	}
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* "--- *WORD" */
static bool is_marker(const char *line, const char *word)
{
	if (!starts_with(line, "---"))
		return false;
	line += 3;
	while (*line == ' ')
		line++;
	return starts_with(line, word);
}

static int unsupported(struct reader *r, const char *line)
{
	char q[64];

	read_quote(line, q, sizeof(q));
	if (is_marker(line, "symbol"))
		return hpa_error_at(&r->io.pos, "symbolized profiles (\"--- symbol\") are not supported yet");
	if (is_marker(line, "contention") || is_marker(line, "Stacks:"))
		return hpa_error_at(&r->io.pos, "contention profiles are not supported; hpa reads heap profiles");
	if (is_marker(line, "profile"))
		return hpa_error_at(&r->io.pos, "CPU profiles are not supported; hpa reads heap profiles");
	if (starts_with(line, "heap_v2/"))
		return hpa_error_at(&r->io.pos, "heap_v2 header without a sample period: \"%s\" "
				    "(expected heap_v2/<period>)", q);
	if (starts_with(line, "heap"))
		return hpa_error_at(&r->io.pos, "unsupported heap profile header \"%s\" "
				    "(expected heap_v2/<period> or heap profile: ...)", q);
	return hpa_error_at(&r->io.pos, "unrecognized profile format: \"%s\" "
			    "(expected heap_v2/<period> or heap profile: ...)", q);
}

/* Reject input that is obviously not text before looking for lines. */
static int sniff(struct reader *r)
{
	size_t avail;
	const unsigned char *b = (const unsigned char *)hpa_lineio_peek(&r->io, 4, &avail);

	if (!avail)
		return hpa_error_at(&r->io.pos, "empty profile");
	if (avail >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return hpa_error_at(&r->io.pos, "gzip-compressed data; hpa reads text heap profiles "
				    "(pprof protobuf input is not supported yet)");
	if (avail >= 4 && !memcmp(b, "\177ELF", 4))
		return hpa_error_at(&r->io.pos, "an ELF file, not a profile (BINARY must be "
				    "the first argument)");
	if (avail >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		r->io.start += 3;   /* UTF-8 byte order mark */
	return 0;
}

static int read_body(struct reader *r)
{
	char *line;
	size_t len;
	int rc;

	if (sniff(r) < 0)
		return -1;
	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		line = trim(line, &len);
		if (!len)
			continue;
		if (r->io.nul) {
			return hpa_error_at(&r->io.pos, "binary data; not a text heap profile "
					    "(expected heap_v2/<period> or heap profile: ...)");
		}
		if (line[0] == '%') {
			char q[256];
			if (starts_with(line, "%warn") && (!line[5] || is_blank(line[5]))) {
				const char *t = line + 5;
				skip_blanks(&t);
				hpa_warn_at(&r->io.pos, "%s", read_quote(t, q, sizeof(q)));
			} else {
				hpa_warn_at(&r->io.pos, "ignoring unknown header command \"%s\"",
					    read_quote(line, q, sizeof(q)));
			}
			continue;
		}
		if (is_marker(line, "heap"))
			continue;
		if (is_marker(line, "growth")) {
			r->growth_marker = true;
			continue;
		}
		if (starts_with(line, "heap_v2/") && line[8] >= '0' && line[8] <= '9')
			return read_jemalloc(r, line);
		if (starts_with(line, "heap profile:"))
			return read_gperf(r, line);
		return unsupported(r, line);
	}
	if (rc < 0)
		return -1;
	return hpa_error_at(&r->io.pos, "empty profile (no header line)");
}

static int read_input(struct hpa_profile *prof, struct reader *r)
{
	int rc;

	r->prof = prof;
	r->input = hpa_profile_add_input(prof, r->io.pos.path);
	rc = read_body(r);
	if (rc == 0) {
		if (r->io.pos.line && !r->io.newline)
			hpa_warn_at(&r->io.pos, "no newline at end of profile; it may be truncated");
		report_notes(r);
		hpa_profile_assign_mappings(prof, r->input);
	}
	free(r->addrs);
	return rc;
}

int hpa_read_stream(struct hpa_profile *prof, FILE *fp, const char *display)
{
	struct reader r = { 0 };
	int rc;

	hpa_lineio_from_stream(&r.io, fp, display);
	rc = read_input(prof, &r);
	hpa_lineio_close(&r.io);
	return rc;
}

int hpa_read_profile(struct hpa_profile *prof, const char *path)
{
	struct reader r = { 0 };
	const char *display = strcmp(path, "-") ? path : "<stdin>";
	int rc;

	if (hpa_lineio_open(&r.io, path, display) < 0)
		return -1;
	rc = read_input(prof, &r);
	hpa_lineio_close(&r.io);
	return rc;
}
