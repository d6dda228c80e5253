/*
 * Folded stacks (--collapse), the input of flamegraph.pl and inferno:
 * "root;...;leaf VALUE", one line per distinct stack of names, sorted by the
 * stack text.  Inline frames are frames of their own, the inlined callee
 * marked "[inline]" as jeprof does; names are full (demangled, with their
 * arguments).  Names are made safe for the format: ';' becomes ':',
 * control characters '?', and a name ending in " <digits>" gets '_' for
 * that blank so no parser takes it for a count.  With --base the values
 * are differences and may be negative; --diff-columns prints
 * "stack BEFORE AFTER" instead, for differential flame graphs.
 */
#include "hpa/compat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/names.h"
#include "hpa/report.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

static long long trunc_ll(double v)
{
	return v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
}

static const struct hpa_strtab *sort_tab;

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(hpa_strtab_get(sort_tab, ((const struct hpa_stack_group *)a)->text),
		      hpa_strtab_get(sort_tab, ((const struct hpa_stack_group *)b)->text));
}

int hpa_report_collapse(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_view_opts vo = hpa_view_opts(opts);
	struct hpa_stack_format fmt = hpa_folded_format;
	struct hpa_strtab stacks;
	struct hpa_stack_group *lines;
	size_t nlines, i;
	double total;

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	hpa_strtab_init(&stacks);
	fmt.root_first = !opts->reverse;   /* --reverse: leaf first */
	if (opts->short_names)
		fmt.name = hpa_folded_short_frame;
	nlines = hpa_group_stacks(prof, &vo, &fmt, &stacks, &lines, &total, NULL, NULL);
	sort_tab = &stacks;
	if (nlines > 1)
		qsort(lines, nlines, sizeof(*lines), cmp_lines);
	for (i = 0; i < nlines; i++) {
		const struct hpa_stack_group *l = &lines[i];
		const char *text = hpa_strtab_get(&stacks, l->text);
		int tl = (int)strlen(text) - 1;   /* without the last ';' */

		if (opts->diff_columns) {
			long long b = trunc_ll(l->before), a = trunc_ll(l->after);
			if (b || a)
				fprintf(fp, "%.*s %lld %lld\n", tl, text, b, a);
		} else {
			long long v = trunc_ll(l->after - l->before);
			if (v)
				fprintf(fp, "%.*s %lld\n", tl, text, v);
		}
	}
	free(lines);
	hpa_strtab_release(&stacks);
	return 0;
}
