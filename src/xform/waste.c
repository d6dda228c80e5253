/*
 * Fragmentation charged to code (waste.h): the size classes' empty bytes
 * from the allocator's statistics, the profile's sites placed in them, and
 * the profiler's own cost.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/unsample.h"
#include "hpa/waste.h"
#include "hpa/xalloc.h"

/*
 * gperftools' heap profiler (HEAPPROFILE) keeps its records in memory of
 * its own, outside tcmalloc (heap-profile-table.cc, addressmap-inl.h): an
 * address-map entry of 32 bytes per live object (next, key, size, bucket),
 * a bucket of 64 bytes per stack with its frames (8 bytes each), a table
 * of 179,999 bucket pointers and one of 4,096 cluster pointers.  Entries of
 * freed objects are kept for reuse, so this is what it holds at least.
 */
#define GPERF_ENTRY 32.0
#define GPERF_BUCKET 64.0
#define GPERF_TABLES (179999.0 * 8 + 4096.0 * 8)

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static int cmp_class(const void *pa, const void *pb)
{
	const struct hpa_waste_class *a = pa, *b = pb;

	return a->size < b->size ? -1 : a->size > b->size;
}

static struct hpa_waste_class *add_class(struct hpa_waste *w, size_t *alloc, uint64_t size)
{
	struct hpa_waste_class *c;

	HPA_GROW(w->classes, w->classes_nr + 1, *alloc);
	c = &w->classes[w->classes_nr++];
	memset(c, 0, sizeof(*c));
	c->size = size;
	return c;
}

/* jemalloc: each bin with slabs in use; the pad pages are what the bins leave of active - allocated. */
static void je_classes(const struct hpa_alloc_stats *st, struct hpa_waste *w)
{
	size_t i, alloc = 0;
	uint64_t sum = 0;

	for (i = 0; i < st->bins_nr; i++) {
		const struct hpa_je_bin *b = &st->bins[i];
		struct hpa_waste_class *c;

		if (!b->curslabs)
			continue;
		c = add_class(w, &alloc, b->size);
		c->regions = b->curslabs * b->nregs;
		c->live = b->curregs;
		c->empty = sub0(b->curslabs * b->slab_size, b->curregs * b->size);
		sum += c->empty;
	}
	w->total = sub0(st->active, st->allocated);
	w->rest = sub0(w->total, sum);
}

/* tcmalloc: each class's free objects; the rest of the caches' rows is span tails and overhead. */
static void tc_classes(const struct hpa_alloc_stats *st, struct hpa_waste *w)
{
	size_t i, alloc = 0;
	uint64_t sum = 0;

	for (i = 0; i < st->tc_classes_nr; i++) {
		struct hpa_waste_class *c = add_class(w, &alloc, st->tc_classes[i].size);

		c->empty = st->tc_classes[i].free_objs * st->tc_classes[i].size;
		sum += c->empty;
	}
	w->total = st->tc_central + st->tc_transfer + st->tc_thread;
	w->rest = sub0(w->total, sum);
}

uint32_t hpa_waste_class_for(const struct hpa_waste *w, double avg)
{
	size_t i, best = 0;

	if (w->allocator == HPA_ALLOC_TCMALLOC) {
		/* the smallest class that holds the request, when it is the next class up */
		for (i = 0; i < w->classes_nr; i++) {
			double size = (double)w->classes[i].size;
			if (size >= avg)
				return size - avg < fmax(16, size / 8) ? (uint32_t)i + 1 : 0;
		}
		return 0;
	}
	for (i = 1; i < w->classes_nr; i++)   /* the nearest bin */
		if (fabs(avg - (double)w->classes[i].size) < fabs(avg - (double)w->classes[best].size))
			best = i;
	/* as hpa_je_bin_for(): farther than rounding takes an average, no bin of the statistics */
	if (!w->classes_nr || fabs(avg - (double)w->classes[best].size) > 0.0715 * (double)w->classes[best].size)
		return 0;
	return (uint32_t)best + 1;
}

/* Whether sample i is a site: all threads, kept, holding objects. */
static bool is_site(const struct hpa_profile *prof, const uint8_t *dropped, size_t i)
{
	const struct hpa_sample *s = &prof->samples[i];

	return s->thread == HPA_THREAD_ALL && !(dropped && dropped[i]) && s->v[HPA_INUSE_OBJECTS] >= 0.5 &&
	       s->v[HPA_INUSE_SPACE] > 0;
}

/*
 * jemalloc: a sampled object of a small size lives in an extent of the
 * smallest large class (its size in allocated) and a pad page (in active).
 */
static void je_profiler(const struct hpa_alloc_stats *st, const struct hpa_profile *prof, size_t i,
			double avg, struct hpa_waste *w)
{
	const struct hpa_sample *s = &prof->samples[i];
	const struct hpa_input *in = &prof->inputs[s->input - 1];
	double large = (double)(HPA_JE_LARGE_MIN_PAGES * st->page), n;

	if (in->format != HPA_FORMAT_JEMALLOC || in->sampling == HPA_SAMPLING_NONE || avg > large * 7 / 8)
		return;
	n = hpa_unsample_recorded_objects(in, s->v);
	w->profiler_objects += n;
	w->profiler += n * (large - (w->class_of[i] ? (double)w->classes[w->class_of[i] - 1].size : avg));
	if (st->cache_oblivious)
		w->profiler_pad += n * (double)st->page;
}

/* gperftools' heap profiler: its records of every live object and stack (HEAPPROFILE dumps). */
static void gperf_profiler(const struct hpa_profile *prof, const uint8_t *dropped, struct hpa_waste *w)
{
	bool any = false;
	size_t i, nr;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		const struct hpa_input *in = &prof->inputs[s->input - 1];

		if (in->format != HPA_FORMAT_GPERF || in->sampling != HPA_SAMPLING_NONE || !is_site(prof, dropped, i))
			continue;
		hpa_profile_stack(prof, s->stack, &nr);
		w->profiler_objects += s->v[HPA_INUSE_OBJECTS];
		w->profiler += GPERF_ENTRY * s->v[HPA_INUSE_OBJECTS] + GPERF_BUCKET + 8.0 * (double)nr;
		w->profiler_allocs += fmax(s->v[HPA_ALLOC_OBJECTS], s->v[HPA_INUSE_OBJECTS]);
		w->profiler_max += GPERF_ENTRY * fmax(s->v[HPA_ALLOC_OBJECTS], s->v[HPA_INUSE_OBJECTS]) +
				   GPERF_BUCKET + 8.0 * (double)nr;
		any = true;
	}
	if (any) {
		w->profiler += GPERF_TABLES;
		w->profiler_max += GPERF_TABLES;
	}
}

/* The profile's sites into their classes, then each charged its share of the class's empty bytes. */
static void place_sites(const struct hpa_alloc_stats *st, const struct hpa_profile *prof, const uint8_t *dropped,
			struct hpa_waste *w)
{
	double large_min = (double)(HPA_JE_LARGE_MIN_PAGES * st->page), pad_left = (double)w->rest;
	size_t i;

	w->samples_nr = prof->samples_nr;
	w->class_of = xcalloc(prof->samples_nr + 1, sizeof(*w->class_of));
	w->empty = xcalloc(prof->samples_nr + 1, sizeof(*w->empty));
	w->one_size = xcalloc(prof->samples_nr + 1, sizeof(*w->one_size));
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		double avg;
		uint32_t k;

		if (!is_site(prof, dropped, i))
			continue;
		avg = s->v[HPA_INUSE_SPACE] / s->v[HPA_INUSE_OBJECTS];
		k = hpa_waste_class_for(w, avg);
		w->class_of[i] = k;
		if (k) {
			struct hpa_waste_class *c = &w->classes[k - 1];
			c->objects += s->v[HPA_INUSE_OBJECTS];
			c->bytes += s->v[HPA_INUSE_SPACE];
			c->sites++;
			w->one_size[i] = fabs(avg - (double)c->size) <= 0.03 * (double)c->size;
		}
		if (w->allocator == HPA_ALLOC_JEMALLOC)
			je_profiler(st, prof, i, avg, w);
	}
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		double avg;

		if (!is_site(prof, dropped, i))
			continue;
		if (w->class_of[i]) {
			const struct hpa_waste_class *c = &w->classes[w->class_of[i] - 1];
			w->empty[i] = c->objects > 0 ? (double)c->empty * s->v[HPA_INUSE_OBJECTS] / c->objects : 0;
			continue;
		}
		avg = s->v[HPA_INUSE_SPACE] / s->v[HPA_INUSE_OBJECTS];
		if (w->allocator == HPA_ALLOC_JEMALLOC && st->cache_oblivious && avg > large_min * 7 / 8) {
			/* a large object's pad page, as long as the pad row holds them */
			w->empty[i] = fmin(s->v[HPA_INUSE_OBJECTS] * (double)st->page, pad_left);
			pad_left -= w->empty[i];
			w->one_size[i] = true;
		}
	}
}

void hpa_waste_compute(const struct hpa_alloc_stats *st, const struct hpa_profile *prof,
		       const uint8_t *dropped, struct hpa_waste *out)
{
	memset(out, 0, sizeof(*out));
	out->allocator = st->allocator;
	if (st->allocator == HPA_ALLOC_JEMALLOC)
		je_classes(st, out);
	else
		tc_classes(st, out);
	if (out->classes_nr > 1)
		qsort(out->classes, out->classes_nr, sizeof(*out->classes), cmp_class);
	if (!prof)
		return;
	place_sites(st, prof, dropped, out);
	if (st->allocator == HPA_ALLOC_TCMALLOC)
		gperf_profiler(prof, dropped, out);
}

void hpa_waste_release(struct hpa_waste *w)
{
	free(w->classes);
	free(w->class_of);
	free(w->empty);
	free(w->one_size);
	memset(w, 0, sizeof(*w));
}
