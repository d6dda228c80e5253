/*
 * The grouping engine (group.h), the graph: a node of each frame
 * (function, line, file, address) with flat and cum, and the calls
 * between them, in one pass over the view's samples.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

#define NO_KEY UINT32_MAX

struct keys {
	const struct hpa_profile *prof;
	const struct hpa_names *frame_names;   /* the view's */
	enum hpa_granularity granularity;
	struct hpa_strtab names;   /* key id = string id */
	uint32_t *slot_key;        /* per frame slot: key id, 0 = not yet, NO_KEY = none */
	uint32_t *str_key;         /* profile string id -> key id + 1, for keys that are one */
	unsigned nv;               /* values kept per key: 1 (the view's) or the value types asked for */
	double *flat;              /* by key id (times nv) */
	/*
	 * By key id, a row of 1 + nv: the sample index + 1 that last added
	 * to the key's cum (exact in a double), then its nv cum values: the
	 * stamp and the values a frame adds to are one place in memory.
	 */
	double *cum;
	size_t vals_alloc;
	bool calls;                /* collect the edges too */
	struct hpa_hashmap edge_of; /* (caller, callee) -> edge index + 1 */
	struct hpa_call_edge *edges;
	uint64_t *edge_by_slot;     /* per caller frame slot: callee key << 32 | edge index + 1 */
	struct hpa_line_parts *parts;   /* HPA_BY_LINE: by key id, parts_nr of them */
	uint32_t *part_next;       /* the next key whose parts hash alike, 0 = end */
	struct hpa_hashmap part_of; /* the hash of a key's parts -> the first key with it */
	size_t parts_nr, parts_alloc, part_next_alloc;
	double *edge_vals;         /* per edge, as cum's rows: its stamp, then its nv values */
	size_t nedges, aedges, aedge_vals;
};

/* dst[0 .. nv) += vals[0 .. nv), nv = 1, 2 and 4 written out (the common value counts). */
static inline void add_vals(double *dst, const double *vals, unsigned nv)
{
	unsigned v;

	switch (nv) {
#if defined(__SSE2__)
	/* Two values in one instruction (each lane the same IEEE add as alone). */
	case 4:
		_mm_storeu_pd(dst + 2, _mm_add_pd(_mm_loadu_pd(dst + 2), _mm_loadu_pd(vals + 2)));
		/* fall through */
	case 2:
		_mm_storeu_pd(dst, _mm_add_pd(_mm_loadu_pd(dst), _mm_loadu_pd(vals)));
		break;
#else
	case 4:
		dst[3] += vals[3];
		dst[2] += vals[2];
		/* fall through */
	case 2:
		dst[1] += vals[1];
		dst[0] += vals[0];
		break;
#endif
	case 1:
		dst[0] += vals[0];
		break;
	default:
		for (v = 0; v < nv; v++)
			dst[v] += vals[v];
	}
}

/*
 * Row `row` (a stamp, then nv values) counts the sample whose stamp is
 * `stamp` (its index + 1, made once per sample) once: its values, unless
 * already in.
 */
static inline void add_once(double *row, double stamp, const double *vals, unsigned nv)
{
	uint64_t have, want;   /* compared as bits: stamps are whole numbers from 1, rows start at 0 */

	memcpy(&have, row, sizeof(have));
	memcpy(&want, &stamp, sizeof(want));
	if (have != want) {
		row[0] = stamp;
		add_vals(row + 1, vals, nv);
	}
}

/* A new edge caller -> callee (key: both): its id, from 1. */
static HPA_NOINLINE uint32_t edge_new(struct keys *k, uint64_t key, uint32_t caller, uint32_t callee)
{
	HPA_GROW(k->edges, k->nedges + 1, k->aedges);
	HPA_GROW(k->edge_vals, (k->nedges + 1) * (k->nv + 1), k->aedge_vals);
	k->edges[k->nedges].caller = caller;
	k->edges[k->nedges].callee = callee;
	k->edges[k->nedges].value = 0;
	memset(k->edge_vals + k->nedges * (k->nv + 1), 0, (k->nv + 1) * sizeof(*k->edge_vals));
	hpa_hashmap_put(&k->edge_of, key, (uint32_t)(k->nedges + 1));
	return (uint32_t)++k->nedges;
}

/*
 * The call caller -> callee in the sample stamped `stamp`, the caller's
 * frame in slot `slot`: counted once per sample.  A call site calls one
 * function nearly always, so the edge last found from the caller's slot is
 * asked first.
 */
static HPA_ALWAYS_INLINE void add_edge(struct keys *k, unsigned nv, size_t slot, uint32_t caller,
					uint32_t callee, double stamp, const double *vals)
{
	uint64_t key = (uint64_t)caller << 32 | callee, last = k->edge_by_slot[slot];
	uint32_t e = last >> 32 == callee ? (uint32_t)last : 0;

	if (!e) {   /* the slot's line is written only when its callee changes */
		e = hpa_hashmap_get(&k->edge_of, key);
		if (!e)
			e = edge_new(k, key, caller, callee);
		k->edge_by_slot[slot] = (uint64_t)callee << 32 | e;
	}
	add_once(k->edge_vals + (size_t)(e - 1) * (nv + 1), stamp, vals, nv);
}

/* Make flat/cum cover every key interned so far. */
static void grow_values(struct keys *k)
{
	size_t old = k->vals_alloc, n = k->names.nr * 2, row = k->nv + 1;

	if (k->names.nr <= old)
		return;
	k->flat = xgrow(k->flat, old * k->nv * sizeof(*k->flat), st_mult(n * k->nv, sizeof(*k->flat)));
	k->cum = xgrow(k->cum, old * row * sizeof(*k->cum), st_mult(n * row, sizeof(*k->cum)));
	memset(k->flat + old * k->nv, 0, (n - old) * k->nv * sizeof(*k->flat));
	memset(k->cum + old * row, 0, (n - old) * row * sizeof(*k->cum));
	k->vals_alloc = n;
}

/*
 * The key whose text is profile string `str`: the strings of functions and
 * files are the profile's already, so each is hashed into the keys once,
 * not once per frame slot that has it.
 */
static uint32_t str_key(struct keys *k, uint32_t str)
{
	if (!k->str_key)
		k->str_key = xcalloc(k->prof->strs->nr + 1, sizeof(*k->str_key));
	if (!k->str_key[str]) {
		k->str_key[str] = hpa_strtab_intern(&k->names, hpa_profile_str(k->prof, str)) + 1;
		grow_values(k);
	}
	return k->str_key[str] - 1;
}

/* parts[0 .. n) for the keys so far, those that are text zeroed. */
static void parts_cover(struct keys *k, size_t n)
{
	if (n <= k->parts_nr)
		return;
	HPA_GROW(k->parts, n, k->parts_alloc);
	memset(k->parts + k->parts_nr, 0, (n - k->parts_nr) * sizeof(*k->parts));
	k->parts_nr = n;
}

/*
 * HPA_BY_LINE's key of function name `name` at file:line, found by three
 * ids, not by a text made and hashed for each frame slot: the texts are
 * made once per key, by a writer that prints them (hpa_graph_name_lines).
 */
static uint32_t part_key(struct keys *k, uint32_t name, uint32_t file, uint32_t line)
{
	const uint32_t ids[3] = { name, file, line };
	uint64_t h = hpa_hash_ids(ids, 3);
	uint32_t first = hpa_hashmap_get(&k->part_of, h), id;

	for (id = first; id; id = k->part_next[id]) {
		const struct hpa_line_parts *p = &k->parts[id];
		if (p->name == name && p->file == file && p->line == line)   /* a line's: only they chain */
			return id;
	}
	id = hpa_strtab_add_blank(&k->names);
	parts_cover(k, (size_t)id + 1);
	k->parts[id] = (struct hpa_line_parts){ name, file, line, true };
	HPA_GROW(k->part_next, (size_t)id + 1, k->part_next_alloc);
	k->part_next[id] = first;
	hpa_hashmap_put(&k->part_of, h, id);
	grow_values(k);
	return id;
}

/* The key of frame f, whose slot is `slot` (hpa_view_slot(): the location is read once, here). */
static HPA_NOINLINE uint32_t frame_key_new(struct keys *k, struct hpa_frame f, size_t slot)
{
	const struct hpa_profile *prof = k->prof;
	const struct hpa_location *l;
	const struct hpa_chain *c = hpa_chain_of(k->frame_names->syms, f.loc);
	const struct hpa_frame_name *names;
	const char *display;
	char *key = NULL;
	uint32_t id;

	l = &prof->locs[f.loc];
	if (l->addr >= HPA_KERNEL_FLOOR) {
		k->slot_key[slot] = NO_KEY;
		return NO_KEY;
	}
	names = hpa_frame_name(prof, k->frame_names, f);
	display = hpa_profile_str(prof, names->display);
	if (!c->nr) {
		if (k->granularity != HPA_BY_ADDRESS || !l->module)
			return k->slot_key[slot] = str_key(k, names->display);
		key = hpa_xasprintf("0x%llx %s", (unsigned long long)l->addr, display);   /* the runtime address too */
	} else {
		const struct hpa_line *ln = &k->frame_names->syms->lines[c->first + f.level];
		const char *file = hpa_profile_str(prof, ln->file);

		switch (k->granularity) {
		case HPA_BY_ADDRESS:
			key = hpa_xasprintf("0x%llx %s %s:%u", (unsigned long long)l->addr, display,
					    *file ? file : "??", ln->line);
			break;
		case HPA_BY_LINE:
			return k->slot_key[slot] = part_key(k, names->display, ln->file, ln->line);
		case HPA_BY_FILE:   /* no file: the frame's place, as for an unknown one */
			if (*file)
				return k->slot_key[slot] = str_key(k, ln->file);
			key = hpa_frame_label(prof, f);
			break;
		default:
			return k->slot_key[slot] = str_key(k, names->display);
		}
	}
	id = hpa_strtab_intern(&k->names, key);
	free(key);
	grow_values(k);
	k->slot_key[slot] = id;
	return id;
}

/* The key of the frame in slot `slot` (slot_frame: each slot's frame, read when the slot is new). */
static inline uint32_t frame_key(struct keys *k, const struct hpa_frame *slot_frame, size_t slot)
{
	uint32_t key = k->slot_key[slot];

	return key ? key : frame_key_new(k, slot_frame[slot], slot);
}

/* Key `key` in the sample stamped `stamp`: its values to cum once, and to flat when `flat` (the leaf). */
static inline void add(struct keys *k, unsigned nv, uint32_t key, double stamp, const double *vals,
		       bool flat)
{
	if (flat)
		add_vals(k->flat + (size_t)key * nv, vals, nv);
	add_once(k->cum + (size_t)key * (nv + 1), stamp, vals, nv);
}

/* The values of sample i: value types vidx[0 .. nv), weighted as the view weighs its input. */
static void sample_values(struct hpa_view *view, const unsigned *vidx, unsigned nv, size_t i,
			  double *vals)
{
	const struct hpa_profile *prof = view->prof;
	double w = hpa_view_weight(&view->opts, prof, prof->samples[i].input);
	unsigned v;

	for (v = 0; v < nv; v++)
		vals[v] = prof->samples[i].v[vidx[v]] * w;
}

/*
 * k's keys of the frames in slots[from .. nr): the sample's values to the
 * cum of each once (a kernel frame has no key).  The table's pointers and
 * the values stay in registers in a loop this small: in walk_keys()'s,
 * every store to a row (through SSE2's type, which may alias anything)
 * has them read again.
 */
static HPA_ALWAYS_INLINE void cum_keys(struct keys *k, unsigned nv, const struct hpa_frame *slot_frame,
				       const uint32_t *slots, size_t from, size_t nr, double stamp,
				       const double *vals)
{
	const uint32_t *slot_key = k->slot_key;
	double *cum = k->cum;
	size_t f;

	for (f = from; f < nr; f++) {
		uint32_t slot = slots[f], key = slot_key[slot];

		if (!key) {
			key = frame_key_new(k, slot_frame[slot], slot);
			cum = k->cum;   /* the rows may have moved */
		}
		if (key != NO_KEY)
			add_once(cum + (size_t)key * (nv + 1), stamp, vals, nv);
	}
}

/* k's calls from the frames in slots[from .. nr) (keys made) to the one before each, from `callee` on. */
static HPA_ALWAYS_INLINE void walk_calls(struct keys *k, unsigned nv, const uint32_t *slots, size_t from,
					 size_t nr, uint32_t callee, double stamp, const double *vals)
{
	const uint32_t *slot_key = k->slot_key;
	size_t f;

	for (f = from; f < nr; f++) {
		uint32_t key = slot_key[slots[f]];

		if (key == NO_KEY)
			continue;
		if (callee != key)
			add_edge(k, nv, slots[f], key, callee, stamp, vals);
		callee = key;
	}
}

/*
 * The leaf of the frames in slots[0 .. nr): the first with a key in k
 * (only a kernel frame has none, at every granularity alike:
 * frame_key_new), into *leaf; its key, or NO_KEY if no frame has one.
 */
static HPA_ALWAYS_INLINE uint32_t leaf_key(struct keys *k, const struct hpa_frame *slot_frame,
					   const uint32_t *slots, size_t nr, size_t *leaf)
{
	uint32_t key = NO_KEY;
	size_t f;

	for (f = 0; f < nr && key == NO_KEY; f++)
		key = frame_key(k, slot_frame, slots[f]);
	*leaf = f - (key != NO_KEY);
	return key;
}

/*
 * walk_keys() of one granularity: the leaf's flat, then cum and calls
 * each in a loop of its own, with the table's pointers and the values in
 * registers.  Always inlined with nv a constant.
 */
static HPA_ALWAYS_INLINE void walk_key(struct keys *k, unsigned nv, const struct hpa_frame *slot_frame,
				       size_t nr, const uint32_t *slots, uint32_t nostack, double stamp,
				       const double *sample_vals)
{
	double vals[HPA_NVALUES];   /* in registers: see walk_keys() */
	uint32_t key;
	size_t leaf, v;

	for (v = 0; v < nv; v++)
		vals[v] = sample_vals[v];
	key = leaf_key(k, slot_frame, slots, nr, &leaf);
	if (key == NO_KEY) {
		add(k, nv, nostack, stamp, vals, true);
		return;
	}
	add_vals(k->flat + (size_t)key * nv, vals, nv);
	cum_keys(k, nv, slot_frame, slots, leaf, nr, stamp, vals);
	if (k->calls)
		walk_calls(k, nv, slots, leaf + 1, nr, key, stamp, vals);
}

/*
 * The keys of the frames in slots[0 .. nr), leaf first, at ks[0 .. nk)
 * (nk 2 or 3: --html's functions, lines and files at once), the sample's
 * values to each key's cum once and to the leaf's flat, the calls to
 * ks[0]'s edges: one pass over the frames, each slot read once.  The leaf and the frames skipped are the same for
 * all (leaf_key()), and each key's sums get the same values in the same
 * order as a walk per granularity would add them.  Always inlined with nk
 * and nv (k->nv) constants where it is called.
 */
static HPA_ALWAYS_INLINE void walk_keys(struct keys *ks, size_t nk, unsigned nv,
					const struct hpa_frame *slot_frame, size_t nr, const uint32_t *slots,
					const uint32_t *nostack, double stamp, const double *sample_vals)
{
	struct keys *k0 = &ks[0], *k1 = &ks[1], *k2 = nk == 3 ? &ks[2] : k0;   /* used as nk says */
	uint32_t key, callee;
	size_t f, v;
	const bool calls = k0->calls;
	/*
	 * The sample's values in registers: read through the caller's
	 * pointer, each add would read them again after every store to a
	 * row (which might be where they are, for all the compiler knows).
	 */
	double vals[HPA_NVALUES];

	for (v = 0; v < nv; v++)
		vals[v] = sample_vals[v];
	key = leaf_key(k0, slot_frame, slots, nr, &f);
	if (key == NO_KEY) {
		add(k0, nv, nostack[0], stamp, vals, true);
		add(k1, nv, nostack[1], stamp, vals, true);
		if (nk == 3)
			add(k2, nv, nostack[2], stamp, vals, true);
		return;
	}
	add(k0, nv, key, stamp, vals, true);
	add(k1, nv, frame_key(k1, slot_frame, slots[f]), stamp, vals, true);
	if (nk == 3)
		add(k2, nv, frame_key(k2, slot_frame, slots[f]), stamp, vals, true);
	for (callee = key, f++; f < nr; f++) {   /* its callers */
		key = frame_key(k0, slot_frame, slots[f]);
		if (key == NO_KEY)
			continue;
		add(k0, nv, key, stamp, vals, false);
		add(k1, nv, frame_key(k1, slot_frame, slots[f]), stamp, vals, false);
		if (nk == 3)
			add(k2, nv, frame_key(k2, slot_frame, slots[f]), stamp, vals, false);
		if (calls && callee != key)
			add_edge(k0, nv, slots[f], key, callee, stamp, vals);
		callee = key;
	}
}

/*
 * Add values `vals` of the frames in slots[0 .. nr) to ks[0 .. nk), as
 * one sample (`sample`: its index, counted once per key and call).
 */
static void walk_frames(struct keys *ks, size_t nk, const struct hpa_frame *slot_frame, size_t nr,
			const uint32_t *slots, const uint32_t *nostack, size_t sample, const double *vals)
{
	double stamp = (double)(sample + 1);
	size_t j;

	if (nk == 3 && ks[0].nv == 2) {   /* --html's three, the common value counts: one pass */
		walk_keys(ks, 3, 2, slot_frame, nr, slots, nostack, stamp, vals);
		return;
	}
	if (nk == 3 && ks[0].nv == 4) {
		walk_keys(ks, 3, 4, slot_frame, nr, slots, nostack, stamp, vals);
		return;
	}
	for (j = 0; j < nk; j++) {
		struct keys *k = &ks[j];

		switch (k->nv) {   /* the common value counts, each its own loop */
		case 1:
			walk_key(k, 1, slot_frame, nr, slots, nostack[j], stamp, vals);
			break;
		case 2:
			walk_key(k, 2, slot_frame, nr, slots, nostack[j], stamp, vals);
			break;
		case 4:
			walk_key(k, 4, slot_frame, nr, slots, nostack[j], stamp, vals);
			break;
		default:
			walk_key(k, k->nv, slot_frame, nr, slots, nostack[j], stamp, vals);
		}
	}
}

/* What a walk by slots reads of the view: each stack's slots, and each slot's frame. */
struct slot_walk {
	struct hpa_view *view;
	bool filtering;              /* --focus, --ignore, --show or --hide: the view's frames */
	struct hpa_frame *slot_frame; /* per slot: its frame (every slot of every location) */
	uint32_t *slots;             /* the stack's, leaf first */
	size_t aslots;
};

static void slot_walk_init(struct slot_walk *w, struct hpa_view *view)
{
	const struct hpa_profile *prof = view->prof;
	size_t loc;
	unsigned k;

	memset(w, 0, sizeof(*w));
	w->view = view;
	w->filtering = hpa_view_filters(&view->opts);
	w->slot_frame = xmalloc(st_mult(hpa_symbols_slots(view->syms) + 1, sizeof(*w->slot_frame)));
	for (loc = 0; loc < prof->locs_nr; loc++)
		for (k = 0; k < view->levels[loc]; k++)
			w->slot_frame[view->slot0[loc] + k] = (struct hpa_frame){ (uint32_t)loc, k };
}

static void slot_walk_release(struct slot_walk *w)
{
	free(w->slot_frame);
	free(w->slots);
}

/*
 * The slots of stack `stack`'s frames in the view, leaf first, into
 * w->slots (their number, in *nr); false if the filters drop the stack.
 * Without filters they come straight from the stack's locations (each
 * location's levels in a row, as hpa_view_stack() gives its frames): no
 * frames written out and read back.
 */
static bool stack_slots(struct slot_walk *w, uint32_t stack, size_t *nr)
{
	const struct hpa_view *view = w->view;
	const uint32_t *locs, *slot0 = view->slot0;
	const uint16_t *lev = view->levels;
	uint32_t *out;
	size_t nlocs, n = 0, j;
	unsigned first, k;

	if (w->filtering) {
		const struct hpa_frame *frames;

		if (!hpa_view_stack(w->view, stack, &frames, nr))
			return false;
		HPA_GROW(w->slots, *nr, w->aslots);
		for (j = 0; j < *nr; j++)
			w->slots[j] = (uint32_t)hpa_view_slot(view, frames[j]);
		return true;
	}
	nlocs = hpa_view_locations(view, stack, &locs, &first);
	HPA_GROW(w->slots, nlocs + 1, w->aslots);   /* a slot per location: only inline levels need more */
	out = w->slots;
	for (j = 0; j < nlocs; j++) {
		uint32_t loc = locs[j], base = slot0[loc];
		unsigned levels = lev[loc];

		if (levels == 1) {   /* most locations: no inline frames */
			out[n++] = base;
			continue;
		}
		HPA_GROW(w->slots, n + levels + (nlocs - j - 1), w->aslots);
		out = w->slots;
		for (k = j == 0 ? first : 0; k < levels; k++)
			out[n++] = base + k;
	}
	*nr = n;
	return true;
}

/*
 * Samples of several inputs (a --base diff, dumps added up) share most of
 * their stacks: each stack kept is walked once, with the sum of its
 * samples' values, in the order stacks first appear among the samples.
 * The totals are the samples' own, added in sample order as a walk of
 * each sample would.
 */
static void accumulate_by_stack(struct keys *ks, size_t nk, struct hpa_view *view,
				const unsigned *vidx, unsigned nv, const uint32_t *nostack, double *total)
{
	const struct hpa_profile *prof = view->prof;
	uint32_t *entry = xcalloc(prof->stacks_nr + 1, sizeof(*entry));   /* stack -> entry + 1 */
	uint32_t *stack_of = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*stack_of)));
	double *sum = xcalloc(st_mult(prof->stacks_nr + 1, nv), sizeof(*sum));
	uint8_t *kept;
	struct slot_walk w;
	double vals[HPA_NVALUES];
	size_t c, e, n = 0;
	unsigned v;

	for (c = 0; c < hpa_view_candidates(view); c++) {
		size_t i = hpa_view_candidate(view, c);
		uint32_t st = prof->samples[i].stack;

		if (!hpa_view_keeps(view, i))
			continue;
		if (!entry[st]) {
			stack_of[n] = st;
			entry[st] = (uint32_t)++n;
		}
		sample_values(view, vidx, nv, i, vals);
		for (v = 0; v < nv; v++)
			sum[(entry[st] - 1) * nv + v] += vals[v];
	}
	kept = xmalloc(n + 1);
	slot_walk_init(&w, view);
	for (e = 0; e < n; e++) {
		size_t nr;

		kept[e] = stack_slots(&w, stack_of[e], &nr);
		if (kept[e])
			walk_frames(ks, nk, w.slot_frame, nr, w.slots, nostack, e, sum + e * nv);
	}
	slot_walk_release(&w);
	for (c = 0; c < hpa_view_candidates(view); c++) {
		size_t i = hpa_view_candidate(view, c);

		if (!hpa_view_keeps(view, i) || !kept[entry[prof->samples[i].stack] - 1])
			continue;
		sample_values(view, vidx, nv, i, vals);
		for (v = 0; v < nv; v++)
			total[v] += vals[v];
	}
	free(kept);
	free(sum);
	free(stack_of);
	free(entry);
}

/* The walk of ks[0 .. nk) over the view's samples, as accumulate()'s. */
static void walk_candidates(struct keys *ks, size_t nk, struct hpa_view *view, const unsigned *vidx,
			    const uint32_t *nostack, struct slot_walk *w, double *total)
{
	const struct hpa_profile *prof = view->prof;
	double vals[HPA_NVALUES];
	unsigned nv = ks[0].nv, v;
	size_t c, i, nr;

	for (c = 0; c < hpa_view_candidates(view); c++) {
		i = hpa_view_candidate(view, c);
		if (!hpa_view_keeps(view, i) || !stack_slots(w, prof->samples[i].stack, &nr))
			continue;
		sample_values(view, vidx, nv, i, vals);
		if (total)
			for (v = 0; v < nv; v++)
				total[v] += vals[v];
		walk_frames(ks, nk, w->slot_frame, nr, w->slots, nostack, i, vals);
	}
}

/*
 * Fill each of ks[0..nk)'s flat/cum in one pass over the view (they differ
 * in granularity only); the view's totals into total[0 .. nv).  Value j is
 * value type vidx[j].
 */
static void accumulate(struct keys *ks, size_t nk, struct hpa_view *view, const unsigned *vidx,
		       double *total)
{
	const struct hpa_profile *prof = ks[0].prof;
	uint32_t nostack[8];
	struct slot_walk w;           /* the sample's frames' slots, for every granularity */
	unsigned nv = ks[0].nv, v;
	size_t j;

	for (j = 0; j < nk; j++) {
		nostack[j] = hpa_strtab_intern(&ks[j].names, "<no stack>");
		grow_values(&ks[j]);
	}
	for (v = 0; v < nv; v++)
		total[v] = 0;
	if (prof->inputs_nr > 1) {
		accumulate_by_stack(ks, nk, view, vidx, nv, nostack, total);
		return;
	}
	slot_walk_init(&w, view);
	walk_candidates(ks, nk, view, vidx, nostack, &w, total);
	slot_walk_release(&w);
}

/* k's nodes into n, value j as type vidx[j]; k is spent (take_edges() first, for its calls). */
static void take_nodes(struct keys *k, const unsigned *vidx, struct hpa_graph_nodes *n,
		       const double *total)
{
	unsigned nv = k->nv, v;
	size_t i, nr = k->names.nr;

	if (k->granularity == HPA_BY_LINE)
		parts_cover(k, nr);   /* the keys after the last line's */
	n->keys = k->names;
	n->parts = k->parts;
	for (v = 0; v < nv; v++) {
		unsigned to = vidx[v];

		n->total[to] = total[v];
		n->cum[to] = xmalloc(st_mult(nr + 1, sizeof(*n->cum[to])));
		for (i = 0; i < nr; i++)
			n->cum[to][i] = k->cum[i * (nv + 1) + 1 + v];
		if (nv == 1) {   /* one value: the array is the node's as it is */
			n->flat[to] = k->flat;
			k->flat = NULL;
		} else {
			n->flat[to] = xmalloc(st_mult(nr + 1, sizeof(*n->flat[to])));
			for (i = 0; i < nr; i++)
				n->flat[to][i] = k->flat[i * nv + v];
		}
	}
	free(k->flat);
	free(k->cum);
	free(k->edges);
	free(k->edge_vals);
	hpa_hashmap_release(&k->edge_of);
	free(k->edge_by_slot);
	free(k->part_next);
	hpa_hashmap_release(&k->part_of);
	free(k->slot_key);
	free(k->str_key);
}

/* k's calls into g->edges[vidx[j]] for value j. */
static void take_edges(struct keys *k, const unsigned *vidx, struct hpa_graph *g)
{
	unsigned nv = k->nv, v;
	size_t e;

	for (v = 0; v < nv; v++) {
		struct hpa_call_edge *to;

		to = nv == 1 ? k->edges : xmalloc(st_mult(k->nedges + 1, sizeof(*to)));
		for (e = 0; e < k->nedges; e++) {
			to[e] = k->edges[e];
			to[e].value = k->edge_vals[e * (nv + 1) + 1 + v];
		}
		g->edges[vidx[v]] = to;
	}
	g->nedges = k->nedges;
	if (nv == 1)
		k->edges = NULL;   /* the graph's now */
}

/*
 * One pass over the view for every granularity of the spec and the value
 * types it asks for (the view's alone when none): each node's flat and
 * cum, and the calls of the first granularity's.
 */
void hpa_graph_build(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		     const struct hpa_graph_spec *spec, struct hpa_graph *out)
{
	struct hpa_view view;
	struct keys ks[HPA_GRAPH_MAX_GRANS];
	double total[HPA_NVALUES];
	unsigned values = spec->values & ((1u << HPA_NVALUES) - 1), vidx[HPA_NVALUES], nv = 0, v;
	size_t g;

	if (!values)
		values = 1u << opts->value;
	for (v = 0; v < HPA_NVALUES; v++)
		if (values >> v & 1)
			vidx[nv++] = v;
	if (!spec->ngrans || spec->ngrans > HPA_ARRAY_SIZE(ks))
		HPA_BUG("%zu granularities in one graph", spec->ngrans);
	memset(out, 0, sizeof(*out));
	out->values = values;
	out->ngrans = spec->ngrans;
	for (g = 0; g < spec->ngrans; g++) {
		struct keys *k = &ks[g];

		memset(k, 0, sizeof(*k));
		k->prof = prof;
		k->frame_names = opts->names;
		k->granularity = spec->grans[g];
		k->nv = nv;
		k->calls = g == 0 && spec->calls;
		hpa_hashmap_init(&k->edge_of);
		hpa_hashmap_init(&k->part_of);
		hpa_strtab_init(&k->names);
		k->slot_key = xcalloc(hpa_symbols_slots(opts->symbols), sizeof(*k->slot_key));
		if (k->calls)
			k->edge_by_slot = xcalloc(hpa_symbols_slots(opts->symbols), sizeof(*k->edge_by_slot));
	}
	hpa_view_init(&view, prof, opts);
	accumulate(ks, spec->ngrans, &view, vidx, total);
	hpa_view_release(&view);
	if (spec->calls)
		take_edges(&ks[0], vidx, out);
	for (g = 0; g < spec->ngrans; g++)
		take_nodes(&ks[g], vidx, &out->nodes[g], total);
}

void hpa_graph_name_lines(struct hpa_graph *g, const struct hpa_profile *prof)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	char num[HPA_LLTOA_MAX];
	size_t t;
	uint32_t id;

	for (t = 0; t < g->ngrans; t++) {
		struct hpa_graph_nodes *n = &g->nodes[t];

		for (id = 1; n->parts && id < n->keys.nr; id++) {
			const struct hpa_line_parts *p = &n->parts[id];
			const char *file;

			if (!p->is_line || *hpa_strtab_get(&n->keys, id))
				continue;
			file = hpa_profile_str(prof, p->file);
			sb.len = 0;
			hpa_sb_adds(&sb, hpa_profile_str(prof, p->name));
			hpa_sb_addc(&sb, ' ');
			hpa_sb_adds(&sb, *file ? file : "??");
			hpa_sb_addc(&sb, ':');
			hpa_sb_add(&sb, num, hpa_lltoa(num, p->line));
			hpa_strtab_name_blank(&n->keys, id, sb.buf, sb.len);
		}
	}
	hpa_sb_release(&sb);
}

void hpa_graph_release(struct hpa_graph *g)
{
	size_t t, v;

	for (t = 0; t < g->ngrans; t++) {
		struct hpa_graph_nodes *n = &g->nodes[t];

		for (v = 0; v < HPA_NVALUES; v++) {
			free(n->flat[v]);
			free(n->cum[v]);
		}
		hpa_strtab_release(&n->keys);
		free(n->parts);
	}
	for (v = 0; v < HPA_NVALUES; v++)
		free(g->edges[v]);
	memset(g, 0, sizeof(*g));
}

void hpa_graph_zero_dust(struct hpa_graph *g)
{
	size_t t, v, i;

	for (t = 0; t < g->ngrans; t++) {
		struct hpa_graph_nodes *n = &g->nodes[t];

		for (v = 0; v < HPA_NVALUES; v++) {
			if (!(g->values >> v & 1))
				continue;
			n->total[v] = hpa_dust_to_zero(n->total[v]);
			for (i = 1; i < n->keys.nr; i++) {
				n->flat[v][i] = hpa_dust_to_zero(n->flat[v][i]);
				n->cum[v][i] = hpa_dust_to_zero(n->cum[v][i]);
			}
		}
	}
}

struct hpa_graph_rows hpa_graph_of_rows(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
					enum hpa_granularity granularity, bool calls, struct hpa_graph *out)
{
	struct hpa_graph_spec spec = { { granularity }, 1, 0, calls };
	const struct hpa_graph_nodes *n = &out->nodes[0];
	struct hpa_graph_rows r;
	unsigned v = opts->value;

	hpa_graph_build(prof, opts, &spec, out);
	hpa_graph_name_lines(out, prof);
	hpa_graph_zero_dust(out);
	r.keys = &n->keys;
	r.flat = n->flat[v];
	r.cum = n->cum[v];
	r.total = n->total[v];
	r.edges = out->edges[v];
	r.nedges = out->nedges;
	return r;
}
