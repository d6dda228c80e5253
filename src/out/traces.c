/*
 * --traces: every distinct stack (as the view shows it) with its value,
 * largest first; and --threads: the per-thread totals of jemalloc's tN
 * lines, with the thread names from the profile header.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

/* "function[ (inline)][ file[:line]]", or the label of an unknown frame. */
static char *frame_text(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	const struct hpa_line *ln;
	const char *file;
	char *name, *out, line[16] = "";

	if (!l->line_nr)
		return hpa_frame_label(prof, f);
	ln = &prof->lines[l->line_first + f.level];
	file = hpa_profile_str(prof, ln->file);
	name = xstrdup(hpa_profile_str(prof, prof->funcs[ln->func].name));
	hpa_short_name(name);
	if (*file && ln->line)
		snprintf(line, sizeof(line), ":%u", ln->line);
	out = hpa_xasprintf("%s%s%s%s%s", name, f.level + 1 < l->line_nr ? " (inline)" : "",
			    *file ? " " : "", file, line);
	free(name);
	return out;
}

static const struct hpa_strtab *sort_tab;

static int cmp_traces(const void *a, const void *b)
{
	const struct hpa_stack_group *x = a, *y = b;
	double vx = fabs(x->after - x->before), vy = fabs(y->after - y->before);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_tab, x->text), hpa_strtab_get(sort_tab, y->text));
}

int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	static const struct hpa_stack_format fmt = { frame_text, false, "      ", "\n",
						     "      <no stack>\n" };
	struct hpa_strtab texts;
	struct hpa_stack_group *traces;
	size_t ntraces, i;
	double total;
	char num[2][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	hpa_strtab_init(&texts);
	ntraces = hpa_group_stacks(prof, opts, &fmt, &texts, &traces, &total);
	total = hpa_dust_to_zero(total);
	sort_tab = &texts;
	if (ntraces > 1)
		qsort(traces, ntraces, sizeof(*traces), cmp_traces);
	hpa_format_value(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s %s in %zu stacks\n", num[0], hpa_units(opts), ntraces);
	for (i = 0; i < ntraces; i++) {
		double value = hpa_dust_to_zero(traces[i].after - traces[i].before);

		if (value == 0)
			continue;
		hpa_format_value(num[0], sizeof(num[0]), value, opts);
		hpa_format_percent(num[1], sizeof(num[1]), value, total);
		fprintf(fp, "-----------\n%s %s (%s)\n%s", num[0], hpa_units(opts), num[1],
			hpa_strtab_get(&texts, traces[i].text));
	}
	free(traces);
	hpa_strtab_release(&texts);
	return 0;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct hpa_thread *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

/* The view's total for one thread (HPA_THREAD_ALL: the t* lines). */
static double thread_total(const struct hpa_profile *prof, const struct hpa_opts *opts,
			   int32_t thread)
{
	struct hpa_opts o = *opts;
	struct hpa_view view;
	const struct hpa_frame *frames;
	double total = 0;
	size_t i, nr;

	o.thread = thread;
	hpa_view_init(&view, prof, &o);
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
	hpa_format_value(num[0], sizeof(num[0]), all, opts);
	fprintf(fp, "Total: %s %s (all threads, t*)\n", num[0], hpa_units(opts));
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
