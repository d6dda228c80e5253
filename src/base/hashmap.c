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
 * of two dumps (7.5M ids: 20-28 ms).
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
 * Counted by the hash's top bits (about one id per bucket), then each
 * bucket's few by insertion on the whole hash; both passes stable.
 */
size_t hpa_hash_sort(const uint64_t *hash, const uint8_t *keep, size_t lo, size_t hi,
		     struct hpa_hash_item **out)
{
	size_t n = 0, i, j, b, nb;
	unsigned bits = 8, shift;
	struct hpa_hash_item *items;
	uint32_t *at;

	if (hi > UINT32_MAX)
		HPA_BUG("more than 2^32 ids to sort");
	for (i = lo; i < hi; i++)
		n += !keep || keep[i];
	while (bits < 20 && ((size_t)1 << bits) < n)
		bits++;
	shift = 64 - bits;
	nb = (size_t)1 << bits;
	at = xcalloc(nb + 1, sizeof(*at));
	items = xmalloc(st_mult(n + 1, sizeof(*items)));
	for (i = lo; i < hi; i++)
		if (!keep || keep[i])
			at[(hash[i] >> shift) + 1]++;
	for (b = 0; b < nb; b++)
		at[b + 1] += at[b];
	for (i = lo; i < hi; i++)
		if (!keep || keep[i])
			items[at[hash[i] >> shift]++] = (struct hpa_hash_item){ hash[i], (uint32_t)i };
	for (b = 0, i = 0; b < nb; i = at[b++]) {   /* at[b]: now where bucket b + 1 starts */
		for (j = i + 1; j < at[b]; j++) {
			struct hpa_hash_item it = items[j];
			size_t k;

			for (k = j; k > i && items[k - 1].h > it.h; k--)
				items[k] = items[k - 1];
			items[k] = it;
		}
	}
	free(at);
	*out = items;
	return n;
}
