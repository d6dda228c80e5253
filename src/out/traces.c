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
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

struct trace {
	uint32_t text;   /* strtab id: frames, one per line */
	double value;
};

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
	if (asprintf(&out, "%s%s%s%s%s", name, f.level + 1 < l->line_nr ? " (inline)" : "",
		     *file ? " " : "", file, line) < 0)
		abort();
	free(name);
	return out;
}

static const struct hpa_strtab *sort_tab;

static int cmp_traces(const void *a, const void *b)
{
	const struct trace *x = a, *y = b;

	if (fabs(x->value) != fabs(y->value))
		return fabs(x->value) > fabs(y->value) ? -1 : 1;
	return strcmp(hpa_strtab_get(sort_tab, x->text), hpa_strtab_get(sort_tab, y->text));
}

int hpa_report_traces(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_view view;
	struct hpa_strtab frames_tab, texts;
	uint32_t *slot_text = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*slot_text));
	struct trace *traces = NULL;
	size_t ntraces = 0, atraces = 0, i, f, nr, len, alloc = 0;
	const struct hpa_frame *frames;
	double total = 0;
	char *buf = NULL, num[2][48];

	if (hpa_check_value_data(prof, opts) < 0) {
		free(slot_text);
		return -1;
	}
	hpa_strtab_init(&frames_tab);
	hpa_strtab_init(&texts);
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		double value;
		uint32_t id;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		value = hpa_view_value(&view, i);
		total += value;
		len = 0;
		for (f = 0; f < nr; f++) {   /* leaf first, one frame per line */
			size_t slot = hpa_frame_slot(prof, frames[f]), n;
			const char *t;

			if (!slot_text[slot]) {
				char *text = frame_text(prof, frames[f]);
				slot_text[slot] = hpa_strtab_intern(&frames_tab, text);
				free(text);
			}
			t = hpa_strtab_get(&frames_tab, slot_text[slot]);
			n = strlen(t);
			HPA_GROW(buf, len + n + 8, alloc);
			memcpy(buf + len, "      ", 6);
			memcpy(buf + len + 6, t, n);
			len += n + 6;
			buf[len++] = '\n';
		}
		if (!len) {
			HPA_GROW(buf, 32, alloc);
			len = (size_t)sprintf(buf, "      <no stack>\n");
		}
		id = hpa_strtab_intern_len(&texts, buf, len);
		if (id > ntraces) {
			HPA_GROW(traces, ntraces + 1, atraces);
			traces[ntraces].text = id;
			traces[ntraces].value = 0;
			ntraces++;
		}
		traces[id - 1].value += value;
	}
	hpa_view_release(&view);

	total = hpa_dust_to_zero(total);
	sort_tab = &texts;
	qsort(traces, ntraces, sizeof(*traces), cmp_traces);
	hpa_format_value(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s %s in %zu stacks\n", num[0], hpa_units(opts), ntraces);
	for (i = 0; i < ntraces; i++) {
		if (hpa_dust_to_zero(traces[i].value) == 0)
			continue;
		hpa_format_value(num[0], sizeof(num[0]), traces[i].value, opts);
		hpa_format_percent(num[1], sizeof(num[1]), traces[i].value, total);
		fprintf(fp, "-----------\n%s %s (%s)\n%s", num[0], hpa_units(opts), num[1],
			hpa_strtab_get(&texts, traces[i].text));
	}
	free(buf);
	free(traces);
	free(slot_text);
	hpa_strtab_release(&frames_tab);
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
