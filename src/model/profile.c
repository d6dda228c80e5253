#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/profile.h"
#include "build.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

/*
 * The address -> location cache starts with 2^10 slots (16 KiB) and grows
 * fourfold, up to 2^16, as the addresses of an input outnumber its slots:
 * a small profile does not pay for 1 MiB of fresh pages it would scatter
 * a few thousand addresses over.
 */
#define LOC_CACHE_MIN_BITS 10
#define LOC_CACHE_MAX_BITS 16

static const char *const value_names[HPA_NVALUES] = {
	[HPA_INUSE_OBJECTS] = "inuse_objects",
	[HPA_INUSE_SPACE] = "inuse_space",
	[HPA_ALLOC_OBJECTS] = "alloc_objects",
	[HPA_ALLOC_SPACE] = "alloc_space",
};

const char *hpa_value_name(enum hpa_value v)
{
	return value_names[v];
}

bool hpa_value_is_objects(enum hpa_value v)
{
	return v == HPA_INUSE_OBJECTS || v == HPA_ALLOC_OBJECTS;
}

void hpa_profile_init(struct hpa_profile *prof)
{
	memset(prof, 0, sizeof(*prof));
	prof->build = xcalloc(1, sizeof(*prof->build));
	hpa_hashmap_init(&prof->build->loc_by_addr);
	hpa_hashmap_init(&prof->build->stack_by_hash);
	hpa_symbols_init(&prof->build->syms);
	hpa_hashmap_init(&prof->thread_by_id);
	prof->strs = xmalloc(sizeof(*prof->strs));
	hpa_strtab_init(prof->strs);
	/* Slot 0 of the id-indexed tables stands for "none" / the empty stack. */
	HPA_GROW(prof->mappings, 1, prof->mappings_alloc);
	memset(&prof->mappings[0], 0, sizeof(prof->mappings[0]));
	prof->mappings_nr = 1;
	HPA_GROW(prof->locs, 1, prof->locs_alloc);
	memset(&prof->locs[0], 0, sizeof(prof->locs[0]));
	prof->locs_nr = 1;
	HPA_GROW(prof->stacks, 1, prof->stacks_alloc);
	memset(&prof->stacks[0], 0, sizeof(prof->stacks[0]));
	prof->stacks_nr = 1;
	prof->build->stack_next = xcalloc(prof->stacks_alloc, sizeof(*prof->build->stack_next));
}

static void build_free(struct hpa_profile *prof)
{
	struct hpa_build *b = prof->build;

	if (!b)
		return;
	hpa_hashmap_release(&b->loc_by_addr);
	hpa_hashmap_release(&b->stack_by_hash);
	free(b->loc_cache);
	free(b->stack_next);
	free(b->pending_frames);
	hpa_symbols_release(&b->syms);
	free(b);
	prof->build = NULL;
}

void hpa_profile_release(struct hpa_profile *prof)
{
	size_t i;

	for (i = 0; i < prof->inputs_nr; i++) {
		free(prof->inputs[i].path);
		free(prof->inputs[i].symbol_url);
		free(prof->inputs[i].value_types);
	}
	for (i = 1; i < prof->mappings_nr; i++)
		free(prof->mappings[i].path);
	for (i = 0; i < prof->threads_nr; i++)
		free(prof->threads[i].name);
	free(prof->inputs);
	free(prof->mappings);
	free(prof->locs);
	free(prof->stacks);
	free(prof->frames);
	free(prof->samples);
	hpa_dump_changes_free(prof->changes);
	free(prof->threads);
	hpa_hashmap_release(&prof->thread_by_id);
	if (prof->strs)
		hpa_strtab_release(prof->strs);
	free(prof->strs);
	build_free(prof);
	memset(prof, 0, sizeof(*prof));
}


void hpa_profile_end_reading(struct hpa_profile *prof, struct hpa_symbols *syms)
{
	if (!prof->build)
		HPA_BUG("reading ended twice");
	if (prof->build->pending_frames)
		hpa_profile_settle(prof);   /* the frames still an appended dump's: moved in first */
	*syms = prof->build->syms;
	hpa_symbols_init(&prof->build->syms);
	hpa_symbols_cover(syms, prof->locs_nr);
	build_free(prof);
}

struct hpa_symbols *hpa_profile_symbols(struct hpa_profile *prof)
{
	if (!prof->build)
		HPA_BUG("symbols of a profile read already (hpa_profile_end_reading gave them)");
	return &prof->build->syms;
}

uint32_t hpa_profile_add_input(struct hpa_profile *prof, const char *path)
{
	struct hpa_input *in;

	HPA_GROW(prof->inputs, prof->inputs_nr + 1, prof->inputs_alloc);
	in = &prof->inputs[prof->inputs_nr++];
	memset(in, 0, sizeof(*in));
	in->path = xstrdup(path);
	in->map_first = (uint32_t)prof->mappings_nr;
	in->weight = 1;
	in->rss_bytes = -1;
	in->alloc_live = in->alloc_frag = -1;
	/* Addresses are interned per input: the same number in two inputs may
	 * be two places (hpa_unify_locations() matches them by module). */
	hpa_hashmap_release(&prof->build->loc_by_addr);
	hpa_hashmap_init(&prof->build->loc_by_addr);
	if (prof->build->loc_cache)
		memset(prof->build->loc_cache, 0, sizeof(*prof->build->loc_cache) << prof->build->loc_cache_bits);
	return (uint32_t)prof->inputs_nr;
}

static uint32_t next_id(size_t nr)
{
	if (nr >= UINT32_MAX)
		HPA_BUG("more than 2^32 table entries");
	return (uint32_t)nr;
}

/* The cache's slot of `addr` (2^(64 - shift) slots): one multiply (Fibonacci hashing), the top bits. */
static inline size_t loc_cache_slot(uint64_t addr, unsigned shift)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> shift);
}

/*
 * The location of `addr` in the cache (2^(64 - shift) slots), 0 if it is
 * not there (an empty slot's is 0).
 */
static inline uint32_t loc_cache_find(const struct hpa_loc_cache_slot *cache, unsigned shift, uint64_t addr)
{
	const struct hpa_loc_cache_slot *c = &cache[loc_cache_slot(addr, shift)];

	return c->addr == addr ? c->loc : 0;
}

/*
 * The profile's cache and its loc_cache_find() shift, or before there is
 * one a cache with nothing in it (every address a miss, which makes the
 * real one): no lookup asks whether there is a cache.
 */
static const struct hpa_loc_cache_slot *loc_cache_of(const struct hpa_profile *prof, unsigned *shift)
{
	static const struct hpa_loc_cache_slot empty[(size_t)1 << LOC_CACHE_MIN_BITS];

	*shift = 64 - (prof->build->loc_cache ? prof->build->loc_cache_bits : LOC_CACHE_MIN_BITS);
	return prof->build->loc_cache ? prof->build->loc_cache : empty;
}

/*
 * The location of `addr` past the cache: the table, or a new location.  The
 * cache grows here, with the table (a new address always comes this way).
 */
static HPA_NOINLINE uint32_t intern_loc_miss(struct hpa_profile *prof, uint64_t addr)
{
	size_t slot;
	uint32_t id;

	if (!prof->build->loc_cache || (prof->build->loc_cache_bits < LOC_CACHE_MAX_BITS &&
				 prof->build->loc_by_addr.nr >> prof->build->loc_cache_bits)) {
		free(prof->build->loc_cache);
		prof->build->loc_cache_bits = prof->build->loc_cache ? prof->build->loc_cache_bits + 2 : LOC_CACHE_MIN_BITS;
		prof->build->loc_cache = xcalloc((size_t)1 << prof->build->loc_cache_bits, sizeof(*prof->build->loc_cache));
	}
	slot = loc_cache_slot(addr, 64 - prof->build->loc_cache_bits);
	id = hpa_hashmap_get(&prof->build->loc_by_addr, addr);
	if (id) {
		prof->build->loc_cache[slot].addr = addr;
		prof->build->loc_cache[slot].loc = id;
		return id;
	}
	id = next_id(prof->locs_nr);
	HPA_GROW(prof->locs, prof->locs_nr + 1, prof->locs_alloc);
	memset(&prof->locs[id], 0, sizeof(prof->locs[id]));
	prof->locs[id].addr = addr;
	prof->locs[id].input = (uint32_t)prof->inputs_nr;
	prof->locs_nr++;
	hpa_hashmap_put(&prof->build->loc_by_addr, addr, id);
	return id;
}

uint32_t hpa_profile_intern_loc(struct hpa_profile *prof, uint64_t addr)
{
	unsigned shift;
	const struct hpa_loc_cache_slot *cache = loc_cache_of(prof, &shift);
	uint32_t id = loc_cache_find(cache, shift, addr);

	return id ? id : intern_loc_miss(prof, addr);
}

uint32_t hpa_profile_new_loc(struct hpa_profile *prof, uint64_t addr)
{
	uint32_t id = next_id(prof->locs_nr);

	HPA_GROW(prof->locs, prof->locs_nr + 1, prof->locs_alloc);
	memset(&prof->locs[id], 0, sizeof(prof->locs[id]));
	prof->locs[id].addr = addr;
	prof->locs[id].input = (uint32_t)prof->inputs_nr;
	prof->locs_nr++;
	return id;
}

/* Make the locations at the end of frames[] a new stack with hash `h` (in the index if `index`). */
static uint32_t new_stack(struct hpa_profile *prof, size_t nr, uint64_t h, uint32_t first, bool index)
{
	size_t old_alloc = prof->stacks_alloc;
	uint32_t id = next_id(prof->stacks_nr);

	if ((!prof->build))
		HPA_BUG("a stack added after the reading ended");
	if (prof->frames_nr > UINT32_MAX - nr)
		HPA_BUG("more than 2^32 frames");
	HPA_GROW(prof->stacks, prof->stacks_nr + 1, prof->stacks_alloc);
	if (prof->stacks_alloc != old_alloc)
		prof->build->stack_next = xgrow(prof->build->stack_next, old_alloc * sizeof(*prof->build->stack_next),
					 st_mult(prof->stacks_alloc, sizeof(*prof->build->stack_next)));
	prof->stacks[id].first = (uint32_t)prof->frames_nr;
	prof->stacks[id].nr = (uint32_t)nr;
	prof->build->stack_next[id] = first;
	prof->frames_nr += nr;
	prof->stacks_nr++;
	if (index) {
		hpa_hashmap_put(&prof->build->stack_by_hash, h, id);
		prof->build->index_stale |= prof->build->stacks_unified != 0;
	}
	return id;
}

/* Intern the stack whose location ids are already at the end of frames[]. */
static uint32_t intern_tail(struct hpa_profile *prof, size_t nr)
{
	const uint32_t *locs = prof->frames + prof->frames_nr;
	uint64_t h = hpa_hash_ids(locs, nr);
	uint32_t first, id;

	first = hpa_hashmap_get(&prof->build->stack_by_hash, h);
	for (id = first; id; id = prof->build->stack_next[id]) {
		const struct hpa_stack *st = &prof->stacks[id];
		if (st->nr == nr && !memcmp(prof->frames + st->first, locs, nr * sizeof(*locs)))
			return id;
	}
	return new_stack(prof, nr, h, first, true);
}

/* Location ids to the end of frames[], not yet counted in frames_nr. */
static void tail_copy(struct hpa_profile *prof, const uint32_t *locs, size_t nr)
{
	if (nr > UINT32_MAX)
		HPA_BUG("stack of %zu frames", nr);
	HPA_GROW(prof->frames, prof->frames_nr + nr, prof->frames_alloc);
	memcpy(prof->frames + prof->frames_nr, locs, nr * sizeof(*locs));
}

uint32_t hpa_profile_intern_stack_locs(struct hpa_profile *prof, const uint32_t *locs, size_t nr)
{
	if (!nr)
		return 0;
	tail_copy(prof, locs, nr);
	return intern_tail(prof, nr);
}

/* The locations of `addrs` to the end of frames[], not yet counted in frames_nr. */
static void tail_locs(struct hpa_profile *prof, const uint64_t *addrs, size_t nr)
{
	const struct hpa_loc_cache_slot *cache;
	unsigned shift;
	uint32_t *to;
	size_t i;

	if (nr > UINT32_MAX)
		HPA_BUG("stack of %zu frames", nr);
	HPA_GROW(prof->frames, prof->frames_nr + nr, prof->frames_alloc);
	/*
	 * The cache's hit (most addresses of a dump: a few thousand repeat
	 * millions of times) inline, with the cache in registers: a call per
	 * address, and the fields read again after each store, cost as much
	 * again as the lookup.  A miss may grow the cache.
	 */
	to = prof->frames + prof->frames_nr;
	cache = loc_cache_of(prof, &shift);
	for (i = 0; i < nr; i++) {
		uint32_t id = loc_cache_find(cache, shift, addrs[i]);

		if (id) {
			to[i] = id;
			continue;
		}
		to[i] = intern_loc_miss(prof, addrs[i]);
		cache = loc_cache_of(prof, &shift);
	}
}

uint32_t hpa_profile_intern_stack(struct hpa_profile *prof, const uint64_t *addrs, size_t nr)
{
	if (!nr)
		return 0;
	tail_locs(prof, addrs, nr);   /* dropped again if the stack is a duplicate */
	return intern_tail(prof, nr);
}

uint32_t hpa_profile_add_stack(struct hpa_profile *prof, const uint64_t *addrs, size_t nr)
{
	if (!nr)
		return 0;
	tail_locs(prof, addrs, nr);
	return new_stack(prof, nr, 0, 0, false);
}

struct hpa_sample *hpa_profile_add_sample(struct hpa_profile *prof, uint32_t stack,
					  int32_t thread, uint32_t input,
					  const double v[HPA_NVALUES])
{
	struct hpa_sample *s;

	HPA_GROW(prof->samples, prof->samples_nr + 1, prof->samples_alloc);
	s = &prof->samples[prof->samples_nr++];
	s->stack = stack;
	s->thread = thread;
	s->input = input;
	s->sole_thread = HPA_THREAD_ALL;
	memcpy(s->v, v, sizeof(s->v));
	return s;
}

void hpa_profile_set_sole_thread(struct hpa_profile *prof, int32_t thread)
{
	struct hpa_sample *s = prof->samples_nr ? &prof->samples[prof->samples_nr - 1] : NULL;

	if (!s || s->thread != HPA_THREAD_ALL || s->sole_thread != HPA_THREAD_ALL || thread == HPA_THREAD_ALL)
		HPA_BUG("sole thread %d of no all-threads sample", (int)thread);
	s->sole_thread = thread;
}

bool hpa_profile_has_thread_samples(const struct hpa_profile *prof)
{
	size_t i;

	for (i = 0; i < prof->samples_nr; i++)
		if (hpa_sample_own_thread(&prof->samples[i]) != HPA_THREAD_ALL)
			return true;
	return false;
}

void hpa_profile_split_threads(struct hpa_profile *prof)
{
	size_t i, n = 0, k;
	struct hpa_sample *to;

	for (i = 0; i < prof->samples_nr; i++)
		n += prof->samples[i].sole_thread != HPA_THREAD_ALL;
	if (!n)
		return;
	to = xmalloc(st_mult(prof->samples_nr + n, sizeof(*to)));
	for (i = k = 0; i < prof->samples_nr; i++) {
		to[k] = prof->samples[i];
		to[k].sole_thread = HPA_THREAD_ALL;
		if (prof->samples[i].sole_thread != HPA_THREAD_ALL) {
			to[++k] = prof->samples[i];
			to[k].thread = prof->samples[i].sole_thread;
			to[k].sole_thread = HPA_THREAD_ALL;
		}
		k++;
	}
	free(prof->samples);
	prof->samples = to;
	prof->samples_nr = prof->samples_alloc = k;
}

uint32_t hpa_profile_add_mapping(struct hpa_profile *prof, const struct hpa_mapping *m)
{
	uint32_t id = next_id(prof->mappings_nr);

	HPA_GROW(prof->mappings, prof->mappings_nr + 1, prof->mappings_alloc);
	prof->mappings[id] = *m;
	prof->mappings[id].path = m->path ? hpa_shown_copy(m->path) : NULL;   /* a path to show, and to open */
	if (!prof->mappings[id].path)
		prof->mappings[id].path = xstrdup(m->path ? m->path : "");
	prof->mappings_nr++;
	return id;
}

static int cmp_map_start(const void *a, const void *b, void *maps)
{
	const struct hpa_mapping *m = maps;
	uint64_t x = m[*(const uint32_t *)a].start;
	uint64_t y = m[*(const uint32_t *)b].start;
	return x < y ? -1 : x > y;
}

void hpa_profile_assign_mappings(struct hpa_profile *prof, uint32_t input)
{
	const struct hpa_input *in = hpa_profile_input(prof, input);
	uint32_t *order;
	size_t i, nr = 0;

	if (!in->map_nr)
		return;
	/* This input's mappings (anonymous ones too), sorted by start. */
	order = xmalloc(st_mult(in->map_nr, sizeof(*order)));
	for (i = 0; i < in->map_nr; i++)
		order[nr++] = in->map_first + (uint32_t)i;
	qsort_r(order, nr, sizeof(*order), cmp_map_start, prof->mappings);   /* readers run on several threads */

	for (i = 1; i < prof->locs_nr; i++) {
		struct hpa_location *loc = &prof->locs[i];
		uint64_t pc = loc->addr ? loc->addr - 1 : 0;
		size_t lo = 0, hi = nr;

		if (loc->mapping)
			continue;
		while (lo < hi) {   /* first mapping with start > pc */
			size_t mid = lo + (hi - lo) / 2;
			if (prof->mappings[order[mid]].start <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && pc < prof->mappings[order[lo - 1]].limit)
			loc->mapping = order[lo - 1];
	}
	free(order);
}

uint32_t hpa_profile_intern_text(struct hpa_profile *prof, const char *s)
{
	return hpa_strtab_intern_shown(prof->strs, s);
}

const char *hpa_profile_loc_path(const struct hpa_profile *prof, uint32_t loc)
{
	uint32_t m = prof->locs[loc].mapping;

	return m ? prof->mappings[m].path : NULL;
}

const char *hpa_profile_loc_module(const struct hpa_profile *prof, uint32_t loc)
{
	const char *path = hpa_profile_loc_path(prof, loc), *slash;

	if (!path)
		return NULL;
	if (!*path)
		return "[anon]";
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

double hpa_profile_total(const struct hpa_profile *prof, enum hpa_value v, int32_t thread)
{
	double total = 0;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++)
		if (prof->samples[i].thread == thread ||
		    (thread != HPA_THREAD_ALL && prof->samples[i].sole_thread == thread))
			total += prof->samples[i].v[v] * prof->inputs[prof->samples[i].input - 1].weight;
	return total;
}

/* Profile `from`'s string `id` as a string id of prof (0 stays 0). */
static uint32_t move_str(struct hpa_profile *prof, const struct hpa_profile *from, uint32_t id)
{
	return id ? hpa_strtab_intern(prof->strs, hpa_profile_str(from, id)) : 0;
}

void hpa_profile_settle(struct hpa_profile *prof)
{
	size_t i, foff = prof->frames_nr;

	if (!prof->build->pending_frames)
		return;
	HPA_GROW(prof->frames, prof->frames_nr + prof->build->pending_frames_nr + 1, prof->frames_alloc);
	for (i = 0; i < prof->build->pending_frames_nr; i++)
		prof->frames[foff + i] = prof->build->pending_frames[i] + prof->build->pending_loff;
	for (i = prof->build->pending_stack; i < prof->stacks_nr; i++)
		prof->stacks[i].first += (uint32_t)foff;
	prof->frames_nr += prof->build->pending_frames_nr;
	free(prof->build->pending_frames);
	prof->build->pending_frames = NULL;
	prof->build->pending_frames_nr = 0;
}

/* Room for `nr` stacks, and their chain links. */
static void grow_stacks(struct hpa_profile *prof, size_t nr)
{
	size_t old_alloc = prof->stacks_alloc;

	HPA_GROW(prof->stacks, nr, prof->stacks_alloc);
	if (prof->stacks_alloc != old_alloc)
		prof->build->stack_next = xgrow(prof->build->stack_next, old_alloc * sizeof(*prof->build->stack_next),
					 st_mult(prof->stacks_alloc, sizeof(*prof->build->stack_next)));
}

/*
 * `from`'s frames stay its own until the stacks are unified (pending_frames):
 * the stacks it shares with the profile, most of a later dump of the same
 * program, are never copied.
 */
void hpa_profile_append(struct hpa_profile *prof, struct hpa_profile *from)
{
	struct hpa_input *in;
	uint32_t input, map_first, moff, loff, soff;
	size_t i;

	if (from->inputs_nr != 1 || from->build->syms.funcs_nr > 1 || from->build->syms.lines_nr ||
	    from->build->pending_frames)
		HPA_BUG("appending %zu inputs with %zu functions", from->inputs_nr, from->build->syms.funcs_nr - 1);
	hpa_profile_settle(prof);   /* one input's frames pending at a time */
	input = hpa_profile_add_input(prof, from->inputs[0].path);
	in = hpa_profile_input(prof, input);
	free(in->path);
	map_first = in->map_first;
	*in = from->inputs[0];   /* its strings move over */
	in->map_first = map_first;
	memset(&from->inputs[0], 0, sizeof(from->inputs[0]));

	moff = (uint32_t)prof->mappings_nr - 1;
	for (i = 1; i < from->mappings_nr; i++) {
		struct hpa_mapping m = from->mappings[i];

		m.input = input;
		m.build_id = move_str(prof, from, m.build_id);
		hpa_profile_add_mapping(prof, &m);
	}

	loff = (uint32_t)prof->locs_nr - 1;
	if (prof->locs_nr > UINT32_MAX - from->locs_nr)
		HPA_BUG("more than 2^32 locations");
	HPA_GROW(prof->locs, prof->locs_nr + from->locs_nr, prof->locs_alloc);
	for (i = 1; i < from->locs_nr; i++) {
		struct hpa_location l = from->locs[i];

		l.input = input;
		l.mapping = l.mapping ? l.mapping + moff : 0;
		l.module = move_str(prof, from, l.module);
		prof->locs[prof->locs_nr++] = l;
	}

	/* Stacks as they were added, their frames pending (their index is rebuilt by unification). */
	soff = (uint32_t)prof->stacks_nr - 1;
	if (prof->frames_nr > UINT32_MAX - from->frames_nr || prof->stacks_nr > UINT32_MAX - from->stacks_nr)
		HPA_BUG("more than 2^32 frames or stacks");
	prof->build->pending_frames = from->frames;
	prof->build->pending_frames_nr = from->frames_nr;
	prof->build->pending_stack = (uint32_t)prof->stacks_nr;
	prof->build->pending_loff = loff;
	from->frames = NULL;
	grow_stacks(prof, prof->stacks_nr + from->stacks_nr);
	for (i = 1; i < from->stacks_nr; i++) {
		prof->stacks[prof->stacks_nr].first = from->stacks[i].first;
		prof->stacks[prof->stacks_nr].nr = from->stacks[i].nr;
		prof->build->stack_next[prof->stacks_nr++] = 0;
	}
	/* Stacks interned by hash (gperftools) were in the index read into prof. */
	prof->build->index_stale |= prof->build->stacks_unified != 0 && from->build->stack_by_hash.nr != 0;

	HPA_GROW(prof->samples, prof->samples_nr + from->samples_nr, prof->samples_alloc);
	for (i = 0; i < from->samples_nr; i++) {
		struct hpa_sample s = from->samples[i];

		s.stack = s.stack ? s.stack + soff : 0;
		s.input = input;
		prof->samples[prof->samples_nr++] = s;
	}
	for (i = 0; i < from->threads_nr; i++)
		hpa_profile_note_thread(prof, from->threads[i].id, from->threads[i].name);
	hpa_profile_release(from);
	hpa_profile_assign_mappings(prof, input);
}
