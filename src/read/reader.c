/*
 * Input dispatch (FORMATS.md section 1): header commands, markers, format
 * detection; then the format reader, the maps section, and the end-of-input
 * notes.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "hpa/reader.h"
#include "hpa/series.h"
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

/* Java's "--- heapz 1 ---" (also contentionz, profilez): the kind's word, or NULL. */
static const char *java_kind(const char *line)
{
	static const char *const kinds[] = { "heapz", "contentionz", "profilez", "profile" };
	const char *p = line;
	size_t i, n;

	if (!starts_with(p, "---"))
		return NULL;
	for (p += 3; *p == ' '; p++)
		;
	for (i = 0; i < HPA_ARRAY_SIZE(kinds); i++) {
		n = strlen(kinds[i]);
		if (!strncmp(p, kinds[i], n) && p[n] == ' ') {
			const char *d = p + n;
			while (*d == ' ')
				d++;
			if (*d < '0' || *d > '9')
				return NULL;
			while (*d >= '0' && *d <= '9')
				d++;
			while (*d == ' ')
				d++;
			return starts_with(d, "---") ? kinds[i] : NULL;
		}
	}
	return NULL;
}

bool read_is_jemalloc_header(const char *line)
{
	return starts_with(line, "heap_v2/") && line[8] >= '0' && line[8] <= '9';
}

bool read_is_gperf_header(const char *line)
{
	return starts_with(line, "heap profile:");
}

static int unsupported(struct reader *r, const char *line)
{
	char q[64];
	const char *java = java_kind(line);

	read_quote(line, q, sizeof(q));
	if (java)
		return hpa_error_at(&r->io.pos, "unsupported profile type: java %s (\"%s\"); hpa reads "
				    "jemalloc, gperftools/tcmalloc, Go and pprof heap profiles", java, q);
	if (line[0] == '{' || line[0] == '[')
		return hpa_error_at(&r->io.pos, "unsupported profile type: JSON (a Chrome DevTools "
				    ".heapsnapshot or .heapprofile, or a trace); hpa reads jemalloc, "
				    "gperftools/tcmalloc, Go and pprof heap profiles");
	if (is_marker(line, "symbol"))
		return hpa_error_at(&r->io.pos, "a second symbol section (\"--- symbol\")");
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

#define BINARY_MAX ((size_t)2 << 30)
size_t hpa_zlib_chunk = (size_t)1 << 30;   /* zlib's avail_in/avail_out are 32-bit */

/* Gunzip `in` (any number of members); fails past BINARY_MAX bytes. */
static int gunzip(struct reader *r, const uint8_t *in, size_t len, uint8_t **out, size_t *outlen)
{
	z_stream z;
	size_t cap = len < (BINARY_MAX - 4096) / 4 ? len * 4 + 4096 : BINARY_MAX, n = 0;
	size_t left = len;   /* input not yet handed to zlib, whose counts are 32-bit */
	uint8_t *buf = xmalloc(cap);
	int rc = Z_OK;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 32) != Z_OK) {
		free(buf);
		return hpa_error_at(&r->io.pos, "zlib: cannot start decompression");
	}
	z.next_in = (uint8_t *)in;
	while (rc != Z_STREAM_END || z.avail_in || left) {
		if (rc == Z_STREAM_END && inflateReset(&z) != Z_OK)
			break;
		if (!z.avail_in && left) {
			z.avail_in = (uInt)(left < hpa_zlib_chunk ? left : hpa_zlib_chunk);
			left -= z.avail_in;
		}
		if (n == cap) {
			if (cap >= BINARY_MAX) {
				inflateEnd(&z);
				free(buf);
				return hpa_error_at(&r->io.pos, "decompressed profile larger than %zu MiB",
						    BINARY_MAX >> 20);
			}
			cap = cap * 2 > BINARY_MAX ? BINARY_MAX : cap * 2;
			buf = xrealloc(buf, cap);
		}
		z.next_out = buf + n;
		z.avail_out = (uInt)(cap - n < hpa_zlib_chunk ? cap - n : hpa_zlib_chunk);
		{
			size_t before = z.avail_out;
			rc = inflate(&z, Z_NO_FLUSH);
			n += before - z.avail_out;
		}
		if (rc == Z_BUF_ERROR && !z.avail_in && left)
			continue;   /* the next chunk of input */
		if (rc != Z_OK && rc != Z_STREAM_END && !(rc == Z_BUF_ERROR && z.avail_out == 0)) {
			inflateEnd(&z);
			free(buf);
			return hpa_error_at(&r->io.pos, "corrupt gzip data: %s", z.msg ? z.msg : "truncated");
		}
	}
	inflateEnd(&z);
	*out = buf;
	*outlen = n;
	return 0;
}

/*
 * Text profiles start with a printable header line; protobuf has control
 * bytes early (and may start with 0x0a, a newline).
 */
static bool looks_like_text(const uint8_t *b, size_t n)
{
	size_t i;
	bool line_ok = true;

	while (n && *b == '\n') {   /* leading blank lines: any number, no recursion */
		b++;
		n--;
	}
	if (!n)
		return true;   /* blank lines only: an empty text profile */
	for (i = 0; i < n && i < 64; i++) {
		if (b[i] == '\n')
			return line_ok;
		if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\r') || b[i] == 0x7f)
			line_ok = false;
	}
	return n > 0 && line_ok;
}

/* pprof Profile fields start with these keys (field << 3 | wire type). */
static bool looks_like_protobuf(const uint8_t *b, size_t n)
{
	static const uint8_t keys[] = { 0x0a, 0x12, 0x1a, 0x22, 0x2a, 0x32, 0x38, 0x40, 0x48,
					0x50, 0x5a, 0x60, 0x68, 0x6a, 0x70, 0x78 };
	size_t i;

	for (i = 0; n && i < sizeof(keys); i++)
		if (b[0] == keys[i])
			return true;
	return false;
}

static int read_body(struct reader *r);

/*
 * Binary input: gzip (a pprof .pb.gz, or a gzipped text profile) or a plain
 * pprof protobuf.  Returns 1 when the input is text after all (read on).
 */
static int read_binary(struct reader *r)
{
	uint8_t *data = NULL, *plain = NULL;
	size_t len = 0, plen = 0;
	int rc;

	if (hpa_lineio_slurp(&r->io, &data, &len, BINARY_MAX) < 0)
		return -1;
	if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		rc = gunzip(r, data, len, &plain, &plen);
		free(data);
		if (rc < 0)
			return -1;
		data = plain;
		len = plen;
		if (!len) {
			free(data);
			return hpa_error_at(&r->io.pos, "empty profile (inside gzip)");
		}
		if (looks_like_text(data, len)) {
			/* A gzipped text profile: read it from memory, line by line. */
			FILE *fp = fmemopen(data, len, "rb");
			struct hpa_lineio outer = r->io;

			if (!fp) {
				free(data);
				return hpa_error_at(&r->io.pos, "cannot read decompressed data");
			}
			hpa_lineio_from_stream(&r->io, fp, outer.pos.path);
			r->gunzipped = true;
			rc = read_body(r);
			free(r->io.buf);
			fclose(fp);
			r->io = outer;
			r->io.newline = true;
			free(data);
			return rc;
		}
	}
	rc = read_pprof(r, data, len);
	free(data);
	r->io.newline = true;
	return rc;
}

/* Reject input that is obviously not text before looking for lines. */
static int sniff(struct reader *r)
{
	size_t avail;
	const unsigned char *b = (const unsigned char *)hpa_lineio_peek(&r->io, 64, &avail);

	if (!avail)
		return hpa_error_at(&r->io.pos, "empty profile");
	if (avail >= 4 && !memcmp(b, "\177ELF", 4))
		return hpa_error_at(&r->io.pos, "an ELF file, not a profile (BINARY must be "
				    "the first argument)");
	if (avail >= 2 && b[0] == 0x1f && b[1] == 0x8b && !r->gunzipped)
		return 1;
	if (!looks_like_text(b, avail) && looks_like_protobuf(b, avail) && !r->gunzipped)
		return 1;
	if (!looks_like_text(b, avail))
		return hpa_error_at(&r->io.pos, "binary data; not a heap profile (expected text "
				    "starting heap_v2/<period> or heap profile:, or pprof protobuf)");
	if (avail >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		r->io.start += 3;   /* UTF-8 byte order mark */
	return 0;
}

static int read_body(struct reader *r)
{
	char *line;
	size_t len;
	int rc;

	rc = sniff(r);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return read_binary(r);
	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		line = trim(line, &len);
		if (!len)
			continue;
		if (r->io.nul) {
			return hpa_error_at(&r->io.pos, "binary data; not a text heap profile "
					    "(expected heap_v2/<period> or heap profile: ...)");
		}
		if (line[0] == '#')   /* a comment, as folded files have them (austin's header) */
			continue;
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
		if (starts_with(line, "<jemalloc>:")) {
			/* prof_leak's summary, written into the dump file by a redirect. */
			char q[160];
			if (!r->jemalloc_lines++)
				hpa_warn_at(&r->io.pos, "jemalloc's own message before the header skipped: "
					    "\"%s\"", read_quote(line, q, sizeof(q)));
			continue;
		}
		if (is_marker(line, "symbol") && !r->symbolized) {
			if (read_symbol_section(r) < 0)
				return -1;
			continue;
		}
		if (is_marker(line, "heap") && !java_kind(line))
			continue;
		if (is_marker(line, "growth")) {
			r->growth_marker = true;
			continue;
		}
		if (read_is_jemalloc_header(line))
			return read_jemalloc(r, line);
		if (read_is_gperf_header(line))
			return read_gperf(r, line);
		if (read_is_folded(line))
			return read_folded(r, line, len);
		return unsupported(r, line);
	}
	if (rc < 0)
		return -1;
	return hpa_error_at(&r->io.pos, "empty profile (no header line)");
}

/* A profile with nothing to report says so first (its other warnings would mislead). */
static void note_empty(struct reader *r)
{
	const struct hpa_profile *prof = r->prof;
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	struct hpa_pos pos = { in->path, 0 };
	size_t i, n = 0;
	bool any = false;

	for (i = r->first_sample; i < prof->samples_nr && !any; i++) {   /* stops at the first */
		int k;
		for (k = 0; k < HPA_NVALUES && !any; k++)
			any = prof->samples[i].v[k] != 0;
	}
	if (any)
		return;
	if (in->estimated)   /* records of one stack were summed as they were stored */
		n = in->records;
	else
		for (i = r->first_sample; i < prof->samples_nr; i++)
			n += prof->samples[i].thread == HPA_THREAD_ALL;   /* a record, not its per-thread lines */
	in->no_samples = true;
	if (!n)
		hpa_warn_at(&pos, "no samples: the profile has a header but no records (a dump taken "
			    "before anything was allocated, or with profiling inactive)");
	else
		hpa_warn_at(&pos, "no samples: all %zu record%s have zero counts", n, n == 1 ? "" : "s");
}

/*
 * A large sampling period with few samples: each sample stands for about a
 * period of bytes, and the estimate's relative error is about 1/sqrt(n).
 */
#define COARSE_PERIOD ((double)(1 << 24))
#define COARSE_SAMPLES 100

static void note_coarse(struct reader *r)
{
	const struct hpa_profile *prof = r->prof;
	const struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	struct hpa_pos pos = { in->path, 0 };
	double n = 0;
	size_t i;

	if (in->sampling == HPA_SAMPLING_NONE || in->period < COARSE_PERIOD || in->no_samples ||
	    in->unsampled)
		return;
	if (in->estimated)
		n = in->sampled_objects;
	else
		for (i = r->first_sample; i < prof->samples_nr; i++)
			if (prof->samples[i].thread == HPA_THREAD_ALL)
				n += prof->samples[i].v[HPA_INUSE_OBJECTS];   /* as written: sampled objects */
	if (n >= COARSE_SAMPLES || n <= 0)
		return;
	hpa_warn_at(&pos, "sampling period %.0f bytes (%.0f MiB) with %.0f sampled object%s in use: "
		    "the estimates are coarse (relative error about \u00b1%.0f%%); a smaller period "
		    "(jemalloc lg_prof_sample, tcmalloc TCMALLOC_SAMPLE_PARAMETER) gives finer ones",
		    in->period, in->period / 1048576, n, n == 1 ? "" : "s", 100 / sqrt(n));
}

static int read_input(struct hpa_profile *prof, struct reader *r)
{
	int rc;

	hpa_profile_settle(prof);   /* the frames of an input appended before come first */
	r->prof = prof;
	r->input = hpa_profile_add_input(prof, r->io.pos.path);
	r->first_sample = prof->samples_nr;   /* what this input adds comes after */
	r->first_loc = prof->locs_nr;
	rc = read_body(r);
	read_pipe_end(r);
	if (rc == 0 && r->symbolized)
		read_apply_symbols(r);
	if (rc == 0) {
		note_empty(r);
		note_coarse(r);
	}
	if (rc == 0) {
		if (r->io.pos.line && !r->io.newline && hpa_profile_input(prof, r->input)->maps_cut)
			hpa_warn_at(&r->io.pos, "no newline at end of profile: it is cut inside its maps "
				    "section; modules listed after the cut are missing, and their "
				    "addresses stay unmapped");
		else if (r->io.pos.line && !r->io.newline)
			hpa_warn_at(&r->io.pos, "no newline at end of profile; it may be truncated");
		report_notes(r);
		hpa_profile_assign_mappings(prof, r->input);
	}
	free(r->addrs);
	read_symbols_release(r);
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
	if (!rc && strcmp(path, "-")) {   /* the dump's time: its own (pprof, the watcher's record), else the file's */
		struct hpa_input *in = hpa_profile_input(prof, r.input);
		struct hpa_dump_record rec;
		struct stat st;
		if (hpa_dump_record_read(path, &rec)) {
			if (!in->time_nanos)
				in->time_nanos = rec.time_nanos;
			in->rss_bytes = rec.rss_bytes;
			hpa_dump_stats_read(path, in);   /* --watch --stats's, beside the record */
		}
		if (!in->time_nanos && stat(path, &st) == 0) {
			in->time_nanos = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
			in->time_of_file = true;
		}
	}
	hpa_lineio_close(&r.io);
	return rc;
}
