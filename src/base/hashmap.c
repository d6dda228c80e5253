#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/hashmap.h"
#include "hpa/xalloc.h"

/*
 * Two ids a step, each step one multiply and one shift (a bijection of the
 * state for given ids), and the full mix once at the end: a quarter of the
 * time of mixing fully after each id, which dominated unifying the stacks
 * of two dumps.
 */
uint64_t hpa_hash_ids(const uint32_t *ids, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, x;
	size_t i;

	for (i = 0; i + 2 <= n; i += 2) {
		x = (uint64_t)ids[i] | (uint64_t)ids[i + 1] << 32;
		h = (h ^ x) * 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	if (i < n)
		h = (h ^ ids[i]) * 0x94d049bb133111ebULL;
	return hpa_hash64(h);
}

void hpa_hashmap_init(struct hpa_hashmap *map)
{
	map->slots = NULL;
	map->nr = map->cap = 0;
}

void hpa_hashmap_release(struct hpa_hashmap *map)
{
	free(map->slots);
	hpa_hashmap_init(map);
}

static size_t slot_of(const struct hpa_hashmap *map, uint64_t key)
{
	size_t mask = map->cap - 1;
	size_t i = (size_t)hpa_hash64(key) & mask;

	while (map->slots[i].val && map->slots[i].key != key)
		i = (i + 1) & mask;
	return i;
}

uint32_t hpa_hashmap_get(const struct hpa_hashmap *map, uint64_t key)
{
	if (!map->cap)
		return 0;
	return map->slots[slot_of(map, key)].val;
}

static void rehash(struct hpa_hashmap *map, size_t cap)
{
	struct hpa_hashmap_slot *old = map->slots;
	size_t i, ocap = map->cap;

	map->slots = xcalloc(cap, sizeof(*map->slots));
	map->cap = cap;
	for (i = 0; i < ocap; i++)
		if (old[i].val)
			map->slots[slot_of(map, old[i].key)] = old[i];
	free(old);
}

void hpa_hashmap_reserve(struct hpa_hashmap *map, size_t n)
{
	size_t cap = map->cap ? map->cap : 64;

	while ((n + 1) * 4 > cap * 3)
		cap *= 2;
	if (cap != map->cap)
		rehash(map, cap);
}

void hpa_hashmap_put(struct hpa_hashmap *map, uint64_t key, uint32_t val)
{
	size_t s;

	if (!val)
		HPA_BUG("hashmap value 0 is reserved");
	if ((map->nr + 1) * 4 > map->cap * 3)
		rehash(map, map->cap ? map->cap * 2 : 64);
	s = slot_of(map, key);
	if (!map->slots[s].val)
		map->nr++;
	map->slots[s].key = key;
	map->slots[s].val = val;
}

/*
 * A radix sort on the hash's top bits, least significant digit first (11
 * bits a pass: the counters stay in the first-level cache, and each pass
 * writes to 2048 places in turn), two passes (three past 4M ids), each
 * stable; then the few ids whose top bits agree ordered by the whole hash,
 * by insertion (stable too): a third of the time of a counting sort on 18
 * bits, whose counter and place are at random per id.
 */
#define HASH_SORT_DIGIT 11

size_t hpa_hash_sort(const uint64_t *hash, const uint8_t *keep, size_t lo, size_t hi,
		     struct hpa_hash_item **out)
{
	size_t n = 0, i, j, pass, passes;
	unsigned top;
	struct hpa_hash_item *items, *tmp, *t;
	uint32_t count[1u << HASH_SORT_DIGIT];

	if (hi > UINT32_MAX)
		HPA_BUG("more than 2^32 ids to sort");
	for (i = lo; i < hi; i++)
		n += !keep || keep[i];
	passes = n > ((size_t)1 << (2 * HASH_SORT_DIGIT)) ? 3 : 2;
	top = 64 - (unsigned)passes * HASH_SORT_DIGIT;   /* the lowest bit sorted on */
	items = xmalloc(st_mult(n + 1, sizeof(*items)));
	tmp = xmalloc(st_mult(n + 1, sizeof(*tmp)));
	for (i = lo, j = 0; i < hi; i++)
		if (!keep || keep[i])
			items[j++] = (struct hpa_hash_item){ hash[i], (uint32_t)i };
	for (pass = 0; pass < passes; pass++) {
		unsigned shift = top + (unsigned)pass * HASH_SORT_DIGIT;
		uint32_t at = 0, c;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[items[i].h >> shift & ((1u << HASH_SORT_DIGIT) - 1)]++;
		for (c = 0; c < 1u << HASH_SORT_DIGIT; c++) {
			uint32_t k = count[c];

			count[c] = at;
			at += k;
		}
		for (i = 0; i < n; i++)
			tmp[count[items[i].h >> shift & ((1u << HASH_SORT_DIGIT) - 1)]++] = items[i];
		t = items;
		items = tmp;
		tmp = t;
	}
	free(tmp);
	for (i = 1; i < n; i++) {   /* the rest of the hash, where the top bits agree */
		struct hpa_hash_item it = items[i];

		for (j = i; j > 0 && items[j - 1].h > it.h; j--)
			items[j] = items[j - 1];
		items[j] = it;
	}
	*out = items;
	return n;
}

void hpa_hash_reps(const uint64_t *hash, const uint8_t *keep, size_t lo, size_t hi, uint32_t *rep,
		   bool (*same)(void *ctx, uint32_t a, uint32_t b), void *ctx)
{
	struct hpa_hash_item *sorted;
	size_t n = hpa_hash_sort(hash, keep, lo, hi, &sorted), i, j, x, k;

	for (i = 0; i < n; i = j) {   /* runs of one hash */
		for (j = i + 1; j < n && sorted[j].h == sorted[i].h; j++)
			;
		for (x = i; x < j; x++) {
			uint32_t a = sorted[x].id;

			rep[a] = a;
			for (k = i; k < x; k++) {
				uint32_t e = sorted[k].id;

				if (rep[e] == e && same(ctx, e, a)) {
					rep[a] = e;
					break;
				}
			}
		}
	}
	free(sorted);
}
