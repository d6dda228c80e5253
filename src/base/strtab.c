#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/xalloc.h"

/* Eight bytes per step (names run to hundreds of bytes), then mixed. */
static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	}
	return hpa_hash64(h);
}

/*
 * The bytes of the strings live in blocks that never move, so a string's
 * address lasts as long as the table: one allocation per block, not per
 * string.  A string longer than a block gets a block of its own.
 */
#define BLOCK (64 * 1024)

static char *store(struct hpa_strtab *t, const char *s, size_t len)
{
	char *p;

	if (len + 1 > t->room_left) {
		size_t size = len + 1 > BLOCK / 4 ? len + 1 : BLOCK;

		HPA_GROW(t->blocks, t->blocks_nr + 1, t->blocks_alloc);
		p = t->blocks[t->blocks_nr++] = xmalloc(size);
		if (size != BLOCK) {   /* a long one alone: the current block stays in use */
			memcpy(p, s, len);
			p[len] = 0;
			return p;
		}
		t->room = p;
		t->room_left = size;
	}
	p = t->room;
	memcpy(p, s, len);
	p[len] = 0;
	t->room += len + 1;
	t->room_left -= len + 1;
	return p;
}

void hpa_strtab_init(struct hpa_strtab *t)
{
	memset(t, 0, sizeof(*t));
	hpa_hashmap_init(&t->by_hash);
	HPA_GROW(t->strs, 1, t->alloc);
	t->strs[0] = store(t, "", 0);
	t->nr = 1;
	HPA_GROW(t->next, 1, t->next_alloc);
	t->next[0] = 0;
}

void hpa_strtab_release(struct hpa_strtab *t)
{
	size_t i;

	for (i = 0; i < t->blocks_nr; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->strs);
	free(t->next);
	hpa_hashmap_release(&t->by_hash);
	memset(t, 0, sizeof(*t));
}

/* A new id for `text` (stored already), chained to `next` (same hash). */
static uint32_t add_id(struct hpa_strtab *t, char *text, uint32_t next)
{
	uint32_t id;

	if (t->nr >= UINT32_MAX)
		abort();
	id = (uint32_t)t->nr;
	HPA_GROW(t->strs, t->nr + 1, t->alloc);
	HPA_GROW(t->next, t->nr + 1, t->next_alloc);
	t->strs[id] = text;
	t->next[id] = next;
	t->nr++;
	return id;
}

uint32_t hpa_strtab_intern_len(struct hpa_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	uint32_t first, id;

	if (!len)
		return 0;
	h = hash_bytes(s, len);
	first = hpa_hashmap_get(&t->by_hash, h);
	for (id = first; id; id = t->next[id])
		if (!strncmp(t->strs[id], s, len) && !t->strs[id][len])
			return id;
	id = add_id(t, store(t, s, len), first);
	hpa_hashmap_put(&t->by_hash, h, id);
	return id;
}

uint32_t hpa_strtab_add_blank(struct hpa_strtab *t)
{
	return add_id(t, t->strs[0], 0);
}

void hpa_strtab_name_blank(struct hpa_strtab *t, uint32_t id, const char *s, size_t len)
{
	if (!id || id >= t->nr || t->strs[id] != t->strs[0])
		abort();
	t->strs[id] = store(t, s, len);
}

uint32_t hpa_strtab_intern(struct hpa_strtab *t, const char *s)
{
	return hpa_strtab_intern_len(t, s, strlen(s));
}

uint32_t hpa_strtab_intern_shown(struct hpa_strtab *t, const char *s)
{
	char *shown = hpa_shown_copy(s ? s : "");
	uint32_t id = hpa_strtab_intern(t, shown ? shown : s ? s : "");

	free(shown);
	return id;
}
