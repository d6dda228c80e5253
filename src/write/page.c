/*
 * The --html page's pieces (page.h): its JSON strings, its string table,
 * its call trees as parallel columns, and the lists of samples a thread's
 * or a dump's views visit.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/growth.h"
#include "hpa/hashmap.h"
#include "hpa/xalloc.h"
#include "page.h"

uint32_t str_id(struct page *pg, const char *s)
{
	return hpa_strtab_intern(&pg->strs, s);
}

/* str_id() of a profile string, each looked up once. */
uint32_t prof_str_id(struct page *pg, uint32_t id)
{
	if (!pg->of_prof_str[id])
		pg->of_prof_str[id] = str_id(pg, hpa_profile_str(pg->prof, id)) + 1;
	return pg->of_prof_str[id] - 1;
}


/*
 * Is node i shown for one of the value types in the mask `types`?  min[v]:
 * hpa_call_node_min() of each type.
 */
static bool shown_for(const struct hpa_call_tree *t, size_t i, unsigned types, const double *min)
{
	int v;

	for (v = 0; v < HPA_NVALUES; v++)
		if (types >> v & 1 && hpa_call_node_above(t, i, v, min[v]))
			return true;
	return false;
}

/* "up": how many nodes back each node's parent was written (depth first: mostly a few), 0 for the root. */
static const char *const tree_cols[] = { "up", "name", "label", "after", "before" };
enum { COL_PARENT, COL_NAME, COL_LABEL, COL_AFTER, COL_BEFORE };

/*
 * Per node of t, its index among those written, or -1: nodes under
 * TREE_MIN_SHARE for every type in `types` are left out with their
 * subtrees.  *kept is set to the number written.
 */
static int32_t *tree_index(const struct hpa_call_tree *t, unsigned types, size_t *kept)
{
	int32_t *index = xmalloc(st_mult(t->nr + 1, sizeof(*index)));
	double min[HPA_NVALUES];
	size_t i;
	int v;

	for (v = 0; v < HPA_NVALUES; v++)
		min[v] = hpa_call_node_min(t, v, TREE_MIN_SHARE);
	*kept = 0;
	for (i = 0; i < t->nr; i++) {   /* parents come first: one pass */
		const struct hpa_call_node *n = &t->nodes[i];
		index[i] = i && (index[n->parent] < 0 || !shown_for(t, i, types, min)) ? -1 : (int32_t)(*kept)++;
	}
	return index;
}

/* Column c of the nodes written ("name":[...]), after a comma with `comma`. */
static void tree_col(struct page *pg, const struct hpa_call_tree *t, const int32_t *index, int type,
		     size_t c, bool comma)
{
	bool first = true;
	size_t i;

	hpa_sb_addf(&pg->sb, "%s\"%s\":[", comma ? "," : "", tree_cols[c]);
	for (i = 0; i < t->nr; i++) {
		const struct hpa_call_node *n = &t->nodes[i];
		if (index[i] < 0)
			continue;
		if (!first)
			hpa_sb_addc(&pg->sb, ',');
		first = false;
		spill(pg);
		switch (c) {
		case COL_PARENT:
			jint(&pg->sb, i ? index[i] - index[n->parent] : 0);
			break;
		case COL_NAME:
			jint(&pg->sb, i ? prof_str_id(pg, n->name) : str_id(pg, "all"));
			break;
		case COL_LABEL:
			jint(&pg->sb, i ? prof_str_id(pg, n->label) : str_id(pg, "all"));
			break;
		case COL_AFTER:
			jfix0(&pg->sb, hpa_call_node_value(t, i, type));
			break;
		default:
			jfix0(&pg->sb, hpa_dust_to_zero(n->before));
			break;
		}
	}
	hpa_sb_addc(&pg->sb, ']');
}

/*
 * The labels of the nodes written: a column when many differ from their
 * names (C++'s short names), else "relabel":[node, label, ...] of those
 * that do, the page taking the names for the rest: in a C program's tree
 * nearly every label is its name (42,108 nodes, 210 inlined frames whose
 * names say so).
 */
static void tree_labels(struct page *pg, const struct hpa_call_tree *t, const int32_t *index, size_t kept)
{
	size_t i, differ = 0;
	bool first = true;

	for (i = 1; i < t->nr; i++)
		differ += index[i] >= 0 && t->nodes[i].label != t->nodes[i].name;
	if (differ * 4 > kept) {
		tree_col(pg, t, index, 0, COL_LABEL, true);
		return;
	}
	hpa_sb_adds(&pg->sb, ",\"relabel\":[");
	for (i = 1; i < t->nr && differ; i++) {
		if (index[i] < 0 || t->nodes[i].label == t->nodes[i].name)
			continue;
		spill(pg);
		if (!first)
			hpa_sb_addc(&pg->sb, ',');
		first = false;
		jint(&pg->sb, index[i]);
		hpa_sb_addc(&pg->sb, ',');
		jint(&pg->sb, prof_str_id(pg, t->nodes[i].label));
	}
	hpa_sb_addc(&pg->sb, ']');
}

/*
 * The branches left out of a tree written with `index`: the nodes not
 * written whose parent is, in the tree or left out of it when it was made
 * (left_out).  What is under them is not counted (nor, for those, made).
 */
static size_t branches_left_out(const struct hpa_call_tree *t, const int32_t *index)
{
	size_t n = 0, i;

	for (i = 0; i < t->nr; i++) {
		if (index[i] < 0) {
			n += index[t->nodes[i].parent] >= 0;
			continue;
		}
		if (t->left_out)
			n += t->left_out[i];
	}
	return n;
}

/* What follows a tree's columns: each dump's value of each node and its class, and the count left out. */
static void tree_tail(struct page *pg, const struct hpa_call_tree *t, const int32_t *index, bool after_only)
{
	if (t->dumps && !after_only) {   /* each dump's value of each node: series[node * dumps + dump] */
		bool first = true;
		size_t i, d;
		hpa_sb_adds(&pg->sb, ",\"series\":[");
		for (i = 0; i < t->nr; i++) {
			if (index[i] < 0)
				continue;
			spill(pg);
			for (d = 0; d < t->dumps; d++) {
				if (!first)
					hpa_sb_addc(&pg->sb, ',');
				jfix0(&pg->sb, hpa_dust_to_zero(t->series[i * t->dumps + d]));
				first = false;
			}
		}
		/* each node's class over the dumps (growth.h): what its frame's colour says */
		hpa_sb_adds(&pg->sb, "],\"cls\":[");
		for (i = 0, first = true; i < t->nr; i++) {
			double r2;

			if (index[i] < 0)
				continue;
			spill(pg);
			hpa_sb_addf(&pg->sb, first ? "%d" : ",%d",
				    (int)hpa_growth_classify(t->series + i * t->dumps, t->dumps, &r2));
			first = false;
		}
		hpa_sb_addc(&pg->sb, ']');
	}
	hpa_sb_addf(&pg->sb, ",\"diff\":%s,\"omitted\":%zu}", t->diff ? "true" : "false",
		    branches_left_out(t, index));
}

/*
 * The call tree root first: parallel arrays up (how far back its parent
 * is, 0 for the root: the page makes parent indexes of them), name
 * (full), label (short: a column, or the few that are not the name,
 * tree_labels), after, and before (the base's: in a
 * diff only, the page reads it nowhere else; a tree of 7.5k stacks has
 * 87k nodes of zeros there); nodes under TREE_MIN_SHARE of the larger
 * total are left out with their subtrees.
 * `type` picks the column of a tree built with all_values.  A tree that
 * holds several value types is written once for all of them: `types`
 * (a mask; 0 for `type` alone) are the ones whose shown nodes it keeps,
 * and with `after_only`, a later type's writes just its after column and
 * "shared":true (the page takes the rest from the first type's tree).
 */
void emit_tree(struct page *pg, const struct hpa_call_tree *t, int type, unsigned types,
		      bool after_only)
{
	size_t kept, c;
	int32_t *index = tree_index(t, types ? types : 1u << type, &kept);

	hpa_sb_addc(&pg->sb, '{');
	if (after_only)
		hpa_sb_adds(&pg->sb, "\"shared\":true");
	for (c = 0; c < HPA_ARRAY_SIZE(tree_cols); c++) {
		if (after_only ? c != COL_AFTER : c == COL_BEFORE && !t->diff)
			continue;
		if (c == COL_LABEL)
			tree_labels(pg, t, index, kept);
		else
			tree_col(pg, t, index, type, c, c || after_only);
	}
	tree_tail(pg, t, index, after_only);
	free(index);
}

/* The call tree of one view and value (see emit_tree). */
void page_tree(struct page *pg, const struct hpa_view_opts *vo, bool series)
{
	struct hpa_tree_opts to = { HPA_NAME_GRAPH, HPA_NAME_SHORT, false, series, false, TREE_MIN_SHARE, 0, 0 };
	struct hpa_call_tree t;

	hpa_group_tree(pg->prof, vo, &to, &t);
	emit_tree(pg, &t, 0, 0, false);
	hpa_call_tree_release(&t);
}

/* ---- lists of samples: the views of a thread, or of a dump ---------------- */

/* Sample i into list k of sl (alloc: the lists' room). */
static void sample_list_add(struct sample_lists *sl, size_t *alloc, size_t k, size_t i)
{
	HPA_GROW(sl->list[k], sl->nr[k] + 1, alloc[k]);
	sl->list[k][sl->nr[k]++] = (uint32_t)i;
}

static size_t *sample_lists_init(struct sample_lists *sl, size_t lists)
{
	sl->list = xcalloc(lists + 1, sizeof(*sl->list));
	sl->nr = xcalloc(lists + 1, sizeof(*sl->nr));
	sl->lists = lists;
	return xcalloc(lists + 1, sizeof(size_t));
}

/* The samples of each of the first nthr threads. */
void thread_samples(const struct hpa_profile *prof, size_t nthr, struct sample_lists *ts)
{
	struct hpa_hashmap index = HPA_HASHMAP_INIT;   /* thread id -> index + 1 */
	size_t *alloc = sample_lists_init(ts, nthr), i;

	for (i = 0; i < nthr; i++)
		hpa_hashmap_put(&index, (uint32_t)prof->threads[i].id, (uint32_t)i + 1);
	for (i = 0; i < prof->samples_nr; i++) {
		int32_t t = prof->samples[i].thread;
		uint32_t k;

		if (t == HPA_THREAD_ALL)
			continue;
		k = hpa_hashmap_get(&index, (uint32_t)t);
		if (k--)
			sample_list_add(ts, alloc, k, i);
	}
	hpa_hashmap_release(&index);
	free(alloc);
}

/* The samples of each dump (input) of a series. */
void dump_samples(const struct hpa_profile *prof, struct sample_lists *ds)
{
	size_t *alloc = sample_lists_init(ds, prof->inputs_nr), i;

	for (i = 0; i < prof->samples_nr; i++)
		sample_list_add(ds, alloc, prof->samples[i].input - 1, i);
	free(alloc);
}

void sample_lists_release(struct sample_lists *sl)
{
	size_t i;

	for (i = 0; i < sl->lists; i++)
		free(sl->list[i]);
	free(sl->list);
	free(sl->nr);
}

/* View vo narrowed to list k of sl. */
struct hpa_view_opts only_view(struct hpa_view_opts vo, const struct sample_lists *sl, size_t k)
{
	static const uint32_t none[1];   /* an empty list: no sample (NULL would be every one) */

	vo.only = sl->list[k] ? sl->list[k] : none;
	vo.only_nr = sl->nr[k];
	return vo;
}
