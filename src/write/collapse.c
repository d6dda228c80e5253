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
#include "hpa/strbuf.h"
#include "hpa/view.h"

static long long trunc_ll(double v)
{
	return v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
}

struct lines {
	FILE *fp;
	const struct hpa_profile *prof;
	const struct hpa_view_opts *vo;
	bool diff_columns;
};

/* " N" for a count, into out (room for 21 bytes); returns the length. */
static size_t put_count(char *out, long long v)
{
	out[0] = ' ';
	return 1 + hpa_lltoa(out + 1, v);
}

/* One distinct stack: its line, unless its value is 0. */
static void emit_line(void *ctx, const char *text, size_t len, const uint32_t *samples,
		      const double *values, size_t n)
{
	struct lines *l = ctx;
	double before, after;
	size_t tl = len ? len - 1 : 0;   /* without the last ';' */
	char nums[48];
	size_t nl = 0;

	hpa_stack_sides(l->prof, l->vo, samples, values, n, &before, &after);
	if (l->diff_columns) {
		long long b = trunc_ll(before), a = trunc_ll(after);
		if (!b && !a)
			return;
		nl = put_count(nums, b);
		nl += put_count(nums + nl, a);
	} else {
		long long v = trunc_ll(after - before);
		if (!v)
			return;
		nl = put_count(nums, v);
	}
	nums[nl++] = '\n';
	fwrite_unlocked(text, 1, tl, l->fp);   /* the walk runs on this thread alone */
	fwrite_unlocked(nums, 1, nl, l->fp);
}

/*
 * The folded format's texts come in text order, each once (group.h), so
 * lines are written as the walk finds them, with no table of texts.
 */
int hpa_report_collapse(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_stack_format fmt = hpa_folded_format;
	struct lines l = { fp, prof, &vo, opts->diff_columns };

	if (hpa_check_value_data(prof, opts) < 0)
		return -1;
	fmt.root_first = !opts->reverse;   /* --reverse: leaf first */
	if (opts->short_names)
		fmt.name = hpa_folded_short_frame;
	hpa_walk_stacks(prof, &vo, &fmt, true, emit_line, &l);
	return 0;
}
