/*
 * Diagnostics.  Every message goes to stderr as
 *
 *     hpa: PATH:LINE: what is wrong          (errors)
 *     hpa: warning: PATH:LINE: what is odd   (warnings)
 *
 * Messages start in lower case and have no final period.  Library code
 * returns hpa_error()'s -1 up to main(), which alone decides the exit status.
 */
#ifndef HPA_DIAG_H
#define HPA_DIAG_H

#include "hpa/compat.h"

/* A position in an input: path as the user gave it, 1-based line (0: none). */
struct hpa_pos {
	const char *path;
	uint64_t line;
};

/* When set, errors and warnings are not printed (fuzzing). */
extern bool hpa_diag_quiet;
/* -q, --quiet: warnings are not printed (errors still are); they are still recorded for --html. */
extern bool hpa_warnings_off;

/* Print an error; always returns -1 so callers can `return hpa_error(...)`. */
int hpa_error(const char *fmt, ...) HPA_PRINTF(1, 2);
int hpa_error_at(const struct hpa_pos *pos, const char *fmt, ...) HPA_PRINTF(2, 3);

void hpa_warn(const char *fmt, ...) HPA_PRINTF(1, 2);
void hpa_warn_at(const struct hpa_pos *pos, const char *fmt, ...) HPA_PRINTF(2, 3);

/* The warnings printed so far (without "hpa: warning: "), for --html. */
size_t hpa_diag_recorded_nr(void);
const char *hpa_diag_recorded(size_t i);

/*
 * A thread that works ahead of the one that reports (a dump read while an
 * earlier one is) keeps its messages between hpa_diag_capture_begin() and
 * hpa_diag_capture_end(): they are printed (and warnings recorded) when
 * hpa_diag_replay() is called, in their order, as if said then.  Release a
 * capture that is not to be replayed.
 */
struct hpa_diag_capture {
	struct hpa_diag_kept {
		bool warning;
		char *head, *body;   /* "PATH:LINE: " (or ""), and the message */
	} *msgs;
	size_t nr, alloc;
};

void hpa_diag_capture_begin(struct hpa_diag_capture *c);
void hpa_diag_capture_end(void);
void hpa_diag_replay(struct hpa_diag_capture *c);   /* and releases it */
void hpa_diag_capture_release(struct hpa_diag_capture *c);

/*
 * Copy at most `len` bytes of untrusted text into `out` (size `outsz`) for
 * quoting in a message: control and non-ASCII bytes become '?', and long
 * text is cut with "...".  Returns `out`.
 */
const char *hpa_quote(const char *text, size_t len, char *out, size_t outsz);

/* An impossible state: report where and abort. */
#define HPA_BUG(...) hpa_bug(__FILE__, __LINE__, __VA_ARGS__)
HPA_NORETURN void hpa_bug(const char *file, int line, const char *fmt, ...) HPA_PRINTF(3, 4);

#endif
