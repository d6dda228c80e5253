/*
 * The grouping engine (group.h), paths: samples grouped by a writer's own
 * key sequence (pprof's locations), or by their locations in the view.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/xalloc.h"

/* Grouping samples by key sequence: the groups so far. */
struct paths {
	struct hpa_hashmap by_hash;   /* key sequence hash -> first group */
	struct hpa_path_group *groups;
	uint8_t *pool;
	uint32_t *next;               /* group with the same hash */
	size_t ngroups, agroups, npool, apool, anext;
	const double *weights;        /* the view's, or NULL: the inputs' own */
};

/* One sample's key sequence, waiting for its group: the keys, then their varints. */
struct path_keys {
	uint32_t *keys;
	uint8_t *bytes;
	size_t n, len, alloc, alloc_bytes, sample;
	uint64_t h;
};

/* A new, empty group of sample `sample`'s thread with hash h, chained before `first`: its id (dense from 1). */
static uint32_t new_group(const struct hpa_profile *prof, struct paths *p, uint64_t h, uint32_t first,
			  size_t sample)
{
	uint32_t id;

	HPA_GROW(p->groups, p->ngroups + 1, p->agroups);
	memset(&p->groups[p->ngroups], 0, sizeof(p->groups[p->ngroups]));
	p->groups[p->ngroups].thread = prof->samples[sample].thread;
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
static void group_add(const struct hpa_profile *prof, struct paths *p, uint32_t id, size_t sample,
		      uint32_t *group_of)
{
	add_weighted(prof, p->weights, sample, p->groups[id - 1].v);
	if (group_of)
		group_of[sample] = id;
}

/* Sample k->sample into the group of its keys (a new one if none has them). */
static void path_add(const struct hpa_profile *prof, struct paths *p, const struct path_keys *k,
		     uint32_t *group_of)
{
	uint32_t first = hpa_hashmap_get(&p->by_hash, k->h), id;

	for (id = first; id; id = p->next[id])
		if (p->groups[id - 1].len == k->len && !memcmp(p->pool + p->groups[id - 1].first, k->bytes, k->len))
			break;
	if (!id) {
		id = new_group(prof, p, k->h, first, k->sample);
		HPA_GROW(p->pool, p->npool + k->len, p->apool);
		memcpy(p->pool + p->npool, k->bytes, k->len);
		p->groups[id - 1].first = p->npool;
		p->groups[id - 1].len = (uint32_t)k->len;
		p->npool += k->len;
	}
	group_add(prof, p, id, k->sample, group_of);
}

/* k's keys as varints (at most 5 bytes each). */
static void path_encode(struct path_keys *k)
{
	uint8_t *b;
	size_t i;

	HPA_GROW(k->bytes, st_mult(k->n, 5), k->alloc_bytes);
	b = k->bytes;
	for (i = 0; i < k->n; i++) {
		uint32_t x = k->keys[i];

		for (; x >= 0x80; x >>= 7)
			*b++ = (uint8_t)(x | 0x80);
		*b++ = (uint8_t)x;
	}
	k->len = (size_t)(b - k->bytes);
	if (k->len > UINT32_MAX)   /* 800 million frames in one stack: more than memory holds */
		HPA_BUG("a stack of %zu frames", k->n);
}

/*
 * Each sample's keys are made while the table slot of the one before is
 * on its way from memory (one sample behind): with a group per stack the
 * table is as large as the profile, and nearly every lookup missed the
 * cache.
 */
size_t hpa_group_paths(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		       const struct hpa_path_format *fmt, struct hpa_path_group **out, uint8_t **pool_out,
		       uint32_t *group_of)
{
	struct hpa_view view;
	struct paths p;
	struct path_keys ks[2], *cur, *prev = NULL;
	const struct hpa_frame *frames;
	size_t i, k, nr, turn = 0;
	bool by_loc = fmt->loc_key && !hpa_view_filters(opts);

	memset(&p, 0, sizeof(p));
	p.weights = opts->weights;
	memset(ks, 0, sizeof(ks));
	hpa_view_init(&view, prof, opts);
	hpa_hashmap_reserve(&p.by_hash, prof->stacks_nr);   /* at most a group per stack */
	for (i = 0; i < prof->samples_nr; i++) {
		const uint32_t *locs;
		unsigned first;
		size_t used;

		if (group_of)
			group_of[i] = 0;
		if (by_loc ? !hpa_view_keeps(&view, i) : !hpa_view_sample(&view, i, &frames, &nr))
			continue;
		cur = &ks[turn];
		turn ^= 1;
		cur->n = 0;
		cur->sample = i;
		if (by_loc) {
			nr = hpa_view_locations(&view, prof->samples[i].stack, &locs, &first);
			HPA_GROW(cur->keys, nr + 1, cur->alloc);
			for (k = 0; k < nr; k++) {
				unsigned from = k ? 0 : first;
				uint32_t key = !from && fmt->whole ? fmt->whole[locs[k]] : 0;   /* no call for a known one */

				cur->keys[cur->n++] = key ? key : fmt->loc_key(fmt->ctx, locs[k], from);
			}
		} else {
			HPA_GROW(cur->keys, nr + 1, cur->alloc);
			for (k = 0; k < nr; k += used) {
				used = 1;
				cur->keys[cur->n++] = fmt->key_of(fmt->ctx, frames + k, nr - k, &used);
				if (!used)
					used = 1;
			}
		}
		if (!cur->n)
			cur->keys[cur->n++] = fmt->empty(fmt->ctx);
		cur->h = hpa_hash_ids(cur->keys, cur->n);
		hpa_hashmap_prefetch(&p.by_hash, cur->h);
		path_encode(cur);
		if (prev)
			path_add(prof, &p, prev, group_of);
		prev = cur;
	}
	if (prev)
		path_add(prof, &p, prev, group_of);
	hpa_view_release(&view);
	hpa_hashmap_release(&p.by_hash);
	free(p.next);
	for (k = 0; k < 2; k++) {
		free(ks[k].keys);
		free(ks[k].bytes);
	}
	*out = p.groups;
	*pool_out = p.pool;
	return p.ngroups;
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
 * the sums a table would give.
 */
size_t hpa_group_loc_paths(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
			   struct hpa_loc_groups *lg)
{
	struct hpa_view view;
	size_t n = prof->samples_nr, i;
	uint64_t *hash = xmalloc(st_mult(n + 1, sizeof(*hash)));
	uint8_t *kept = xmalloc(n + 1);
	uint32_t *rep = xmalloc(st_mult(n + 1, sizeof(*rep)));

	if (hpa_view_filters(opts))
		HPA_BUG("grouping by locations with filters");
	if (n > UINT32_MAX)
		HPA_BUG("more than 2^32 samples");
	memset(lg, 0, sizeof(*lg));
	lg->weights = opts->weights;
	hpa_view_init(&view, prof, opts);
	hash_loc_paths(&view, hash, kept, n);
	hpa_hash_reps(hash, kept, 0, n, rep, same_locs_of, &view);   /* the first sample with i's locations */
	free(hash);
	lg->group_of = xmalloc(st_mult(n + 1, sizeof(*lg->group_of)));
	lg->multi = xcalloc(n + 1, sizeof(*lg->multi));   /* by group id */
	for (i = 0; i < n; i++) {   /* rep[i] <= i: a representative's group is made first */
		uint32_t g, *m;

		lg->group_of[i] = 0;
		if (!kept[i])
			continue;
		if (rep[i] == i) {
			lg->group_of[i] = (uint32_t)++lg->ngroups;
			continue;
		}
		g = lg->group_of[i] = lg->group_of[rep[i]];
		m = &lg->multi[g];
		if (!*m) {   /* its second sample: the sums start as its first's (0 plus them, in order) */
			HPA_GROW(lg->sums, lg->nsums + 1, lg->asums);
			memset(lg->sums[lg->nsums], 0, sizeof(lg->sums[lg->nsums]));
			add_weighted(prof, lg->weights, rep[i], lg->sums[lg->nsums]);
			*m = (uint32_t)++lg->nsums;
		}
		add_weighted(prof, lg->weights, i, lg->sums[*m - 1]);
	}
	hpa_view_release(&view);
	free(rep);
	free(kept);
	return lg->ngroups;
}

void hpa_loc_group(const struct hpa_profile *prof, const struct hpa_loc_groups *lg, uint32_t g, size_t first,
		   struct hpa_path_group *out)
{
	memset(out, 0, sizeof(*out));
	out->first = first;
	out->thread = prof->samples[first].thread;
	if (lg->multi[g])
		memcpy(out->v, lg->sums[lg->multi[g] - 1], sizeof(out->v));
	else
		add_weighted(prof, lg->weights, first, out->v);
}

void hpa_loc_groups_release(struct hpa_loc_groups *lg)
{
	free(lg->group_of);
	free(lg->multi);
	free(lg->sums);
	memset(lg, 0, sizeof(*lg));
}
