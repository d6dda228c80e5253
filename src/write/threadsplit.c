/*
 * --proto's samples split by thread (threadsplit.h).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/xalloc.h"
#include "threadsplit.h"

const char *thread_name(const struct hpa_profile *prof, int32_t id)
{
	size_t i;

	for (i = 0; i < prof->threads_nr; i++)
		if (prof->threads[i].id == id)
			return prof->threads[i].name;
	return NULL;
}

void thread_split_init(struct thread_split *ts, const struct hpa_profile *prof,
		       const struct hpa_view_opts *vo, size_t ngroups, const uint32_t *group_of)
{
	uint32_t *group_of_stack = xcalloc(prof->stacks_nr + 1, sizeof(*group_of_stack));
	size_t i;

	memset(ts, 0, sizeof(*ts));
	ts->prof = prof;
	ts->vo = vo;
	ts->head = xcalloc(ngroups + 1, sizeof(*ts->head));
	ts->next = xcalloc(prof->samples_nr + 1, sizeof(*ts->next));
	for (i = 0; i < prof->samples_nr; i++)
		if (group_of[i])
			group_of_stack[prof->samples[i].stack] = group_of[i];
	for (i = prof->samples_nr; i-- > 0;) {
		const struct hpa_sample *s = &prof->samples[i];
		uint32_t g;

		if (hpa_sample_own_thread(s) == HPA_THREAD_ALL || hpa_view_weight(ts->vo, prof, s->input) == 0 ||
		    !(g = group_of_stack[s->stack]))
			continue;
		ts->next[i] = ts->head[g];
		ts->head[g] = (uint32_t)i + 1;
	}
	free(group_of_stack);
}

void thread_split_release(struct thread_split *ts)
{
	free(ts->head);
	free(ts->next);
	free(ts->tp);
	free(ts->out);
}

/* Group g (1-based) as output samples, in ts->out: its threads, latest seen first, then the rest. */
static size_t thread_split(struct thread_split *ts, uint32_t g, const struct hpa_path_group *grp)
{
	const struct hpa_profile *prof = ts->prof;
	double sum[HPA_NVALUES] = { 0 };
	size_t ntp = 0, nout = 0, t, k;
	struct thread_part rest;
	bool left = false;
	uint32_t i;

	for (i = ts->head[g]; i; i = ts->next[i - 1]) {
		const struct hpa_sample *s = &prof->samples[i - 1];
		double weight = hpa_view_weight(ts->vo, prof, s->input);

		int32_t thread = hpa_sample_own_thread(s);

		for (t = 0; t < ntp && ts->tp[t].thread != thread; t++)
			;   /* a stack has few threads */
		if (t == ntp) {
			HPA_GROW(ts->tp, ntp + 1, ts->atp);
			memset(&ts->tp[ntp], 0, sizeof(ts->tp[ntp]));
			ts->tp[ntp++].thread = thread;
		}
		for (k = 0; k < HPA_NVALUES; k++) {
			ts->tp[t].v[k] += s->v[k] * weight;
			sum[k] += s->v[k] * weight;
		}
	}
	HPA_GROW(ts->out, ntp + 1, ts->aout);
	for (t = ntp; t-- > 0;) {
		struct thread_part *o = &ts->out[nout++];

		o->thread = ts->tp[t].thread;
		for (k = 0; k < HPA_NVALUES; k++)
			o->v[k] = sum[k] != 0 ? ts->tp[t].v[k] * grp->v[k] / sum[k] : 0;
	}
	rest.thread = grp->thread;
	for (k = 0; k < HPA_NVALUES; k++) {
		rest.v[k] = sum[k] != 0 ? 0 : grp->v[k];
		left |= rest.v[k] != 0;
	}
	if (left || !ntp)
		ts->out[nout++] = rest;
	return nout;
}

/*
 * The threads of group g's output samples, in their order (ts->tp, last
 * first), without their values: what the label strings need.  The part no
 * thread holds is the group's own thread, all threads here.
 */
size_t thread_order(struct thread_split *ts, uint32_t g)
{
	const struct hpa_profile *prof = ts->prof;
	size_t ntp = 0, t;
	uint32_t i;

	for (i = ts->head[g]; i; i = ts->next[i - 1]) {
		int32_t thread = hpa_sample_own_thread(&prof->samples[i - 1]);

		for (t = 0; t < ntp && ts->tp[t].thread != thread; t++)
			;
		if (t == ntp) {
			HPA_GROW(ts->tp, ntp + 1, ts->atp);
			ts->tp[ntp++].thread = thread;
		}
	}
	return ntp;
}

/* Group g's output samples (in ts->out): split by thread, or the group itself. */
size_t group_parts(struct thread_split *ts, bool threads, uint32_t g, const struct hpa_path_group *grp)
{
	size_t k;

	if (threads)
		return thread_split(ts, g, grp);
	HPA_GROW(ts->out, 1, ts->aout);
	ts->out[0].thread = grp->thread;
	for (k = 0; k < HPA_NVALUES; k++)
		ts->out[0].v[k] = grp->v[k];
	return 1;
}
