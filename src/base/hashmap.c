#include "hpa/compat.h"

#include <stdlib.h>

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
