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
	c->last = grow_zeroed(c->last, sizeof(*c->last), folded, &c->last_alloc);
	for (i = 0; i < folded; i++) {   /* what changed since the dump before (a new sample's: from 0) */
		double *now = c->now + i * nv, *is = cur + i * nv;

		if (!memcmp(now, is, nv * sizeof(*is)))
			continue;
		if (c->nr == c->alloc) {
			size_t was = c->alloc;

			c->alloc = c->alloc ? 2 * c->alloc : 1024;
			c->prev = xgrow(c->prev, was * sizeof(*c->prev), st_mult(c->alloc, sizeof(*c->prev)));
			c->v = xgrow(c->v, st_mult(was, nv * sizeof(*c->v)), st_mult(c->alloc, nv * sizeof(*c->v)));
		}
		if (c->nr >= UINT32_MAX)
			HPA_BUG("more than 2^32 - 1 changes in a series");
		c->prev[c->nr] = c->last[i];
		c->last[i] = (uint32_t)++c->nr;
		memcpy(c->v + (c->nr - 1) * nv, is, nv * sizeof(*is));
		memcpy(now, is, nv * sizeof(*is));
	}
	free(cur);
	prof->samples_nr = folded;
	c->dumps++;
	HPA_GROW(c->first, c->dumps + 1, c->first_alloc);
	c->first[c->dumps] = c->nr;
}

void hpa_sample_add_series(const struct hpa_profile *prof, uint32_t i, int v, double w, double *out)
{
	const struct hpa_dump_changes *c = prof->changes;
	size_t d, end, e;
	unsigned j = 0;
	int t;

	if (!c) {
		out[prof->samples[i].input - 1] += prof->samples[i].v[v] * w;
		return;
	}
	if (!(c->values >> v & 1))
		HPA_BUG("value %d not kept in the folded series", v);
	for (t = 0; t < v; t++)
		j += c->values >> t & 1;
	/*
	 * From the last change back: each holds from its dump up to the next
	 * change's (the last, to the end), its dump found going down as the
	 * changes do; before the first, 0.
	 */
	end = c->dumps;
	d = c->dumps ? c->dumps - 1 : 0;
	for (e = c->last[i]; e; e = c->prev[e - 1]) {
		double now = c->v[(e - 1) * c->nvalues + j] * w;

		while (c->first[d] > e - 1)
			d--;
		for (; end > d; end--)
			out[end - 1] += now;
	}
}

void hpa_dump_changes_free(struct hpa_dump_changes *c)
{
	if (!c)
		return;
	free(c->first);
	free(c->prev);
	free(c->last);
	free(c->v);
	free(c->now);
	free(c->of_stack);
	free(c);
}
