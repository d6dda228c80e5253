/*
 * Open-addressing hash table from 64-bit keys to nonzero 32-bit ids.  Used by
 * every interner (address -> location, (parent, location) -> stack node).
 * Value 0 means "absent", which is why hpa ids are 1-based.
 */
#ifndef HPA_HASHMAP_H
#define HPA_HASHMAP_H

#include "hpa/compat.h"

struct hpa_hashmap_slot {
	uint64_t key;
	uint32_t val;     /* 0 = empty slot */
};

struct hpa_hashmap {
	struct hpa_hashmap_slot *slots;   /* key and value together: one cache miss per probe */
	size_t nr, cap;   /* cap is 0 or a power of two */
};

#define HPA_HASHMAP_INIT { NULL, 0, 0 }

void hpa_hashmap_init(struct hpa_hashmap *map);
void hpa_hashmap_release(struct hpa_hashmap *map);

/* The id stored for `key`, or 0. */
uint32_t hpa_hashmap_get(const struct hpa_hashmap *map, uint64_t key);

/* Room for `n` keys in all without growing. */
void hpa_hashmap_reserve(struct hpa_hashmap *map, size_t n);

/* Start loading the slot where `key` would be (for a lookup soon after). */
static inline void hpa_hashmap_prefetch(const struct hpa_hashmap *map, uint64_t key);

/* Store `val` (nonzero) for `key`, replacing any earlier value. */
void hpa_hashmap_put(struct hpa_hashmap *map, uint64_t key, uint32_t val);

/*
 * Mix a 64-bit value (splitmix64 finaliser); also used to combine keys.
 * Inline: it is called once per address read (millions in a large dump).
 */
static inline uint64_t hpa_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Hash of a sequence of n ids (stacks, key paths, slot sequences). */
uint64_t hpa_hash_ids(const uint32_t *ids, size_t n);

/*
 * The ids lo .. hi - 1 whose keep[] is set (all when keep is NULL), sorted
 * by hash[id], those of one hash in id order: equal hashes side by side,
 * for a grouping too large for a table to stay in the caches (a lookup per
 * id, each a miss).  Returns how many; *out is malloc'ed.
 */
struct hpa_hash_item {
	uint64_t h;
	uint32_t id;
};
size_t hpa_hash_sort(const uint64_t *hash, const uint8_t *keep, size_t lo, size_t hi,
		     struct hpa_hash_item **out);

/*
 * rep[id] for each id hpa_hash_sort() takes (its arguments): the first id
 * of its hash that same(ctx, first, id) finds equal to it (asked only of
 * ids that are their own), else id itself.  Ids of one hash are few: same()
 * is asked rarely.
 */
void hpa_hash_reps(const uint64_t *hash, const uint8_t *keep, size_t lo, size_t hi, uint32_t *rep,
		   bool (*same)(void *ctx, uint32_t a, uint32_t b), void *ctx);

static inline void hpa_hashmap_prefetch(const struct hpa_hashmap *map, uint64_t key)
{
	if (map->cap)
		__builtin_prefetch(&map->slots[hpa_hash64(key) & (map->cap - 1)]);
}

#endif
