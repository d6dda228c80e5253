/*
 * Private to src/read: the state shared by the format readers, and the
 * field parsers they use.  Parsers never print; they fill `r->err` and return
 * -1, and the reader decides between an error and a truncation warning.
 */
#ifndef HPA_READ_H
#define HPA_READ_H

#include "hpa/compat.h"
#include "hpa/lineio.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/symbols.h"

/* Oddities counted while reading and reported once per input at the end. */
enum read_note {
	NOTE_BYTES_WITHOUT_OBJECTS,
	NOTE_OBJECTS_WITHOUT_BYTES,
	NOTE_EMPTY_STACK,
	NOTE_STACK_WITHOUT_COUNTS,
	NOTE_NO_TOTAL_LINE,
	NOTE_MAPS_LINE,
	NOTE_IMPRECISE,
	NOTE_NR
};

struct read_note_count {
	uint64_t first_line, count;
};

/* A line of a symbol section: an address and its names, "outer--inlined". */
struct read_symbol {
	uint64_t addr;
	char *names;
};

struct reader {
	struct hpa_lineio io;
	struct hpa_profile *prof;
	uint32_t input;
	size_t first_sample, first_loc; /* this input's samples and locations start here */
	bool growth_marker;            /* a "--- growth" line preceded the header */
	bool gunzipped;                /* reading the inside of a gzip stream */
	uint64_t *addrs;               /* stack being parsed, leaf first */
	size_t addrs_nr, addrs_alloc;
	struct read_note_count notes[NOTE_NR];
	bool symbolized;               /* a "--- symbol" section came first */
	unsigned jemalloc_lines;       /* "<jemalloc>: ..." lines before the header */
	struct read_symbol *syms;      /* its lines */
	size_t syms_nr, syms_alloc;
	char *symbol_binary;           /* its "binary=" */
	char err[256];                 /* what the last failed parser found */
	struct read_pipe *pipe;        /* stacks and samples on their way to prof (pipe.c) */
};

/* Count a note at the current line. */
void read_note(struct reader *r, enum read_note note);

/* Report the parser error in r->err at the current line; returns -1. */
int read_fail(struct reader *r);

/*
 * The current line did not parse (r->err says why).  Returns -1 after
 * reporting an error, or 0 after a warning when it is an incomplete last
 * line (a truncated file), in which case reading simply goes on to EOF.
 */
int read_line_failed(struct reader *r);

/* Set r->err from a format and return -1. */
int read_err(struct reader *r, const char *fmt, ...) HPA_PRINTF(2, 3);

/* Quote the line for a message. */
const char *read_quote(const char *line, char *out, size_t outsz);

void skip_blanks(const char **p);
bool is_blank(char c);
/* Trim leading and trailing blanks in place; returns the new start. */
char *trim(char *line, size_t *len);

/* Value of a hex digit, or -1. */
int hex_digit(char c);

/*
 * The largest sampling period a header may give: jemalloc's lg_prof_sample
 * is at most 63, tcmalloc's and Go's rates are signed 64-bit.
 */
#define HPA_MAX_PERIOD (UINT64_C(1) << 63)

/* Decimal u64: 0; -1 if no digits; -2 with r->err set if too large. */
int parse_u64(struct reader *r, const char **p, uint64_t *out);

/* "N: BYTES [N: BYTES]" into raw[enum hpa_value order]. */
int parse_counts(struct reader *r, const char **p, uint64_t raw[HPA_NVALUES]);

/* Whitespace-separated addresses ("0x" optional, 1-16 hex digits) to r->addrs. */
int parse_addrs(struct reader *r, const char *p);

/*
 * Stacks and samples go to the profile through a pipe (pipe.c), stored on a
 * second thread in the order given.  read_stack() gives r->addrs as a stack
 * (one already stored is reused); read_add_sample() gives a sample of the
 * counts as written for the stack last given: it is stored as an estimate
 * (hpa_unsample_record()), summed into the stack's sample when the stack
 * has one.  read_pipe_end() returns once all is stored: the reader calls it
 * before it looks at the profile's locations, stacks or samples.
 */
void read_stack(struct reader *r);
void read_add_sample(struct reader *r, int32_t thread, const uint64_t raw[HPA_NVALUES]);
/* read_add_sample() in two: the notes its counts call for, and the sample itself. */
void read_sample_notes(struct reader *r, const uint64_t raw[HPA_NVALUES]);
void read_send_sample(struct reader *r, int32_t thread, const uint64_t raw[HPA_NVALUES]);
/* The sample last given (all threads) is also `thread`'s own, whole: hpa_profile_set_sole_thread(). */
void read_pipe_sole_thread(struct reader *r, int32_t thread);
void read_pipe_sample(struct reader *r, int32_t thread, const double v[HPA_NVALUES]);
void read_pipe_end(struct reader *r);

/* True when the line starts a maps section. */
bool is_maps_marker(const char *line);

/* Read the maps section; `marker` is the line that opened it. */
int read_maps(struct reader *r, const char *marker);

/* The header lines that start the text heap formats: "heap_v2/PERIOD" and "heap profile:". */
bool read_is_jemalloc_header(const char *line);
bool read_is_gperf_header(const char *line);

/* Format bodies; `header` is the (trimmed) header line. */
int read_jemalloc(struct reader *r, const char *header);
int read_gperf(struct reader *r, const char *header);

/* Folded stacks (folded.c): whether a first line has their shape; the whole file from it. */
bool read_is_folded(const char *line);
int read_folded(struct reader *r, char *first, size_t first_len);

/* jeprof's symbol section, after its "--- symbol" line (symbolized.c). */
int read_symbol_section(struct reader *r);
/* Name the input's locations from it, once the embedded profile is read. */
void read_apply_symbols(struct reader *r);
void read_symbols_release(struct reader *r);

/* Lines of a whole buffer (statistics, /proc files), numbered for messages. */
struct buf_lines {
	const char *p, *end;
	struct hpa_pos pos;
	char *line;             /* the current line, NUL-terminated, without "\r\n" (a copy) */
	size_t alloc;
};

bool buf_next_line(struct buf_lines *l);

/* "FILE:LINE: WHAT: 'the line'" for the current line; returns -1. */
int buf_line_error(const struct buf_lines *l, const char *what);

/* A pprof Profile message (already gunzipped). */
int read_pprof(struct reader *r, const uint8_t *data, size_t len);

/*
 * Stacks of frames known by name alone ("root;...;leaf", an inlined
 * callee marked "[inline]" after its caller, as --collapse writes them):
 * folded files, ClickHouse's rows.  Each location is made once.
 */
struct named_frames {
	struct hpa_strtab keys;      /* a location's frames, as written */
	uint32_t *loc_of_key;        /* by key id: location id */
	size_t loc_alloc, locs_known;   /* keys below locs_known have one */
	uint32_t *locs;              /* the stack, leaf first */
	size_t locs_nr, locs_alloc;
	struct hpa_line *lines;
	size_t lines_alloc;
};

void named_frames_init(struct named_frames *f);
void named_frames_release(struct named_frames *f);
/* The stack of [s, s + len) ("<no stack>": none) in prof, made or found. */
uint32_t named_frames_stack(struct named_frames *f, struct hpa_profile *prof, const char *s, size_t len);

/*
 * ClickHouse's answer of JSONEachRow lines {"stack":[names, root first],
 * "v":[the four sums]} into `input` of prof, each value divided by
 * `divide` (clickhouse.c); -1 after naming the first line that is not one.
 */
int read_clickhouse_rows(struct hpa_profile *prof, uint32_t input, char *answer, double divide, const char *shown);

#endif
