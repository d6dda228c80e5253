/*
 * The engine under the call tree and the stack groups (seqs.h).
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

/* Each sequence's kept samples, ascending: a counting sort by sequence id. */
static void list_members(struct hpa_seqs *s)
{
	size_t k, id;

	if (s->one_each)
		return;
	s->member_start = xcalloc(s->nreps + 1, sizeof(*s->member_start));
	s->members = xmalloc(st_mult(s->kept + 1, sizeof(*s->members)));
	for (k = 0; k < s->kept; k++)
		s->member_start[s->seq_of[k] + 1]++;
	for (id = 0; id < s->nreps; id++)
		s->member_start[id + 1] += s->member_start[id];
	for (k = 0; k < s->kept; k++)
		s->members[s->member_start[s->seq_of[k]]++] = (uint32_t)k;
	for (id = s->nreps; id > 0; id--)   /* back to starts */
		s->member_start[id] = s->member_start[id - 1];
	s->member_start[0] = 0;
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
 * places, slots and sums are the one-thread loop's.  On 180k stacks the
 * loop was 20 ms with the other processor idle, in every mode that walks
 * stacks (--collapse, --svg, --growth, the call trees).
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

void hpa_seqs_collect(struct hpa_seqs *s, const struct hpa_profile *prof,
		      const struct hpa_view_opts *opts, bool leaf_first, bool leaf_only, bool empty_frame,
		      bool values)
{
	size_t akept = 0, aseqs = 0, aseq = 0, nseq = 0, c, nr;
	const struct hpa_frame *frames;
	struct hpa_view view;
	uint32_t *stack_seq;
	bool narrow, leaf_only_fast = leaf_only && !hpa_view_filters(opts);
	bool direct = !leaf_only && !hpa_view_filters(opts);   /* whole stacks, every frame kept: store_locs() */
	const uint32_t *dlocs = NULL;
	size_t dn = 0, l;
	unsigned dfirst = 0, most = 1;   /* the most levels a location has */
	struct hpa_frame leaf;
	uint32_t *leaf_seq = NULL;   /* leaf_only: per slot (and one more: no frame), its sequence + 1 */

	memset(s, 0, sizeof(*s));
	s->prof = prof;
	s->no_values = !values;
	s->nslots = prof->lines_nr + prof->locs_nr + 1;
	if (leaf_only)
		leaf_seq = xcalloc(s->nslots + 1, sizeof(*leaf_seq));
	narrow = s->nslots <= (size_t)UINT16_MAX + 1;
	s->slot_frame = xcalloc(s->nslots, sizeof(*s->slot_frame));
	s->slot_used = xcalloc(s->nslots, sizeof(*s->slot_used));
	s->slot_rank = xcalloc(s->nslots, sizeof(*s->slot_rank));
	hpa_view_init(&view, prof, opts);
	if (direct && prof->stacks_nr >= DIRECT_MIN_STACKS && hpa_processors() > 1) {
		collect_direct(s, &view, leaf_first, empty_frame, narrow);
		hpa_view_release(&view);
		return;
	}
	stack_seq = xcalloc(prof->stacks_nr + 1, sizeof(*stack_seq));
	for (l = 0; l < prof->locs_nr; l++)
		most = view.levels[l] > most ? view.levels[l] : most;
	/*
	 * The arrays at their likely size from the start: at most a kept
	 * sample per candidate and a sequence per stack, of about the
	 * stacks' frames (inline levels add a few).  Grown from nothing, the
	 * 180k-stack profile's 7 MB of slots were copied and cleared again
	 * at each doubling: the tree's collect 22 -> 13-17 ms.
	 */
	{
		size_t n = hpa_view_candidates(&view), st = prof->stacks_nr < n ? prof->stacks_nr : n;
		size_t slots = leaf_only ? st : prof->frames_nr + st;

		HPA_GROW(s->sample, n, akept);
		grow_kept(s, 0, akept);
		HPA_GROW(s->off, st, aseqs);
		s->len = xgrow(s->len, 0, st_mult(aseqs, sizeof(*s->len)));
		if (narrow)
			HPA_GROW(s->seq16, slots, aseq);
		else
			HPA_GROW(s->seq, slots, aseq);
	}
	for (c = 0; c < hpa_view_candidates(&view); c++) {
		size_t i = hpa_view_candidate(&view, c), kept = s->kept, a = akept, off;
		size_t was_seqs = aseqs;
		uint32_t st = prof->samples[i].stack, id;
		double x;

		if (!hpa_view_keeps(&view, i) || stack_seq[st] == STACK_DROPPED)
			continue;
		if (!stack_seq[st] && leaf_only_fast) {   /* the leaf alone: not the whole stack's frames */
			const uint32_t *locs;
			unsigned first;

			nr = hpa_view_locations(&view, st, &locs, &first) ? 1 : 0;
			leaf.loc = nr ? locs[0] : 0;
			leaf.level = first;
			frames = &leaf;
		} else if (!stack_seq[st] && direct) {
			dn = hpa_view_locations(&view, st, &dlocs, &dfirst);
			nr = dn * most;   /* at most; store_locs() says how many */
		} else if (!stack_seq[st] && !hpa_view_stack(&view, st, &frames, &nr)) {
			stack_seq[st] = STACK_DROPPED;
			continue;
		}
		HPA_GROW(s->sample, kept + 1, akept);
		grow_kept(s, a, akept);
		s->sample[kept] = (uint32_t)i;
		x = hpa_view_value(&view, i);
		if (s->v)
			s->v[kept] = x;
		s->total += x;
		s->kept++;
		if (stack_seq[st]) {   /* a stack seen before (several dumps share their stacks) */
			id = stack_seq[st] - STACK_SEQ;
			set_seq_of(s, kept, id, akept);
			continue;
		}
		if (leaf_only && nr > 1)
			nr = 1;
		if (leaf_seq) {   /* one frame at most: stacks with the same one share its sequence */
			size_t at = nr ? hpa_view_slot(&view, frames[0]) :
				empty_frame ? HPA_SEQS_EMPTY_SLOT(s) : s->nslots;

			if (leaf_seq[at]) {
				id = leaf_seq[at] - 1;
				stack_seq[st] = id + STACK_SEQ;
				set_seq_of(s, kept, id, akept);
				continue;
			}
			leaf_seq[at] = (uint32_t)s->nreps + 1;
		}
		if (narrow)
			HPA_GROW(s->seq16, nseq + (nr ? nr : 1), aseq);
		else
			HPA_GROW(s->seq, nseq + (nr ? nr : 1), aseq);
		off = nseq;
		if (direct)
			nr = store_locs_as(s, nseq, &view, dlocs, dn, dfirst, leaf_first, narrow, s->slot_used,
					   s->slot_frame);
		else if (narrow)
			store_seq(s, nseq, &view, frames, nr, leaf_first, true);
		else
			store_seq(s, nseq, &view, frames, nr, leaf_first, false);
		nseq += nr;
		if (!nr && empty_frame) {
			s->slot_used[HPA_SEQS_EMPTY_SLOT(s)] = true;
			seq_set(s, nseq++, HPA_SEQS_EMPTY_SLOT(s));
			nr = 1;
		}
		/*
		 * A new sequence: this sample stands for it.  Stacks are distinct
		 * (the readers intern them, jemalloc writes each once, and dumps
		 * share theirs: identity.c), so equal sequences are rare (stacks
		 * that differ in what the view cuts): the walk takes them apart as
		 * any two, and merges their samples where they end.
		 */
		id = (uint32_t)s->nreps;
		HPA_GROW(s->off, s->nreps + 1, aseqs);
		if (aseqs != was_seqs)
			s->len = xgrow(s->len, was_seqs * sizeof(*s->len), st_mult(aseqs, sizeof(*s->len)));
		s->off[s->nreps] = off;
		s->len[s->nreps++] = (uint32_t)nr;
		stack_seq[st] = id + STACK_SEQ;
		set_seq_of(s, kept, id, akept);
	}
	s->one_each = s->nreps == s->kept;   /* ids were given in sample order */
	if (!s->one_each && !s->seq_of)
		HPA_BUG("sequences shared without their ids");
	hpa_view_release(&view);
	free(stack_seq);
	free(leaf_seq);
}

static inline void seq_prefetch(const struct hpa_seqs *s, size_t i)
{
	if (s->seq16)
		__builtin_prefetch(&s->seq16[i]);
	else
		__builtin_prefetch(&s->seq[i]);
}

/* What the name comparison needs (qsort_r's context: walks may run on several threads). */
struct rank_ctx {
	const uint32_t *names;       /* the distinct names: the sort orders their indices */
	const char *(*str)(const void *ctx, uint32_t id);
	const void *ctx;
	unsigned char end;           /* the suffix's first byte: what follows each name */
};

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct rank_ctx *r = arg;
	uint32_t x = r->names[*(const uint32_t *)a], y = r->names[*(const uint32_t *)b];
	const unsigned char *p, *q;

	if (x == y)
		return 0;
	p = (const unsigned char *)r->str(r->ctx, x);
	q = (const unsigned char *)r->str(r->ctx, y);
	while (*p && *p == *q)
		p++, q++;
	if (*p != *q) {   /* a name that ends compares as its suffix */
		unsigned cp = *p ? *p : r->end, cq = *q ? *q : r->end;
		if (cp != cq)
			return cp < cq ? -1 : 1;
	}
	return (x > y) - (x < y);
}

/*
 * The distinct names of the slots used are sorted, not the slots: inline
 * levels and call sites share their function's name, and the tree's rank
 * sorted 25k slots where 4k names differ.
 */
void hpa_seqs_rank(struct hpa_seqs *s, const uint32_t *slot_name,
		   const char *(*str)(const void *ctx, uint32_t id), const void *ctx, const char *suffix)
{
	struct hpa_hashmap place = HPA_HASHMAP_INIT;   /* name id -> its index in names + 1 */
	uint32_t *names = xmalloc(st_mult(s->nslots, sizeof(*names)));
	uint32_t *slot_place = xmalloc(st_mult(s->nslots, sizeof(*slot_place)));
	uint32_t *rank_of;
	struct rank_ctx r = { NULL, str, ctx, (unsigned char)suffix[0] };
	size_t n = 0, i;

	for (i = 0; i < s->nslots; i++) {
		uint32_t at;

		if (!s->slot_used[i])
			continue;
		at = hpa_hashmap_get(&place, slot_name[i]);
		if (!at) {
			names[n] = slot_name[i];
			at = (uint32_t)++n;
			hpa_hashmap_put(&place, slot_name[i], at);
		}
		slot_place[i] = at - 1;
	}
	hpa_hashmap_release(&place);
	/* rank_of[k]: the rank of names[k] (1, 2, ... in name order) */
	rank_of = xmalloc(st_mult(n + 1, sizeof(*rank_of)));
	{
		uint32_t *order = xmalloc(st_mult(n + 1, sizeof(*order)));

		for (i = 0; i < n; i++)
			order[i] = (uint32_t)i;
		r.names = names;
		qsort_r(order, n, sizeof(*order), cmp_names, &r);
		for (i = 0; i < n; i++)
			rank_of[order[i]] = (uint32_t)i + 1;
		free(order);
	}
	for (i = 0; i < s->nslots; i++)
		if (s->slot_used[i])
			s->slot_rank[i] = rank_of[slot_place[i]];
	s->rank_bits = 0;
	while (n >> s->rank_bits)
		s->rank_bits++;
	free(rank_of);
	free(slot_place);
	free(names);
}

/*
 * Sorts keys by their bits [from, from + bits), stably: for the walk,
 * keys (rank << 32 | kept sample) whose samples are already ascending, by
 * rank and then sample.  Insertion sort for a few (whole keys compared:
 * the same order there), else least significant byte first.
 */
static void sort_bits(uint64_t *keys, size_t n, uint64_t *tmp, unsigned from, unsigned bits)
{
	size_t i, j, count[4][256], nb[4];
	unsigned npass = (bits + 7) / 8, p, shift[4];
	uint64_t *src = keys, *dst = tmp, *t;

	if (n <= 32) {
		for (i = 1; i < n; i++) {
			uint64_t x = keys[i];
			for (j = i; j > 0 && keys[j - 1] > x; j--)
				keys[j] = keys[j - 1];
			keys[j] = x;
		}
		return;
	}
	if (npass > 4)
		npass = 4;   /* ranks take at most 32 bits */
	/*
	 * Every pass's digits counted in one read of the keys; each pass's
	 * digit as wide as the bits left (4k names: 8 bits, then 4: 16
	 * counters, not 256); the passes go from keys to tmp and back.
	 */
	for (p = 0; p < npass; p++) {
		unsigned width = bits - 8 * p < 8 ? bits - 8 * p : 8;

		shift[p] = from + 8 * p;
		nb[p] = (size_t)1 << width;
		memset(count[p], 0, nb[p] * sizeof(**count));
	}
	if (npass == 2) {
		size_t m0 = nb[0] - 1, m1 = nb[1] - 1;

		for (i = 0; i < n; i++) {
			count[0][keys[i] >> shift[0] & m0]++;
			count[1][keys[i] >> shift[1] & m1]++;
		}
	} else {
		for (i = 0; i < n; i++)
			for (p = 0; p < npass; p++)
				count[p][keys[i] >> shift[p] & (nb[p] - 1)]++;
	}
	for (p = 0; p < npass; p++) {
		size_t sum = 0, mask = nb[p] - 1;

		for (i = 0; i < nb[p]; i++) {
			size_t c = count[p][i];
			count[p][i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[p][src[i] >> shift[p] & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != keys)
		memcpy(keys, src, n * sizeof(*keys));
}

/* Kept samples items[lo..hi), sharing a prefix of `depth` frames; the next frame is seq[depth]. */
struct run {
	size_t lo, hi;
	uint32_t depth;
};

struct fork;

struct walk {
	const struct hpa_seqs *s;
	const struct hpa_seqs_visitor *v;
	uint32_t *items;
	uint64_t *keys, *tmp;
	struct run *stack;
	size_t sp, alloc;
	uint32_t *members;           /* by_sequence: the kept samples of a run's sequences */
	size_t amembers;
	uint64_t *members_tmp;       /* the members sorted as keys, and sort_bits' room */
	size_t amembers_tmp;
	struct fork *fork;           /* while a second thread may still be given a stretch */
};

/* The walk's second thread and what it walks. */
struct fork {
	struct walk second;
	struct hpa_seqs_visitor visitor;   /* the caller's, with the forked context */
	struct hpa_task *task;
	size_t items;                /* what the walk started with */
	bool started;
};

/* The stacks of items[0..n) end here: end() gets their kept samples, in sample order. */
static void report_end(struct walk *w, uint32_t depth, const uint32_t *items, size_t n)
{
	const struct hpa_seqs *s = w->s;
	size_t i, m = 0;

	if (!w->v->by_sequence || s->one_each) {   /* one each: the samples are the sequences */
		w->v->end(w->v->ctx, depth, items, n);
		return;
	}
	if (n == 1) {   /* one sequence: its samples, listed ascending */
		uint32_t id = s->seq_of[items[0]];
		w->v->end(w->v->ctx, depth, s->members + s->member_start[id],
			  s->member_start[id + 1] - s->member_start[id]);
		return;
	}
	for (i = 0; i < n; i++) {   /* equal sequences stored twice: merged */
		uint32_t id = s->seq_of[items[i]];
		size_t c = s->member_start[id + 1] - s->member_start[id];

		HPA_GROW(w->members, m + c, w->amembers);
		memcpy(w->members + m, s->members + s->member_start[id], c * sizeof(*w->members));
		m += c;
	}
	{   /* (a function that allocates from many call sites: 360k samples in all) */
		uint32_t max = 0;
		unsigned bits = 0;

		HPA_GROW(w->members_tmp, 2 * m, w->amembers_tmp);
		for (i = 0; i < m; i++) {
			w->members_tmp[i] = w->members[i];
			max = w->members[i] > max ? w->members[i] : max;
		}
		while (bits < 32 && max >> bits)
			bits++;
		sort_bits(w->members_tmp, m, w->members_tmp + m, 0, bits);
		for (i = 0; i < m; i++)
			w->members[i] = (uint32_t)w->members_tmp[i];
	}
	w->v->end(w->v->ctx, depth, w->members, m);
}

/*
 * Sorts items[lo..hi) by the rank of their frame at `depth`, reports the
 * samples that have no frame there, and pushes each run of one rank, the
 * last first, so the runs are taken in name order.
 */
static void split(struct walk *w, size_t lo, size_t hi, uint32_t depth)
{
	const struct hpa_seqs *s = w->s;
	size_t j, end;
	uint64_t prev = 0;
	bool unsorted = false;

	for (j = lo; j < hi; j++) {
		uint32_t k = w->items[j];
		uint32_t id = hpa_seqs_id(s, k);
		uint64_t key;

		/*
		 * The items are in name order, their sequences anywhere: ask
		 * for the where of the 8th next, and for the frame of the 4th
		 * next, whose where came 4 items ago.
		 */
		if (j + 8 < hi) {
			uint32_t id8 = hpa_seqs_id(s, w->items[j + 8]);
			__builtin_prefetch(&s->off[id8]);
			__builtin_prefetch(&s->len[id8]);
		}
		if (j + 4 < hi)
			seq_prefetch(s, s->off[hpa_seqs_id(s, w->items[j + 4])] + depth);
		key = s->len[id] > depth ? s->slot_rank[hpa_seqs_at(s, s->off[id] + depth)] : 0;

		key = key << 32 | k;
		w->keys[j] = key;
		unsorted |= key < prev;   /* the first's prev, 0, is below any */
		prev = key;
	}
	if (unsorted)
		sort_bits(w->keys + lo, hi - lo, w->tmp + lo, 32, s->rank_bits);   /* tmp: the same place */
	for (end = hi; end > lo;) {   /* the runs, the last first; the items in their order */
		uint64_t key = w->keys[end - 1] >> 32;
		size_t start = end - 1;

		w->items[start] = (uint32_t)w->keys[start];
		while (start > lo && w->keys[start - 1] >> 32 == key) {
			start--;
			w->items[start] = (uint32_t)w->keys[start];
		}
		if (key) {
			HPA_GROW(w->stack, w->sp + 1, w->alloc);
			w->stack[w->sp++] = (struct run){ start, end, depth };
		} else if (w->v->end) {
			report_end(w, depth, w->items + start, end - start);
		}
		end = start;
	}
}

/* Do the samples share one stored sequence (copies of a stack, collect stored it once)? */
static bool same_sequence(const struct hpa_seqs *s, const uint32_t *items, size_t n)
{
	size_t i;

	if (s->one_each)
		return n == 1;
	for (i = 1; i < n; i++)
		if (s->seq_of[items[i]] != s->seq_of[items[0]])
			return false;
	return true;
}

static bool try_fork(struct walk *w);

/* Take the runs on w's stack, each with what is under it, until none is left. */
static void walk_runs(struct walk *w)
{
	const struct hpa_seqs *s = w->s;
	const struct hpa_seqs_visitor *v = w->v;

	while (w->sp) {
		struct run r;
		uint32_t first, d;

		if (w->fork && try_fork(w))
			continue;
		r = w->stack[--w->sp];
		first = hpa_seqs_id(s, w->items[r.lo]);
		/* The next runs' sequences, and the samples at their ends, on their way to the cache. */
		if (w->sp > 1) {
			uint32_t nk = w->items[w->stack[w->sp - 2].lo], id = hpa_seqs_id(s, nk);
			__builtin_prefetch(&s->off[id]);
			__builtin_prefetch(&s->len[id]);
			__builtin_prefetch(&s->sample[nk]);
			if (s->v)
				__builtin_prefetch(&s->v[nk]);
		}
		if (w->sp) {
			const struct run *next = &w->stack[w->sp - 1];
			seq_prefetch(s, s->off[hpa_seqs_id(s, w->items[next->lo])] + next->depth);
		}

		if (!v->node(v->ctx, r.depth + 1, hpa_seqs_at(s, s->off[first] + r.depth), w->items + r.lo,
			     r.hi - r.lo))
			continue;   /* declined: nothing under it is visited */
		if (r.hi - r.lo > 1 && !same_sequence(s, w->items + r.lo, r.hi - r.lo)) {
			split(w, r.lo, r.hi, r.depth + 1);
			continue;
		}
		/* One sample, or copies of one sequence: its frames in a row. */
		for (d = r.depth + 1; d < s->len[first]; d++)
			if (!v->node(v->ctx, d + 1, hpa_seqs_at(s, s->off[first] + d), w->items + r.lo, r.hi - r.lo))
				break;
		if (v->end && d == s->len[first])
			report_end(w, s->len[first], w->items + r.lo, r.hi - r.lo);
	}
}

static void walk_forked(void *arg)
{
	walk_runs(arg);
}

#define FORK_MIN_ITEMS 4096

/*
 * Hand the runs that come last to a second thread, once the runs waiting
 * split about evenly: those at the top of the stack (the next ones) hold
 * between a third and two thirds of the kept samples still to walk.  The
 * two share the items, keys and sorting room (their runs are apart), not
 * the rest.  Looked at before each large run is taken (an eighth of the walk
 * or more): a run that holds most of what waits is split first, and a
 * walk that never splits evenly before a third of it is left stays on one
 * thread.
 */
static bool try_fork(struct walk *w)
{
	struct fork *f = w->fork;
	size_t total = 0, top = 0, i, k;
	struct walk *b;

	if (w->sp < 2 || (w->stack[w->sp - 1].hi - w->stack[w->sp - 1].lo) * 8 < f->items)
		return false;
	for (i = 0; i < w->sp; i++)
		total += w->stack[i].hi - w->stack[i].lo;
	if (total < FORK_MIN_ITEMS || total * 3 < f->items) {
		w->fork = NULL;   /* what waits only shrinks */
		return false;
	}
	for (k = 0; k < w->sp && top * 2 < total; k++)
		top += w->stack[w->sp - 1 - k].hi - w->stack[w->sp - 1 - k].lo;
	if (k == w->sp || top * 3 > total * 2) {   /* one less, if that is nearer half */
		size_t less = top - (w->stack[w->sp - k].hi - w->stack[w->sp - k].lo);
		if (k > 1 && less * 3 >= total) {
			k--;
			top = less;
		}
	}
	if (k == w->sp || top * 3 < total || top * 3 > total * 2)
		return false;

	b = &f->second;
	*b = *w;
	b->fork = NULL;
	f->visitor = *w->v;
	f->visitor.ctx = w->v->fork(w->v->ctx);
	b->v = &f->visitor;
	b->sp = w->sp - k;
	b->alloc = b->sp;
	b->stack = xmalloc(st_mult(b->sp, sizeof(*b->stack)));
	memcpy(b->stack, w->stack, b->sp * sizeof(*b->stack));
	b->members = NULL;
	b->amembers = 0;
	b->members_tmp = NULL;
	b->amembers_tmp = 0;
	memmove(w->stack, w->stack + b->sp, k * sizeof(*w->stack));
	w->sp = k;
	f->started = true;
	f->task = hpa_task_start(walk_forked, b);
	w->fork = NULL;
	return true;
}

void hpa_seqs_walk(struct hpa_seqs *s, const struct hpa_seqs_visitor *v)
{
	/* By sequence, the walk sorts one item per stored sequence, not per sample. */
	size_t n = (v->by_sequence ? s->nreps : s->kept) + 1, k, nitems = 0;
	struct walk w;
	struct fork f;

	memset(&w, 0, sizeof(w));
	memset(&f, 0, sizeof(f));
	if (!s->members)
		list_members(s);   /* made here: a grouping without the walk needs none */
	w.s = s;
	w.v = v;
	w.items = xmalloc(st_mult(n, sizeof(*w.items)));
	w.keys = xmalloc(st_mult(n, sizeof(*w.keys)));
	w.tmp = xmalloc(st_mult(n, sizeof(*w.tmp)));
	if (v->fork && v->join && hpa_processors() > 1)
		w.fork = &f;
	if (v->by_sequence && !s->one_each)
		for (k = 0; k < s->nreps; k++)
			w.items[nitems++] = s->members[s->member_start[k]];   /* its first sample */
	else
		for (k = 0; k < s->kept; k++)
			w.items[nitems++] = (uint32_t)k;
	f.items = nitems;
	split(&w, 0, nitems, 0);
	walk_runs(&w);
	if (f.started) {
		hpa_task_wait(f.task);
		v->join(v->ctx, f.visitor.ctx);
		free(f.second.stack);
		free(f.second.members);
		free(f.second.members_tmp);
	}
	free(w.stack);
	free(w.members);
	free(w.members_tmp);
	free(w.items);
	free(w.keys);
	free(w.tmp);
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
