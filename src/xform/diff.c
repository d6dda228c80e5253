#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/diff.h"
#include "hpa/strtab.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

static double side_total(const struct hpa_profile *prof, const struct hpa_opts *opts, bool base)
{
	double t = 0;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		if (s->thread == opts->thread && prof->inputs[s->input - 1].is_base == base)
			t += s->v[opts->value];
	}
	return t;
}

/* Append one frame's symbolic name: module, then function, file, line or address. */
static void frame_key(const struct hpa_profile *prof, struct hpa_frame f, char **buf,
		      size_t *len, size_t *alloc)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	const char *module = hpa_profile_loc_module(prof, f.loc);
	int n;

	for (;;) {
		size_t room = *alloc - *len;
		if (l->line_nr) {
			const struct hpa_line *ln = &prof->lines[l->line_first + f.level];
			n = snprintf(*buf + *len, room, "%s\x1f%s\x1f%s\x1f%u\x1e", module ? module : "",
				     hpa_profile_str(prof, prof->funcs[ln->func].name),
				     hpa_profile_str(prof, ln->file), ln->line);
		} else {
			n = snprintf(*buf + *len, room, "%s\x1f" "0x%llx\x1e", module ? module : "",
				     (unsigned long long)l->addr);
		}
		if (n >= 0 && (size_t)n < room)
			break;
		HPA_GROW(*buf, *alloc + (size_t)n + 64, *alloc);
	}
	*len += (size_t)n;
}

/*
 * Remove the samples of every stack whose weighted sum is negative.  Stacks
 * are compared as the reports show them (view.h): by the symbols of their
 * visible frames, so dumps of different runs match despite ASLR.
 */
static void drop_negative(struct hpa_profile *prof, const struct hpa_opts *opts)
{
	struct hpa_view view;
	struct hpa_strtab keys;
	uint32_t *group = xcalloc(prof->samples_nr + 1, sizeof(*group));
	const struct hpa_frame *frames;
	double *net = NULL;
	char *buf = NULL;
	size_t alloc = 64, net_alloc = 0, i, j, nr, kept = 0, before;

	buf = xmalloc(alloc);
	hpa_strtab_init(&keys);
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		size_t len;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;   /* group 0: not in any report anyway */
		len = (size_t)snprintf(buf, alloc, "t%d\x1e", prof->samples[i].thread);
		for (j = 0; j < nr; j++)
			frame_key(prof, frames[j], &buf, &len, &alloc);
		before = keys.nr;
		group[i] = hpa_strtab_intern_len(&keys, buf, len);
		HPA_GROW(net, keys.nr, net_alloc);
		if (keys.nr > before)
			net[group[i]] = 0;
		net[group[i]] += hpa_view_value(&view, i);
	}
	hpa_view_release(&view);
	for (i = 0; i < prof->samples_nr; i++)
		if (!group[i] || net[group[i]] >= 0)
			prof->samples[kept++] = prof->samples[i];
	prof->samples_nr = kept;
	free(buf);
	free(net);
	free(group);
	hpa_strtab_release(&keys);
}

int hpa_apply_base(struct hpa_profile *prof, const struct hpa_opts *opts)
{
	size_t i;

	if (!opts->base)
		return 0;
	if (opts->normalize) {
		double p = side_total(prof, opts, false), b = side_total(prof, opts, true);
		if (b == 0) {
			hpa_warn("%s: the base has no %s; --normalize leaves it as is", opts->base,
				 hpa_value_name(opts->value));
		} else {
			for (i = 0; i < prof->inputs_nr; i++)
				if (prof->inputs[i].is_base)
					prof->inputs[i].weight = -(p / b);
		}
	}
	if (opts->drop_negative)
		drop_negative(prof, opts);
	return 0;
}
