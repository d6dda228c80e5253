/*
 * Location identity across inputs (profile.h, hpa_unify_locations): the
 * same code in two dumps is one location even when ASLR, or another path
 * to the same build, put it at another address.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/profile.h"
#include "hpa/strbuf.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"

/* The module of mapping `m`: "build-id:HEX" when known, else its path; 0 for none. */
static uint32_t module_of(struct hpa_profile *prof, uint32_t m)
{
	const struct hpa_mapping *map = &prof->mappings[m];
	uint32_t id;
	char *key;

	if (!map->path[0])
		return 0;   /* anonymous memory (JIT code): no file to be the same in */
	if (!map->build_id)
		return hpa_strtab_intern(&prof->strs, map->path);
	key = hpa_xasprintf("build-id:%s", hpa_profile_str(prof, map->build_id));
	id = hpa_strtab_intern(&prof->strs, key);
	free(key);
	return id;
}

static uint64_t key_hash(uint32_t module, uint64_t offset)
{
	return hpa_hash64(hpa_hash64(offset) ^ module);
}

/*
 * Each module is opened and symbolized once, in one input: a location whose
 * representative lies in another input than the first that maps its module
 * moves to that input's address for the same file offset, when one of its
 * mappings of the module covers it.
 */
static void one_home_per_module(struct hpa_profile *prof, const uint32_t *module_of_map)
{
	struct hpa_hashmap home_of = HPA_HASHMAP_INIT;   /* module -> first input that maps it */
	size_t i, m;

	for (m = 1; m < prof->mappings_nr; m++)   /* mappings come in input order */
		if (module_of_map[m] && !hpa_hashmap_get(&home_of, module_of_map[m]))
			hpa_hashmap_put(&home_of, module_of_map[m], prof->mappings[m].input);
	for (i = 1; i < prof->locs_nr; i++) {
		struct hpa_location *l = &prof->locs[i];
		uint32_t home = l->module ? hpa_hashmap_get(&home_of, l->module) : 0;
		const struct hpa_input *in;

		if (!home || home == l->input)
			continue;
		in = hpa_profile_input(prof, home);
		for (m = in->map_first; m < (size_t)in->map_first + in->map_nr; m++) {
			const struct hpa_mapping *map = &prof->mappings[m];
			if (module_of_map[m] != l->module || l->offset < map->offset ||
			    l->offset - map->offset >= map->limit - map->start)
				continue;
			l->addr = map->start + (l->offset - map->offset);
			l->mapping = (uint32_t)m;
			l->input = home;
			break;
		}
	}
	hpa_hashmap_release(&home_of);
}

/* Is stack i one of an appended input whose frames are still pending (profile.h)? */
static inline bool pending(const struct hpa_profile *prof, size_t i)
{
	return prof->pending_frames && i >= prof->pending_stack;
}

/* The frames of stack i, in frames[] or still pending. */
static inline uint32_t *frames_of(const struct hpa_profile *prof, size_t i)
{
	return (pending(prof, i) ? prof->pending_frames : prof->frames) + prof->stacks[i].first;
}

/* Where stack i's frames start, counting the pending ones after frames[]. */
static size_t frames_pos(const struct hpa_profile *prof, size_t i)
{
	return (pending(prof, i) ? prof->frames_nr : 0) + prof->stacks[i].first;
}

/* Does kept stack id hold frames f[0 .. nr)? */
static inline bool kept_holds(const struct hpa_profile *prof, uint32_t id, const uint32_t *f, uint32_t nr)
{
	return prof->stacks[id].nr == nr && !memcmp(prof->frames + prof->stacks[id].first, f, nr * sizeof(*f));
}

/* Stacks [lo, hi): their frames through remap, then their hashes. */
struct hash_part {
	struct hpa_profile *prof;
	const uint32_t *remap;
	uint64_t *hash;
	size_t lo, hi;
};

static void hash_stacks(void *arg)
{
	struct hash_part *p = arg;
	size_t i, k;

	for (i = p->lo; i < p->hi; i++) {
		uint32_t *f = frames_of(p->prof, i);
		const uint32_t *remap = p->remap + (pending(p->prof, i) ? p->prof->pending_loff : 0);
		size_t nr = p->prof->stacks[i].nr;

		for (k = 0; k < nr; k++)
			f[k] = remap[f[k]];
		p->hash[i] = hpa_hash_ids(f, nr);
	}
}

/* The first stack not yet merged: 1, or past those an earlier step merged and indexed. */
static uint32_t first_new_stack(const struct hpa_profile *prof)
{
	return prof->stacks_unified && !prof->index_stale ? prof->stacks_unified : 1;
}

/*
 * After the locations, the stacks: stacks of different inputs that now hold
 * the same frames become one id, and the table keeps each once (dumps of
 * one program share most of their stacks: 20 dumps of 50k stacks are 55k
 * stacks, not a million).  Ids stay in order of first appearance.  The
 * stack index is rebuilt for the ids kept; after an earlier step, only the
 * stacks read since are hashed and added to it.
 */
static void unify_stacks(struct hpa_profile *prof, uint32_t from, bool last, const uint32_t *loc_remap)
{
	uint32_t *remap = xmalloc(st_mult(prof->stacks_nr, sizeof(*remap)));
	uint64_t *hash = xmalloc(st_mult(prof->stacks_nr, sizeof(*hash)));
	uint32_t ns = from, guess = 0;
	size_t i, nf = from > 1 ? prof->stacks[from - 1].first + (size_t)prof->stacks[from - 1].nr : 0;

	/*
	 * The frames' new location ids and the hashes first, in one pass over
	 * the frames (in two halves side by side); then each lookup asks for
	 * the table slot 16 stacks ahead, so that the misses of a table larger
	 * than the caches overlap.
	 */
	if (from < prof->stacks_nr) {
		struct hash_part part[2];
		struct hpa_task task;
		size_t end = prof->frames_nr + (prof->pending_frames ? prof->pending_frames_nr : 0);
		size_t lo = from, hi = prof->stacks_nr, mid = frames_pos(prof, from) +
			(end - frames_pos(prof, from)) / 2;

		while (lo < hi) {   /* the first stack whose frames start past the middle */
			size_t m = lo + (hi - lo) / 2;
			if (frames_pos(prof, m) <= mid)
				lo = m + 1;
			else
				hi = m;
		}
		part[0] = (struct hash_part){ prof, loc_remap, hash, from, lo };
		part[1] = (struct hash_part){ prof, loc_remap, hash, lo, prof->stacks_nr };
		hpa_task_start(&task, hash_stacks, &part[1]);
		hash_stacks(&part[0]);
		hpa_task_wait(&task);
	}
	if (from == 1) {
		hpa_hashmap_release(&prof->stack_by_hash);
		hpa_hashmap_init(&prof->stack_by_hash);
		hpa_hashmap_reserve(&prof->stack_by_hash,
				    prof->stacks_nr / (prof->inputs_nr ? prof->inputs_nr : 1));
	}
	for (i = 0; i < from; i++)
		remap[i] = (uint32_t)i;
	for (i = from; i < prof->stacks_nr; i++) {
		struct hpa_stack st = prof->stacks[i];
		const uint32_t *f = frames_of(prof, i);
		uint64_t h = hash[i];
		uint32_t first = 0, id = guess;

		if (i + 16 < prof->stacks_nr)
			hpa_hashmap_prefetch(&prof->stack_by_hash, hash[i + 16]);
		/*
		 * First the stack kept after the last one's: dumps of one program
		 * list their stacks in much the same order (jemalloc sorts them by
		 * their addresses), so a later dump's stacks mostly follow the
		 * earlier's one by one, and the kept stack is found without the
		 * table (a miss per stack).  Kept frames are each other's only.
		 */
		if (!(id && id < ns && kept_holds(prof, id, f, st.nr))) {
			first = hpa_hashmap_get(&prof->stack_by_hash, h);
			for (id = first; id && !kept_holds(prof, id, f, st.nr); id = prof->stack_next[id])
				;
		}
		if (!id) {   /* kept: its frames move down to nf, or come from those pending */
			id = ns++;
			if (pending(prof, i)) {
				HPA_GROW(prof->frames, nf + st.nr + 1, prof->frames_alloc);
				memcpy(prof->frames + nf, f, st.nr * sizeof(*f));
			} else if (nf != st.first) {   /* the first input's stay where they are */
				memmove(prof->frames + nf, f, st.nr * sizeof(*f));
			}
			prof->stacks[id].first = (uint32_t)nf;
			prof->stacks[id].nr = st.nr;
			prof->stack_next[id] = first;
			hpa_hashmap_put(&prof->stack_by_hash, h, id);
			nf += st.nr;
		}
		remap[i] = id;
		guess = id + 1;
	}
	free(hash);
	free(prof->pending_frames);   /* those kept are in frames[] now */
	prof->pending_frames = NULL;
	prof->pending_frames_nr = 0;
	if (from < prof->stacks_nr)
		for (i = 0; i < prof->samples_nr; i++)
			prof->samples[i].stack = remap[prof->samples[i].stack];
	free(remap);
	memset(prof->stack_next + ns, 0, (prof->stacks_alloc - ns) * sizeof(*prof->stack_next));
	prof->stacks_nr = ns;
	prof->frames_nr = nf;
	prof->stacks_unified = ns;
	prof->index_stale = false;
	if (last) {   /* else the room is kept for the next input's frames */
		prof->frames = xrealloc(prof->frames, st_mult(nf + 1, sizeof(*prof->frames)));
		prof->frames_alloc = nf + 1;
	}
}

static void unify(struct hpa_profile *prof, bool last)
{
	struct hpa_hashmap by_key = HPA_HASHMAP_INIT;
	uint32_t *remap, *next, *module_of_map, n = 1, from;
	size_t i, old_nr;

	/* Key every location by its module and offset. */
	module_of_map = xcalloc(prof->mappings_nr, sizeof(*module_of_map));
	for (i = 1; i < prof->mappings_nr; i++)
		module_of_map[i] = module_of(prof, (uint32_t)i);
	for (i = 1; i < prof->locs_nr; i++) {
		struct hpa_location *l = &prof->locs[i];
		const struct hpa_mapping *m = l->mapping ? &prof->mappings[l->mapping] : NULL;

		l->module = m ? module_of_map[l->mapping] : 0;
		l->offset = l->module ? l->addr - m->start + m->offset : 0;
	}
	if (prof->inputs_nr < 2) {
		free(module_of_map);
		hpa_profile_settle(prof);
		return;   /* one input: its addresses are its locations already */
	}

	/* The first location of each key stands for every other. */
	remap = xcalloc(prof->locs_nr, sizeof(*remap));
	next = xcalloc(prof->locs_nr, sizeof(*next));
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_location *l = &prof->locs[i];
		uint64_t h;
		uint32_t id = 0;

		if (l->module) {
			h = key_hash(l->module, l->offset);
			for (id = hpa_hashmap_get(&by_key, h); id; id = next[id])
				if (prof->locs[id].module == l->module && prof->locs[id].offset == l->offset)
					break;
			if (!id) {
				next[n] = hpa_hashmap_get(&by_key, h);
				hpa_hashmap_put(&by_key, h, n);
			}
		}
		if (!id) {   /* a location of its own: moved down to slot n */
			prof->locs[n] = *l;
			id = n++;
		}
		remap[i] = id;
	}
	hpa_hashmap_release(&by_key);
	free(next);
	old_nr = prof->locs_nr;
	prof->locs_nr = n;
	one_home_per_module(prof, module_of_map);
	free(module_of_map);
	if (n == old_nr) {   /* nothing matched across inputs: every location kept its id */
		free(remap);
		hpa_profile_settle(prof);
		return;
	}

	/* Stacks follow in place (merged ones hold kept ids already), and then
	 * become one id for the same frames. */
	from = first_new_stack(prof);
	unify_stacks(prof, from, last, remap);
	free(remap);

	/* Addresses now name the representative of their location. */
	hpa_hashmap_release(&prof->loc_by_addr);
	hpa_hashmap_init(&prof->loc_by_addr);
	free(prof->loc_cache);
	prof->loc_cache = NULL;
}

void hpa_unify_locations(struct hpa_profile *prof)
{
	unify(prof, true);
}

void hpa_unify_locations_so_far(struct hpa_profile *prof)
{
	unify(prof, false);
}
