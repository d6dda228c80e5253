/*
 * The grouping engine by source line (group.h, hpa_group_source): what
 * --list prints.  Each frame slot is resolved once to its (function, file,
 * line) entry, or to none when its function is not asked for.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/group.h"
#include "hpa/xalloc.h"

#define NO_ENTRY UINT32_MAX

/* Interned records of one size: a hash chain and a per-sample stamp each. */
struct table {
	struct hpa_hashmap by_key;   /* hash -> first record + 1 */
	uint32_t *next;              /* same-hash chain: record + 1 */
	size_t *stamp;               /* sample index + 1 that last added to cum */
	size_t nr, next_alloc, stamp_alloc;
};

struct source {
	const struct hpa_profile *prof;
	const struct hpa_symbols *syms;
	hpa_func_match_fn *match;
	void *ctx;
	uint8_t *func_state;         /* by function id: 0 not asked, 1 listed, 2 not */
	uint32_t *slot_entry;        /* by frame slot: line + 1, 0 not yet, NO_ENTRY none */
	struct table rt, lt;         /* routines, lines */
	struct hpa_source_routine *routines;
	struct hpa_source_line *lines;
	size_t routines_alloc, lines_alloc;
};

/* Add a record to `t` under hash `key` (its chain starting at `first`); returns its id. */
static uint32_t table_add(struct table *t, uint64_t key, uint32_t first)
{
	HPA_GROW(t->next, t->nr + 1, t->next_alloc);
	HPA_GROW(t->stamp, t->nr + 1, t->stamp_alloc);
	t->next[t->nr] = first;
	t->stamp[t->nr] = 0;
	hpa_hashmap_put(&t->by_key, key, (uint32_t)(t->nr + 1));
	return (uint32_t)++t->nr;
}

static void table_release(struct table *t)
{
	hpa_hashmap_release(&t->by_key);
	free(t->next);
	free(t->stamp);
}

/* Whether sample `sample` adds to record `id` (1-based): once per sample. */
static bool first_time(struct table *t, uint32_t id, size_t sample)
{
	if (t->stamp[id - 1] == sample + 1)
		return false;
	t->stamp[id - 1] = sample + 1;
	return true;
}

static uint32_t routine_of(struct source *s, uint32_t func, uint32_t file)
{
	uint64_t key = hpa_hash64((uint64_t)func << 32 | file);
	uint32_t r = hpa_hashmap_get(&s->rt.by_key, key), first = r;

	for (; r; r = s->rt.next[r - 1])
		if (s->routines[r - 1].func == func && s->routines[r - 1].file == file)
			return r;
	HPA_GROW(s->routines, s->rt.nr + 1, s->routines_alloc);
	s->routines[s->rt.nr] = (struct hpa_source_routine){ func, file, 0, 0 };
	return table_add(&s->rt, key, first);
}

static uint32_t line_of(struct source *s, uint32_t routine, uint32_t line)
{
	uint64_t key = hpa_hash64((uint64_t)routine << 32 | line);
	uint32_t e = hpa_hashmap_get(&s->lt.by_key, key), first = e;

	for (; e; e = s->lt.next[e - 1])
		if (s->lines[e - 1].routine == routine - 1 && s->lines[e - 1].line == line)
			return e;
	HPA_GROW(s->lines, s->lt.nr + 1, s->lines_alloc);
	s->lines[s->lt.nr] = (struct hpa_source_line){ routine - 1, line, 0, 0 };
	return table_add(&s->lt, key, first);
}

/* The line (1-based) of frame `f`, or NO_ENTRY. */
static uint32_t frame_entry(struct source *s, struct hpa_frame f)
{
	const struct hpa_line *ln;
	size_t slot;

	if (!hpa_chain_of(s->syms, f.loc)->nr)
		return NO_ENTRY;   /* not symbolized: no function to list */
	slot = hpa_frame_slot(s->syms, f);
	if (s->slot_entry[slot])
		return s->slot_entry[slot];
	ln = &s->syms->lines[slot];
	if (!s->func_state[ln->func])
		s->func_state[ln->func] = s->match(s->ctx, s->prof, f) ? 1 : 2;
	s->slot_entry[slot] = s->func_state[ln->func] == 1 ?
		line_of(s, routine_of(s, ln->func, ln->file), ln->line) : NO_ENTRY;
	return s->slot_entry[slot];
}

void hpa_group_source(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		      hpa_func_match_fn *match, void *ctx, struct hpa_source_groups *out)
{
	struct source s;
	struct hpa_view view;
	const struct hpa_frame *frames;
	size_t i, f, nr;
	double total = 0;
	bool leaf, flat;

	memset(&s, 0, sizeof(s));
	s.prof = prof;
	s.syms = opts->symbols;
	s.match = match;
	s.ctx = ctx;
	s.func_state = xcalloc(s.syms->funcs_nr + 1, 1);
	s.slot_entry = xcalloc(hpa_symbols_slots(s.syms), sizeof(*s.slot_entry));
	hpa_hashmap_init(&s.rt.by_key);
	hpa_hashmap_init(&s.lt.by_key);
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		double value;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		value = hpa_view_value(&view, i);
		total += value;
		leaf = true;
		for (f = 0; f < nr; f++) {
			struct hpa_source_line *l;
			struct hpa_source_routine *r;
			uint32_t e;

			if (prof->locs[frames[f].loc].addr >= HPA_KERNEL_FLOOR)
				continue;   /* no row, as in --text: the next frame is the leaf */
			e = frame_entry(&s, frames[f]);
			flat = leaf;
			leaf = false;
			if (e == NO_ENTRY)
				continue;
			l = &s.lines[e - 1];
			r = &s.routines[l->routine];
			if (flat) {
				l->flat += value;
				r->flat += value;
			}
			if (first_time(&s.lt, e, i))
				l->cum += value;
			if (first_time(&s.rt, l->routine + 1, i))
				r->cum += value;
		}
	}
	hpa_view_release(&view);
	for (i = 0; i < s.lt.nr; i++) {
		s.lines[i].flat = hpa_dust_to_zero(s.lines[i].flat);
		s.lines[i].cum = hpa_dust_to_zero(s.lines[i].cum);
	}
	for (i = 0; i < s.rt.nr; i++) {
		s.routines[i].flat = hpa_dust_to_zero(s.routines[i].flat);
		s.routines[i].cum = hpa_dust_to_zero(s.routines[i].cum);
	}
	out->routines = s.routines;
	out->routines_nr = s.rt.nr;
	out->lines = s.lines;
	out->lines_nr = s.lt.nr;
	out->total = hpa_dust_to_zero(total);
	table_release(&s.rt);
	table_release(&s.lt);
	free(s.slot_entry);
	free(s.func_state);
}
