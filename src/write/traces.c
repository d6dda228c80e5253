/*
 * --traces: every distinct stack (as the view shows it) with its value,
 * largest first.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

/* "function[ (inline)][ file[:line]]", or the label of an unknown frame. */
static char *frame_text(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	const struct hpa_line *ln;
	const char *file;
	char line[16] = "";

	if (!l->line_nr)
		return xstrdup(hpa_frame_display(prof, f));
	ln = &prof->lines[l->line_first + f.level];
	file = hpa_profile_str(prof, ln->file);
	if (*file && ln->line)
		snprintf(line, sizeof(line), ":%u", ln->line);
	return hpa_xasprintf("%s%s%s%s", hpa_frame_display(prof, f), *file ? " " : "", file, line);
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
						     "      <no stack>\n", false };
	struct hpa_view_opts vo = hpa_view_opts(opts);
	struct hpa_strtab texts;
	struct hpa_stack_group *traces;
	size_t ntraces, i;
	double total;
	char num[2][48];

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	hpa_strtab_init(&texts);
	ntraces = hpa_group_stacks(prof, &vo, &fmt, &texts, &traces, &total, NULL, NULL);
	total = hpa_dust_to_zero(total);
	sort_tab = &texts;
	if (ntraces > 1)
		qsort(traces, ntraces, sizeof(*traces), cmp_traces);
	hpa_format_total(num[0], sizeof(num[0]), total, opts);
	fprintf(fp, "Total: %s in %zu stacks\n", num[0], ntraces);
	hpa_active_filters(fp, &vo);
	for (i = 0; i < ntraces; i++) {
		double value = hpa_dust_to_zero(traces[i].after - traces[i].before);

		if (value == 0)
			continue;
		hpa_format_total(num[0], sizeof(num[0]), value, opts);
		hpa_format_percent(num[1], sizeof(num[1]), value, total);
		fprintf(fp, "-----------\n%s (%s)\n%s", num[0], num[1],
			hpa_strtab_get(&texts, traces[i].text));
	}
	free(traces);
	hpa_strtab_release(&texts);
	return 0;
}
