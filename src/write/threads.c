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
	const struct hpa_thread *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* The view's total for one thread (HPA_THREAD_ALL: the t* lines). */
static double thread_total(const struct hpa_profile *prof, const struct hpa_opts *opts,
			   int32_t thread)
{
	struct hpa_view_opts vo = hpa_view_opts(opts);
	struct hpa_view view;
	const struct hpa_frame *frames;
	double total = 0;
	size_t i, nr;

	vo.thread = thread;
	hpa_view_init(&view, prof, &vo);
	for (i = 0; i < prof->samples_nr; i++)
		if (hpa_view_sample(&view, i, &frames, &nr))
			total += hpa_view_value(&view, i);
	hpa_view_release(&view);
	return total;
}

int hpa_report_threads(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_thread *threads;
	double all;
	size_t i;
	char num[2][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	if (!prof->threads_nr)
		return hpa_error("%s: no per-thread data (only jemalloc heap_v2 profiles have tN lines)",
				 prof->inputs_nr ? prof->inputs[0].path : "profile");
	threads = xmalloc(st_mult(prof->threads_nr, sizeof(*threads)));
	memcpy(threads, prof->threads, prof->threads_nr * sizeof(*threads));
	qsort(threads, prof->threads_nr, sizeof(*threads), cmp_thread);
	all = thread_total(prof, opts, HPA_THREAD_ALL);
	hpa_format_total(num[0], sizeof(num[0]), all, opts);
	fprintf(fp, "Total: %s (all threads, t*)\n", num[0]);
	fprintf(fp, "%8s %12s %6s  %s\n", "thread", hpa_value_name(opts->value), "%", "name");
	for (i = 0; i < prof->threads_nr; i++) {
		double t = thread_total(prof, opts, threads[i].id);
		char id[16];

		snprintf(id, sizeof(id), "t%d", threads[i].id);
		hpa_format_value(num[0], sizeof(num[0]), t, opts);
		hpa_format_percent(num[1], sizeof(num[1]), t, all);
		fprintf(fp, "%8s %12s %6s  %s\n", id, num[0], num[1],
			threads[i].name ? threads[i].name : "-");
	}
	free(threads);
	return 0;
}
