/*
 * The threads a profile names (profile.h), found by id: a dump may name 60k
 * of them, one "tN:" line at a time, so past a few a hash finds them.
 */
#include "hpa/compat.h"

#include "hpa/hashmap.h"
#include "hpa/profile.h"
#include "hpa/xalloc.h"

/*
 * Up to this many threads a walk of the list finds one, and no hash is
 * made: its allocation, among the reader's growing arrays, was a good part
 * of reading a large profile of one thread.
 */
#define FEW_THREADS 16

size_t hpa_profile_thread_place(const struct hpa_profile *prof, int32_t id)
{
	size_t i;

	if (prof->threads_nr && prof->threads[prof->threads_nr - 1].id == id)
		return prof->threads_nr;   /* a record's lines name the same thread in a row */
	if (prof->threads_nr > FEW_THREADS)
		return hpa_hashmap_get(&prof->thread_by_id, (uint32_t)id);
	for (i = 0; i < prof->threads_nr; i++)
		if (prof->threads[i].id == id)
			return i + 1;
	return 0;
}

void hpa_profile_note_thread(struct hpa_profile *prof, int32_t id, const char *name)
{
	struct hpa_thread *t;
	size_t i = hpa_profile_thread_place(prof, id);

	if (i) {
		t = &prof->threads[i - 1];
		if (!t->name && name)
			t->name = xstrdup(name);
		return;
	}
	HPA_GROW(prof->threads, prof->threads_nr + 1, prof->threads_alloc);
	t = &prof->threads[prof->threads_nr++];
	t->id = id;
	t->name = name ? xstrdup(name) : NULL;
	if (prof->threads_nr == FEW_THREADS + 1) {   /* from now on a hash: every thread in it */
		for (i = 0; i < prof->threads_nr; i++)
			hpa_hashmap_put(&prof->thread_by_id, (uint32_t)prof->threads[i].id, (uint32_t)i + 1);
	} else if (prof->threads_nr > FEW_THREADS + 1) {
		hpa_hashmap_put(&prof->thread_by_id, (uint32_t)id, (uint32_t)prof->threads_nr);
	}
}
