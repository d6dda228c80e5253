/*
 * A series folded as it is read (profile.h, struct hpa_dump_changes): one
 * sample per stack across the dumps, and per dump what changed.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/profile.h"
#include "hpa/xalloc.h"

static void changes_start(struct hpa_profile *prof, unsigned values)
{
	struct hpa_dump_changes *c = xcalloc(1, sizeof(*c));
	int v;

	c->values = values;
	for (v = 0; v < HPA_NVALUES; v++)
		c->nvalues += values >> v & 1;
	HPA_GROW(c->first, 1, c->first_alloc);
	c->first[0] = 0;
	prof->changes = c;
}

/* The kept values of v[HPA_NVALUES] into out[nvalues]. */
static void kept(const struct hpa_dump_changes *c, const double *v, double *out)
{
	unsigned k = 0;
	int i;

	for (i = 0; i < HPA_NVALUES; i++)
		if (c->values >> i & 1)
			out[k++] = v[i];
}

/* *p (room for *alloc) made room for n, the new room zeroed. */
static void *grow_zeroed(void *p, size_t size, size_t n, size_t *alloc)
{
	size_t was = *alloc;

	if (n <= was)
		return p;
	*alloc = n > 2 * was ? n : 2 * was;
	p = xrealloc(p, st_mult(*alloc, size));
	memset((char *)p + was * size, 0, (*alloc - was) * size);
	return p;
}

void hpa_profile_fold_dump(struct hpa_profile *prof, size_t mark, unsigned values)
{
	struct hpa_dump_changes *c;
	size_t i, j, folded = mark;
	double *cur;
	unsigned nv;

	if (!prof->changes)
		changes_start(prof, values);
	c = prof->changes;
	nv = c->nvalues;
	c->of_stack = grow_zeroed(c->of_stack, sizeof(*c->of_stack), prof->stacks_nr, &c->of_stack_alloc);
	/* This dump's values of each folded sample, 0 where it has none. */
	cur = xcalloc(st_mult(prof->samples_nr + 1, nv), sizeof(*cur));
	for (i = mark; i < prof->samples_nr; i++) {
		const struct hpa_sample s = prof->samples[i];
		double k[HPA_NVALUES];
		uint32_t f = c->of_stack[s.stack];

		if (s.thread != HPA_THREAD_ALL)
			continue;   /* a thread's own: a folded series has the all-threads samples alone */
		if (!f) {   /* a stack no dump before had: a sample of its own, moved down in place */
			f = (uint32_t)++folded;
			prof->samples[f - 1] = s;
			c->of_stack[s.stack] = f;
		} else {
			for (j = 0; j < HPA_NVALUES; j++)
				prof->samples[f - 1].v[j] += s.v[j];
			if (prof->samples[f - 1].sole_thread != s.sole_thread)   /* no one thread's */
				prof->samples[f - 1].sole_thread = HPA_THREAD_ALL;
		}
		kept(c, s.v, k);
		for (j = 0; j < nv; j++)
			cur[(f - 1) * nv + j] += k[j];
	}
	c->now = grow_zeroed(c->now, nv * sizeof(*c->now), folded, &c->now_alloc);
	for (i = 0; i < folded; i++) {   /* what changed since the dump before (a new sample's: from 0) */
		double *now = c->now + i * nv, *is = cur + i * nv;

		if (!memcmp(now, is, nv * sizeof(*is)))
			continue;
		if (c->nr == c->alloc) {
			c->alloc = c->alloc ? 2 * c->alloc : 1024;
			c->sample = xrealloc(c->sample, st_mult(c->alloc, sizeof(*c->sample)));
			c->v = xrealloc(c->v, st_mult(c->alloc, nv * sizeof(*c->v)));
		}
		c->sample[c->nr] = (uint32_t)i;
		memcpy(c->v + c->nr * nv, is, nv * sizeof(*is));
		memcpy(now, is, nv * sizeof(*is));
		c->nr++;
	}
	free(cur);
	prof->samples_nr = folded;
	c->dumps++;
	HPA_GROW(c->first, c->dumps + 1, c->first_alloc);
	c->first[c->dumps] = c->nr;
}

void hpa_dump_changes_index(struct hpa_profile *prof)
{
	struct hpa_dump_changes *c = prof->changes;
	size_t n = prof->samples_nr, d, e, *fill;

	if (!c || c->at)
		return;
	free(c->now);   /* what only folding needs */
	free(c->of_stack);
	c->now = NULL;
	c->of_stack = NULL;
	c->now_alloc = c->of_stack_alloc = 0;
	c->at = xcalloc(n + 2, sizeof(*c->at));
	c->by_sample = xmalloc(st_mult(c->nr + 1, sizeof(*c->by_sample)));
	c->dump_of = xmalloc(st_mult(c->nr + 1, sizeof(*c->dump_of)));
	for (e = 0; e < c->nr; e++)
		c->at[c->sample[e] + 1]++;
	for (e = 0; e < n; e++)
		c->at[e + 1] += c->at[e];
	fill = xmalloc(st_mult(n + 1, sizeof(*fill)));
	memcpy(fill, c->at, n * sizeof(*fill));
	for (d = 0; d < c->dumps; d++)   /* dump by dump: each sample's changes in dump order */
		for (e = c->first[d]; e < c->first[d + 1]; e++) {
			size_t k = fill[c->sample[e]]++;
			c->by_sample[k] = (uint32_t)e;
			c->dump_of[k] = (uint32_t)d;
		}
	free(fill);
}

void hpa_sample_add_series(const struct hpa_profile *prof, uint32_t i, int v, double w, double *out)
{
	const struct hpa_dump_changes *c = prof->changes;
	unsigned j = 0;
	size_t k, d = 0;
	double now = 0;
	int t;

	if (!c) {
		out[prof->samples[i].input - 1] += prof->samples[i].v[v] * w;
		return;
	}
	if (!(c->values >> v & 1))
		HPA_BUG("value %d not kept in the folded series", v);
	for (t = 0; t < v; t++)
		j += c->values >> t & 1;
	for (k = c->at[i]; k < c->at[i + 1]; k++) {
		for (; d < c->dump_of[k]; d++)
			out[d] += now;
		now = c->v[(size_t)c->by_sample[k] * c->nvalues + j] * w;
	}
	for (; d < c->dumps; d++)
		out[d] += now;
}

void hpa_dump_changes_free(struct hpa_dump_changes *c)
{
	if (!c)
		return;
	free(c->at);
	free(c->by_sample);
	free(c->dump_of);
	free(c->first);
	free(c->sample);
	free(c->v);
	free(c->now);
	free(c->of_stack);
	free(c);
}
