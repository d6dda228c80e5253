/*
 * The engine under the call tree and the stack groups (seqs.h).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "seqs.h"
#include "hpa/hashmap.h"
#include "hpa/xalloc.h"

void hpa_seqs_collect(struct hpa_seqs *s, const struct hpa_profile *prof,
		      const struct hpa_view_opts *opts, bool leaf_first, bool leaf_only, bool empty_frame)
{
	size_t akept = 0, aoff = 0, alen = 0, av = 0, nseq = 0, aseq = 0, anext = 0, i, k, nr;
	const struct hpa_frame *frames;
	struct hpa_view view;
	struct hpa_hashmap by_hash = HPA_HASHMAP_INIT;   /* sequence hash -> kept sample + 1 */
	uint32_t *next = NULL;       /* by kept sample + 1: the next with the same hash */

	memset(s, 0, sizeof(*s));
	s->prof = prof;
	s->nslots = prof->lines_nr + prof->locs_nr + 1;
	s->slot_frame = xcalloc(s->nslots, sizeof(*s->slot_frame));
	s->slot_used = xcalloc(s->nslots, sizeof(*s->slot_used));
	s->slot_rank = xcalloc(s->nslots, sizeof(*s->slot_rank));
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		size_t kept = s->kept;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		if (leaf_only && nr > 1)
			nr = 1;
		HPA_GROW(s->sample, kept + 1, akept);
		HPA_GROW(s->off, kept + 1, aoff);
		HPA_GROW(s->len, kept + 1, alen);
		HPA_GROW(s->v, kept + 1, av);
		HPA_GROW(s->seq, nseq + (nr ? nr : 1), aseq);
		s->sample[kept] = (uint32_t)i;
		s->v[kept] = hpa_view_value(&view, i);
		s->total += s->v[kept];
		s->off[kept] = nseq;
		for (k = 0; k < nr; k++) {
			struct hpa_frame f = frames[leaf_first ? k : nr - 1 - k];
			size_t slot = hpa_frame_slot(prof, f);

			if (!s->slot_used[slot]) {
				s->slot_used[slot] = true;
				s->slot_frame[slot] = f;
			}
			s->seq[nseq++] = (uint32_t)slot;
		}
		if (!nr && empty_frame) {
			s->slot_used[HPA_SEQS_EMPTY_SLOT(s)] = true;
			s->seq[nseq++] = (uint32_t)HPA_SEQS_EMPTY_SLOT(s);
			nr = 1;
		}
		s->len[kept] = (uint32_t)nr;
		s->kept++;
		/*
		 * With several dumps, a sequence seen before (the same stack in
		 * another dump) is stored once; one dump's stacks are distinct
		 * already (interned by the readers, written once by jemalloc).
		 */
		if (prof->inputs_nr > 1) {
			size_t off = s->off[kept];
			uint64_t h = hpa_hash_ids(s->seq + off, nr);
			uint32_t id;

			for (id = hpa_hashmap_get(&by_hash, h); id; id = next[id])
				if (s->len[id - 1] == nr && !memcmp(s->seq + s->off[id - 1], s->seq + off,
								     nr * sizeof(*s->seq)))
					break;
			if (id) {
				s->off[kept] = s->off[id - 1];
				nseq = off;
			} else {
				HPA_GROW(next, kept + 2, anext);
				next[kept + 1] = hpa_hashmap_get(&by_hash, h);
				hpa_hashmap_put(&by_hash, h, (uint32_t)kept + 1);
			}
		}
	}
	hpa_view_release(&view);
	hpa_hashmap_release(&by_hash);
	free(next);
}

static const uint32_t *rank_name;
static const char *(*rank_str)(const void *ctx, uint32_t id);
static const void *rank_ctx;
static unsigned char rank_end;   /* the suffix's first byte: what follows each name */

static int cmp_slot_names(const void *a, const void *b)
{
	uint32_t x = rank_name[*(const uint32_t *)a], y = rank_name[*(const uint32_t *)b];
	const unsigned char *p, *q;

	if (x == y)
		return 0;
	p = (const unsigned char *)rank_str(rank_ctx, x);
	q = (const unsigned char *)rank_str(rank_ctx, y);
	while (*p && *p == *q)
		p++, q++;
	if (*p != *q) {   /* a name that ends compares as its suffix */
		unsigned cp = *p ? *p : rank_end, cq = *q ? *q : rank_end;
		if (cp != cq)
			return cp < cq ? -1 : 1;
	}
	return (x > y) - (x < y);
}

void hpa_seqs_rank(struct hpa_seqs *s, const uint32_t *slot_name,
		   const char *(*str)(const void *ctx, uint32_t id), const void *ctx, const char *suffix)
{
	uint32_t *slots = xmalloc(st_mult(s->nslots, sizeof(*slots)));
	size_t n = 0, i;
	uint32_t rank = 0;

	for (i = 0; i < s->nslots; i++)
		if (s->slot_used[i])
			slots[n++] = (uint32_t)i;
	rank_name = slot_name;
	rank_str = str;
	rank_ctx = ctx;
	rank_end = (unsigned char)suffix[0];
	qsort(slots, n, sizeof(*slots), cmp_slot_names);
	for (i = 0; i < n; i++) {
		if (!i || slot_name[slots[i]] != slot_name[slots[i - 1]])
			rank++;
		s->slot_rank[slots[i]] = rank;
	}
	s->rank_bits = 0;
	while (rank >> s->rank_bits)
		s->rank_bits++;
	free(slots);
}

/*
 * Sorts keys (rank << 32 | kept sample) whose samples are already
 * ascending: stable by rank, so by rank and then sample.  Insertion sort
 * for a few, else least significant byte first over the bytes ranks use.
 */
static void sort_keys(uint64_t *keys, size_t n, uint64_t *tmp, unsigned rank_bits)
{
	size_t i, j, count[256];
	unsigned shift;

	if (n <= 32) {
		for (i = 1; i < n; i++) {
			uint64_t x = keys[i];
			for (j = i; j > 0 && keys[j - 1] > x; j--)
				keys[j] = keys[j - 1];
			keys[j] = x;
		}
		return;
	}
	for (shift = 32; shift < 32 + rank_bits; shift += 8) {
		size_t sum = 0;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[keys[i] >> shift & 255]++;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			tmp[count[keys[i] >> shift & 255]++] = keys[i];
		memcpy(keys, tmp, n * sizeof(*keys));
	}
}

/* Kept samples items[lo..hi), sharing a prefix of `depth` frames; the next frame is seq[depth]. */
struct run {
	size_t lo, hi;
	uint32_t depth;
	bool quiet;                  /* under a node the visitor declined: only counted */
};

struct walk {
	const struct hpa_seqs *s;
	const struct hpa_seqs_visitor *v;
	uint32_t *items;
	uint64_t *keys, *tmp;
	struct run *stack;
	size_t sp, alloc;
	size_t declined;             /* nodes under declined ones */
};

/*
 * Sorts items[lo..hi) by the rank of their frame at `depth`, reports the
 * samples that have no frame there, and pushes each run of one rank, the
 * last first, so the runs are taken in name order.
 */
static void split(struct walk *w, size_t lo, size_t hi, uint32_t depth, bool quiet)
{
	const struct hpa_seqs *s = w->s;
	size_t j, end;
	bool sorted = true;

	for (j = lo; j < hi; j++) {
		uint32_t k = w->items[j];
		uint64_t key = s->len[k] > depth ? s->slot_rank[s->seq[s->off[k] + depth]] : 0;

		w->keys[j] = key << 32 | k;
		if (j > lo && w->keys[j] < w->keys[j - 1])
			sorted = false;
	}
	if (!sorted)
		sort_keys(w->keys + lo, hi - lo, w->tmp, s->rank_bits);
	for (j = lo; j < hi; j++)
		w->items[j] = (uint32_t)w->keys[j];
	for (end = hi; end > lo;) {
		uint64_t key = w->keys[end - 1] >> 32;
		size_t start = end - 1;

		while (start > lo && w->keys[start - 1] >> 32 == key)
			start--;
		if (key) {
			HPA_GROW(w->stack, w->sp + 1, w->alloc);
			w->stack[w->sp++] = (struct run){ start, end, depth, quiet };
		} else if (w->v->end && !quiet) {
			w->v->end(w->v->ctx, depth, w->items + start, end - start);
		}
		end = start;
	}
}

/* Do the samples share one stored sequence (copies of a stack, collect stored it once)? */
static bool same_sequence(const struct hpa_seqs *s, const uint32_t *items, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (s->off[items[i]] != s->off[items[0]])
			return false;
	return true;
}

size_t hpa_seqs_walk(const struct hpa_seqs *s, const struct hpa_seqs_visitor *v)
{
	size_t n = s->kept ? s->kept : 1, k;
	struct walk w;

	memset(&w, 0, sizeof(w));
	w.s = s;
	w.v = v;
	w.items = xmalloc(st_mult(n, sizeof(*w.items)));
	w.keys = xmalloc(st_mult(n, sizeof(*w.keys)));
	w.tmp = xmalloc(st_mult(n, sizeof(*w.tmp)));
	for (k = 0; k < s->kept; k++)
		w.items[k] = (uint32_t)k;
	split(&w, 0, s->kept, 0, false);
	while (w.sp) {
		struct run r = w.stack[--w.sp];
		uint32_t first = w.items[r.lo], d;
		bool quiet = r.quiet;

		if (quiet)
			w.declined++;
		else
			quiet = !v->node(v->ctx, r.depth + 1, s->seq[s->off[first] + r.depth],
					 w.items + r.lo, r.hi - r.lo);
		if (r.hi - r.lo > 1 && !same_sequence(s, w.items + r.lo, r.hi - r.lo)) {
			split(&w, r.lo, r.hi, r.depth + 1, quiet);
			continue;
		}
		if (quiet) {
			w.declined += s->len[first] - r.depth - 1;
			continue;
		}
		/* One sample, or copies of one sequence: its frames in a row. */
		for (d = r.depth + 1; d < s->len[first]; d++)
			if (!v->node(v->ctx, d + 1, s->seq[s->off[first] + d], w.items + r.lo, r.hi - r.lo)) {
				w.declined += s->len[first] - d - 1;
				break;
			}
		if (v->end && d == s->len[first])
			v->end(v->ctx, s->len[first], w.items + r.lo, r.hi - r.lo);
	}
	free(w.stack);
	free(w.items);
	free(w.keys);
	free(w.tmp);
	return w.declined;
}

void hpa_seqs_release(struct hpa_seqs *s)
{
	free(s->sample);
	free(s->v);
	free(s->off);
	free(s->len);
	free(s->seq);
	free(s->slot_frame);
	free(s->slot_used);
	free(s->slot_rank);
	memset(s, 0, sizeof(*s));
}
