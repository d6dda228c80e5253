/*
 * Allocator statistics (stats.h): jemalloc malloc_stats_print() text and
 * tcmalloc GetStats() text, and the choice of reader by content; the JSON
 * reader is stats_json.c.  Fields are found by name, as they move between
 * versions (spec/STATS.md sections 1 and 4); figures are whole bytes (the
 * "MiB" decimals of tcmalloc follow the locale and are not read).
 */
#include "hpa/compat.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "read.h"

bool buf_next_line(struct buf_lines *l)
{
	const char *nl;
	size_t n;

	if (l->p >= l->end)
		return false;
	nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
	HPA_GROW(l->line, n + 1, l->alloc);
	memcpy(l->line, l->p, n);
	if (n && l->line[n - 1] == '\r')
		n--;
	l->line[n] = '\0';
	l->p = nl ? nl + 1 : l->end;
	l->pos.line++;
	return true;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* A whole unsigned decimal number at *s (advanced past it); false if none. */
static bool number(const char **s, uint64_t *out)
{
	const char *p = *s;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*s = p;
	*out = v;
	return true;
}

int buf_line_error(const struct buf_lines *l, const char *what)
{
	char q[64];

	return hpa_error_at(&l->pos, "%s: '%s'", what, hpa_quote(l->line, strlen(l->line), q, sizeof(q)));
}

/* Whether a line of data starts with prefix. */
static bool has_line(const char *data, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) >= n && !memcmp(p, prefix, n))
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/* ---- jemalloc text ------------------------------------------------------ */

/* What one arena block (merged, or one arena) says. */
struct je_block {
	uint64_t internal, tcache_bytes, base, dirty_pages, muzzy_pages;
	bool has_internal, has_tcache, has_base, has_dirty, has_muzzy;
	struct hpa_je_bin *bins;
	size_t bins_nr, bins_alloc;
};

/* Columns of the bins table, by header name. */
struct bin_cols {
	int n, size, curregs, curslabs, regs, pgs;
};

static void block_release(struct je_block *b)
{
	free(b->bins);
	memset(b, 0, sizeof(*b));
}

/* Add the figures of b into sum (per-arena blocks when there is no merged one). */
static void block_add(struct je_block *sum, const struct je_block *b)
{
	size_t i, j;

	sum->internal += b->internal;
	sum->tcache_bytes += b->tcache_bytes;
	sum->base += b->base;
	sum->dirty_pages += b->dirty_pages;
	sum->muzzy_pages += b->muzzy_pages;
	sum->has_internal |= b->has_internal;
	sum->has_tcache |= b->has_tcache;
	sum->has_base |= b->has_base;
	sum->has_dirty |= b->has_dirty;
	sum->has_muzzy |= b->has_muzzy;
	for (i = 0; i < b->bins_nr; i++) {
		for (j = 0; j < sum->bins_nr && sum->bins[j].size != b->bins[i].size; j++)
			;
		if (j == sum->bins_nr) {
			HPA_GROW(sum->bins, sum->bins_nr + 1, sum->bins_alloc);
			sum->bins[sum->bins_nr++] = b->bins[i];
		} else {
			sum->bins[j].curregs += b->bins[i].curregs;
			sum->bins[j].curslabs += b->bins[i].curslabs;
		}
	}
}

/* "bins:  size ind allocated ..." : where the needed columns are. */
static int bin_header(const struct buf_lines *l, const char *s, struct bin_cols *c)
{
	char tok[64];
	int n = 0, len;

	memset(c, -1, sizeof(*c));
	while (sscanf(s, "%63s%n", tok, &len) == 1) {
		if (!strcmp(tok, "size"))
			c->size = n;
		else if (!strcmp(tok, "curregs"))
			c->curregs = n;
		else if (!strcmp(tok, "curslabs") || !strcmp(tok, "curruns"))
			c->curslabs = n;
		else if (!strcmp(tok, "regs"))
			c->regs = n;
		else if (!strcmp(tok, "pgs"))
			c->pgs = n;
		n++;
		s += len;
	}
	c->n = n;
	if (c->size < 0 || c->curregs < 0 || c->curslabs < 0 || c->regs < 0 || c->pgs < 0)
		return buf_line_error(l, "bins table without size, curregs, curslabs, regs and pgs columns");
	return 0;
}

/* A bins row; 1 if it was one, 0 if the table ended, -1 on error. */
static int bin_row(const struct buf_lines *l, const struct bin_cols *c, uint64_t page, struct je_block *b)
{
	const char *s = skip_space(l->line);
	uint64_t v[5] = { 0 };
	int want[5] = { c->size, c->curregs, c->curslabs, c->regs, c->pgs };
	int n = 0, k, len;
	char tok[64];

	if (!strcmp(s, "---"))
		return 1;
	if (!isdigit((unsigned char)*s))
		return 0;
	while (sscanf(s, "%63s%n", tok, &len) == 1) {
		for (k = 0; k < 5; k++) {
			const char *t = tok;
			if (want[k] == n && (!number(&t, &v[k]) || *t))
				return buf_line_error(l, "bad number in the bins table");
		}
		n++;
		s += len;
	}
	if (n <= want[0] || n <= want[1] || n <= want[2] || n <= want[3] || n <= want[4])
		return buf_line_error(l, "bins row shorter than its header");
	if (!v[0] || !v[3])
		return buf_line_error(l, "bins row with a zero size or regs");
	HPA_GROW(b->bins, b->bins_nr + 1, b->bins_alloc);
	b->bins[b->bins_nr++] = (struct hpa_je_bin){ v[0], v[3], v[4] * page, v[1], v[2] };
	return 1;
}

/* "name: N" of an arena block; false if the line is not such a line. */
static bool block_value(const char *s, const char *name, uint64_t *out)
{
	size_t n = strlen(name);

	s = skip_space(s);
	if (strncmp(s, name, n) || s[n] != ':')
		return false;
	s = skip_space(s + n + 1);
	return number(&s, out) && !*skip_space(s);
}

/* "   dirty:   N/A   4104   0   2   4104": the pages now (second column). */
static int decay_row(const struct buf_lines *l, const char *s, uint64_t *pages)
{
	char t1[64], t2[64];

	if (sscanf(s, "%*s %63s %63s", t1, t2) != 2)
		return buf_line_error(l, "short decaying row");
	s = t2;
	if (!number(&s, pages) || *s)
		return buf_line_error(l, "bad page count in the decaying row");
	return 0;
}

/* The "Allocated: A, active: B, metadata: C (n_thp N), resident: D, ..." line. */
static int allocated_line(const struct buf_lines *l, struct hpa_alloc_stats *st, unsigned *seen)
{
	static const char *const names[] = { "Allocated", "active", "metadata", "resident", "mapped",
					     "retained" };
	uint64_t *fields[] = { &st->allocated, &st->active, &st->metadata, &st->resident, &st->mapped,
			       &st->retained };
	const char *s = l->line;
	size_t k;

	while (*s) {
		const char *colon = strchr(s, ':');
		size_t n = colon ? (size_t)(colon - s) : 0;
		uint64_t v;

		if (!colon)
			return buf_line_error(l, "bad Allocated line");
		s = skip_space(colon + 1);
		if (!number(&s, &v))
			return buf_line_error(l, "bad number in the Allocated line");
		for (k = 0; k < HPA_ARRAY_SIZE(names); k++) {
			const char *name = colon - n;
			if (strlen(names[k]) == n && !strncmp(name, names[k], n)) {
				*fields[k] = v;
				*seen |= 1u << k;
			}
		}
		if (*s == ' ' && s[1] == '(') {   /* " (n_thp N)" */
			const char *close = strchr(s, ')');
			if (!close)
				return buf_line_error(l, "bad Allocated line");
			s = close + 1;
		}
		if (*s == ',')
			s++;
		else if (*skip_space(s))
			return buf_line_error(l, "bad Allocated line");
		s = skip_space(s);
	}
	/* 3.6 has no metadata and resident: active stands for resident. */
	if (!(*seen & 8))
		st->resident = st->active;
	return 0;
}

/* A jemalloc text dump as it is read. */
struct je_read {
	struct je_block merged, sum, cur;
	struct je_block *block;      /* the block being read: &merged, &cur, or NULL */
	struct bin_cols cols;
	bool in_bins, have_merged;
	unsigned seen;               /* Allocated: line's fields */
};

/* The next block starts (&merged, &cur or NULL): an arena's block ends, into the sum. */
static void je_block_start(struct je_read *jr, struct je_block *next)
{
	if (jr->block == &jr->cur) {
		block_add(&jr->sum, &jr->cur);
		block_release(&jr->cur);
	}
	jr->block = next;
	jr->have_merged |= next == &jr->merged;
}

/* A line inside a block (t: without its indent): bins header, decay rows, a few values. */
static int je_block_line(struct je_read *jr, struct buf_lines *l, const char *t)
{
	struct je_block *b = jr->block;
	uint64_t v;

	if (starts(t, "bins:")) {
		if (bin_header(l, t + 5, &jr->cols) < 0)
			return -1;
		jr->in_bins = true;
	} else if (starts(t, "dirty:")) {
		if (decay_row(l, t, &b->dirty_pages) < 0)
			return -1;
		b->has_dirty = true;
	} else if (starts(t, "muzzy:")) {
		if (decay_row(l, t, &b->muzzy_pages) < 0)
			return -1;
		b->has_muzzy = true;
	} else if (block_value(t, "internal", &v)) {
		b->internal = v, b->has_internal = true;
	} else if (block_value(t, "tcache_bytes", &v)) {
		b->tcache_bytes = v, b->has_tcache = true;
	} else if (block_value(t, "base", &v)) {
		b->base = v, b->has_base = true;
	}
	return 0;
}

/* A line outside the bins: 1 at the end line, 0 to go on, -1 after reporting. */
static int je_line(struct je_read *jr, struct buf_lines *l, struct hpa_alloc_stats *st)
{
	const char *s = l->line, *t;
	uint64_t v;

	if (starts(s, "--- End jemalloc statistics ---"))
		return 1;
	if (starts(s, "Version: ")) {
		t = s + 9;
		free(st->version);
		st->version = xstrndup(t + (*t == '"'), strcspn(t + (*t == '"'), "\""));
	} else if (starts(s, "  opt.lg_prof_sample: ")) {
		t = s + 22;
		if (number(&t, &v) && v < 64)
			st->lg_prof_sample = (int)v;
	} else if (starts(s, "  opt.prof: ")) {
		st->prof_on = !strcmp(s + 12, "true");
	} else if (starts(s, "  opt.cache_oblivious: ")) {
		st->cache_oblivious = strcmp(s + 23, "false") != 0;
	} else if (starts(s, "Page size: ")) {
		t = s + 11;
		if (!number(&t, &st->page) || *t || !st->page || st->page & (st->page - 1)) {
			buf_line_error(l, "bad page size");
			return -1;
		}
	} else if (starts(s, "Allocated: ")) {
		return allocated_line(l, st, &jr->seen) < 0 ? -1 : 0;
	} else if (starts(s, "Merged arenas stats:")) {
		je_block_start(jr, &jr->merged);
	} else if (starts(s, "arenas[")) {
		je_block_start(jr, &jr->cur);
	} else if (starts(s, "Destroyed arenas stats:")) {
		je_block_start(jr, NULL);   /* memory of destroyed arenas is not anyone's now */
	} else if (jr->block) {
		return je_block_line(jr, l, skip_space(s));
	}
	return 0;
}

/* The merged arenas' figures (or, without them, the arenas' sum) into st. */
static void je_take(struct hpa_alloc_stats *st, struct je_block *b)
{
	st->internal = b->internal;
	st->has_internal = b->has_internal;
	st->tcache_bytes = b->tcache_bytes;
	st->has_tcache = b->has_tcache;
	st->base = b->base;
	st->dirty = b->dirty_pages * st->page;
	st->has_dirty = b->has_dirty;
	st->muzzy = b->muzzy_pages * st->page;
	st->has_muzzy = b->has_muzzy;
	st->bins = b->bins;
	st->bins_nr = b->bins_nr;
	st->bins_alloc = b->bins_alloc;
	b->bins = NULL;
}

static int je_text(const char *name, const char *data, size_t len, struct hpa_alloc_stats *st)
{
	struct buf_lines l = { data, data + len, { name, 0 }, NULL, 0 };
	struct je_read jr;
	int rc = 0;

	memset(&jr, 0, sizeof(jr));
	st->allocator = HPA_ALLOC_JEMALLOC;
	st->format = xstrdup("jemalloc statistics (text)");
	st->page = 4096;
	st->cache_oblivious = true;
	st->lg_prof_sample = -1;
	if (!has_line(data, len, "--- End jemalloc statistics ---")) {   /* cut: say so, not where it broke */
		while (buf_next_line(&l))
			;
		free(l.line);
		return hpa_error_at(&l.pos, "jemalloc statistics cut short: no '--- End jemalloc "
				    "statistics ---' line");
	}
	while (!rc && buf_next_line(&l)) {
		if (jr.in_bins) {
			int row = bin_row(&l, &jr.cols, st->page, jr.block);
			if (row < 0)
				rc = -1;
			if (row)
				continue;
			jr.in_bins = false;
		}
		rc = je_line(&jr, &l, st);
	}
	if (rc >= 0 && jr.block == &jr.cur)
		block_add(&jr.sum, &jr.cur);
	if (rc == 0)
		rc = hpa_error_at(&l.pos, "jemalloc statistics cut short: no '--- End jemalloc "
				  "statistics ---' line");
	else if (rc > 0 && (jr.seen & 3) != 3)
		rc = hpa_error_at(&l.pos, "jemalloc statistics without an 'Allocated: ..., active: ...' "
				  "line (built without config.stats?)");
	else if (rc > 0)
		je_take(st, jr.have_merged ? &jr.merged : &jr.sum);
	block_release(&jr.merged);
	block_release(&jr.sum);
	block_release(&jr.cur);
	free(l.line);
	return rc > 0 ? 0 : rc;
}

/* ---- tcmalloc GetStats ---------------------------------------------------- */

/* "class   5 [       64 bytes ] :   875064 objs;  53.4 MiB; ...": a size class's free objects. */
static int tc_class_line(const struct buf_lines *l, const char *s, struct hpa_alloc_stats *st)
{
	uint64_t size, objs;

	s = strchr(s, '[');
	if (!s)
		return buf_line_error(l, "size class line without '[ SIZE bytes ]'");
	s = skip_space(s + 1);
	if (!number(&s, &size) || !size || !starts(skip_space(s), "bytes ]"))
		return buf_line_error(l, "bad size in a size class line");
	s = strchr(s, ':');
	if (!s)
		return buf_line_error(l, "size class line without ': N objs'");
	s = skip_space(s + 1);
	if (!number(&s, &objs) || !starts(skip_space(s), "objs"))
		return buf_line_error(l, "bad object count in a size class line");
	if (objs > UINT64_MAX / size)
		return buf_line_error(l, "size class line holding more than 2^64 bytes");
	HPA_GROW(st->tc_classes, st->tc_classes_nr + 1, st->tc_classes_alloc);
	st->tc_classes[st->tc_classes_nr++] = (struct hpa_tc_class){ size, objs };
	return 0;
}

static int tc_text(const char *name, const char *data, size_t len, struct hpa_alloc_stats *st)
{
	static const char *const labels[] = {
		"Bytes in use by application", "Bytes in page heap freelist",
		"Bytes in central cache freelist", "Bytes in transfer cache freelist",
		"Bytes in thread cache freelists", "Bytes in malloc metadata",
		"Actual memory used", "Bytes released to OS", "Virtual address space used"
	};
	uint64_t *fields[] = { &st->tc_in_use, &st->tc_pageheap_free, &st->tc_central,
			       &st->tc_transfer, &st->tc_thread, &st->tc_metadata, &st->tc_actual,
			       &st->tc_released, &st->tc_virtual };
	struct buf_lines l = { data, data + len, { name, 0 }, NULL, 0 };
	unsigned seen = 0;
	uint64_t last_line = 0, parts;
	size_t k;

	st->allocator = HPA_ALLOC_TCMALLOC;
	st->format = xstrdup("tcmalloc statistics (GetStats)");
	st->lg_prof_sample = -1;
	while (buf_next_line(&l)) {
		const char *s = l.line, *close;
		uint64_t v;

		if (starts(s, "class ")) {
			if (tc_class_line(&l, s, st) < 0)
				return free(l.line), -1;
			continue;
		}
		if (!starts(s, "MALLOC:"))
			continue;
		s = skip_space(s + 7);
		if (*s == '+' || *s == '=')
			s = skip_space(s + 1);
		if (!*s || *s == '-')   /* "MALLOC:" alone, "MALLOC:   ------------" */
			continue;
		if (!number(&s, &v))
			return buf_line_error(&l, "bad number in a MALLOC: line"), free(l.line), -1;
		s = skip_space(s);
		if (*s == '(') {
			close = strchr(s, ')');
			if (!close)
				return buf_line_error(&l, "bad MALLOC: line"), free(l.line), -1;
			s = skip_space(close + 1);
		}
		for (k = 0; k < HPA_ARRAY_SIZE(labels); k++) {
			if (starts(s, labels[k]) && !(seen & 1u << k)) {
				*fields[k] = v;
				seen |= 1u << k;
				last_line = l.pos.line;
				break;
			}
		}
	}
	free(l.line);
	l.line = NULL;
	if (seen != (1u << HPA_ARRAY_SIZE(labels)) - 1) {
		for (k = 0; k < HPA_ARRAY_SIZE(labels) && seen & 1u << k; k++)
			;
		return hpa_error_at(&l.pos, "tcmalloc statistics cut short: no 'MALLOC: ... %s' line",
				    labels[k]);
	}
	l.pos.line = last_line;
	parts = st->tc_in_use + st->tc_pageheap_free + st->tc_central + st->tc_transfer +
		st->tc_thread + st->tc_metadata;
	if (parts != st->tc_actual || st->tc_actual + st->tc_released != st->tc_virtual)
		return hpa_error_at(&l.pos, "tcmalloc statistics that do not add up: the parts make "
				    "%llu, 'Actual memory used' says %llu; with %llu released, 'Virtual' "
				    "says %llu", (unsigned long long)parts,
				    (unsigned long long)st->tc_actual, (unsigned long long)st->tc_released,
				    (unsigned long long)st->tc_virtual);
	return 0;
}

/* ---- which one ---------------------------------------------------------- */

int hpa_alloc_stats_parse(const char *name, const char *data, size_t len, struct hpa_alloc_stats *out)
{
	const char *p = data, *end = data + len;
	struct hpa_pos pos = { name, 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->source = xstrdup(name);
	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end && *p == '{')
		rc = hpa_je_json_parse(name, data, len, out);
	else if (has_line(data, len, "___ Begin jemalloc statistics ___") ||
		 has_line(data, len, "Allocated: "))
		rc = je_text(name, data, len, out);
	else if (has_line(data, len, "MALLOC:"))
		rc = tc_text(name, data, len, out);
	else if (has_line(data, len, "tcmalloc or jemalloc is not enabled"))
		rc = hpa_error_at(&pos, "the server uses neither jemalloc nor tcmalloc (brpc's /memory "
				  "says so): no allocator statistics");
	else
		rc = hpa_error_at(&pos, "not allocator statistics: expected jemalloc's "
				  "malloc_stats_print() output (text or JSON) or tcmalloc's GetStats() "
				  "'MALLOC:' lines");
	if (rc < 0)
		hpa_alloc_stats_release(out);
	return rc;
}

void hpa_alloc_stats_parts(const struct hpa_alloc_stats *st, struct hpa_alloc_parts *out)
{
	if (st->allocator == HPA_ALLOC_TCMALLOC) {
		out->live = (double)st->tc_in_use;
		out->frag = -1;
		out->free = (double)st->tc_pageheap_free + (double)st->tc_central + (double)st->tc_transfer +
			    (double)st->tc_thread;
		out->meta = (double)st->tc_metadata;
		return;
	}
	out->live = (double)st->allocated;
	out->frag = st->active > st->allocated ? (double)(st->active - st->allocated) : 0;
	out->meta = (double)st->metadata;
	/* resident beyond the active pages and the metadata: free pages kept (dirty, muzzy) */
	out->free = st->resident > st->active + st->metadata ?
		    (double)(st->resident - st->active - st->metadata) : 0;
}

void hpa_alloc_stats_release(struct hpa_alloc_stats *s)
{
	free(s->source);
	free(s->format);
	free(s->version);
	free(s->bins);
	free(s->tc_classes);
	memset(s, 0, sizeof(*s));
}

const struct hpa_je_bin *hpa_je_bin_for(const struct hpa_alloc_stats *st, double avg)
{
	const struct hpa_je_bin *best = NULL;
	size_t i;

	for (i = 0; i < st->bins_nr; i++)
		if (!best || fabs(avg - (double)st->bins[i].size) < fabs(avg - (double)best->size))
			best = &st->bins[i];
	/*
	 * Unsampled counts round an average by at most 6.25% of the size, less
	 * than half the gap to a neighbouring class: farther, it is no class
	 * the statistics list (a large size, or a bin the text leaves out).
	 */
	if (best && fabs(avg - (double)best->size) > 0.0715 * (double)best->size)
		return NULL;
	return best;
}
