/*
 * Folded stacks as input: the format of flamegraph.pl, inferno and
 * `hpa --collapse`, one "root;...;leaf VALUE" line per stack, or
 * "root;...;leaf BEFORE AFTER" for a differential pair (difffolded.pl,
 * `hpa --collapse --diff-columns`).  Frames are names only: each becomes a
 * function, so the reports group by them, and nothing is symbolized.
 *
 * - A frame marked "[inline]" (as hpa writes an inlined callee) joins the
 *   frame before it: one location with its inline levels, as read from a
 *   binary, so writing it again gives the same text.
 * - The stack "<no stack>" is a sample without frames, as hpa writes one.
 * - A frame is its text as written, blanks included; an empty one (perf's
 *   "a;b; 3" for a frame it could not name) is "[unknown]".  Annotations
 *   such as "_[j]" stay part of the name.
 * - Lines starting with '#' are comments (austin's "# interval: 100"
 *   header), skipped wherever they are, as inferno does.
 * - A line's one value stands for every value type (the file does not say
 *   which it is); values are taken as written (no unsampling).
 * - In a two-column file the first column is a base input of its own
 *   ("FILE (before)"), as --base would read it.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/xalloc.h"
#include "read.h"

#define INLINE_MARK "[inline]"
#define NO_STACK "<no stack>"
#define UNKNOWN_FRAME "[unknown]"   /* an empty frame: perf's frame without a symbol */

struct folded {
	struct reader *r;
	uint32_t before;             /* the base input of a two-column file; 0 none */
	struct named_frames nf;      /* the line's stack */
	uint32_t *sample_of;         /* by stack * 2 (+ 1: the base column): its sample + 1, 0 none */
	size_t sample_alloc;
};

/* A number as folded files write it: an optional sign, digits, an optional fraction. */
static bool parse_value(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	size_t i = 0, digits = 0;

	if (!len || len >= sizeof(buf))
		return false;
	if (s[0] == '-' || s[0] == '+')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (i != len || !digits)
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtod(buf, &end);
	return errno == 0 && isfinite(*out);
}

/* A value past what a 64-bit count holds (pprof's int64): refused, naming the line. */
static int check_value(struct folded *f, const char *tok, size_t tlen, double v)
{
	if (fabs(v) < 9223372036854775808.0)
		return 0;
	return read_err(f->r, "value %.*s does not fit in a 64-bit count", (int)(tlen < 40 ? tlen : 40), tok);
}

/* Split the line's last blank-separated token off: [*tok, *tok + *tlen). */
static bool last_token(const char *line, size_t *len, const char **tok, size_t *tlen)
{
	size_t e = *len, b;

	while (e && is_blank(line[e - 1]))
		e--;
	b = e;
	while (b && !is_blank(line[b - 1]))
		b--;
	if (b == e)
		return false;
	*tok = line + b;
	*tlen = e - b;
	while (b && is_blank(line[b - 1]))
		b--;
	*len = b;
	return true;
}

/*
 * Whether `line` (trimmed) has the shape "STACK NUMBER" or "STACK NUMBER
 * NUMBER": how a folded file is told from a profile header.
 */
bool read_is_folded(const char *line)
{
	size_t len = strlen(line), tlen;
	const char *tok;
	double v;

	return last_token(line, &len, &tok, &tlen) && parse_value(tok, tlen, &v) && len;
}

static bool marked(const char *s, size_t len)
{
	size_t ml = strlen(INLINE_MARK);

	return len > ml && !memcmp(s + len - ml, INLINE_MARK, ml);
}

/* The location of frames [names, names + len) ("outer;inl[inline];..."), made once. */
static uint32_t location(struct named_frames *f, struct hpa_profile *prof, const char *names, size_t len)
{
	uint32_t key = hpa_strtab_intern_len(&f->keys, names, len), loc;
	size_t n = 0, ml = strlen(INLINE_MARK);
	const char *p = names, *end = names + len;

	if (key < f->locs_known)
		return f->loc_of_key[key];
	HPA_GROW(f->loc_of_key, key + 1, f->loc_alloc);   /* keys are dense: key == locs_known */
	loc = hpa_profile_new_loc(prof, 0);
	for (;;) {   /* outer first; the location's lines go innermost first */
		const char *semi = memchr(p, ';', (size_t)(end - p)), *e = semi ? semi : end;
		size_t nl = (size_t)(e - p);
		char *name;

		if (n && marked(p, nl))
			nl -= ml;
		name = nl ? xstrndup(p, nl) : xstrdup(UNKNOWN_FRAME);
		HPA_GROW(f->lines, n + 1, f->lines_alloc);
		memmove(f->lines + 1, f->lines, n * sizeof(*f->lines));
		memset(&f->lines[0], 0, sizeof(f->lines[0]));
		f->lines[0].func = hpa_symbols_intern_function(hpa_profile_symbols(prof), prof->strs, name, NULL, NULL);
		free(name);
		n++;
		if (!semi)
			break;
		p = semi + 1;
	}
	hpa_symbols_set_chain(hpa_profile_symbols(prof), loc, f->lines, n, HPA_SYM_SYMTAB);
	f->loc_of_key[key] = loc;
	f->locs_known = key + 1;
	return loc;
}

static void parse_stack(struct named_frames *f, struct hpa_profile *prof, const char *s, size_t len);

void named_frames_init(struct named_frames *f)
{
	memset(f, 0, sizeof(*f));
	hpa_strtab_init(&f->keys);
}

void named_frames_release(struct named_frames *f)
{
	free(f->loc_of_key);
	free(f->locs);
	free(f->lines);
	hpa_strtab_release(&f->keys);
}

uint32_t named_frames_stack(struct named_frames *f, struct hpa_profile *prof, const char *s, size_t len)
{
	parse_stack(f, prof, s, len);
	return hpa_profile_intern_stack_locs(prof, f->locs, f->locs_nr);
}

/*
 * One line's stack (without its values) into f->locs, leaf first.  A
 * location is a frame and the "[inline]" frames right after it.
 */
static void parse_stack(struct named_frames *f, struct hpa_profile *prof, const char *s, size_t len)
{
	size_t i = 0, start = 0;

	f->locs_nr = 0;
	if (len == strlen(NO_STACK) && !memcmp(s, NO_STACK, len))
		return;
	for (;;) {
		const char *semi = memchr(s + i, ';', len - i);
		size_t e = semi ? (size_t)(semi - s) : len, next_e;

		if (semi) {   /* does the next frame belong to this location? */
			const char *s2 = memchr(s + e + 1, ';', len - e - 1);
			next_e = s2 ? (size_t)(s2 - s) : len;
			if (next_e > e + 1 && marked(s + e + 1, next_e - e - 1)) {
				i = e + 1;
				continue;
			}
		}
		HPA_GROW(f->locs, f->locs_nr + 1, f->locs_alloc);
		/* (the empty text is the string table's id 0, never a key of its own) */
		f->locs[f->locs_nr++] = e > start ? location(f, prof, s + start, e - start) :
			location(f, prof, UNKNOWN_FRAME, strlen(UNKNOWN_FRAME));
		if (!semi)
			break;
		i = start = e + 1;
	}
	for (i = 0; i < f->locs_nr / 2; i++) {   /* root first as written; stacks are leaf first */
		uint32_t t = f->locs[i];
		f->locs[i] = f->locs[f->locs_nr - 1 - i];
		f->locs[f->locs_nr - 1 - i] = t;
	}
}

static void add(struct folded *f, uint32_t stack, uint32_t input, double value)
{
	struct hpa_profile *prof = f->r->prof;
	double v[HPA_NVALUES];
	size_t slot;
	int k;

	if (value == 0)
		return;
	for (k = 0; k < HPA_NVALUES; k++)
		v[k] = value;
	/* A stack written again adds to its sample: memory follows the distinct stacks. */
	slot = (size_t)stack * 2 + (f->before && input == f->before);
	if (slot >= f->sample_alloc) {
		size_t old = f->sample_alloc;
		HPA_GROW(f->sample_of, slot + 1, f->sample_alloc);
		memset(f->sample_of + old, 0, (f->sample_alloc - old) * sizeof(*f->sample_of));
	}
	if (f->sample_of[slot] && prof->samples[f->sample_of[slot] - 1].input == input) {
		struct hpa_sample *s = &prof->samples[f->sample_of[slot] - 1];
		for (k = 0; k < HPA_NVALUES; k++)
			s->v[k] += v[k];
		return;
	}
	hpa_profile_add_sample(prof, stack, HPA_THREAD_ALL, input, v);
	f->sample_of[slot] = (uint32_t)prof->samples_nr;
}

static void set_input(struct hpa_input *in)
{
	in->format = HPA_FORMAT_FOLDED;
	in->kind = HPA_KIND_HEAP;
	in->sampling = HPA_SAMPLING_NONE;
	in->has_maps = true;   /* none needed: frames are names */
}

static int folded_line(struct folded *f, char *line, size_t len, bool first)
{
	struct hpa_profile *prof = f->r->prof;
	const char *tok;
	size_t tlen, slen = len;
	double after, before = 0;
	uint32_t stack;

	if (!last_token(line, &slen, &tok, &tlen) || !parse_value(tok, tlen, &after))
		return read_err(f->r, "expected \"frame;frame;... VALUE\" (folded stacks), the value "
				"a number");
	if (check_value(f, tok, tlen, after) < 0)
		return -1;
	if (first || f->before) {
		size_t s2 = slen;
		const char *t2;
		size_t t2len;
		bool two = last_token(line, &s2, &t2, &t2len) && s2 && parse_value(t2, t2len, &before);

		if (first && two) {   /* "STACK BEFORE AFTER": the base is an input of its own */
			char *path = hpa_xasprintf("%s (before)", hpa_profile_input(prof, f->r->input)->path);
			struct hpa_input *in;

			f->before = hpa_profile_add_input(prof, path);
			free(path);
			in = hpa_profile_input(prof, f->before);
			set_input(in);
			in->is_base = in->own_base = true;
			in->weight = -1;
		} else if (!two && f->before) {
			return read_err(f->r, "expected \"frame;frame;... BEFORE AFTER\" like the "
					"lines before it (a differential folded file)");
		}
		if (f->before)
			slen = s2;
		if (two && check_value(f, t2, t2len, before) < 0)
			return -1;
	}
	if (!slen)
		return read_err(f->r, "a value without a stack");
	stack = named_frames_stack(&f->nf, prof, line, slen);
	add(f, stack, f->r->input, after);
	if (f->before)
		add(f, stack, f->before, before);
	return 0;
}

int read_folded(struct reader *r, char *first, size_t first_len)
{
	struct folded f;
	char *line;
	size_t len;
	int rc;

	memset(&f, 0, sizeof(f));
	f.r = r;
	named_frames_init(&f.nf);
	set_input(hpa_profile_input(r->prof, r->input));
	rc = folded_line(&f, first, first_len, true) < 0 ? read_fail(r) : 0;
	while (!rc && (rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		rc = 0;
		line = trim(line, &len);
		if (!len || line[0] == '#')
			continue;
		if (r->io.nul) {
			rc = hpa_error_at(&r->io.pos, "binary data in a folded stacks file");
			break;
		}
		if (folded_line(&f, line, len, false) < 0)
			rc = read_fail(r);
	}
	free(f.sample_of);
	named_frames_release(&f.nf);
	return rc < 0 ? -1 : 0;
}
