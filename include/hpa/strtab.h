/*
 * String interning.  Each distinct string is stored once and named by a
 * 32-bit id; id 0 is always "".  Strings live as long as the table, so
 * callers may keep the `const char *` that hpa_strtab_get() returns.
 */
#ifndef HPA_STRTAB_H
#define HPA_STRTAB_H

#include "hpa/compat.h"
#include "hpa/hashmap.h"

struct hpa_strtab {
	char **strs;          /* by id; strs[0] = "" */
	size_t nr, alloc;
	struct hpa_hashmap by_hash;   /* string hash -> first id with it */
	uint32_t *next;       /* next id with the same hash, 0 = end */
	size_t next_alloc;
	char *room;           /* the free end of the newest block of string bytes */
	size_t room_left;
	char **blocks;        /* every block, freed with the table */
	size_t blocks_nr, blocks_alloc;
};

void hpa_strtab_init(struct hpa_strtab *t);
void hpa_strtab_release(struct hpa_strtab *t);

/* Id of `s` (first `len` bytes), adding a copy when new. */
uint32_t hpa_strtab_intern_len(struct hpa_strtab *t, const char *s, size_t len);
uint32_t hpa_strtab_intern(struct hpa_strtab *t, const char *s);
/*
 * Id of `s` (NULL: ""), as text to show: its control bytes written as \xNN
 * (hpa_sb_add_shown()), so no report, message or page ever carries one.
 */
uint32_t hpa_strtab_intern_shown(struct hpa_strtab *t, const char *s);

/* A new id whose text is "" and which interning never returns: a name kept elsewhere. */
uint32_t hpa_strtab_add_blank(struct hpa_strtab *t);
/* Give blank id `id` its text (a copy of s[0 .. len)), which interning still never returns. */
void hpa_strtab_name_blank(struct hpa_strtab *t, uint32_t id, const char *s, size_t len);

static inline const char *hpa_strtab_get(const struct hpa_strtab *t, uint32_t id)
{
	return t->strs[id];
}

#endif
