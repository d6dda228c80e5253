#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/diff.h"
#include "hpa/group.h"
#include "hpa/strip.h"
#include "hpa/strtab.h"
#include "hpa/task.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

static double side_total(const struct hpa_profile *prof, const struct hpa_base_opts *opts, bool base)
{
	double t = 0;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *s = &prof->samples[i];
		if (s->thread == opts->view.thread && prof->inputs[s->input - 1].is_base == base)
			t += s->v[opts->view.value];
	}
	return t;
}

/*
 * Remove the samples of every stack whose weighted sum is negative.  Stacks
 * are grouped by the engine and key --collapse uses (group.h), over the
 * view's frames, which are known by module and offset: so exactly the
 * stacks a writer would print negative go, whatever run they came from.
 */
static void drop_negative(struct hpa_profile *prof, const struct hpa_base_opts *opts,
			  const double *weights)
{
	struct hpa_view_opts vo = opts->view;
	struct hpa_strtab texts;
	struct hpa_stack_group *groups;
	uint32_t *group_of = xcalloc(prof->samples_nr + 1, sizeof(*group_of));
	size_t i, kept = 0;
	double total;

	vo.weights = weights;
	hpa_strtab_init(&texts);
	hpa_group_stacks(prof, &vo, &hpa_folded_format, &texts, &groups, &total, group_of, NULL);
	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_stack_group *g = group_of[i] ? &groups[group_of[i] - 1] : NULL;
		if (!g || g->after - g->before >= 0)
			prof->samples[kept++] = prof->samples[i];
	}
	prof->samples_nr = kept;
	free(groups);
	free(group_of);
	hpa_strtab_release(&texts);
}

/* A symbolized location's inline chain, for matching: hash of its (function, file, line)s. */
static uint64_t chain_hash(const struct hpa_profile *prof, const struct hpa_location *l)
{
	uint64_t h = hpa_hash64(l->line_nr);
	size_t k;

	for (k = 0; k < l->line_nr; k++) {
		const struct hpa_line *ln = &prof->lines[l->line_first + k];
		h = hpa_hash64(h ^ prof->funcs[ln->func].name);
		h = hpa_hash64(h ^ ((uint64_t)ln->file << 32 | ln->line));
	}
	return h;
}

static bool same_chain(const struct hpa_profile *prof, const struct hpa_location *a,
		       const struct hpa_location *b)
{
	size_t k;

	if (a->line_nr != b->line_nr)
		return false;
	for (k = 0; k < a->line_nr; k++) {
		const struct hpa_line *x = &prof->lines[a->line_first + k];
		const struct hpa_line *y = &prof->lines[b->line_first + k];
		if (prof->funcs[x->func].name != prof->funcs[y->func].name || x->file != y->file ||
		    x->line != y->line)
			return false;
	}
	return true;
}

/* Stacks [lo, hi): each location's sides (used[]) from its stacks' (side[]). */
struct sides_part {
	const struct hpa_profile *prof;
	const uint8_t *side;
	uint8_t *used;
	size_t lo, hi;
};

static void location_sides(void *arg)
{
	const struct sides_part *p = arg;
	size_t i, k, nr;

	for (i = p->lo; i < p->hi; i++) {
		const uint32_t *f = hpa_profile_stack(p->prof, (uint32_t)i, &nr);
		uint8_t s = p->side[i];

		for (k = 0; k < nr && s; k++)
			p->used[f[k]] |= s;
	}
}

/*
 * The base is re-keyed into the profile by symbolic identity: a frame of
 * the base whose location the profile does not have, but whose inline chain
 * (function, file, line at every level) a location of the profile has,
 * becomes that location.  Locations already meet by module and offset
 * (hpa_unify_locations); this matches the same code in another build of
 * the program, so --addresses and --proto diff by symbol too.  Returns
 * whether a stack changed.
 */
static bool rekey_base(struct hpa_profile *prof)
{
	struct hpa_hashmap by_chain = HPA_HASHMAP_INIT;
	uint8_t *used = xcalloc(prof->locs_nr, sizeof(*used));   /* 1 profile, 2 base */
	uint8_t *side = xcalloc(prof->stacks_nr, sizeof(*side));  /* the same, by stack */
	uint32_t *next = xcalloc(prof->locs_nr, sizeof(*next)), *remap;
	size_t i, k, moved = 0;

	/* By stack, not by sample: dumps share most stacks, and threads too. */
	for (i = 0; i < prof->samples_nr; i++)
		side[prof->samples[i].stack] |= prof->inputs[prof->samples[i].input - 1].is_base ? 2 : 1;
	for (i = 1; i < prof->stacks_nr && side[i] != 2; i++)
		;
	if (i == prof->stacks_nr) {   /* every stack of the base is the profile's too: no frame to move */
		free(used);
		free(side);
		free(next);
		return false;
	}
	{   /* every frame once: the stacks in two halves side by side, each marking a table of its own */
		uint8_t *used2 = xcalloc(prof->locs_nr, sizeof(*used2));
		size_t mid = prof->stacks_nr > 1 ? 1 + (prof->stacks_nr - 1) / 2 : 1;
		struct sides_part part[2] = { { prof, side, used, 1, mid },
					      { prof, side, used2, mid, prof->stacks_nr } };
		struct hpa_task *task;

		task = hpa_task_start(location_sides, &part[1]);
		location_sides(&part[0]);
		hpa_task_wait(task);
		for (i = 1; i < prof->locs_nr; i++)
			used[i] |= used2[i];
		free(used2);
	}
	for (i = 1; i < prof->locs_nr; i++) {   /* the profile's symbolized locations, by chain */
		const struct hpa_location *l = &prof->locs[i];
		uint64_t h;
		if (!(used[i] & 1) || !l->line_nr)
			continue;
		h = chain_hash(prof, l);
		next[i] = hpa_hashmap_get(&by_chain, h);
		hpa_hashmap_put(&by_chain, h, (uint32_t)i);
	}
	remap = xcalloc(prof->locs_nr, sizeof(*remap));
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_location *l = &prof->locs[i];
		uint32_t id;
		if (used[i] != 2 || !l->line_nr)
			continue;   /* not the base's alone, or no symbols to match by */
		for (id = hpa_hashmap_get(&by_chain, chain_hash(prof, l)); id; id = next[id])
			if (same_chain(prof, &prof->locs[id], l))
				break;
		remap[i] = id;
		moved += id != 0;
	}
	/*
	 * Rewritten in place: a stack the profile shares holds no location of
	 * the base's alone (hpa_unify_locations merges equal stacks of inputs).
	 * The same build on both sides (the usual case) moves nothing.
	 */
	for (i = 1; i < prof->stacks_nr && moved; i++) {
		uint32_t *f = prof->frames + prof->stacks[i].first;
		if (!(side[i] & 2))
			continue;
		for (k = 0; k < prof->stacks[i].nr; k++)
			if (remap[f[k]])
				f[k] = remap[f[k]];
	}
	hpa_hashmap_release(&by_chain);
	free(remap);
	free(next);
	free(used);
	free(side);
	return moved != 0;
}

int hpa_apply_base(struct hpa_profile *prof, const struct hpa_base_opts *opts, struct hpa_cuts *cuts,
		   double *weights)
{
	size_t i, base = 0;

	for (i = 0; i < prof->inputs_nr; i++)
		weights[i] = prof->inputs[i].weight;
	for (i = 0; i < prof->inputs_nr && !base; i++)
		if (prof->inputs[i].is_base)
			base = i + 1;   /* --base, or a two-column folded file's first column */
	if (!base)
		return 0;
	if (rekey_base(prof) && cuts)
		hpa_cuts_restack(prof, cuts);   /* the base's stacks changed */
	if (opts->normalize) {
		double p = side_total(prof, opts, false), b = side_total(prof, opts, true);
		if (b == 0) {
			hpa_warn("%s: the base has no %s; --normalize leaves it as is",
				 opts->name ? opts->name : prof->inputs[base - 1].path,
				 hpa_value_name(opts->view.value));
		} else {
			for (i = 0; i < prof->inputs_nr; i++)
				if (prof->inputs[i].is_base)
					weights[i] = -(p / b);
		}
	}
	if (opts->drop_negative)
		drop_negative(prof, opts, weights);
	return 0;
}
