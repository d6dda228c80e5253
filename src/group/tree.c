/*
 * The grouping engine's call tree (group.h): the view's stacks merged on
 * common prefixes, for the flame graph and the caller/callee views.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/xalloc.h"
#include "seqs.h"

uint32_t hpa_frame_name_id(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f,
			   enum hpa_name_kind kind)
{
	const struct hpa_frame_name *n = hpa_frame_name(prof, names, f);

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

struct build {
	struct hpa_call_tree *t;
	const struct hpa_seqs *s;
	const struct hpa_tree_opts *topts;
	uint32_t *slot_name, *slot_label;
	enum hpa_value value;        /* the view's */
	unsigned vidx[HPA_NVALUES], nv; /* with all_values: the value types added up */
	/*
	 * Per kept sample, read once from the samples (add_kept visits each at
	 * every node on its path): with all_values its nv weighted values, and
	 * its input's index with BASE_INPUT set for a base (not when plain).
	 */
	double *kv;
	uint32_t *kept_input;
	/*
	 * All values, one dump, no base (--html's tree): a node's value (after)
	 * is its column vcol_view's sum, the same adds in the same order; no
	 * input or view value is read per sample, nor kept (0.7 + 1.4 MiB on
	 * 180k stacks).
	 */
	bool plain;
	unsigned vcol_view;
	uint32_t *path;              /* path[depth]: the node last made at that depth */
	uint32_t mine;               /* a forked stretch's: LOCAL on ids of its own nodes in path */
	double cut_below;            /* cut_share of the root's value, when it applies */
	double min[HPA_NVALUES];     /* per value type: hpa_call_node_min() of min_share */
	uint32_t cut_depth;          /* the depth of the node being cut under; 0 none */
	size_t path_alloc;
	/*
	 * A forked stretch's: the path when it was forked (the ancestors of
	 * its nodes, by depth), and the children left out under each.
	 */
	uint32_t *anc, *anc_left;
	size_t anc_nr;
};

/*
 * A forked stretch (hpa_seqs_visitor's fork) makes its nodes in a tree of
 * its own, node 0 a copy of the root; in path and in its nodes' parents,
 * its own ids have LOCAL set, the others are the ancestors' in the tree.
 */
#define LOCAL (UINT32_C(1) << 31)

/* Child lists are made at the end, from the parents (a stretch cannot reach its ancestors). */
static uint32_t new_node(struct hpa_call_tree *t, uint32_t parent, uint32_t depth, uint32_t name,
			 uint32_t label)
{
	struct hpa_call_node *n;
	uint32_t id;

	HPA_GROW(t->nodes, t->nr + 1, t->alloc);
	id = (uint32_t)t->nr++;
	n = &t->nodes[id];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->label = label;
	n->parent = parent;
	n->depth = depth;
	if (t->dumps) {
		HPA_GROW(t->series, t->nr * t->dumps, t->series_alloc);
		memset(t->series + (size_t)id * t->dumps, 0, t->dumps * sizeof(*t->series));
	}
	if (t->values) {
		HPA_GROW(t->values, t->nr * t->vstride, t->values_alloc);
		memset(t->values + (size_t)id * t->vstride, 0, t->vstride * sizeof(*t->values));
	}
	if (t->left_out) {
		HPA_GROW(t->left_out, t->nr, t->left_out_alloc);
		t->left_out[id] = 0;
	}
	return id;
}

#define BASE_INPUT (UINT32_C(1) << 31)   /* in build.kept_input: the sample is a base's */

/*
 * Kept samples items[0..n) pass through `node`, a new one: its sums are
 * made in registers, in item order, and stored once (the same sums as
 * adding each item to the node's zeros in turn).  nv: b->nv, or 0 without
 * all_values; a constant where add_kept() calls it.
 */
static HPA_ALWAYS_INLINE void add_items(const struct build *b, unsigned nv, uint32_t node,
					 const uint32_t *items, size_t n)
{
	struct hpa_call_tree *t = b->t;
	double sum[HPA_NVALUES] = { 0 }, before = t->nodes[node].before, after = t->nodes[node].after;
	double *series = t->dumps ? t->series + (size_t)node * t->dumps : NULL;
	size_t i, j;

#if defined(__SSE2__)
	__m128d s01 = _mm_setzero_pd(), s23 = _mm_setzero_pd();   /* nv 2 and 4: two sums an add */
#endif

	for (i = 0; i < n; i++) {
		uint32_t k = items[i], in;
		double v;

#if defined(__SSE2__)
		if (nv == 2 || nv == 4) {
			s01 = _mm_add_pd(s01, _mm_loadu_pd(b->kv + (size_t)k * nv));
			if (nv == 4)
				s23 = _mm_add_pd(s23, _mm_loadu_pd(b->kv + (size_t)k * nv + 2));
		} else
#endif
		for (j = 0; j < nv; j++)
			sum[j] += b->kv[(size_t)k * nv + j];
		if (nv && b->plain)
			continue;
		in = b->kept_input[k];
		v = b->s->v[k];
		if (series)
			series[in & ~BASE_INPUT] += v;
		if (in & BASE_INPUT)
			before -= v;
		else
			after += v;
	}
#if defined(__SSE2__)
	if (nv == 2 || nv == 4) {
		_mm_storeu_pd(sum, s01);
		if (nv == 4)
			_mm_storeu_pd(sum + 2, s23);
	}
#endif
	for (j = 0; j < nv; j++)
		t->values[(size_t)node * t->vstride + j] += sum[j];   /* column j is type vidx[j] */
	if (nv && b->plain)
		after += sum[b->vcol_view];
	t->nodes[node].before = before;
	t->nodes[node].after = after;
}

static void add_kept(const struct build *b, uint32_t node, const uint32_t *items, size_t n)
{
	switch (b->t->values ? b->nv : 0) {   /* the common counts, each its own loop */
	case 0:
		add_items(b, 0, node, items, n);
		break;
	case 1:
		add_items(b, 1, node, items, n);
		break;
	case 2:
		add_items(b, 2, node, items, n);
		break;
	case 4:
		add_items(b, 4, node, items, n);
		break;
	default:
		add_items(b, b->nv, node, items, n);
	}
}

static bool tree_node(void *ctx, uint32_t depth, uint32_t slot, const uint32_t *items, size_t n)
{
	struct build *b = ctx;
	struct hpa_call_tree *t = b->t;
	uint32_t node, parent;
	int type;

	if (b->cut_depth && depth > b->cut_depth) {   /* under a cut node: counted, not made */
		double sum = 0;
		size_t i;
		for (i = 0; i < n; i++)
			sum += b->s->v[items[i]];
		t->omitted += sum > 0;
		return true;
	}
	b->cut_depth = 0;
	HPA_GROW(b->path, depth + 1, b->path_alloc);
	parent = b->path[depth - 1];
	/* The first sample in order made the node before: its frame's label. */
	node = new_node(t, parent, depth, b->slot_name[slot], b->slot_label[slot]);
	b->path[depth] = node | b->mine;
	add_kept(b, node, items, n);
	if (b->cut_below > 0 && t->nodes[node].after < b->cut_below)
		b->cut_depth = depth;
	if (!(b->topts->min_share > 0))
		return true;
	for (type = 0; type < HPA_NVALUES; type++)
		if ((t->values || type == (int)b->value) && hpa_call_node_above(t, node, type, b->min[type]))
			return true;
	/* Shown for no type: left out, with all under it (neither made nor counted). */
	t->nr--;
	t->omitted++;
	if (parent & LOCAL || !b->mine)
		t->left_out[parent & ~LOCAL]++;
	else
		b->anc_left[depth - 1]++;   /* an ancestor's, added at the join */
	return false;
}

/* The rest of the walk in a tree of its own, from where b is (path, cut). */
static void *tree_fork(void *ctx)
{
	const struct build *b = ctx;
	struct build *f = xmalloc(sizeof(*f));
	struct hpa_call_tree *t = xcalloc(1, sizeof(*t));

	*f = *b;
	f->t = t;
	f->mine = LOCAL;
	f->path = xmalloc(st_mult(b->path_alloc, sizeof(*f->path)));
	memcpy(f->path, b->path, b->path_alloc * sizeof(*f->path));
	t->dumps = b->t->dumps;
	t->diff = b->t->diff;
	HPA_GROW(t->nodes, 1, t->alloc);
	t->nodes[0] = b->t->nodes[0];   /* the root, for the shares */
	t->nr = 1;
	if (b->t->values) {
		t->vstride = b->t->vstride;
		memcpy(t->vcol, b->t->vcol, sizeof(t->vcol));
		t->values = xmalloc(t->vstride * sizeof(*t->values));
		memcpy(t->values, b->t->values, t->vstride * sizeof(*t->values));
		t->values_alloc = t->vstride;
	}
	if (t->dumps) {
		t->series = xcalloc(t->dumps, sizeof(*t->series));
		t->series_alloc = t->dumps;
	}
	if (b->t->left_out) {
		t->left_out = xcalloc(1, sizeof(*t->left_out));
		t->left_out_alloc = 1;
		f->anc = xmalloc(st_mult(b->path_alloc, sizeof(*f->anc)));
		memcpy(f->anc, b->path, b->path_alloc * sizeof(*f->anc));
		f->anc_left = xcalloc(b->path_alloc, sizeof(*f->anc_left));
		f->anc_nr = b->path_alloc;
	}
	return f;
}

/* The stretch's nodes after b's, as if b had made them. */
static void tree_join(void *ctx, void *forked)
{
	struct build *b = ctx, *f = forked;
	struct hpa_call_tree *t = b->t, *ft = f->t;
	size_t base = t->nr - 1, i, more = ft->nr - 1;   /* local id j is base + j */

	HPA_GROW(t->nodes, t->nr + more, t->alloc);
	for (i = 1; i < ft->nr; i++) {
		struct hpa_call_node n = ft->nodes[i];

		if (n.parent & LOCAL)
			n.parent = (uint32_t)(base + (n.parent & ~LOCAL));
		t->nodes[t->nr++] = n;
	}
	if (t->values) {
		HPA_GROW(t->values, t->nr * t->vstride, t->values_alloc);
		memcpy(t->values + (base + 1) * t->vstride, ft->values + t->vstride,
		       more * t->vstride * sizeof(*t->values));
	}
	if (t->dumps) {
		HPA_GROW(t->series, t->nr * t->dumps, t->series_alloc);
		memcpy(t->series + (base + 1) * t->dumps, ft->series + t->dumps,
		       more * t->dumps * sizeof(*t->series));
	}
	if (t->left_out) {
		HPA_GROW(t->left_out, t->nr, t->left_out_alloc);
		memcpy(t->left_out + base + 1, ft->left_out + 1, more * sizeof(*t->left_out));
		for (i = 0; i < f->anc_nr; i++)   /* (past the path's depth then: none) */
			if (f->anc_left[i])
				t->left_out[f->anc[i]] += f->anc_left[i];
		free(f->anc);
		free(f->anc_left);
	}
	t->omitted += ft->omitted;
	hpa_call_tree_release(ft);
	free(ft);
	free(f->path);
	free(f);
}

static const char *profile_str(const void *prof, uint32_t id)
{
	return hpa_profile_str(prof, id);
}

/* An empty tree: the root, and the arrays its options ask for. */
static void tree_start(struct hpa_call_tree *t, const struct hpa_profile *prof,
		       const struct hpa_tree_opts *topts)
{
	memset(t, 0, sizeof(*t));
	HPA_GROW(t->nodes, 1, t->alloc);
	memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
	t->nr = 1;
	if (topts->min_share > 0) {
		t->left_out = xcalloc(1, sizeof(*t->left_out));
		t->left_out_alloc = 1;
	}
	if (topts->per_input) {
		t->dumps = prof->inputs_nr;
		t->series = xcalloc(t->dumps ? t->dumps : 1, sizeof(*t->series));
		t->series_alloc = t->dumps;
	}
}

/* The value types the tree sums (b->vidx), a column each with all_values. */
static void value_columns(struct build *b, struct hpa_call_tree *t, const struct hpa_tree_opts *topts)
{
	size_t i;

	for (i = 0; i < HPA_NVALUES; i++)
		if (!topts->values || topts->values >> i & 1)
			b->vidx[b->nv++] = (unsigned)i;
	if (!topts->all_values)
		return;
	memset(t->vcol, -1, sizeof(t->vcol));
	for (i = 0; i < b->nv; i++)
		t->vcol[b->vidx[i]] = (int8_t)i;
	b->vcol_view = b->plain ? (unsigned)t->vcol[b->value] : 0;
	t->vstride = b->nv;
	t->values = xcalloc(b->nv ? b->nv : 1, sizeof(*t->values));
	t->values_alloc = b->nv ? b->nv : 1;
}

/* Each kept sample's input and side (unless plain) and its weighted values (with all_values). */
static void kept_values(struct build *b, const struct hpa_profile *prof,
			const struct hpa_view_opts *opts)
{
	const struct hpa_seqs *sp = b->s;
	size_t i, j;

	if (!b->plain)
		b->kept_input = xmalloc(st_mult(sp->kept + 1, sizeof(*b->kept_input)));
	if (b->t->values)
		b->kv = xmalloc(st_mult(st_mult(sp->kept + 1, b->nv), sizeof(*b->kv)));
	for (i = 0; i < sp->kept; i++) {
		const struct hpa_sample *smp = &prof->samples[sp->sample[i]];

		if (!b->plain)
			b->kept_input[i] = (smp->input - 1) | (hpa_view_base(opts, prof, smp->input) ? BASE_INPUT : 0);
		for (j = 0; b->t->values && j < b->nv; j++)
			b->kv[i * b->nv + j] = smp->v[b->vidx[j]] * hpa_view_weight(opts, prof, smp->input);
	}
}

/* The root: every kept sample, in order; whether the tree is a diff; the bars. */
static void make_root(struct build *b, const struct hpa_profile *prof,
		      const struct hpa_view_opts *opts, const struct hpa_tree_opts *topts)
{
	struct hpa_call_tree *t = b->t;
	size_t kept = b->s->kept, i;
	uint32_t *all = xmalloc(st_mult(kept ? kept : 1, sizeof(*all)));

	for (i = 0; i < kept; i++) {
		all[i] = (uint32_t)i;
		t->diff |= hpa_view_base(opts, prof, prof->samples[b->s->sample[i]].input);
	}
	add_kept(b, 0, all, kept);
	free(all);
	if (topts->cut_share > 0 && !t->diff && !t->dumps)
		b->cut_below = topts->cut_share * t->nodes[0].after;
	for (i = 0; i < HPA_NVALUES; i++)   /* the root is made: each type's bar, once */
		b->min[i] = hpa_call_node_min(t, (int)i, topts->min_share);
}

void hpa_group_tree(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		    const struct hpa_tree_opts *topts, struct hpa_call_tree *t)
{
	struct hpa_seqs sp;
	struct build b;
	struct hpa_seqs_visitor visit = { tree_node, NULL, &b, false, tree_fork, tree_join };
	size_t i;

	tree_start(t, prof, topts);
	memset(&b, 0, sizeof(b));
	b.plain = topts->all_values && !topts->per_input && !(topts->cut_share > 0) &&   /* a cut sums view values */
		(!topts->values || topts->values >> opts->value & 1) && !hpa_view_has_base(opts, prof);
	hpa_seqs_collect(&sp, prof, opts, topts->leaf_first, false, false, !b.plain);
	b.t = t;
	b.s = &sp;
	b.topts = topts;
	b.value = opts->value;
	value_columns(&b, t, topts);
	b.slot_name = xcalloc(sp.nslots, sizeof(*b.slot_name));
	b.slot_label = xcalloc(sp.nslots, sizeof(*b.slot_label));
	for (i = 0; i < sp.nslots; i++)
		if (sp.slot_used[i]) {
			b.slot_name[i] = hpa_frame_name_id(prof, opts->names, sp.slot_frame[i], topts->name);
			b.slot_label[i] = hpa_frame_name_id(prof, opts->names, sp.slot_frame[i], topts->label);
		}
	hpa_seqs_rank(&sp, b.slot_name, profile_str, prof, "");
	kept_values(&b, prof, opts);
	make_root(&b, prof, opts, topts);
	HPA_GROW(b.path, 1, b.path_alloc);
	b.path[0] = 0;
	hpa_seqs_walk(&sp, &visit);
	for (i = t->nr; i-- > 1;) {   /* each node's children in the order made: name order */
		struct hpa_call_node *p = &t->nodes[t->nodes[i].parent];

		t->nodes[i].next = p->child;
		p->child = (uint32_t)i;
	}
	free(b.path);
	free(b.slot_name);
	free(b.kept_input);
	free(b.kv);
	free(b.slot_label);
	hpa_seqs_release(&sp);
}

double hpa_call_node_value(const struct hpa_call_tree *t, size_t i, int type)
{
	if (!t->values)
		return hpa_dust_to_zero(t->nodes[i].after);
	return t->vcol[type] < 0 ? 0 : hpa_dust_to_zero(t->values[i * t->vstride + (size_t)t->vcol[type]]);
}

double hpa_call_node_min(const struct hpa_call_tree *t, int type, double min_share)
{
	return min_share * fmax(fabs(hpa_call_node_value(t, 0, type)), fabs(t->nodes[0].before));
}

bool hpa_call_node_above(const struct hpa_call_tree *t, size_t i, int type, double min)
{
	double after = hpa_call_node_value(t, i, type), before = t->nodes[i].before;

	return (fabs(after) >= min || fabs(before) >= min) && !(after == 0 && before == 0);
}

bool hpa_call_node_shown(const struct hpa_call_tree *t, size_t i, int type, double min_share)
{
	return hpa_call_node_above(t, i, type, hpa_call_node_min(t, type, min_share));
}

void hpa_call_tree_release(struct hpa_call_tree *t)
{
	free(t->nodes);
	free(t->series);
	free(t->values);
	free(t->left_out);
	memset(t, 0, sizeof(*t));
}
