/*
 * What symbolization left unnamed, per module, weighted by the selected
 * value of the stacks a report shows (after allocator frames are cut).
 */
#include "hpa/compat.h"

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
	size_t stamp;        /* sample index + 1 that last added value */
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
	size_t nr = 0, alloc = 0, i, f;
	double total = hpa_profile_total(prof, v, HPA_THREAD_ALL);

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		size_t n;
		unsigned skip;

		if (s->thread != HPA_THREAD_ALL || !s->stack)
			continue;
		n = hpa_visible_stack(prof, s->stack, keep_internal, &frames, &skip);
		for (f = 0; f < n; f++) {
			const struct hpa_location *l = &prof->locs[frames[f]];
			const char *path = hpa_profile_loc_path(prof, frames[f]);
			struct unnamed *u;

			if (l->line_nr || l->addr >= HPA_KERNEL_FLOOR)
				continue;
			u = find(&tab, &nr, &alloc, !path ? "unmapped addresses" : *path ? path : "[anon]",
				 l->mapping);
			if (!seen[frames[f]]) {
				seen[frames[f]] = true;
				u->addrs++;
			}
			if (u->stamp != i + 1) {
				u->stamp = i + 1;
				u->value += s->v[v];
			}
		}
	}

	for (i = 0; i < nr; i++) {
		const struct unnamed *u = &tab[i];
		const struct hpa_mapping *m = u->mapping ? &prof->mappings[u->mapping] : NULL;
		const char *base = strrchr(u->path, '/');
		char share[32];

		base = base ? base + 1 : u->path;
		if (total != 0)
			snprintf(share, sizeof(share), "%.1f%%", u->value * 100.0 / total);
		else
			snprintf(share, sizeof(share), "%s", "n/a");
		if (!m) {
			hpa_warn("%zu address%s outside every mapped file (%s of %s)", u->addrs,
				 u->addrs == 1 ? "" : "es", share, hpa_value_name(v));
		} else if (m->sym_error) {
			hpa_warn("%s: %zu address%s without symbols (%s of %s): %s", base, u->addrs,
				 u->addrs == 1 ? "" : "es", share, hpa_value_name(v),
				 hpa_profile_str(prof, m->sym_error));
		} else if (!m->sym_file) {
			hpa_warn("%s: %zu address%s without symbols (%s of %s): not a file hpa opens",
				 base, u->addrs, u->addrs == 1 ? "" : "es", share, hpa_value_name(v));
		} else {
			char dirs[512] = "/usr/lib/debug";
			size_t d;
			for (d = 0; d < opts->debug_dirs_nr; d++) {
				strncat(dirs, ", ", sizeof(dirs) - strlen(dirs) - 1);
				strncat(dirs, opts->debug_dirs[d], sizeof(dirs) - strlen(dirs) - 1);
			}
			hpa_warn("%s: %zu address%s without symbols (%s of %s): no debug info or "
				 "symbol covers them; looked in %s, %s", base, u->addrs,
				 u->addrs == 1 ? "" : "es", share, hpa_value_name(v),
				 hpa_profile_str(prof, m->sym_file), dirs);
		}
	}
	free(tab);
	free(seen);
}
