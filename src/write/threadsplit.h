/*
 * --proto's samples split by thread (threadsplit.c).  Private to src/write.
 */
#ifndef HPA_WRITE_THREADSPLIT_H
#define HPA_WRITE_THREADSPLIT_H

#include "hpa/compat.h"
#include "hpa/group.h"
#include "hpa/profile.h"
#include "hpa/view.h"

/* One output sample of a group: a thread's share, or what no thread holds. */
struct thread_part {
	int32_t thread;
	double v[HPA_NVALUES];
};

/*
 * The report's groups split by thread as they are written: each stack's
 * value goes to its threads in proportion to their own values, so every
 * column still sums to the report's Total (a thread's unsampled value is
 * its own estimate; the all-threads record is estimated once and may
 * differ from their sum).  What no thread holds stays unlabelled.  A
 * thread's sample has its all-threads sample's stack, so it is in view and
 * in a group exactly when that one is (group_of: the all-threads
 * grouping).  Each group's thread samples are chained in sample order
 * (two ids per sample and group, where a table of per-thread sums for the
 * whole profile took 14 MB on 180k stacks); an all-threads sample one
 * thread holds whole is that thread's own too (hpa_sample_own_thread).  A group's sums are made
 * when it is written, twice: once for the label strings, once for the
 * samples.
 */
struct thread_split {
	const struct hpa_profile *prof;
	const struct hpa_view_opts *vo;   /* the weights of the view grouped */
	uint32_t *head;                 /* per group (1-based): its first thread sample + 1, 0: none */
	uint32_t *next;                 /* per sample: the next thread sample of its group + 1 */
	struct thread_part *tp, *out;   /* one group's threads, its output samples */
	size_t atp, aout;
};

/* The name of thread `id`, or NULL. */
const char *thread_name(const struct hpa_profile *prof, int32_t id);
/* group_of: the all-threads grouping's group of each sample (1-based, 0: none). */
void thread_split_init(struct thread_split *ts, const struct hpa_profile *prof,
		       const struct hpa_view_opts *vo, size_t ngroups, const uint32_t *group_of);
void thread_split_release(struct thread_split *ts);
/* Group g's threads in ts->tp (each once, in sample order), without values; their number. */
size_t thread_order(struct thread_split *ts, uint32_t g);
/* Group g's output samples (in ts->out): split by thread, or the group itself; their number. */
size_t group_parts(struct thread_split *ts, bool threads, uint32_t g, const struct hpa_path_group *grp);

#endif
