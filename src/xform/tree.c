/*
 * The grouping engine's call tree (group.h): the view's stacks merged on
 * common prefixes, for the flame graph and the caller/callee views.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/xalloc.h"

uint32_t hpa_frame_name_id(const struct hpa_profile *prof, struct hpa_frame f, enum hpa_name_kind kind)
{
	const struct hpa_frame_name *n = hpa_frame_name(prof, f);

	switch (kind) {
	case HPA_NAME_SHORT:
		return n->shortn;
	case HPA_NAME_DISPLAY:
		return n->display;
	case HPA_NAME_FOLDED:
		return n->folded;
	case HPA_NAME_GRAPH:
		return n->graph;
	default:
		return n->full;
	}
}

static uint32_t child_of(struct hpa_call_tree *t, uint32_t parent, uint32_t name, uint32_t label)
{
	uint64_t key = (uint64_t)parent << 32 | name;
	uint32_t id = hpa_hashmap_get(&t->by_key, key);
	struct hpa_call_node *n;

	if (id)
		return id;
	HPA_GROW(t->nodes, t->nr + 1, t->alloc);
	id = (uint32_t)t->nr++;
	n = &t->nodes[id];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->label = label;
	n->parent = parent;
	n->depth = t->nodes[parent].depth + 1;
	n->next = t->nodes[parent].child;
	t->nodes[parent].child = id;
	hpa_hashmap_put(&t->by_key, key, id);
	if (t->dumps) {
		HPA_GROW(t->series, t->nr * t->dumps, t->series_alloc);
		memset(t->series + (size_t)id * t->dumps, 0, t->dumps * sizeof(*t->series));
	}
	if (t->values) {
		HPA_GROW(t->values, t->nr * HPA_NVALUES, t->values_alloc);
		memset(t->values + (size_t)id * HPA_NVALUES, 0, HPA_NVALUES * sizeof(*t->values));
	}
	return id;
}

static void add(struct hpa_call_tree *t, uint32_t node, uint32_t input, bool base, double v,
		const double *all)
{
	if (all) {
		size_t k;
		for (k = 0; k < HPA_NVALUES; k++)
			t->values[(size_t)node * HPA_NVALUES + k] += all[k];
	}
	if (t->dumps)
		t->series[(size_t)node * t->dumps + input - 1] += v;
	if (base)
		t->nodes[node].before -= v;
	else
		t->nodes[node].after += v;
}

void hpa_group_tree(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		    const struct hpa_tree_opts *topts, struct hpa_call_tree *t)
{
	struct hpa_view view;
	uint32_t *slot_name = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*slot_name));
	const struct hpa_frame *frames;
	size_t i, k, nr;

	memset(t, 0, sizeof(*t));
	hpa_hashmap_init(&t->by_key);
	HPA_GROW(t->nodes, 1, t->alloc);
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nr = 1;
	if (topts->per_input) {
		t->dumps = prof->inputs_nr;
		t->series = xcalloc(t->dumps ? t->dumps : 1, sizeof(*t->series));
		t->series_alloc = t->dumps;
	}
	if (topts->all_values) {
		t->values = xcalloc(HPA_NVALUES, sizeof(*t->values));
		t->values_alloc = HPA_NVALUES;
	}
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		uint32_t input = prof->samples[i].input, node = 0;
		bool base = prof->inputs[input - 1].is_base;
		double v, all[HPA_NVALUES], *pall = NULL;

		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		v = hpa_view_value(&view, i);
		if (t->values) {
			size_t j;
			for (j = 0; j < HPA_NVALUES; j++)
				all[j] = prof->samples[i].v[j] * prof->inputs[input - 1].weight;
			pall = all;
		}
		t->diff |= base;
		add(t, 0, input, base, v, pall);
		for (k = 0; k < nr; k++) {
			struct hpa_frame f = frames[topts->leaf_first ? k : nr - 1 - k];
			size_t slot = hpa_frame_slot(prof, f);

			if (!slot_name[slot])
				slot_name[slot] = hpa_frame_name_id(prof, f, topts->name);
			node = child_of(t, node, slot_name[slot], hpa_frame_name_id(prof, f, topts->label));
			add(t, node, input, base, v, pall);
		}
	}
	hpa_view_release(&view);
	free(slot_name);
}

void hpa_call_tree_release(struct hpa_call_tree *t)
{
	free(t->nodes);
	free(t->series);
	free(t->values);
	hpa_hashmap_release(&t->by_key);
	memset(t, 0, sizeof(*t));
}
