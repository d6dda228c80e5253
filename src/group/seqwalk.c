/*
 * The engine under the call tree and the stack groups (seqs.h): the
 * collected sequences' slots ranked by name, and the walk that visits
 * their shared prefixes in name order (on two threads once large enough).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "seqs.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"

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
