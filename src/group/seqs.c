/*
 * The engine under the call tree and the stack groups (seqs.h): the view's
 * stacks collected as sequences of frame slots.  Ranking and walking them
 * is seqwalk.c.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "seqs.h"
#include "hpa/diag.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"

/* The per-kept-sample arrays to `alloc` entries, as s->sample went from `old`. */
static void grow_kept(struct hpa_seqs *s, size_t old, size_t alloc)
{
	if (alloc == old)
		return;
	if (!s->no_values)
		s->v = xgrow(s->v, old * sizeof(*s->v), st_mult(alloc, sizeof(*s->v)));
	if (s->seq_of)
		s->seq_of = xgrow(s->seq_of, old * sizeof(*s->seq_of), st_mult(alloc, sizeof(*s->seq_of)));
}

/*
 * Kept sample k's sequence id, in seq_of (room for `alloc`): made only
 * once a sample's is not its own index, as when every sample has a
 * sequence of its own (one dump, the common case: 0.7 MiB on 180k stacks).
 */
static void set_seq_of(struct hpa_seqs *s, size_t k, uint32_t id, size_t alloc)
{
	size_t i;

	if (!s->seq_of) {
		if (id == k)
			return;
		s->seq_of = xmalloc(st_mult(alloc, sizeof(*s->seq_of)));
		for (i = 0; i < k; i++)
			s->seq_of[i] = (uint32_t)i;
	}
	s->seq_of[k] = id;
}

/* Slot i of the stored sequences, in whichever width they have. */
static void seq_set(struct hpa_seqs *s, size_t i, size_t slot)
{
	if (s->seq16)
		s->seq16[i] = (uint16_t)slot;
	else
		s->seq[i] = (uint32_t)slot;
}

/*
 * Slot `slot` at position i of the stored sequences, its frame f noted the
 * first time the slot is used.  Always inlined with `narrow` a constant.
 */
static HPA_ALWAYS_INLINE void put_slot(bool *used, struct hpa_frame *slot_frame, uint16_t *seq16,
				       uint32_t *seq, size_t i, size_t slot, struct hpa_frame f, bool narrow)
{
	if (!used[slot]) {
		used[slot] = true;
		slot_frame[slot] = f;
	}
	if (narrow)
		seq16[i] = (uint16_t)slot;
	else
		seq[i] = (uint32_t)slot;
}

/*
 * A stack's frames[0 .. nr) as its sequence of slots from at on, leaf
 * first or root first, each slot's frame noted the first time it is used.
 * Always inlined with `narrow` a constant: a loop for each width of slot,
 * neither asking per frame which it is (seq_set).
 */
static HPA_ALWAYS_INLINE void store_seq(struct hpa_seqs *s, size_t at, const struct hpa_view *view,
					const struct hpa_frame *frames, size_t nr, bool leaf_first,
					bool narrow)
{
	const uint32_t *slot0 = view->slot0;
	bool *used = s->slot_used;
	struct hpa_frame *slot_frame = s->slot_frame;
	uint16_t *seq16 = narrow ? s->seq16 + at : NULL;
	uint32_t *seq = narrow ? NULL : s->seq + at;
	size_t k;

	for (k = 0; k < nr; k++) {
		struct hpa_frame f = frames[leaf_first ? k : nr - 1 - k];

		put_slot(used, slot_frame, seq16, seq, k, slot0[f.loc] + f.level, f, narrow);
	}
}

/*
 * store_seq() of a stack's frames straight from its locations (a view
 * without filters: hpa_view_stack() would only copy them out): locs[0 ..
 * n), the first from its level `first`; the slots in the same places and
 * order store_seq() gives them, without the frames written out and read
 * back, each slot's first use noted in used[] and slot_frame[] (the
 * collect's, or a thread's own).  Returns how many (room for n times the
 * most levels a location has is the caller's to make).
 */
static HPA_ALWAYS_INLINE size_t store_locs(struct hpa_seqs *s, size_t at, const struct hpa_view *view,
					 const uint32_t *locs, size_t n, unsigned first, bool leaf_first,
					 bool narrow, bool *used, struct hpa_frame *slot_frame)
{
	const uint32_t *slot0 = view->slot0;
	const uint16_t *lev = view->levels;
	uint16_t *seq16 = narrow ? s->seq16 + at : NULL;
	uint32_t *seq = narrow ? NULL : s->seq + at;
	size_t j, pos = 0;

	for (j = 0; j < n; j++) {   /* positions in order: from the leaf, or from the root */
		size_t li = leaf_first ? j : n - 1 - j;
		uint32_t loc = locs[li];
		unsigned levels = lev[loc], from = li ? 0 : first, k;
		size_t base = slot0[loc];

		if (levels == 1) {   /* most locations: no inline frames (first is then 0) */
			put_slot(used, slot_frame, seq16, seq, pos++, base, (struct hpa_frame){ loc, 0 }, narrow);
			continue;
		}
		for (k = 0; k < levels - from; k++) {
			unsigned level = leaf_first ? from + k : levels - 1 - k;

			put_slot(used, slot_frame, seq16, seq, pos++, base + level, (struct hpa_frame){ loc, level },
				 narrow);
		}
	}
	return pos;
}

/* store_locs() with its constants chosen once per stack: a loop for each. */
static size_t store_locs_as(struct hpa_seqs *s, size_t at, const struct hpa_view *view, const uint32_t *locs,
			    size_t n, unsigned first, bool leaf_first, bool narrow, bool *used,
			    struct hpa_frame *slot_frame)
{
	if (narrow && leaf_first)
		return store_locs(s, at, view, locs, n, first, true, true, used, slot_frame);
	if (narrow)
		return store_locs(s, at, view, locs, n, first, false, true, used, slot_frame);
	if (leaf_first)
		return store_locs(s, at, view, locs, n, first, true, false, used, slot_frame);
	return store_locs(s, at, view, locs, n, first, false, false, used, slot_frame);
}

/*
 * Without filters, on two threads (hpa_seqs_collect's loop in three
 * passes): each stack's number of slots, from its locations' levels
 * (stacks in two halves side by side); then, in sample order, the kept
 * samples and each new stack's sequence id and place (a running sum); then
 * the slots, the sequences in two halves of about equal slots side by
 * side, each half noting the slots it uses apart (merged after).  Ids,
 * places, slots and sums are the one-thread loop's.  Every mode that walks
 * stacks (--collapse, --svg, --growth, the call trees) goes through it.
 */
struct direct_lens {
	const struct hpa_view *view;
	uint32_t *len;           /* per stack */
	size_t lo, hi;
	bool empty_frame;
};

static void direct_lens_run(void *arg)
{
	struct direct_lens *d = arg;
	const uint16_t *lev = d->view->levels;
	size_t st, j;

	for (st = d->lo; st < d->hi; st++) {
		const uint32_t *locs;
		unsigned first;
		size_t n = hpa_view_locations(d->view, (uint32_t)st, &locs, &first), len = 0;

		for (j = 0; j < n; j++)
			len += lev[locs[j]];
		d->len[st] = (uint32_t)(n ? len - first : d->empty_frame);
	}
}

struct direct_store {
	struct hpa_seqs *s;
	const struct hpa_view *view;
	const uint32_t *seq_stack;   /* per sequence id: its stack */
	size_t lo, hi;               /* sequence ids */
	bool leaf_first, narrow;
	bool *used;                  /* the slots this half uses, and their frames */
	struct hpa_frame *slot_frame;
};

static void direct_store_run(void *arg)
{
	struct direct_store *d = arg;
	struct hpa_seqs *s = d->s;
	size_t id;

	for (id = d->lo; id < d->hi; id++) {
		const uint32_t *locs;
		unsigned first;
		size_t n = hpa_view_locations(d->view, d->seq_stack[id], &locs, &first), at = s->off[id];

		if (n)
			store_locs_as(s, at, d->view, locs, n, first, d->leaf_first, d->narrow, d->used,
				      d->slot_frame);
		else if (s->len[id]) {   /* no frames: the empty one, when asked for (len 1) */
			d->used[HPA_SEQS_EMPTY_SLOT(s)] = true;
			seq_set(s, at, HPA_SEQS_EMPTY_SLOT(s));
		}
	}
}

static void collect_direct(struct hpa_seqs *s, const struct hpa_view *view, bool leaf_first,
			   bool empty_frame, bool narrow)
{
	const struct hpa_profile *prof = s->prof;
	size_t n = hpa_view_candidates(view), st = prof->stacks_nr < n ? prof->stacks_nr : n;
	size_t c, id, nseq = 0, half, slot;
	double x;
	uint32_t *slen = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*slen)));
	uint32_t *stack_seq = xcalloc(prof->stacks_nr + 1, sizeof(*stack_seq));   /* id + 1 */
	uint32_t *seq_stack = xmalloc(st_mult(st + 1, sizeof(*seq_stack)));
	struct direct_lens dl[2] = { { view, slen, 0, prof->stacks_nr / 2, empty_frame },
				     { view, slen, prof->stacks_nr / 2, prof->stacks_nr, empty_frame } };
	struct direct_store ds[2];
	struct hpa_task *task;
	bool *used2;
	struct hpa_frame *frame2;

	task = hpa_task_start(direct_lens_run, &dl[1]);
	direct_lens_run(&dl[0]);
	hpa_task_wait(task);

	s->sample = xmalloc(st_mult(n + 1, sizeof(*s->sample)));
	grow_kept(s, 0, n + 1);
	s->off = xmalloc(st_mult(st + 1, sizeof(*s->off)));
	s->len = xmalloc(st_mult(st + 1, sizeof(*s->len)));
	for (c = 0; c < n; c++) {
		size_t i = hpa_view_candidate(view, c), kept = s->kept;
		uint32_t stack = prof->samples[i].stack;

		if (!hpa_view_keeps(view, i))
			continue;
		s->sample[kept] = (uint32_t)i;
		x = hpa_view_value(view, i);
		if (s->v)
			s->v[kept] = x;
		s->total += x;
		s->kept++;
		if (!stack_seq[stack]) {   /* a new sequence: this sample stands for it */
			id = s->nreps++;
			s->off[id] = nseq;
			s->len[id] = slen[stack];
			nseq += slen[stack];
			seq_stack[id] = stack;
			stack_seq[stack] = (uint32_t)id + 1;
		}
		set_seq_of(s, kept, stack_seq[stack] - 1, n + 1);
	}
	free(stack_seq);
	free(slen);
	if (narrow)
		s->seq16 = xmalloc(st_mult(nseq + 1, sizeof(*s->seq16)));
	else
		s->seq = xmalloc(st_mult(nseq + 1, sizeof(*s->seq)));

	for (half = 0; half < s->nreps && s->off[half] < nseq / 2; half++)   /* the first past half the slots */
		;
	used2 = xcalloc(s->nslots, sizeof(*used2));
	frame2 = xmalloc(st_mult(s->nslots, sizeof(*frame2)));
	ds[0] = (struct direct_store){ s, view, seq_stack, 0, half, leaf_first, narrow, s->slot_used, s->slot_frame };
	ds[1] = (struct direct_store){ s, view, seq_stack, half, s->nreps, leaf_first, narrow, used2, frame2 };
	task = hpa_task_start(direct_store_run, &ds[1]);
	direct_store_run(&ds[0]);
	hpa_task_wait(task);
	for (slot = 0; slot < s->nslots; slot++)
		if (used2[slot] && !s->slot_used[slot]) {
			s->slot_used[slot] = true;
			s->slot_frame[slot] = frame2[slot];
		}
	free(used2);
	free(frame2);
	free(seq_stack);
	s->one_each = s->nreps == s->kept;
	if (!s->one_each && !s->seq_of)
		HPA_BUG("sequences shared without their ids");
}

#define DIRECT_MIN_STACKS 4096   /* fewer: one thread (a thread costs more than it saves) */

/* What became of a stack: not seen yet, dropped by the filters, or sequence id - 2. */
enum { STACK_UNSEEN, STACK_DROPPED, STACK_SEQ };

/* hpa_seqs_collect()'s state: how stacks are taken, and the arrays' room. */
struct collect {
	struct hpa_seqs *s;
	struct hpa_view view;
	bool leaf_first, leaf_only, empty_frame, narrow;
	bool leaf_only_fast;         /* the leaf alone, no filters: not the whole stack's frames */
	bool direct;                 /* whole stacks, every frame kept: store_locs() */
	unsigned most;               /* the most levels a location has */
	uint32_t *stack_seq;         /* per stack: its sequence + STACK_SEQ, or STACK_DROPPED */
	uint32_t *leaf_seq;          /* leaf_only: per slot (and one more: no frame), its sequence + 1 */
	size_t akept, aseqs, aseq, nseq;
};

/*
 * The arrays at their likely size from the start: at most a kept sample
 * per candidate and a sequence per stack, of about the stacks' frames
 * (inline levels add a few); grown from nothing, the slots would be
 * copied and cleared again at each doubling.
 */
static void collect_reserve(struct collect *cs)
{
	struct hpa_seqs *s = cs->s;
	const struct hpa_profile *prof = s->prof;
	size_t n = hpa_view_candidates(&cs->view), st = prof->stacks_nr < n ? prof->stacks_nr : n;
	size_t slots = cs->leaf_only ? st : prof->frames_nr + st, l;

	for (l = 0; l < prof->locs_nr; l++)
		cs->most = cs->view.levels[l] > cs->most ? cs->view.levels[l] : cs->most;
	HPA_GROW(s->sample, n, cs->akept);
	grow_kept(s, 0, cs->akept);
	HPA_GROW(s->off, st, cs->aseqs);
	s->len = xgrow(s->len, 0, st_mult(cs->aseqs, sizeof(*s->len)));
	if (cs->narrow)
		HPA_GROW(s->seq16, slots, cs->aseq);
	else
		HPA_GROW(s->seq, slots, cs->aseq);
}

/* A new stack's frames as the view leaves them: what store_stack() takes; false if dropped. */
struct stack_frames {
	const struct hpa_frame *frames;
	size_t nr;
	struct hpa_frame leaf;
	const uint32_t *dlocs;       /* direct: its locations */
	size_t dn;
	unsigned dfirst;
};

static bool stack_frames(struct collect *cs, uint32_t st, struct stack_frames *f)
{
	if (cs->leaf_only_fast) {   /* the leaf alone: not the whole stack's frames */
		const uint32_t *locs;
		unsigned first;

		f->nr = hpa_view_locations(&cs->view, st, &locs, &first) ? 1 : 0;
		f->leaf.loc = f->nr ? locs[0] : 0;
		f->leaf.level = first;
		f->frames = &f->leaf;
	} else if (cs->direct) {
		f->dn = hpa_view_locations(&cs->view, st, &f->dlocs, &f->dfirst);
		f->nr = f->dn * cs->most;   /* at most; store_locs() says how many */
	} else if (!hpa_view_stack(&cs->view, st, &f->frames, &f->nr)) {
		return false;
	}
	if (cs->leaf_only && f->nr > 1)
		f->nr = 1;
	return true;
}

/* Sample i is kept: its value counted. */
static size_t keep_sample(struct collect *cs, size_t i)
{
	struct hpa_seqs *s = cs->s;
	size_t kept = s->kept, a = cs->akept;
	double x;

	HPA_GROW(s->sample, kept + 1, cs->akept);
	grow_kept(s, a, cs->akept);
	s->sample[kept] = (uint32_t)i;
	x = hpa_view_value(&cs->view, i);
	if (s->v)
		s->v[kept] = x;
	s->total += x;
	s->kept++;
	return kept;
}

/*
 * A new stack's sequence, stored; its id.  Stacks are distinct (the
 * readers intern them, jemalloc writes each once, and dumps share theirs:
 * identity.c), so equal sequences are rare (stacks that differ in what the
 * view cuts): the walk takes them apart as any two, and merges their
 * samples where they end.
 */
static uint32_t store_stack(struct collect *cs, struct stack_frames *f)
{
	struct hpa_seqs *s = cs->s;
	size_t off = cs->nseq, nr = f->nr, was_seqs = cs->aseqs;

	if (cs->narrow)
		HPA_GROW(s->seq16, cs->nseq + (nr ? nr : 1), cs->aseq);
	else
		HPA_GROW(s->seq, cs->nseq + (nr ? nr : 1), cs->aseq);
	if (cs->direct)
		nr = store_locs_as(s, cs->nseq, &cs->view, f->dlocs, f->dn, f->dfirst, cs->leaf_first,
				   cs->narrow, s->slot_used, s->slot_frame);
	else if (cs->narrow)
		store_seq(s, cs->nseq, &cs->view, f->frames, nr, cs->leaf_first, true);
	else
		store_seq(s, cs->nseq, &cs->view, f->frames, nr, cs->leaf_first, false);
	cs->nseq += nr;
	if (!nr && cs->empty_frame) {
		s->slot_used[HPA_SEQS_EMPTY_SLOT(s)] = true;
		seq_set(s, cs->nseq++, HPA_SEQS_EMPTY_SLOT(s));
		nr = 1;
	}
	HPA_GROW(s->off, s->nreps + 1, cs->aseqs);
	if (cs->aseqs != was_seqs)
		s->len = xgrow(s->len, was_seqs * sizeof(*s->len), st_mult(cs->aseqs, sizeof(*s->len)));
	s->off[s->nreps] = off;
	s->len[s->nreps] = (uint32_t)nr;
	return (uint32_t)s->nreps++;
}

/* leaf_only: the sequence of the stack's one frame (or none) if an earlier stack made it, else 0. */
static uint32_t leaf_seq_of(struct collect *cs, const struct stack_frames *f)
{
	struct hpa_seqs *s = cs->s;
	size_t at = f->nr ? hpa_view_slot(&cs->view, f->frames[0]) :
		cs->empty_frame ? HPA_SEQS_EMPTY_SLOT(s) : s->nslots;

	if (cs->leaf_seq[at])
		return cs->leaf_seq[at];
	cs->leaf_seq[at] = (uint32_t)s->nreps + 1;   /* the one store_stack() is about to make */
	return 0;
}

/* Candidate sample i: kept with its stack's sequence, made if the stack is new. */
static void collect_sample(struct collect *cs, size_t i)
{
	struct hpa_seqs *s = cs->s;
	uint32_t st = s->prof->samples[i].stack, id, known;
	struct stack_frames f;
	size_t kept;

	if (!hpa_view_keeps(&cs->view, i) || cs->stack_seq[st] == STACK_DROPPED)
		return;
	if (cs->stack_seq[st]) {   /* a stack seen before (several dumps share their stacks) */
		kept = keep_sample(cs, i);
		set_seq_of(s, kept, cs->stack_seq[st] - STACK_SEQ, cs->akept);
		return;
	}
	memset(&f, 0, sizeof(f));
	if (!stack_frames(cs, st, &f)) {
		cs->stack_seq[st] = STACK_DROPPED;
		return;
	}
	kept = keep_sample(cs, i);
	/* One frame at most: stacks with the same one share its sequence. */
	known = cs->leaf_seq ? leaf_seq_of(cs, &f) : 0;
	id = known ? known - 1 : store_stack(cs, &f);
	cs->stack_seq[st] = id + STACK_SEQ;
	set_seq_of(s, kept, id, cs->akept);
}

void hpa_seqs_collect(struct hpa_seqs *s, const struct hpa_profile *prof,
		      const struct hpa_view_opts *opts, bool leaf_first, bool leaf_only, bool empty_frame,
		      bool values)
{
	struct collect cs;
	size_t c;

	memset(s, 0, sizeof(*s));
	memset(&cs, 0, sizeof(cs));
	s->prof = prof;
	s->no_values = !values;
	s->nslots = hpa_symbols_slots(opts->symbols) + 1;
	cs.s = s;
	cs.leaf_first = leaf_first;
	cs.leaf_only = leaf_only;
	cs.empty_frame = empty_frame;
	cs.leaf_only_fast = leaf_only && !hpa_view_filters(opts);
	cs.direct = !leaf_only && !hpa_view_filters(opts);
	cs.most = 1;
	cs.narrow = s->nslots <= (size_t)UINT16_MAX + 1;
	s->slot_frame = xcalloc(s->nslots, sizeof(*s->slot_frame));
	s->slot_used = xcalloc(s->nslots, sizeof(*s->slot_used));
	s->slot_rank = xcalloc(s->nslots, sizeof(*s->slot_rank));
	hpa_view_init(&cs.view, prof, opts);
	if (cs.direct && prof->stacks_nr >= DIRECT_MIN_STACKS && hpa_processors() > 1) {
		collect_direct(s, &cs.view, leaf_first, empty_frame, cs.narrow);
		hpa_view_release(&cs.view);
		return;
	}
	if (leaf_only)
		cs.leaf_seq = xcalloc(s->nslots + 1, sizeof(*cs.leaf_seq));
	cs.stack_seq = xcalloc(prof->stacks_nr + 1, sizeof(*cs.stack_seq));
	collect_reserve(&cs);
	for (c = 0; c < hpa_view_candidates(&cs.view); c++)
		collect_sample(&cs, hpa_view_candidate(&cs.view, c));
	s->one_each = s->nreps == s->kept;   /* ids were given in sample order */
	if (!s->one_each && !s->seq_of)
		HPA_BUG("sequences shared without their ids");
	hpa_view_release(&cs.view);
	free(cs.stack_seq);
	free(cs.leaf_seq);
}

void hpa_seqs_release(struct hpa_seqs *s)
{
	free(s->sample);
	free(s->v);
	free(s->off);
	free(s->len);
	free(s->seq_of);
	free(s->members);
	free(s->member_start);
	free(s->seq);
	free(s->seq16);
	free(s->slot_frame);
	free(s->slot_used);
	free(s->slot_rank);
	memset(s, 0, sizeof(*s));
}
