/*
 * The grouping engine's call tree (group.h): the view's stacks merged on
 * common prefixes, for the flame graph and the caller/callee views.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/xalloc.h"

uint32_t hpa_frame_name_id(const struct hpa_profile *prof, struct hpa_frame f, enum hpa_name_kind kind)
{
	const struct hpa_frame_name *n = hpa_frame_name(prof, f);

	switch (kind) {
	case HPA_NAME_SHORT:
		return n->shortn;
	case HPA_NAME_DISPLAY:
		return n->display;
	case HPA_NAME_FOLDED:
		return n->folded;
	case HPA_NAME_GRAPH:
		return n->graph;
	default:
		return n->full;
	}
}

/*
 * Building the tree without a lookup per frame.  Each visible sample's
 * frames become a sequence of slots; names are ranked in strcmp order; the
 * samples are then split level by level, a range of samples sharing a
 * prefix sorted by the rank at the next depth, each run of one rank a
 * child.  Nodes are made depth first with children in name order, and a
 * node's values are summed over its samples in sample order, as adding
 * sample after sample would.
 */
struct build {
	struct hpa_call_tree *t;
	const struct hpa_profile *prof;
	const struct hpa_tree_opts *topts;
	uint32_t *seq;               /* every kept sample's slots, root first (or leaf first) */
	size_t *off;                 /* per kept sample: its slots start at seq[off[k]] ... */
	uint32_t *len;               /* ... and number len[k] */
	uint32_t *sample;            /* per kept sample: its sample index */
	double *v;                   /* per kept sample: its view value */
	uint32_t *slot_name, *slot_label, *slot_rank;
	unsigned rank_bits;          /* bits the largest rank needs */
	uint64_t *tmp;               /* room to sort every kept sample's key */
};

static uint32_t new_node(struct hpa_call_tree *t, uint32_t parent, uint32_t name, uint32_t label)
{
	struct hpa_call_node *n;
	uint32_t id;

	HPA_GROW(t->nodes, t->nr + 1, t->alloc);
	id = (uint32_t)t->nr++;
	n = &t->nodes[id];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->label = label;
	n->parent = parent;
	n->depth = t->nodes[parent].depth + 1;
	n->next = t->nodes[parent].child;   /* reversed at the end: name order */
	t->nodes[parent].child = id;
	if (t->dumps) {
		HPA_GROW(t->series, t->nr * t->dumps, t->series_alloc);
		memset(t->series + (size_t)id * t->dumps, 0, t->dumps * sizeof(*t->series));
	}
	if (t->values) {
		HPA_GROW(t->values, t->nr * HPA_NVALUES, t->values_alloc);
		memset(t->values + (size_t)id * HPA_NVALUES, 0, HPA_NVALUES * sizeof(*t->values));
	}
	return id;
}

/* Sample k (a kept one) passes through `node`. */
static void add_kept(const struct build *b, uint32_t node, uint32_t k)
{
	struct hpa_call_tree *t = b->t;
	const struct hpa_sample *s = &b->prof->samples[b->sample[k]];
	const struct hpa_input *in = &b->prof->inputs[s->input - 1];

	if (t->values) {
		size_t j;
		for (j = 0; j < HPA_NVALUES; j++)
			t->values[(size_t)node * HPA_NVALUES + j] += s->v[j] * in->weight;
	}
	if (t->dumps)
		t->series[(size_t)node * t->dumps + s->input - 1] += b->v[k];
	if (in->is_base)
		t->nodes[node].before -= b->v[k];
	else
		t->nodes[node].after += b->v[k];
}

static const struct hpa_profile *rank_prof;
static const uint32_t *rank_name;

static int cmp_slot_names(const void *a, const void *b)
{
	uint32_t x = rank_name[*(const uint32_t *)a], y = rank_name[*(const uint32_t *)b];
	int c = x == y ? 0 : strcmp(hpa_profile_str(rank_prof, x), hpa_profile_str(rank_prof, y));

	return c ? c : (x > y) - (x < y);
}

/* slot_rank: 1, 2, ... by name in strcmp order, equal for slots of one name. */
static void rank_names(struct build *b, size_t nslots)
{
	uint32_t *slots = xmalloc(st_mult(nslots ? nslots : 1, sizeof(*slots)));
	size_t n = 0, i;
	uint32_t rank = 0;

	for (i = 0; i < nslots; i++)
		if (b->slot_name[i])
			slots[n++] = (uint32_t)i;
	rank_prof = b->prof;
	rank_name = b->slot_name;
	qsort(slots, n, sizeof(*slots), cmp_slot_names);
	for (i = 0; i < n; i++) {
		if (!i || b->slot_name[slots[i]] != b->slot_name[slots[i - 1]])
			rank++;
		b->slot_rank[slots[i]] = rank;
	}
	while (rank >> b->rank_bits)
		b->rank_bits++;
	free(slots);
}

/*
 * Sorts keys (rank << 32 | sample) whose samples are already ascending:
 * stable by rank, so by rank and then sample.  Insertion sort for a few,
 * else least significant byte first over the bytes ranks use.
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

/* Samples items[lo..hi) share the node `parent` at depth d; their next frame: */
struct run {
	size_t lo, hi;
	uint32_t depth, parent;
};

/*
 * Sorts items[lo..hi) by their slot's rank at `depth` (samples with fewer
 * frames first, ties in sample order) and pushes each run of one rank,
 * the last first, so the runs are taken in name order.
 */
static void split(const struct build *b, uint32_t *items, uint64_t *keys, size_t lo, size_t hi,
		  uint32_t depth, uint32_t parent, struct run **stack, size_t *sp, size_t *alloc)
{
	size_t j, end;
	bool sorted = true;

	for (j = lo; j < hi; j++) {
		uint32_t k = items[j];
		uint64_t key = b->len[k] > depth ? b->slot_rank[b->seq[b->off[k] + depth]] : 0;

		keys[j] = key << 32 | k;
		if (j > lo && keys[j] < keys[j - 1])
			sorted = false;
	}
	if (!sorted)
		sort_keys(keys + lo, hi - lo, b->tmp, b->rank_bits);
	for (j = lo; j < hi; j++)
		items[j] = (uint32_t)keys[j];
	for (end = hi; end > lo;) {
		uint64_t key = keys[end - 1] >> 32;
		size_t start = end - 1;

		while (start > lo && keys[start - 1] >> 32 == key)
			start--;
		if (key) {
			HPA_GROW(*stack, *sp + 1, *alloc);
			(*stack)[(*sp)++] = (struct run){ start, end, depth, parent };
		}
		end = start;
	}
}

void hpa_group_tree(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		    const struct hpa_tree_opts *topts, struct hpa_call_tree *t)
{
	size_t nslots = prof->lines_nr + prof->locs_nr;
	struct hpa_view view;
	struct build b;
	const struct hpa_frame *frames;
	size_t i, k, nr, kept = 0, akept = 0, aoff = 0, alen = 0, av = 0, nseq = 0, aseq = 0;
	struct run *stack = NULL;
	size_t sp = 0, astack = 0;
	uint32_t *items;
	uint64_t *keys;

	memset(t, 0, sizeof(*t));
	memset(&b, 0, sizeof(b));
	b.t = t;
	b.prof = prof;
	b.topts = topts;
	b.slot_name = xcalloc(nslots + 1, sizeof(*b.slot_name));
	b.slot_label = xcalloc(nslots + 1, sizeof(*b.slot_label));
	b.slot_rank = xcalloc(nslots + 1, sizeof(*b.slot_rank));
	HPA_GROW(t->nodes, 1, t->alloc);
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nr = 1;
	if (topts->per_input) {
		t->dumps = prof->inputs_nr;
		t->series = xcalloc(t->dumps ? t->dumps : 1, sizeof(*t->series));
		t->series_alloc = t->dumps;
	}
	if (topts->all_values) {
		t->values = xcalloc(HPA_NVALUES, sizeof(*t->values));
		t->values_alloc = HPA_NVALUES;
	}
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		HPA_GROW(b.sample, kept + 1, akept);
		HPA_GROW(b.off, kept + 1, aoff);
		HPA_GROW(b.len, kept + 1, alen);
		HPA_GROW(b.v, kept + 1, av);
		HPA_GROW(b.seq, nseq + nr, aseq);
		b.sample[kept] = (uint32_t)i;
		b.v[kept] = hpa_view_value(&view, i);
		b.off[kept] = nseq;
		b.len[kept] = (uint32_t)nr;
		for (k = 0; k < nr; k++) {
			struct hpa_frame f = frames[topts->leaf_first ? k : nr - 1 - k];
			size_t slot = hpa_frame_slot(prof, f);

			if (!b.slot_name[slot]) {
				b.slot_name[slot] = hpa_frame_name_id(prof, f, topts->name);
				b.slot_label[slot] = hpa_frame_name_id(prof, f, topts->label);
			}
			b.seq[nseq++] = (uint32_t)slot;
		}
		t->diff |= prof->inputs[prof->samples[i].input - 1].is_base;
		add_kept(&b, 0, (uint32_t)kept);
		kept++;
	}
	hpa_view_release(&view);
	rank_names(&b, nslots);

	items = xmalloc(st_mult(kept ? kept : 1, sizeof(*items)));
	keys = xmalloc(st_mult(kept ? kept : 1, sizeof(*keys)));
	b.tmp = xmalloc(st_mult(kept ? kept : 1, sizeof(*b.tmp)));
	for (k = 0; k < kept; k++)
		items[k] = (uint32_t)k;
	split(&b, items, keys, 0, kept, 0, 0, &stack, &sp, &astack);
	while (sp) {
		struct run r = stack[--sp];
		uint32_t first = items[r.lo], slot = b.seq[b.off[first] + r.depth], node;
		size_t j;

		node = new_node(t, r.parent, b.slot_name[slot], b.slot_label[slot]);
		for (j = r.lo; j < r.hi; j++)
			add_kept(&b, node, items[j]);
		if (r.hi - r.lo > 1) {
			split(&b, items, keys, r.lo, r.hi, r.depth + 1, node, &stack, &sp, &astack);
			continue;
		}
		for (j = r.depth + 1; j < b.len[first]; j++) {   /* one sample: its frames in a row */
			slot = b.seq[b.off[first] + j];
			node = new_node(t, node, b.slot_name[slot], b.slot_label[slot]);
			add_kept(&b, node, first);
		}
	}
	for (i = 0; i < t->nr; i++) {   /* children were pushed in front: name order again */
		uint32_t prev = 0, c = t->nodes[i].child;

		while (c) {
			uint32_t next = t->nodes[c].next;
			t->nodes[c].next = prev;
			prev = c;
			c = next;
		}
		t->nodes[i].child = prev;
	}
	free(stack);
	free(items);
	free(keys);
	free(b.tmp);
	free(b.seq);
	free(b.off);
	free(b.len);
	free(b.sample);
	free(b.v);
	free(b.slot_name);
	free(b.slot_label);
	free(b.slot_rank);
}

void hpa_call_tree_release(struct hpa_call_tree *t)
{
	free(t->nodes);
	free(t->series);
	free(t->values);
	memset(t, 0, sizeof(*t));
}
