#include "hpa/compat.h"

#include <stdlib.h>

#include "hpa/diag.h"
#include "hpa/hashmap.h"
#include "hpa/xalloc.h"

uint64_t hpa_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

void hpa_hashmap_init(struct hpa_hashmap *map)
{
	map->keys = NULL;
	map->vals = NULL;
	map->nr = map->cap = 0;
}

void hpa_hashmap_release(struct hpa_hashmap *map)
{
	free(map->keys);
	free(map->vals);
	hpa_hashmap_init(map);
}

static size_t slot_of(const struct hpa_hashmap *map, uint64_t key)
{
	size_t mask = map->cap - 1;
	size_t i = (size_t)hpa_hash64(key) & mask;

	while (map->vals[i] && map->keys[i] != key)
		i = (i + 1) & mask;
	return i;
}

uint32_t hpa_hashmap_get(const struct hpa_hashmap *map, uint64_t key)
{
	if (!map->cap)
		return 0;
	return map->vals[slot_of(map, key)];
}

static void rehash(struct hpa_hashmap *map, size_t cap)
{
	uint64_t *okeys = map->keys;
	uint32_t *ovals = map->vals;
	size_t i, ocap = map->cap;

	map->keys = xmalloc(st_mult(cap, sizeof(*map->keys)));
	map->vals = xcalloc(cap, sizeof(*map->vals));
	map->cap = cap;
	for (i = 0; i < ocap; i++) {
		if (ovals[i]) {
			size_t s = slot_of(map, okeys[i]);
			map->keys[s] = okeys[i];
			map->vals[s] = ovals[i];
		}
	}
	free(okeys);
	free(ovals);
}

void hpa_hashmap_put(struct hpa_hashmap *map, uint64_t key, uint32_t val)
{
	size_t s;

	if (!val)
		HPA_BUG("hashmap value 0 is reserved");
	if ((map->nr + 1) * 4 > map->cap * 3)
		rehash(map, map->cap ? map->cap * 2 : 64);
	s = slot_of(map, key);
	if (!map->vals[s])
		map->nr++;
	map->keys[s] = key;
	map->vals[s] = val;
}
