/*
 * --threads: the per-thread totals of jemalloc's tN lines, with the thread
 * names from the profile header, each as the view shows it.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

static int cmp_thread(const void *a, const void *b)
{
	const struct hpa_thread *x = *(const struct hpa_thread *const *)a;
	const struct hpa_thread *y = *(const struct hpa_thread *const *)b;
	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The view's totals of every thread into totals[] (by place in
 * prof->threads), and of the t* lines into *all: one pass over the samples,
 * one view (its filters do not depend on the thread).
 */
static void thread_totals(const struct hpa_profile *prof, const struct hpa_write_opts *opts,
			  double *totals, double *all)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_view view;
	const struct hpa_frame *frames;
	size_t i, n, k;

	vo.thread = HPA_VIEW_EVERY_THREAD;
	hpa_view_init(&view, prof, &vo);
	*all = 0;
	for (i = 0; i < prof->samples_nr; i++) {
		int32_t t = prof->samples[i].thread;

		if (!hpa_view_sample(&view, i, &frames, &n))
			continue;
		if (t == HPA_THREAD_ALL)
			*all += hpa_view_value(&view, i);
		else if ((k = hpa_profile_thread_place(prof, t)) != 0)
			totals[k - 1] += hpa_view_value(&view, i);
	}
	hpa_view_release(&view);
}

int hpa_report_threads(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	const struct hpa_thread **threads;
	double all, *totals;
	size_t i;
	char num[2][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	if (!prof->threads_nr)
		return hpa_error("%s: no per-thread data (only jemalloc heap_v2 profiles have tN lines)",
				 prof->inputs_nr ? prof->inputs[0].path : "profile");
	threads = xmalloc(st_mult(prof->threads_nr, sizeof(*threads)));   /* sorted by id */
	for (i = 0; i < prof->threads_nr; i++)
		threads[i] = &prof->threads[i];
	qsort(threads, prof->threads_nr, sizeof(*threads), cmp_thread);
	totals = xcalloc(prof->threads_nr, sizeof(*totals));
	thread_totals(prof, opts, totals, &all);
	hpa_format_total(num[0], sizeof(num[0]), all, opts);
	fprintf(fp, "Total: %s (all threads, t*)\n", num[0]);
	fprintf(fp, "%8s %12s %6s  %s\n", "thread", hpa_value_name(opts->view.value), "%", "name");
	for (i = 0; i < prof->threads_nr; i++) {
		double t = totals[threads[i] - prof->threads];
		char id[16];

		snprintf(id, sizeof(id), "t%d", threads[i]->id);
		hpa_format_value(num[0], sizeof(num[0]), t, opts);
		hpa_format_percent(num[1], sizeof(num[1]), t, all);
		fprintf(fp, "%8s %12s %6s  %s\n", id, num[0], num[1],
			threads[i]->name ? threads[i]->name : "-");
	}
	free(threads);
	free(totals);
	return 0;
}
