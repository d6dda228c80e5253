/*
 * What symbolization left unnamed, per module, weighted by the selected
 * value of the stacks a report shows (after allocator frames are cut).
 *
 * Shares are of the gross value: each sample counts |value x weight|, so
 * under --base a stack of the base counts as much as one of the profile,
 * and a self-diff (net total 0) still gives each module its true share.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/strip.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct unnamed {
	uint32_t mapping;    /* a mapping of the module (0: unmapped addresses) */
	const char *path;
	double value;
	size_t addrs;
	size_t stamp;        /* stack id that last added value */
};

static struct unnamed *find(struct unnamed **tab, size_t *nr, size_t *alloc,
			    const char *path, uint32_t mapping)
{
	size_t i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*tab)[i].path, path))
			return &(*tab)[i];
	HPA_GROW(*tab, *nr + 1, *alloc);
	memset(&(*tab)[*nr], 0, sizeof(**tab));
	(*tab)[*nr].path = path;
	(*tab)[*nr].mapping = mapping;
	return &(*tab)[(*nr)++];
}

void hpa_warn_unsymbolized(const struct hpa_profile *prof, const struct hpa_sym_opts *opts,
			   enum hpa_value v, bool keep_internal)
{
	struct unnamed *tab = NULL;
	const uint32_t *frames;
	bool *seen = xcalloc(prof->locs_nr, sizeof(*seen));
	bool *unnamed = xmalloc(prof->locs_nr + 1);   /* per location: small, read per frame */
	double *stack_value;   /* per stack: its samples' values; -1 for none */
	size_t nr = 0, alloc = 0, i, f;
	double total = 0, value;
	bool base = false, empty = true;

	for (i = 0; i < prof->inputs_nr; i++) {
		base |= prof->inputs[i].is_base;
		empty &= prof->inputs[i].no_samples;
	}
	if (empty) {   /* "no samples" was said: names would not change anything */
		free(seen);
		free(unnamed);
		return;
	}
	for (i = 0; i < prof->locs_nr; i++)
		unnamed[i] = !prof->locs[i].line_nr && prof->locs[i].addr < HPA_KERNEL_FLOOR;
	/*
	 * Each stack's frames once, with the values of its samples: dumps
	 * added up or diffed share most of their stacks (--base and --growth
	 * of two dumps: 342k samples, 180k stacks).  Stack ids come in the
	 * order of the samples that first have them, so the modules are met
	 * in the same order as sample by sample.
	 */
	stack_value = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*stack_value)));
	for (i = 0; i < prof->stacks_nr; i++)
		stack_value[i] = -1;
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];

		if (s->thread != HPA_THREAD_ALL)
			continue;
		value = fabs(s->v[v] * prof->inputs[s->input - 1].weight);
		total += value;
		if (s->stack)
			stack_value[s->stack] = stack_value[s->stack] < 0 ? value : stack_value[s->stack] + value;
	}
	for (i = 1; i < prof->stacks_nr; i++) {
		size_t n;
		unsigned skip;

		if (stack_value[i] < 0)
			continue;
		value = stack_value[i];
		n = hpa_visible_stack(prof, (uint32_t)i, keep_internal, &frames, &skip);
		for (f = 0; f < n; f++) {
			const struct hpa_location *l;
			const char *path;
			struct unnamed *u;

			if (!unnamed[frames[f]])
				continue;
			l = &prof->locs[frames[f]];
			path = hpa_profile_loc_path(prof, frames[f]);
			u = find(&tab, &nr, &alloc, !path ? "unmapped addresses" : *path ? path : "[anon]",
				 l->mapping);
			if (!seen[frames[f]]) {
				seen[frames[f]] = true;
				u->addrs++;
			}
			if (u->stamp != i + 1) {
				u->stamp = i + 1;
				u->value += value;
			}
		}
	}

	for (i = 0; i < nr; i++) {
		const struct unnamed *u = &tab[i];
		const struct hpa_mapping *m = u->mapping ? &prof->mappings[u->mapping] : NULL;
		const char *name = strrchr(u->path, '/');
		char share[96];

		name = name ? name + 1 : u->path;
		if (total > 0)
			snprintf(share, sizeof(share), "%.1f%% of %s%s", u->value * 100.0 / total,
				 hpa_value_name(v), base ? " in profile and base" : "");
		else
			snprintf(share, sizeof(share), "no %s", hpa_value_name(v));
		if (!m) {
			hpa_warn("%zu address%s outside every mapped file (%s)", u->addrs,
				 u->addrs == 1 ? "" : "es", share);
		} else if (m->sym_error) {
			hpa_warn("%s: %zu address%s without symbols (%s): %s", name, u->addrs,
				 u->addrs == 1 ? "" : "es", share,
				 hpa_profile_str(prof, m->sym_error));
		} else if (!m->sym_file) {
			hpa_warn("%s: %zu address%s without symbols (%s): not a file hpa opens",
				 name, u->addrs, u->addrs == 1 ? "" : "es", share);
		} else {
			char dirs[512] = "/usr/lib/debug";
			size_t d;
			for (d = 0; d < opts->debug_dirs_nr; d++) {
				strncat(dirs, ", ", sizeof(dirs) - strlen(dirs) - 1);
				strncat(dirs, opts->debug_dirs[d], sizeof(dirs) - strlen(dirs) - 1);
			}
			hpa_warn("%s: %zu address%s without symbols (%s): no debug info or "
				 "symbol covers them; looked in %s, %s", name, u->addrs,
				 u->addrs == 1 ? "" : "es", share,
				 hpa_profile_str(prof, m->sym_file), dirs);
		}
	}
	free(tab);
	free(seen);
	free(unnamed);
	free(stack_value);
}
