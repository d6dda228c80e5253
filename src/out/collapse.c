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

#include "hpa/report.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

struct line {
	uint32_t stack;      /* strtab id of the folded stack text */
	double before, after;
};

/* Make a frame name safe for folded text, in place. */
static void sanitize(char *name)
{
	char *p;
	size_t n;

	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (*p == ';')
			*p = ':';
		else if (c < 0x20 || c == 0x7f)
			*p = '?';
	}
	n = strlen(name);
	p = name + n;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p < name + n && p > name && p[-1] == ' ')
		p[-1] = '_';
}

static char *frame_name(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	char *name;

	if (!l->line_nr) {
		name = hpa_frame_label(prof, f);
	} else {
		const struct hpa_line *ln = &prof->lines[l->line_first + f.level];
		const char *fn = hpa_profile_str(prof, prof->funcs[ln->func].name);

		if (asprintf(&name, "%s%s", fn, f.level + 1 < l->line_nr ? "[inline]" : "") < 0)
			abort();
	}
	sanitize(name);
	return name;
}

static long long trunc_ll(double v)
{
	return v >= 9.2e18 ? LLONG_MAX : v <= -9.2e18 ? LLONG_MIN : (long long)v;
}

static const struct hpa_strtab *sort_tab;

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(hpa_strtab_get(sort_tab, ((const struct line *)a)->stack),
		      hpa_strtab_get(sort_tab, ((const struct line *)b)->stack));
}

int hpa_report_collapse(FILE *fp, const struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_view view;
	struct hpa_strtab names, stacks;
	uint32_t *slot_name = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*slot_name));
	struct line *lines = NULL;
	size_t nlines = 0, alines = 0, i, f, nr, len = 0, alloc = 0;
	const struct hpa_frame *frames;
	char *buf = NULL;

	if (hpa_check_value_data(prof, opts) < 0) {
		free(slot_name);
		return -1;
	}
	hpa_strtab_init(&names);
	hpa_strtab_init(&stacks);
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		double value;
		uint32_t id;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		value = hpa_view_value(&view, i);
		len = 0;
		for (f = nr; f-- > 0;) {   /* root first */
			size_t slot = hpa_frame_slot(prof, frames[f]);
			const char *n;
			size_t nl;

			if (!slot_name[slot]) {
				char *name = frame_name(prof, frames[f]);
				slot_name[slot] = hpa_strtab_intern(&names, name);
				free(name);
			}
			n = hpa_strtab_get(&names, slot_name[slot]);
			nl = strlen(n);
			HPA_GROW(buf, len + nl + 2, alloc);
			if (len)
				buf[len++] = ';';
			memcpy(buf + len, n, nl);
			len += nl;
		}
		if (!len) {
			HPA_GROW(buf, 16, alloc);
			len = (size_t)sprintf(buf, "<no stack>");
		}
		/* Stack ids are dense from 1, so lines[id - 1] is the stack's line. */
		id = hpa_strtab_intern_len(&stacks, buf, len);
		if (id > nlines) {
			HPA_GROW(lines, nlines + 1, alines);
			lines[nlines].stack = id;
			lines[nlines].before = lines[nlines].after = 0;
			nlines++;
		}
		if (prof->inputs[prof->samples[i].input - 1].is_base)
			lines[id - 1].before -= value;
		else
			lines[id - 1].after += value;
	}
	hpa_view_release(&view);

	sort_tab = &stacks;
	qsort(lines, nlines, sizeof(*lines), cmp_lines);
	for (i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];
		const char *text = hpa_strtab_get(&stacks, l->stack);

		if (opts->diff_columns) {
			long long b = trunc_ll(l->before), a = trunc_ll(l->after);
			if (b || a)
				fprintf(fp, "%s %lld %lld\n", text, b, a);
		} else {
			long long v = trunc_ll(l->after - l->before);
			if (v)
				fprintf(fp, "%s %lld\n", text, v);
		}
	}
	free(buf);
	free(lines);
	free(slot_name);
	hpa_strtab_release(&names);
	hpa_strtab_release(&stacks);
	return 0;
}
