/*
 * What a profile holds only while it is read (profile.h's `build`): the
 * indexes that intern addresses and stacks, the frames of appended
 * dumps not yet moved in, and the symbols the files carry.  hpa_profile_end_reading() drops it.  Private to
 * src/model.
 */
#ifndef HPA_MODEL_BUILD_H
#define HPA_MODEL_BUILD_H

#include "hpa/compat.h"
#include "hpa/hashmap.h"
#include "hpa/symbols.h"

struct hpa_build {
	struct hpa_symbols syms;        /* what the files carry: hpa_profile_end_reading() hands it out */
	struct hpa_hashmap loc_by_addr;
	/*
	 * Direct-mapped cache in front of loc_by_addr: profiles repeat a few
	 * thousand addresses millions of times.
	 */
	struct hpa_loc_cache_slot { uint64_t addr; uint32_t loc; } *loc_cache;
	unsigned loc_cache_bits;        /* 2^bits slots */
	struct hpa_hashmap stack_by_hash;
	uint32_t *stack_next;           /* per stack: the same-hash chain */
	/*
	 * Stacks [1, stacks_unified) are merged across inputs and indexed
	 * with their final frames (identity.c), unless a later stack was
	 * interned into the index with frames not yet unified (index_stale).
	 */
	uint32_t stacks_unified;
	bool index_stale;
	/*
	 * An input appended (hpa_profile_append) keeps its frames until the
	 * stacks are unified, which copies only those of stacks it does not
	 * share: stacks [pending_stack, stacks_nr) index pending_frames, whose
	 * location ids + pending_loff are the profile's.  Anything else that
	 * reads or adds frames first calls hpa_profile_settle().
	 */
	uint32_t *pending_frames;
	size_t pending_frames_nr;
	uint32_t pending_stack, pending_loff;
};

#endif
