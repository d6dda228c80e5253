/*
 * jemalloc "heap_v2/<period>" profiles (jemalloc 4.0 ... 5.3), FORMATS.md
 * section 2.  The global profile comes from "t*:" lines only; "tN:" lines
 * become per-thread samples.  Header summary lines (before the first "@")
 * only name threads: their counts are inconsistent with the records.
 */
#include "hpa/compat.h"

#include <string.h>

#include "read.h"

/*
 * The record being read: one "@" line and the counter lines under it.
 * A thread line right after the "t*:" line, with the same counts, is
 * held back: if it is the record's only one, that thread holds the whole
 * record and its sample is the all-threads one (hpa_sample.sole_thread),
 * the common case, which would otherwise store every sample twice.
 * Anything else sent for the record first sends what is held, so the
 * samples keep the order of the lines.
 */
struct record {
	bool open;                   /* its stack is the one last given to read_stack() */
	bool has_total;              /* a "t*:" line was seen */
	bool total_last;             /* the sample last sent is the "t*:" line's */
	bool held;                   /* a thread line is held back: held_thread, total's counts */
	int32_t held_thread;
	uint64_t total[HPA_NVALUES]; /* the "t*:" line's counts */
	uint64_t thread_sum[HPA_NVALUES];
	uint64_t thread_lines;
	uint64_t line;               /* line of the "@" */
};

/* The thread line held back, as a sample of its own: another line follows. */
static void send_held(struct reader *r, struct record *rec)
{
	if (rec->held)
		read_send_sample(r, rec->held_thread, rec->total);   /* its notes were taken */
	rec->held = false;
}

static void add_saturating(uint64_t *acc, uint64_t v)
{
	if (__builtin_add_overflow(*acc, v, acc))
		*acc = UINT64_MAX;
}

static void close_record(struct reader *r, struct record *rec)
{
	uint64_t here = r->io.pos.line;

	if (!rec->open)
		return;
	r->io.pos.line = rec->line;   /* notes point at the "@" line */
	if (rec->held)
		read_pipe_sole_thread(r, rec->held_thread);
	if (!rec->has_total && rec->thread_lines) {
		/*
		 * jeprof would drop the record from the global profile; the
		 * sum of the raw per-thread counts is what jemalloc writes as t*.
		 */
		read_note(r, NOTE_NO_TOTAL_LINE);
		read_add_sample(r, HPA_THREAD_ALL, rec->thread_sum);
	} else if (!rec->has_total) {
		read_note(r, NOTE_STACK_WITHOUT_COUNTS);
	}
	r->io.pos.line = here;
	memset(rec, 0, sizeof(*rec));
}

/* "t*:" or "tN:"; sets *thread and advances *p past the colon. */
static int parse_thread(struct reader *r, const char **p, int32_t *thread)
{
	const char *s = *p + 1;
	uint64_t id;
	char q[48];

	if (*s == '*') {
		*thread = HPA_THREAD_ALL;
		s++;
	} else {
		if (parse_u64(r, &s, &id) < 0 || id > INT32_MAX)
			return read_err(r, "bad thread id in \"%s\"", read_quote(*p, q, sizeof(q)));
		*thread = (int32_t)id;
	}
	if (*s != ':')
		return read_err(r, "bad thread id in \"%s\"", read_quote(*p, q, sizeof(q)));
	*p = s + 1;
	return 0;
}

/* A counter line before any "@": only its thread id and name are kept. */
static int header_summary(struct reader *r, const char *line)
{
	const char *p = line;
	uint64_t raw[HPA_NVALUES];
	int32_t thread;

	if (parse_thread(r, &p, &thread) < 0 || parse_counts(r, &p, raw) < 0)
		return -1;
	skip_blanks(&p);
	if (thread != HPA_THREAD_ALL)
		hpa_profile_note_thread(r->prof, thread, *p ? p : NULL);
	else if (*p)
		return read_err(r, "unexpected text after counts: \"%.40s\"", p);
	return 0;
}

static int counter_line(struct reader *r, struct record *rec, const char *line)
{
	const char *p = line;
	uint64_t raw[HPA_NVALUES];
	int32_t thread;
	char q[48];
	int i;

	if (parse_thread(r, &p, &thread) < 0 || parse_counts(r, &p, raw) < 0)
		return -1;
	skip_blanks(&p);
	if (*p)
		return read_err(r, "unexpected text after counts: \"%s\"",
				read_quote(p, q, sizeof(q)));
	if (thread == HPA_THREAD_ALL) {
		send_held(r, rec);
		rec->has_total = true;
		rec->total_last = true;
		memcpy(rec->total, raw, sizeof(rec->total));
		read_add_sample(r, thread, raw);
		return 0;
	}
	rec->thread_lines++;
	for (i = 0; i < HPA_NVALUES; i++)
		add_saturating(&rec->thread_sum[i], raw[i]);
	hpa_profile_note_thread(r->prof, thread, NULL);
	if (r->prof->no_thread_samples)
		return 0;
	if (rec->total_last && !memcmp(raw, rec->total, sizeof(rec->total))) {
		read_sample_notes(r, raw);
		rec->held = true;
		rec->held_thread = thread;
	} else {
		send_held(r, rec);
		read_add_sample(r, thread, raw);
	}
	rec->total_last = false;
	return 0;
}

int read_jemalloc(struct reader *r, const char *header)
{
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	struct record rec = { 0 };
	const char *p = header + 8;   /* after "heap_v2/" */
	uint64_t period;
	char *line;
	size_t len;
	int rc;

	in->format = HPA_FORMAT_JEMALLOC;
	in->kind = HPA_KIND_HEAP;
	if (parse_u64(r, &p, &period) < 0 || period > HPA_MAX_PERIOD) {
		char q[64];
		const char *d = header + 8;
		if (*d >= '0' && *d <= '9')
			read_err(r, "sampling period %.*s does not fit (at most 2^63 bytes: "
				 "lg_prof_sample 63)", (int)strspn(d, "0123456789"), d);
		else
			read_err(r, "heap_v2 header without a sample period: \"%s\" "
				 "(expected heap_v2/<period>)", read_quote(header, q, sizeof(q)));
		return read_fail(r);
	}
	in->header_period = period;
	in->period = (double)period;
	in->sampling = period ? HPA_SAMPLING_V2 : HPA_SAMPLING_NONE;

	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		char q[64];

		line = trim(line, &len);
		r->err[0] = '\0';
		if (!len)
			continue;
		if (r->io.nul) {
			read_err(r, "binary data (NUL byte) in profile");
		} else if (line[0] == '@') {
			close_record(r, &rec);
			if (parse_addrs(r, line + 1) == 0) {
				rec.open = true;
				rec.line = r->io.pos.line;
				read_stack(r);
				if (!r->addrs_nr)
					read_note(r, NOTE_EMPTY_STACK);
				continue;
			}
		} else if (line[0] == 't') {
			if ((rec.open ? counter_line(r, &rec, line) : header_summary(r, line)) == 0)
				continue;
		} else if (is_maps_marker(line)) {
			close_record(r, &rec);
			return read_maps(r, line);
		} else {
			read_err(r, "unexpected line \"%s\" (expected \"@ ADDRESS...\" or "
				 "\"tN: OBJECTS: BYTES [OBJECTS: BYTES]\")",
				 read_quote(line, q, sizeof(q)));
		}
		if (read_line_failed(r) < 0)
			return -1;
	}
	close_record(r, &rec);
	return rc;
}
