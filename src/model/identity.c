/*
 * Location identity across inputs (profile.h, hpa_unify_locations): the
 * same code in two dumps is one location even when ASLR, or another path
 * to the same build, put it at another address; and once symbolized, the
 * same code of another build in the base (hpa_match_base_by_symbols).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/profile.h"
#include "build.h"
#include "hpa/symbols.h"
#include "hpa/hashmap.h"
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
		return hpa_strtab_intern(prof->strs, map->path);
	key = hpa_xasprintf("build-id:%s", hpa_profile_str(prof, map->build_id));
	id = hpa_strtab_intern(prof->strs, key);
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
	return prof->build->pending_frames && i >= prof->build->pending_stack;
}

/* The frames of stack i, in frames[] or still pending. */
static inline uint32_t *frames_of(const struct hpa_profile *prof, size_t i)
{
	return (pending(prof, i) ? prof->build->pending_frames : prof->frames) + prof->stacks[i].first;
}

/* Does kept stack id hold frames f[0 .. nr)? */
static inline bool kept_holds(const struct hpa_profile *prof, uint32_t id, const uint32_t *f, uint32_t nr)
{
	return prof->stacks[id].nr == nr && !memcmp(prof->frames + prof->stacks[id].first, f, nr * sizeof(*f));
}

/* Stacks [from, stacks_nr): their frames through remap (unless NULL: done), then their hashes. */
static void hash_stacks(struct hpa_profile *prof, const uint32_t *remap, uint64_t *hash, size_t from)
{
	size_t i, k;

	for (i = from; i < prof->stacks_nr; i++) {
		uint32_t *f = frames_of(prof, i);
		size_t nr = prof->stacks[i].nr;

		if (remap) {
			const uint32_t *r = remap + (pending(prof, i) ? prof->build->pending_loff : 0);
			for (k = 0; k < nr; k++)
				f[k] = r[f[k]];
		}
		hash[i] = hpa_hash_ids(f, nr);
	}
}

/* The first stack not yet merged: 1, or past those an earlier step merged and indexed. */
static uint32_t first_new_stack(const struct hpa_profile *prof)
{
	return prof->build->stacks_unified && !prof->build->index_stale ? prof->build->stacks_unified : 1;
}

/* Stack i kept as id (at most i): its frames move down to *nf, or come from those pending. */
static void keep_stack(struct hpa_profile *prof, size_t i, uint32_t id, size_t *nf)
{
	struct hpa_stack st = prof->stacks[i];
	const uint32_t *f = frames_of(prof, i);

	if (pending(prof, i)) {
		HPA_GROW(prof->frames, *nf + st.nr + 1, prof->frames_alloc);
		memcpy(prof->frames + *nf, f, st.nr * sizeof(*f));
	} else if (*nf != st.first) {   /* the first input's stay where they are */
		memmove(prof->frames + *nf, f, st.nr * sizeof(*f));
	}
	prof->stacks[id].first = (uint32_t)*nf;
	prof->stacks[id].nr = st.nr;
	*nf += st.nr;
}

/*
 * Unifying done: the stacks kept are [1, ns), their frames [0, nf), and
 * stack i is now remap[i] (freed here; none moved when from is past the
 * last).  Merged (merge_stacks()), the index is left unmade.
 */
static void unify_end(struct hpa_profile *prof, uint32_t from, bool last, uint32_t *remap, uint32_t ns,
		      size_t nf, bool merged)
{
	size_t i, chained = merged ? 0 : ns;   /* merged: no index, no chains */

	free(prof->build->pending_frames);   /* those kept are in frames[] now */
	prof->build->pending_frames = NULL;
	prof->build->pending_frames_nr = 0;
	if (from < prof->stacks_nr)
		for (i = 0; i < prof->samples_nr; i++)
			prof->samples[i].stack = remap[prof->samples[i].stack];
	free(remap);
	memset(prof->build->stack_next + chained, 0, (prof->stacks_alloc - chained) * sizeof(*prof->build->stack_next));
	prof->stacks_nr = ns;
	prof->frames_nr = nf;
	prof->build->stacks_unified = ns;
	prof->build->index_stale = merged;
	if (last) {   /* else the room is kept for the next input's frames */
		prof->frames = xrealloc(prof->frames, st_mult(nf + 1, sizeof(*prof->frames)));
		prof->frames_alloc = nf + 1;
	}
}

/* Is every location below n its own representative (remap[l] == l)? */
static bool first_kept(const uint32_t *remap, size_t n)
{
	size_t l;

	for (l = 1; l < n; l++)
		if (remap[l] != l)
			return false;
	return true;
}

/* The pending stacks' frames through the locations' remap. */
static void remap_pending(struct hpa_profile *prof, const uint32_t *loc_remap)
{
	const uint32_t *remap = loc_remap + prof->build->pending_loff;
	size_t k;

	for (k = 0; k < prof->build->pending_frames_nr; k++)
		prof->build->pending_frames[k] = remap[prof->build->pending_frames[k]];
}

/*
 * Two dumps in one order: jemalloc writes a dump's stacks sorted by their
 * addresses (prof_gctx_comp: a memcmp of the address vectors, the shorter
 * first where one starts the other), so the stacks of two dumps of one
 * process come in one order, and the second's are found among the first's
 * by walking both, as a merge does: no hash, no table, whose lookups of
 * the first dump's stacks were a miss each.  The order here is one on location ids that is
 * that memcmp where the dumps share their addresses: a location's
 * address, its bytes least significant first (two locations at one
 * address by id).  Both dumps' stacks must be in it strictly (so each
 * dump's are distinct), which is checked on the way; dumps that are not
 * (gperftools', other processes', edited ones) are unified through the
 * table.
 */
static int stack_order(const struct hpa_profile *prof, size_t i, size_t j)
{
	const uint32_t *a = frames_of(prof, i), *b = frames_of(prof, j);
	uint32_t k, na = prof->stacks[i].nr, nb = prof->stacks[j].nr, n = na < nb ? na : nb;
	uint64_t x, y;

	for (k = 0; k < n && a[k] == b[k]; k++)
		;
	if (k == n)
		return (na > nb) - (na < nb);
	x = __builtin_bswap64(prof->locs[a[k]].addr);
	y = __builtin_bswap64(prof->locs[b[k]].addr);
	if (x != y)
		return x < y ? -1 : 1;
	return a[k] < b[k] ? -1 : 1;
}

/* Whether stacks [lo, hi) of prof are in stack_order() strictly. */
static bool in_order(const struct hpa_profile *prof, size_t lo, size_t hi)
{
	size_t i;

	for (i = lo + 1; i < hi; i++)
		if (stack_order(prof, i - 1, i) >= 0)
			return false;
	return true;
}

/*
 * The pending dump's stacks (the second of two) found among the first's,
 * or kept after them, in order: their ids into remap.  Its frames get
 * their new location ids here and its stacks are looked for in the
 * first's, its own order checked on the way, and the first dump's order
 * checked; only then are the new ones kept.  False if the
 * dumps are not both in stack_order(): the frames are then those of
 * unify_stacks()'s other way, with loc_remap done.
 */
#define MERGE_NEW UINT32_MAX

/* The pending stacks merged with the first dump's: false if they are not in order. */
static bool merge_pending(const struct hpa_profile *prof, uint32_t *remap)
{
	size_t n1 = prof->build->pending_stack, g = 1, i;

	for (i = n1; i < prof->stacks_nr; i++) {
		int o = -1;

		if (i > n1 && stack_order(prof, i - 1, i) >= 0)
			return false;
		while (g < n1 && (o = stack_order(prof, g, i)) < 0)
			g++;
		remap[i] = g < n1 && !o ? (uint32_t)g++ : MERGE_NEW;
	}
	return true;
}

static bool merge_stacks(struct hpa_profile *prof, const uint32_t *loc_remap, uint32_t *remap,
			 uint32_t *ns, size_t *nf)
{
	size_t n1 = prof->build->pending_stack, i;

	remap_pending(prof, loc_remap);
	if (!merge_pending(prof, remap) || !in_order(prof, 1, n1))   /* another order: the table's way */
		return false;
	for (i = 0; i < n1; i++)
		remap[i] = (uint32_t)i;
	*ns = (uint32_t)n1;
	*nf = n1 > 1 ? prof->stacks[n1 - 1].first + (size_t)prof->stacks[n1 - 1].nr : 0;
	for (i = n1; i < prof->stacks_nr; i++) {
		if (remap[i] != MERGE_NEW)
			continue;
		remap[i] = *ns;
		keep_stack(prof, i, (*ns)++, nf);
	}
	return true;
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
	uint64_t *hash;
	uint32_t ns = from, guess = 0;
	size_t i, nf = from > 1 ? prof->stacks[from - 1].first + (size_t)prof->stacks[from - 1].nr : 0;

	if (from == 1 && last && prof->inputs_nr == 2 && prof->build->pending_frames && prof->build->pending_stack > 1 &&
	    first_kept(loc_remap, prof->build->pending_loff + 1)) {
		bool merged = merge_stacks(prof, loc_remap, remap, &ns, &nf);

		loc_remap = NULL;   /* done */
		if (merged) {
			unify_end(prof, from, last, remap, ns, nf, true);
			return;
		}
	}
	hash = xmalloc(st_mult(prof->stacks_nr, sizeof(*hash)));

	/*
	 * The frames' new location ids and the hashes first, in one pass over
	 * the frames; then each lookup asks for the table slot 16 stacks
	 * ahead, so that the misses of a table larger than the caches overlap.
	 */
	hash_stacks(prof, loc_remap, hash, from);
	if (from == 1) {
		hpa_hashmap_release(&prof->build->stack_by_hash);
		hpa_hashmap_init(&prof->build->stack_by_hash);
		hpa_hashmap_reserve(&prof->build->stack_by_hash,
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
			hpa_hashmap_prefetch(&prof->build->stack_by_hash, hash[i + 16]);
		/*
		 * First the stack kept after the last one's: dumps of one program
		 * list their stacks in much the same order (jemalloc sorts them by
		 * their addresses), so a later dump's stacks mostly follow the
		 * earlier's one by one, and the kept stack is found without the
		 * table (a miss per stack).  Kept frames are each other's only.
		 */
		if (!(id && id < ns && kept_holds(prof, id, f, st.nr))) {
			first = hpa_hashmap_get(&prof->build->stack_by_hash, h);
			for (id = first; id && !kept_holds(prof, id, f, st.nr); id = prof->build->stack_next[id])
				;
		}
		if (!id) {   /* kept */
			id = ns++;
			keep_stack(prof, i, id, &nf);
			prof->build->stack_next[id] = first;
			hpa_hashmap_put(&prof->build->stack_by_hash, h, id);
		}
		remap[i] = id;
		guess = id + 1;
	}
	free(hash);
	unify_end(prof, from, last, remap, ns, nf, false);
}

static void unify(struct hpa_profile *prof, bool last)
{
	struct hpa_hashmap by_key = HPA_HASHMAP_INIT;
	uint32_t *remap, *next, *module_of_map, n = 1, from;
	struct hpa_symbols *chains;
	size_t i, old_nr;

	if ((!prof->build))
		HPA_BUG("stacks unified after the reading ended");
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

	/* The first location of each key stands for every other, its chain (a pprof file's) too. */
	chains = &prof->build->syms;
	hpa_symbols_cover(chains, prof->locs_nr);
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
			chains->chains[n] = chains->chains[i];
			id = n++;
		}
		remap[i] = id;
	}
	hpa_hashmap_release(&by_key);
	free(next);
	old_nr = prof->locs_nr;
	prof->locs_nr = n;
	chains->chains_nr = n;
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
	hpa_hashmap_release(&prof->build->loc_by_addr);
	hpa_hashmap_init(&prof->build->loc_by_addr);
	free(prof->build->loc_cache);
	prof->build->loc_cache = NULL;
}

void hpa_unify_locations(struct hpa_profile *prof)
{
	unify(prof, true);
}

void hpa_unify_locations_so_far(struct hpa_profile *prof)
{
	unify(prof, false);
}

/* A symbolized location's inline chain, for matching: hash of its (function, file, line)s. */
static uint64_t chain_hash(const struct hpa_symbols *syms, const struct hpa_chain *l)
{
	uint64_t h = hpa_hash64(l->nr);
	size_t k;

	for (k = 0; k < l->nr; k++) {
		const struct hpa_line *ln = &syms->lines[l->first + k];
		h = hpa_hash64(h ^ syms->funcs[ln->func].name);
		h = hpa_hash64(h ^ ((uint64_t)ln->file << 32 | ln->line));
	}
	return h;
}

static bool same_chain(const struct hpa_symbols *syms, const struct hpa_chain *a,
		       const struct hpa_chain *b)
{
	size_t k;

	if (a->nr != b->nr)
		return false;
	for (k = 0; k < a->nr; k++) {
		const struct hpa_line *x = &syms->lines[a->first + k];
		const struct hpa_line *y = &syms->lines[b->first + k];
		if (syms->funcs[x->func].name != syms->funcs[y->func].name || x->file != y->file ||
		    x->line != y->line)
			return false;
	}
	return true;
}

/* Stacks [lo, hi): each location's sides (used[]) from its stacks' (side[]). */
struct sides_part {
	const struct hpa_profile *prof;
	const uint8_t *side;
	uint8_t *used;
	size_t lo, hi;
};

static void location_sides(void *arg)
{
	const struct sides_part *p = arg;
	size_t i, k, nr;

	for (i = p->lo; i < p->hi; i++) {
		const uint32_t *f = hpa_profile_stack(p->prof, (uint32_t)i, &nr);
		uint8_t s = p->side[i];

		for (k = 0; k < nr && s; k++)
			p->used[f[k]] |= s;
	}
}

/*
 * The frames table with the base's stacks (side 2) matched: each location
 * with remap[] set becomes that one.  A stack the profile shares holds no
 * location of the base's alone (hpa_unify_locations merges equal stacks
 * of inputs), so only the base's own stacks change.
 */
static uint32_t *matched_frames(const struct hpa_profile *prof, const uint8_t *side, const uint32_t *remap)
{
	uint32_t *frames = xmalloc(st_mult(prof->frames_nr + 1, sizeof(*frames)));
	size_t i, k;

	memcpy(frames, prof->frames, prof->frames_nr * sizeof(*frames));
	for (i = 1; i < prof->stacks_nr; i++) {
		uint32_t *f = frames + prof->stacks[i].first;
		if (!(side[i] & 2))
			continue;
		for (k = 0; k < prof->stacks[i].nr; k++)
			if (remap[f[k]])
				f[k] = remap[f[k]];
	}
	return frames;
}

/*
 * The base is re-keyed into the profile by symbolic identity: a frame of
 * the base whose location the profile does not have, but whose inline chain
 * (function, file, line at every level) a location of the profile has,
 * becomes that location.  Locations already meet by module and offset
 * (hpa_unify_locations); this matches the same code in another build of
 * the program, so --addresses and --proto diff by symbol too.
 */
uint32_t *hpa_match_base_by_symbols(const struct hpa_profile *prof, const struct hpa_symbols *syms)
{
	struct hpa_hashmap by_chain = HPA_HASHMAP_INIT;
	uint8_t *used = xcalloc(prof->locs_nr, sizeof(*used));   /* 1 profile, 2 base */
	uint8_t *side = xcalloc(prof->stacks_nr, sizeof(*side));  /* the same, by stack */
	uint32_t *next = xcalloc(prof->locs_nr, sizeof(*next)), *remap, *frames;
	size_t i, moved = 0;

	/* By stack, not by sample: dumps share most stacks, and threads too. */
	for (i = 0; i < prof->samples_nr; i++)
		side[prof->samples[i].stack] |= prof->inputs[prof->samples[i].input - 1].is_base ? 2 : 1;
	for (i = 1; i < prof->stacks_nr && side[i] != 2; i++)
		;
	if (i == prof->stacks_nr) {   /* every stack of the base is the profile's too: no frame to move */
		free(used);
		free(side);
		free(next);
		return NULL;
	}
	{   /* every frame once: the stacks in two halves side by side, each marking a table of its own */
		uint8_t *used2 = xcalloc(prof->locs_nr, sizeof(*used2));
		size_t mid = prof->stacks_nr > 1 ? 1 + (prof->stacks_nr - 1) / 2 : 1;
		struct sides_part part[2] = { { prof, side, used, 1, mid },
					      { prof, side, used2, mid, prof->stacks_nr } };
		struct hpa_task *task;

		task = hpa_task_start(location_sides, &part[1]);
		location_sides(&part[0]);
		hpa_task_wait(task);
		for (i = 1; i < prof->locs_nr; i++)
			used[i] |= used2[i];
		free(used2);
	}
	for (i = 1; i < prof->locs_nr; i++) {   /* the profile's symbolized locations, by chain */
		const struct hpa_chain *l = hpa_chain_of(syms, (uint32_t)i);
		uint64_t h;
		if (!(used[i] & 1) || !l->nr)
			continue;
		h = chain_hash(syms, l);
		next[i] = hpa_hashmap_get(&by_chain, h);
		hpa_hashmap_put(&by_chain, h, (uint32_t)i);
	}
	remap = xcalloc(prof->locs_nr, sizeof(*remap));
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_chain *l = hpa_chain_of(syms, (uint32_t)i);
		uint32_t id;
		if (used[i] != 2 || !l->nr)
			continue;   /* not the base's alone, or no symbols to match by */
		for (id = hpa_hashmap_get(&by_chain, chain_hash(syms, l)); id; id = next[id])
			if (same_chain(syms, hpa_chain_of(syms, id), l))
				break;
		remap[i] = id;
		moved += id != 0;
	}
	frames = moved ? matched_frames(prof, side, remap) : NULL;
	hpa_hashmap_release(&by_chain);
	free(remap);
	free(next);
	free(used);
	free(side);
	return frames;
}
