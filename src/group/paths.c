/*
 * The grouping engine (group.h), paths: samples grouped by a format's key
 * sequence (pprof's locations): by their frames when the view filters
 * them, else by their locations, each group's keys made as it is walked.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/xalloc.h"

/* A group keyed as it is made: its keys' bytes are pool[first .. first + len). */
struct keyed {
	size_t first;
	uint32_t len;
	int32_t thread;
	double v[HPA_NVALUES];
};

struct hpa_paths {
	const struct hpa_profile *prof;
	struct hpa_path_format fmt;
	const double *weights;        /* the view's, or NULL: the inputs' own */
	size_t ngroups;
	uint32_t *group_of;           /* per sample: its group (1-based), 0 out of view; or NULL */
	bool by_loc;                  /* grouped by locations: keys made as the groups are walked */
	/* Grouped by frames: each group, its keys, and while grouping a hash chain. */
	struct keyed *keyed;
	uint8_t *pool;
	struct hpa_hashmap by_hash;   /* key sequence hash -> first group */
	uint32_t *next;               /* group with the same hash */
	size_t akeyed, npool, apool, anext;
	/*
	 * Grouped by locations: per group (1-based) its sums' index + 1, or 0
	 * for a group of one sample (nearly all of them: 48 bytes a group
	 * kept for none), the view that gives each group's locations, and the
	 * keys of the group walked last.
	 */
	uint32_t *multi;
	double (*sums)[HPA_NVALUES];
	size_t nsums, asums;
	struct hpa_view view;
	uint32_t *walk_keys;
	uint8_t *walk_bytes;
	size_t awalk_keys, awalk_bytes;
};

/* One sample's key sequence, waiting for its group: the keys, then their varints. */
struct path_keys {
	uint32_t *keys;
	uint8_t *bytes;
	size_t n, len, alloc, alloc_bytes, sample;
	uint64_t h;
};

/* A new, empty group of sample `sample`'s thread with hash h, chained before `first`: its id (dense from 1). */
static uint32_t new_group(const struct hpa_profile *prof, struct hpa_paths *p, uint64_t h, uint32_t first,
			  size_t sample)
{
	uint32_t id;

	HPA_GROW(p->keyed, p->ngroups + 1, p->akeyed);
	memset(&p->keyed[p->ngroups], 0, sizeof(p->keyed[p->ngroups]));
	p->keyed[p->ngroups].thread = prof->samples[sample].thread;
	id = (uint32_t)++p->ngroups;
	HPA_GROW(p->next, p->ngroups + 1, p->anext);
	p->next[id] = first;
	hpa_hashmap_put(&p->by_hash, h, id);
	return id;
}

/* Sample i's values, weighted (weights: the view's, or NULL: the inputs' own), added to sums. */
static void add_weighted(const struct hpa_profile *prof, const double *weights, size_t i, double *sums)
{
	const struct hpa_sample *s = &prof->samples[i];
	double weight = hpa_input_weight(weights, prof, s->input);
	size_t v;

	for (v = 0; v < HPA_NVALUES; v++)
		sums[v] += s->v[v] * weight;
}

/* Sample `sample` into group id: its weighted values, and group_of's entry. */
static void group_add(const struct hpa_profile *prof, struct hpa_paths *p, uint32_t id, size_t sample)
{
	add_weighted(prof, p->weights, sample, p->keyed[id - 1].v);
	if (p->group_of)
		p->group_of[sample] = id;
}

/* Sample k->sample into the group of its keys (a new one if none has them). */
static void path_add(const struct hpa_profile *prof, struct hpa_paths *p, const struct path_keys *k)
{
	uint32_t first = hpa_hashmap_get(&p->by_hash, k->h), id;

	for (id = first; id; id = p->next[id])
		if (p->keyed[id - 1].len == k->len && !memcmp(p->pool + p->keyed[id - 1].first, k->bytes, k->len))
			break;
	if (!id) {
		id = new_group(prof, p, k->h, first, k->sample);
		HPA_GROW(p->pool, p->npool + k->len, p->apool);
		memcpy(p->pool + p->npool, k->bytes, k->len);
		p->keyed[id - 1].first = p->npool;
		p->keyed[id - 1].len = (uint32_t)k->len;
		p->npool += k->len;
	}
	group_add(prof, p, id, k->sample);
}

/* keys[0 .. n) as varints (at most 5 bytes each) into *bytes; their length. */
static size_t path_encode(const uint32_t *keys, size_t n, uint8_t **bytes, size_t *alloc)
{
	uint8_t *b;
	size_t i, len;

	HPA_GROW(*bytes, st_mult(n, 5), *alloc);
	b = *bytes;
	for (i = 0; i < n; i++) {
		uint32_t x = keys[i];

		for (; x >= 0x80; x >>= 7)
			*b++ = (uint8_t)(x | 0x80);
		*b++ = (uint8_t)x;
	}
	len = (size_t)(b - *bytes);
	if (len > UINT32_MAX)   /* 800 million frames in one stack: more than memory holds */
		HPA_BUG("a stack of %zu frames", n);
	return len;
}

/*
 * The keys of sample i's locations in the view (fmt's loc_key: the
 * leaf's levels from the view's first on, every other location's all),
 * into keys (grown); their number.
 */
static size_t loc_keys(struct hpa_paths *p, size_t i, uint32_t **keys, size_t *alloc)
{
	const struct hpa_path_format *fmt = &p->fmt;
	const uint32_t *locs;
	unsigned first;
	size_t nr = hpa_view_locations(&p->view, p->prof->samples[i].stack, &locs, &first), k;

	HPA_GROW(*keys, nr + 1, *alloc);
	for (k = 0; k < nr; k++) {
		unsigned from = k ? 0 : first;
		uint32_t key = !from && fmt->whole ? fmt->whole[locs[k]] : 0;   /* no call for a known one */

		(*keys)[k] = key ? key : fmt->loc_key(fmt->ctx, locs[k], from);
	}
	if (!nr)
		(*keys)[nr++] = fmt->empty(fmt->ctx);
	return nr;
}

/*
 * Samples into groups by their frames' keys.  Each sample's keys are made
 * while the table slot of the one before is on its way from memory (one
 * sample behind): with a group per stack the table is as large as the
 * profile, and nearly every lookup missed the cache.
 */
static void group_by_frames(struct hpa_paths *p, const struct hpa_view_opts *opts)
{
	const struct hpa_profile *prof = p->prof;
	const struct hpa_path_format *fmt = &p->fmt;
	struct hpa_view view;
	struct path_keys ks[2], *cur, *prev = NULL;
	const struct hpa_frame *frames;
	size_t i, k, nr, turn = 0;

	memset(ks, 0, sizeof(ks));
	hpa_view_init(&view, prof, opts);
	hpa_hashmap_reserve(&p->by_hash, prof->stacks_nr);   /* at most a group per stack */
	for (i = 0; i < prof->samples_nr; i++) {
		size_t used;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		cur = &ks[turn];
		turn ^= 1;
		cur->n = 0;
		cur->sample = i;
		HPA_GROW(cur->keys, nr + 1, cur->alloc);
		for (k = 0; k < nr; k += used) {
			used = 1;
			cur->keys[cur->n++] = fmt->key_of(fmt->ctx, frames + k, nr - k, &used);
			if (!used)
				used = 1;
		}
		if (!cur->n)
			cur->keys[cur->n++] = fmt->empty(fmt->ctx);
		cur->h = hpa_hash_ids(cur->keys, cur->n);
		hpa_hashmap_prefetch(&p->by_hash, cur->h);
		cur->len = path_encode(cur->keys, cur->n, &cur->bytes, &cur->alloc_bytes);
		if (prev)
			path_add(prof, p, prev);
		prev = cur;
	}
	if (prev)
		path_add(prof, p, prev);
	hpa_view_release(&view);
	hpa_hashmap_release(&p->by_hash);
	free(p->next);
	p->next = NULL;
	for (k = 0; k < 2; k++) {
		free(ks[k].keys);
		free(ks[k].bytes);
	}
}

static uint64_t locs_hash(const uint32_t *locs, size_t nr, unsigned first)
{
	return hpa_hash_ids(locs, nr) ^ first;
}

/* The hashes of samples [0, n)'s locations in the view (kept[i]: whether it is in view). */
static void hash_loc_paths(const struct hpa_view *view, uint64_t *hash, uint8_t *kept, size_t n)
{
	const struct hpa_profile *prof = view->prof;
	size_t i;

	for (i = 0; i < n; i++) {
		const uint32_t *locs;
		unsigned first;
		size_t nr;

		kept[i] = hpa_view_keeps(view, i);
		if (!kept[i]) {
			hash[i] = 0;
			continue;
		}
		nr = hpa_view_locations(view, prof->samples[i].stack, &locs, &first);
		hash[i] = locs_hash(locs, nr, first);
	}
}

/* Whether samples a and b have the same locations in the view. */
static bool same_locs(const struct hpa_view *view, size_t a, size_t b)
{
	const struct hpa_profile *prof = view->prof;
	const uint32_t *la, *lb;
	unsigned fa, fb;
	size_t na = hpa_view_locations(view, prof->samples[a].stack, &la, &fa);
	size_t nb = hpa_view_locations(view, prof->samples[b].stack, &lb, &fb);

	return na == nb && fa == fb && !memcmp(la, lb, na * sizeof(*la));
}

static bool same_locs_of(void *view, uint32_t a, uint32_t b)
{
	return same_locs(view, a, b);
}

/*
 * Samples into groups by their locations, without a table as large as the
 * profile (a group per stack: each lookup a cache miss).  The kept
 * samples' locations are hashed (hash_loc_paths), then sorted by hash
 * (hpa_hash_reps): samples with equal locations lie side by side, in
 * sample order, and each takes the first of them as its representative.
 * Then one pass in sample order makes the groups, in the order and with
 * the sums a table would give.  p->view stays for the walk.
 */
static void group_by_locs(struct hpa_paths *p, const struct hpa_view_opts *opts)
{
	const struct hpa_profile *prof = p->prof;
	size_t n = prof->samples_nr, i;
	uint64_t *hash = xmalloc(st_mult(n + 1, sizeof(*hash)));
	uint8_t *kept = xmalloc(n + 1);
	uint32_t *rep = xmalloc(st_mult(n + 1, sizeof(*rep)));

	if (n > UINT32_MAX)
		HPA_BUG("more than 2^32 samples");
	hpa_view_init(&p->view, prof, opts);
	hash_loc_paths(&p->view, hash, kept, n);
	hpa_hash_reps(hash, kept, 0, n, rep, same_locs_of, &p->view);   /* the first sample with i's locations */
	free(hash);
	p->multi = xcalloc(n + 1, sizeof(*p->multi));   /* by group id */
	for (i = 0; i < n; i++) {   /* rep[i] <= i: a representative's group is made first */
		uint32_t g, *m;

		if (!kept[i])
			continue;
		if (rep[i] == i) {
			p->group_of[i] = (uint32_t)++p->ngroups;
			continue;
		}
		g = p->group_of[i] = p->group_of[rep[i]];
		m = &p->multi[g];
		if (!*m) {   /* its second sample: the sums start as its first's (0 plus them, in order) */
			HPA_GROW(p->sums, p->nsums + 1, p->asums);
			memset(p->sums[p->nsums], 0, sizeof(p->sums[p->nsums]));
			add_weighted(prof, p->weights, rep[i], p->sums[p->nsums]);
			*m = (uint32_t)++p->nsums;
		}
		add_weighted(prof, p->weights, i, p->sums[*m - 1]);
	}
	free(rep);
	free(kept);
}

struct hpa_paths *hpa_group_paths(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
				  const struct hpa_path_format *fmt, bool group_of)
{
	struct hpa_paths *p = xcalloc(1, sizeof(*p));

	p->prof = prof;
	p->fmt = *fmt;
	p->weights = opts->weights;
	p->by_loc = fmt->loc_key && !hpa_view_filters(opts);
	if (group_of || p->by_loc)
		p->group_of = xcalloc(prof->samples_nr + 1, sizeof(*p->group_of));
	if (p->by_loc)
		group_by_locs(p, opts);
	else
		group_by_frames(p, opts);
	return p;
}

size_t hpa_paths_count(const struct hpa_paths *p)
{
	return p->ngroups;
}

const uint32_t *hpa_paths_group_of(const struct hpa_paths *p)
{
	return p->group_of;
}

bool hpa_paths_next(struct hpa_paths *p, struct hpa_path_walk *w, struct hpa_path_group *out)
{
	uint32_t g;

	if (w->g >= p->ngroups)
		return false;
	g = (uint32_t)++w->g;
	if (!p->by_loc) {
		out->thread = p->keyed[g - 1].thread;
		memcpy(out->v, p->keyed[g - 1].v, sizeof(out->v));
		return true;
	}
	while (p->group_of[w->sample] != g)   /* group g's first sample comes after g - 1's */
		w->sample++;
	memset(out, 0, sizeof(*out));
	out->thread = p->prof->samples[w->sample].thread;
	if (p->multi[g])
		memcpy(out->v, p->sums[p->multi[g] - 1], sizeof(out->v));
	else
		add_weighted(p->prof, p->weights, w->sample, out->v);
	return true;
}

const uint8_t *hpa_paths_keys(struct hpa_paths *p, const struct hpa_path_walk *w, size_t *len)
{
	size_t n;

	if (!w->g || w->g > p->ngroups)
		HPA_BUG("keys of no group");
	if (!p->by_loc) {
		*len = p->keyed[w->g - 1].len;
		return p->pool + p->keyed[w->g - 1].first;
	}
	n = loc_keys(p, w->sample, &p->walk_keys, &p->awalk_keys);
	*len = path_encode(p->walk_keys, n, &p->walk_bytes, &p->awalk_bytes);
	return p->walk_bytes;
}

void hpa_paths_release(struct hpa_paths *p)
{
	if (!p)
		return;
	free(p->group_of);
	free(p->keyed);
	free(p->pool);
	free(p->multi);
	free(p->sums);
	if (p->by_loc)
		hpa_view_release(&p->view);
	free(p->walk_keys);
	free(p->walk_bytes);
	free(p);
}
