/*
 * What symbolization left unnamed, per module, weighted by the selected
 * value of the stacks a report shows (after allocator frames are cut): by
 * its flat share, what a reader sees unnamed (a thread-start trampoline
 * every stack passes through is 0% flat), with its cum share beside it.
 * Modules under 1% flat whose files hpa could use share one summary line.
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
#include "hpa/strbuf.h"
#include "hpa/strip.h"
#include "hpa/coverage.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct unnamed {
	uint32_t mapping;    /* a mapping of the module (0: unmapped addresses) */
	const char *path;
	double value, flat;      /* cum and flat (leaf) value of the stacks through it */
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

/* Modules whose unnamed frames hold less than this share of the flat value: one line for all. */
#define SMALL_PCT 1.0

static const char *module_name(const char *path)
{
	const char *name = strrchr(path, '/');

	return name ? name + 1 : path;
}

/*
 * Whether module u is said in the summary line: under SMALL_PCT of the flat
 * value, and opened (a file hpa could not use, or the wrong build, is a
 * problem of the setup: said on its own line whatever its share).
 */
/* What the symbolizer made of mapping m (all 0 when it did not look). */
static struct hpa_map_symbols map_symbols(const struct hpa_symbols *syms, uint32_t m)
{
	static const struct hpa_map_symbols none;

	return m < syms->maps_nr ? syms->maps[m] : none;
}

static bool is_small(const struct hpa_symbols *syms, const struct unnamed *u, double total)
{
	return total > 0 && u->flat * 100 < total * SMALL_PCT &&
	       !(u->mapping && map_symbols(syms, u->mapping).error);
}

/* The warning for one module (or the unmapped addresses), with its shares and the fix that applies. */
static void warn_module(const struct hpa_profile *prof, const struct hpa_symbols *syms,
			const struct hpa_sym_opts *opts, const struct unnamed *u, double total,
			enum hpa_value v, bool base)
{
	struct hpa_map_symbols ms = map_symbols(syms, u->mapping);
	const struct hpa_map_symbols *m = u->mapping ? &ms : NULL;
	const char *name = module_name(u->path), *es = u->addrs == 1 ? "" : "es";
	char share[128];

	if (total > 0)
		snprintf(share, sizeof(share), "%.1f%% of %s%s flat, %.1f%% cum", u->flat * 100.0 / total,
			 hpa_value_name(v), base ? " in profile and base" : "", u->value * 100.0 / total);
	else
		snprintf(share, sizeof(share), "no %s", hpa_value_name(v));
	if (!m) {
		hpa_warn("%zu address%s outside every mapped file (%s)", u->addrs, es, share);
	} else if (m->error) {
		hpa_warn("%s: %zu address%s without symbols (%s): %s", name, u->addrs, es, share,
			 hpa_profile_str(prof, m->error));
	} else if (!m->file) {
		hpa_warn("%s: %zu address%s without symbols (%s): not a file hpa opens", name,
			 u->addrs, es, share);
	} else if (hpa_elf_is_stripped(hpa_profile_str(prof, m->file))) {
		hpa_warn("%s: %zu address%s without symbols (%s): %s is stripped; pass the unstripped "
			 "file, its debug file with --debug-dir DIR (Debian: the -dbg or -dbgsym "
			 "package puts it in /usr/lib/debug), or --debuginfod", name, u->addrs, es,
			 share, hpa_profile_str(prof, m->file));
	} else {
		char dirs[512] = "/usr/lib/debug";
		size_t d;
		for (d = 0; d < opts->debug_dirs_nr; d++) {
			strncat(dirs, ", ", sizeof(dirs) - strlen(dirs) - 1);
			strncat(dirs, opts->debug_dirs[d], sizeof(dirs) - strlen(dirs) - 1);
		}
		hpa_warn("%s: %zu address%s without symbols (%s): no debug info or symbol covers "
			 "them; looked in %s, %s", name, u->addrs, es, share,
			 hpa_profile_str(prof, m->file), dirs);
	}
}

/* The modules with unnamed frames in what a report shows, as they are counted. */
struct unnamed_tab {
	struct unnamed *tab;
	size_t nr, alloc;
	double total;                /* the value of every all-threads sample */
};

/*
 * Each stack's samples' value (-1 for none), all threads': dumps added up
 * or diffed share most of their stacks, so each stack's frames are then
 * looked at once.  Stack ids come in the order of the samples that first
 * have them, so the modules are met in the same order as sample by sample.
 */
static double *stack_values(const struct hpa_profile *prof, enum hpa_value v, double *total)
{
	double *stack_value = xmalloc(st_mult(prof->stacks_nr + 1, sizeof(*stack_value)));
	size_t i;

	*total = 0;
	for (i = 0; i < prof->stacks_nr; i++)
		stack_value[i] = -1;
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		double value;

		if (s->thread != HPA_THREAD_ALL)
			continue;
		value = fabs(s->v[v] * prof->inputs[s->input - 1].weight);
		*total += value;
		if (s->stack)
			stack_value[s->stack] = stack_value[s->stack] < 0 ? value : stack_value[s->stack] + value;
	}
	return stack_value;
}

/* The unnamed frames of every stack a report shows, counted by module. */
static void count_unnamed(const struct hpa_profile *prof, const struct hpa_symbols *syms, enum hpa_value v,
			  const struct hpa_cuts *cut, struct unnamed_tab *ut)
{
	bool *seen = xcalloc(prof->locs_nr, sizeof(*seen));
	bool *unnamed = xmalloc(prof->locs_nr + 1);   /* per location: small, read per frame */
	double *stack_value = stack_values(prof, v, &ut->total);
	const uint32_t *frames;
	size_t i, f, n;
	unsigned skip;

	for (i = 0; i < prof->locs_nr; i++)
		unnamed[i] = !syms->chains[i].nr && prof->locs[i].addr < HPA_KERNEL_FLOOR;
	for (i = 1; i < prof->stacks_nr; i++) {
		if (stack_value[i] < 0)
			continue;
		/* the profile's frames: a frame the base match moves is named on both sides */
		n = hpa_visible_stack(prof, NULL, cut, (uint32_t)i, &frames, &skip);
		for (f = 0; f < n; f++) {
			const char *path;
			struct unnamed *u;

			if (!unnamed[frames[f]])
				continue;
			path = hpa_profile_loc_path(prof, frames[f]);
			u = find(&ut->tab, &ut->nr, &ut->alloc,
				 !path ? "unmapped addresses" : *path ? path : "[anon]",
				 prof->locs[frames[f]].mapping);
			if (!seen[frames[f]]) {
				seen[frames[f]] = true;
				u->addrs++;
			}
			if (u->stamp != i + 1) {
				u->stamp = i + 1;
				u->value += stack_value[i];
			}
			if (!f)   /* the leaf a report shows: its flat */
				u->flat += stack_value[i];
		}
	}
	free(seen);
	free(unnamed);
	free(stack_value);
}

/* The small modules in one line: how many, their flat and their largest cum, the first names. */
static void warn_small(const struct hpa_symbols *syms, const struct unnamed_tab *ut, enum hpa_value v)
{
	struct hpa_strbuf names = HPA_STRBUF_INIT;
	size_t small_nr = 0, k = 0, i;
	double small_flat = 0, small_value = 0;

	for (i = 0; i < ut->nr; i++) {
		const struct unnamed *u = &ut->tab[i];
		if (!is_small(syms, u, ut->total))
			continue;
		small_nr++;
		small_flat += u->flat;
		small_value = fmax(small_value, u->value);
	}
	if (!small_nr)
		return;
	for (i = 0; i < ut->nr; i++) {
		const struct unnamed *u = &ut->tab[i];
		if (!is_small(syms, u, ut->total))
			continue;
		if (k++ == 8) {
			hpa_sb_addf(&names, ", ... (%zu more)", small_nr - 8);
			break;
		}
		hpa_sb_addf(&names, "%s%s", k > 1 ? ", " : "", module_name(u->path));
	}
	hpa_warn("%zu module%s without symbols under %g%% of %s flat each (%.1f%% flat in all, "
		 "at most %.1f%% cum): %s", small_nr, small_nr == 1 ? "" : "s", SMALL_PCT,
		 hpa_value_name(v), small_flat * 100.0 / ut->total, small_value * 100.0 / ut->total,
		 names.buf);
	hpa_sb_release(&names);
}

void hpa_warn_unsymbolized(const struct hpa_profile *prof, const struct hpa_symbols *syms,
			   const struct hpa_sym_opts *opts, enum hpa_value v, const struct hpa_cuts *cut)
{
	struct unnamed_tab ut = { NULL, 0, 0, 0 };
	bool base = false, empty = true;
	size_t i;

	for (i = 0; i < prof->inputs_nr; i++) {
		base |= prof->inputs[i].is_base;
		empty &= prof->inputs[i].no_samples;
	}
	if (empty)   /* "no samples" was said: names would not change anything */
		return;
	count_unnamed(prof, syms, v, cut, &ut);
	for (i = 0; i < ut.nr; i++)
		if (!is_small(syms, &ut.tab[i], ut.total))
			warn_module(prof, syms, opts, &ut.tab[i], ut.total, v, base);
	warn_small(syms, &ut, v);   /* after the others, in one line */
	free(ut.tab);
}
