/*
 * Fragmentation charged to code (--stats): the allocator's size classes
 * with the empty bytes each leaves in memory it holds, which sum exactly to
 * the breakdown's fragmentation row; the profile's allocation sites placed
 * in those classes and charged a share of their empty bytes; and the
 * profiler's own cost (spec/STATS.md sections 3, 4 and 6).
 *
 *   jemalloc   a bin's empty bytes are its slabs' free regions and tails,
 *              curslabs x slab_size - curregs x size, exact; what the bins
 *              leave of active - allocated is the pad pages of large
 *              extents (a page each with cache_oblivious)
 *   tcmalloc   a class's free objects in the central, transfer and thread
 *              caches (GetStats level 2); what they leave of those rows is
 *              span tails and the page heap's share, not per class
 *
 * A site (an all-threads sample: one stack of one dump) falls into the
 * class of its average object size (jemalloc: the nearest bin; tcmalloc,
 * whose profiles record requested sizes: the smallest class that holds
 * it), exactly when its objects are of one size.  The sites of a class
 * share all of its empty bytes by their objects' share of the class's
 * objects in the profile: exact for a class one site fills, right when a
 * class's slabs are equally full for every site in it, wrong when sites of
 * different densities share a class (a long-lived site spread over slabs
 * whose other objects were freed holds more than its share); a large
 * object is charged its pad page.
 */
#ifndef HPA_WASTE_H
#define HPA_WASTE_H

#include "hpa/compat.h"
#include "hpa/profile.h"
#include "hpa/stats.h"

/* jemalloc's smallest large size class, in pages (SC_LARGE_MINCLASS: 16 KiB with 4 KiB pages). */
#define HPA_JE_LARGE_MIN_PAGES 4

struct hpa_waste_class {
	uint64_t size;          /* region size */
	uint64_t regions;       /* regions of the slabs in use (jemalloc; tcmalloc 0: not said) */
	uint64_t live;          /* regions allocated, thread-cached ones too (jemalloc; tcmalloc 0) */
	uint64_t empty;         /* its empty bytes */
	double objects, bytes;  /* what the profile's sites in it hold (their estimates) */
	size_t sites;           /* how many sites */
};

struct hpa_waste {
	enum hpa_allocator allocator;
	struct hpa_waste_class *classes;   /* by size */
	size_t classes_nr;
	/*
	 * What the classes leave of the rows they split (`total`): jemalloc's
	 * pad pages of large extents, tcmalloc's span tails and overhead.
	 */
	uint64_t rest, total;
	/*
	 * The profiler's own memory: jemalloc's sampled small objects, each
	 * promoted to a large extent (profiler_objects of them, from the dumps'
	 * unscaled counts: profiler bytes = objects x (the large minimum class -
	 * their size), inside allocated; and a pad page each, inside the pad
	 * row); gperftools' heap-profiler records (an address-map entry per
	 * live object, a bucket and its stack per site, the tables), outside
	 * tcmalloc.  0 without a profile.
	 */
	double profiler, profiler_objects, profiler_pad;
	/* gperftools: its allocations since the start, and what records of them all would take */
	double profiler_allocs, profiler_max;
	/* Per sample of the profile: its class + 1 (0: none), its charged empty bytes, one size or not. */
	uint32_t *class_of;
	double *empty;
	bool *one_size;
	size_t samples_nr;
};

/*
 * The waste of `st` and the profile `prof` (may be NULL) into *out;
 * `dropped` (may be NULL) marks samples left out (--ignore and the like).
 */
void hpa_waste_compute(const struct hpa_alloc_stats *st, const struct hpa_profile *prof,
		       const uint8_t *dropped, struct hpa_waste *out);
void hpa_waste_release(struct hpa_waste *w);

/* The class of w a site whose objects average `avg` bytes falls into: its index + 1, 0 none. */
uint32_t hpa_waste_class_for(const struct hpa_waste *w, double avg);

#endif
