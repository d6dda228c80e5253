/*
 * The grouping engine (group.h), whole stacks: the view's samples grouped
 * by the text of their stacks (--collapse, --traces, --drop_negative), and
 * a stack's text made from one of its samples.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "seqs.h"

/* Frames joined by ';' root first: "name;" each (writers cut the last ';'). */
const struct hpa_stack_format hpa_folded_format = {
	hpa_folded_frame, true, "", ";", "<no stack>;", false
};

struct walk_stacks {
	const struct hpa_seqs *s;
	const struct hpa_stack_format *fmt;
	uint32_t *slot_name;         /* id in names */
	uint32_t *name_len;          /* by name id: its length */
	struct hpa_strtab names;
	char *buf;                   /* the text of the stack walked to */
	size_t *end;                 /* end[depth]: its length down to that depth */
	size_t buf_alloc, end_alloc, pl, sl;
	bool texts;                  /* make the texts (else emit() gets NULL) */
	uint32_t *samples;           /* the samples and values passed to emit() */
	double *values;
	size_t samples_alloc, values_alloc;
	hpa_stack_emit_fn *emit;
	void *ctx;
	struct kept_emits *kept;      /* a forked stretch's: its emits, for the join */
	/*
	 * For kept emits: the length of the text emitted last (0 when none,
	 * or not in buf), how much of buf no node has written since, and so
	 * what the text emitted shares with the one before.
	 */
	size_t last_len, unchanged, shared;
};

static bool stack_node(void *ctx, uint32_t depth, uint32_t slot, const uint32_t *items, size_t n)
{
	struct walk_stacks *w = ctx;
	const char *name;
	size_t len, nl;

	(void)items;
	(void)n;
	if (!w->texts)
		return true;
	name = hpa_strtab_get(&w->names, w->slot_name[slot]);
	len = w->end[depth - 1];
	if (len < w->unchanged)
		w->unchanged = len;
	nl = w->name_len[w->slot_name[slot]];
	HPA_GROW(w->end, depth + 1, w->end_alloc);
	HPA_GROW(w->buf, len + w->pl + nl + w->sl + 1, w->buf_alloc);
	memcpy(w->buf + len, w->fmt->prefix, w->pl);
	memcpy(w->buf + len + w->pl, name, nl);
	memcpy(w->buf + len + w->pl + nl, w->fmt->suffix, w->sl);
	w->end[depth] = len + w->pl + nl + w->sl;
	w->buf[w->end[depth]] = 0;
	return true;
}

static void stack_end(void *ctx, uint32_t depth, const uint32_t *items, size_t n)
{
	struct walk_stacks *w = ctx;
	const char *text = depth ? w->buf : w->fmt->empty;
	size_t i, len;

	if (!depth && !*text)
		return;   /* no group for a stack without frames */
	HPA_GROW(w->samples, n, w->samples_alloc);
	HPA_GROW(w->values, n, w->values_alloc);
	for (i = 0; i < n; i++) {
		w->samples[i] = w->s->sample[items[i]];
		w->values[i] = w->s->v[items[i]];
	}
	if (!w->texts) {
		w->emit(w->ctx, NULL, 0, w->samples, w->values, n);
		return;
	}
	len = depth ? w->end[depth] : strlen(text);
	w->shared = depth ? len < w->unchanged ? len : w->unchanged : 0;
	if (w->shared > w->last_len)
		w->shared = w->last_len;
	w->last_len = depth ? len : 0;
	w->unchanged = SIZE_MAX;
	w->emit(w->ctx, text, len, w->samples, w->values, n);
}

/*
 * A forked stretch's groups (hpa_seqs_visitor's fork), kept to be emitted
 * after the first stretch's: their samples and values one after the
 * other, and their texts front-coded: each as the length it shares with
 * the text before it (what the walk left of it in buf: stack_end) and
 * the rest.  Texts of a walk in name order share most of their length
 * with the one before: kept so, they take about a quarter of their
 * length.
 */
#define NO_TEXT UINT32_MAX

struct kept_emits {
	/* In order: where its rest and samples start follows from those before. */
	struct kept_emit { size_t len; uint32_t n, shared; } *e;   /* shared NO_TEXT: emitted none */
	char *rests;                 /* each text's rest, one after the other */
	uint32_t *samples;
	double *values;
	size_t nr, alloc, rests_nr, rests_alloc, longest, samples_nr, samples_alloc, values_alloc;
};

static void keep_emit(void *ctx, const char *text, size_t len, const uint32_t *samples,
		      const double *values, size_t n)
{
	const struct walk_stacks *w = ctx;
	struct kept_emits *k = w->kept;
	struct kept_emit *e;
	size_t shared = text && w->shared < NO_TEXT ? w->shared : 0;

	if (n > UINT32_MAX)
		HPA_BUG("%zu samples in one group", n);
	HPA_GROW(k->e, k->nr + 1, k->alloc);
	e = &k->e[k->nr++];
	e->len = len;
	e->n = (uint32_t)n;
	e->shared = text ? (uint32_t)shared : NO_TEXT;
	if (text) {
		HPA_GROW(k->rests, k->rests_nr + len - shared, k->rests_alloc);
		memcpy(k->rests + k->rests_nr, text + shared, len - shared);
		k->rests_nr += len - shared;
		if (len > k->longest)
			k->longest = len;
	}
	HPA_GROW(k->samples, k->samples_nr + n, k->samples_alloc);
	HPA_GROW(k->values, k->samples_nr + n, k->values_alloc);
	memcpy(k->samples + k->samples_nr, samples, n * sizeof(*samples));
	memcpy(k->values + k->samples_nr, values, n * sizeof(*values));
	k->samples_nr += n;
}

/* The rest of the walk from where w is (the text down to the last node), its groups kept. */
static void *stacks_fork(void *ctx)
{
	const struct walk_stacks *w = ctx;
	struct walk_stacks *f = xmalloc(sizeof(*f));

	*f = *w;
	f->buf = xmalloc(w->buf_alloc);
	memcpy(f->buf, w->buf, w->buf_alloc);
	f->end = xmalloc(st_mult(w->end_alloc, sizeof(*f->end)));
	memcpy(f->end, w->end, w->end_alloc * sizeof(*f->end));
	f->samples = NULL;
	f->values = NULL;
	f->samples_alloc = f->values_alloc = 0;
	f->kept = xcalloc(1, sizeof(*f->kept));
	f->emit = keep_emit;
	f->ctx = f;
	f->last_len = 0;   /* its first text shares nothing with one before */
	return f;
}

/* The stretch's groups, emitted in their order after w's. */
static void stacks_join(void *ctx, void *forked)
{
	struct walk_stacks *w = ctx, *f = forked;
	struct kept_emits *k = f->kept;
	char *text = xmalloc(k->longest + 1);
	size_t i, rest = 0, first = 0;

	for (i = 0; i < k->nr; i++) {   /* each text made again from the one before */
		const struct kept_emit *e = &k->e[i];

		if (e->shared != NO_TEXT) {
			memcpy(text + e->shared, k->rests + rest, e->len - e->shared);
			text[e->len] = '\0';
			rest += e->len - e->shared;
		}
		w->emit(w->ctx, e->shared != NO_TEXT ? text : NULL, e->len, k->samples + first,
			k->values + first, e->n);
		first += e->n;
	}
	free(text);
	free(k->e);
	free(k->rests);
	free(k->samples);
	free(k->values);
	free(k);
	free(f->buf);
	free(f->end);
	free(f->samples);
	free(f->values);
	free(f);
}

static const char *names_str(const void *names, uint32_t id)
{
	return hpa_strtab_get(names, id);
}

void hpa_stack_seqs(struct hpa_seqs *s, const struct hpa_profile *prof,
		    const struct hpa_view_opts *opts, const struct hpa_stack_format *fmt,
		    struct hpa_strtab *names, uint32_t **slot_name)
{
	size_t el = strlen(fmt->empty), pl = strlen(fmt->prefix), sl = strlen(fmt->suffix), i;
	bool empty_frame;

	/* A stack without frames whose text is prefix + X + suffix: one frame named X, in order. */
	empty_frame = el > pl + sl && !strncmp(fmt->empty, fmt->prefix, pl) &&
		!strcmp(fmt->empty + el - sl, fmt->suffix);
	hpa_seqs_collect(s, prof, opts, !fmt->root_first, fmt->leaf_only, empty_frame, true);
	hpa_strtab_init(names);
	*slot_name = xcalloc(s->nslots, sizeof(**slot_name));
	for (i = 0; i + 1 < s->nslots; i++)
		if (s->slot_used[i]) {
			char *name = fmt->name(prof, opts->names, s->slot_frame[i]);
			(*slot_name)[i] = hpa_strtab_intern(names, name);
			free(name);
		}
	if (empty_frame)
		(*slot_name)[HPA_SEQS_EMPTY_SLOT(s)] =
			hpa_strtab_intern_len(names, fmt->empty + pl, el - pl - sl);
	hpa_seqs_rank(s, *slot_name, names_str, names, fmt->suffix);
}

double hpa_walk_stacks(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		       const struct hpa_stack_format *fmt, bool texts, hpa_stack_emit_fn *emit,
		       void *ctx)
{
	struct hpa_seqs s;
	struct walk_stacks w;
	struct hpa_seqs_visitor visit = { stack_node, stack_end, &w, true, stacks_fork, stacks_join };
	double total;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.fmt = fmt;
	w.texts = texts;
	w.pl = strlen(fmt->prefix);
	w.sl = strlen(fmt->suffix);
	w.emit = emit;
	w.ctx = ctx;
	hpa_stack_seqs(&s, prof, opts, fmt, &w.names, &w.slot_name);
	w.s = &s;
	w.name_len = xmalloc(st_mult(w.names.nr + 1, sizeof(*w.name_len)));
	for (i = 0; i < w.names.nr; i++)
		w.name_len[i] = (uint32_t)strlen(hpa_strtab_get(&w.names, (uint32_t)i));
	HPA_GROW(w.end, 1, w.end_alloc);
	w.end[0] = 0;
	HPA_GROW(w.buf, 1, w.buf_alloc);
	w.buf[0] = 0;
	hpa_seqs_walk(&s, &visit);
	total = s.total;
	free(w.buf);
	free(w.end);
	free(w.samples);
	free(w.values);
	free(w.slot_name);
	free(w.name_len);
	hpa_strtab_release(&w.names);
	hpa_seqs_release(&s);
	return total;
}

void hpa_stack_sides(const struct hpa_profile *prof, const struct hpa_view_opts *vo,
		     const uint32_t *samples, const double *values, size_t n, double *before,
		     double *after)
{
	size_t i;

	*before = *after = 0;
	for (i = 0; i < n; i++) {
		if (hpa_view_base(vo, prof, prof->samples[samples[i]].input))
			*before -= values[i];
		else
			*after += values[i];
	}
}

void hpa_stack_namer_init(struct hpa_stack_namer *n, const struct hpa_profile *prof,
			  const struct hpa_view_opts *opts, const struct hpa_stack_format *fmt)
{
	memset(n, 0, sizeof(*n));
	n->prof = prof;
	n->fmt = fmt;
	hpa_view_init(&n->view, prof, opts);
	hpa_strtab_init(&n->names);
	n->slot_text = xcalloc(hpa_symbols_slots(opts->symbols) + 1, sizeof(*n->slot_text));
	n->slot_len = xcalloc(hpa_symbols_slots(opts->symbols) + 1, sizeof(*n->slot_len));
}

const char *hpa_stack_text(struct hpa_stack_namer *n, uint32_t sample, size_t *len)
{
	const struct hpa_stack_format *fmt = n->fmt;
	const struct hpa_frame *frames;
	size_t nr, k, at = 0;

	if (!hpa_view_sample(&n->view, sample, &frames, &nr))
		nr = 0;
	if (fmt->leaf_only && nr > 1)
		nr = 1;
	if (!nr) {
		*len = strlen(fmt->empty);
		return fmt->empty;
	}
	for (k = 0; k < nr; k++) {
		struct hpa_frame f = frames[fmt->root_first ? nr - 1 - k : k];
		size_t slot = hpa_view_slot(&n->view, f), l;

		if (!n->slot_text[slot]) {   /* the frame's prefix + name + suffix, made once */
			char *name = fmt->name(n->prof, n->view.opts.names, f);
			char *text = hpa_xasprintf("%s%s%s", fmt->prefix, name, fmt->suffix);
			/* strtab texts stay where they are */
			n->slot_text[slot] = hpa_strtab_get(&n->names, hpa_strtab_intern(&n->names, text));
			n->slot_len[slot] = (uint32_t)strlen(text);
			free(name);
			free(text);
		}
		l = n->slot_len[slot];
		HPA_GROW(n->buf, at + l + 1, n->alloc);
		memcpy(n->buf + at, n->slot_text[slot], l + 1);
		at += l;
	}
	*len = at;
	return n->buf;
}

void hpa_stack_namer_release(struct hpa_stack_namer *n)
{
	hpa_view_release(&n->view);
	hpa_strtab_release(&n->names);
	free(n->slot_text);
	free(n->slot_len);
	free(n->buf);
	memset(n, 0, sizeof(*n));
}

struct group_stacks {
	const struct hpa_profile *prof;
	const struct hpa_view_opts *opts;
	struct hpa_strtab *texts;
	struct hpa_stack_group *groups;
	size_t ngroups, agroups;
	double *series;              /* with per_input */
	size_t series_alloc;
	bool per_input;
	uint32_t *group_of;
};

static void group_emit(void *ctx, const char *text, size_t len, const uint32_t *samples,
		       const double *values, size_t n)
{
	struct group_stacks *g = ctx;
	const struct hpa_profile *prof = g->prof;
	size_t ninputs = prof->inputs_nr, i;
	/* Stack text ids are dense from 1: group[id - 1] is the stack's. */
	uint32_t id = hpa_strtab_intern_len(g->texts, text, len);

	if (id > g->ngroups) {
		HPA_GROW(g->groups, g->ngroups + 1, g->agroups);
		g->groups[g->ngroups].text = id;
		g->groups[g->ngroups].before = g->groups[g->ngroups].after = 0;
		g->ngroups++;
		if (g->per_input) {
			HPA_GROW(g->series, g->ngroups * ninputs, g->series_alloc);
			memset(g->series + (g->ngroups - 1) * ninputs, 0, ninputs * sizeof(*g->series));
		}
	}
	for (i = 0; i < n; i++) {
		const struct hpa_sample *smp = &prof->samples[samples[i]];

		if (g->per_input)   /* its value in each dump, a folded series' too */
			hpa_sample_add_series(prof, samples[i], g->opts->value,
					      hpa_view_weight(g->opts, prof, smp->input), g->series + (id - 1) * ninputs);
		if (g->group_of)
			g->group_of[samples[i]] = id;
		if (hpa_view_base(g->opts, prof, smp->input))
			g->groups[id - 1].before -= values[i];
		else
			g->groups[id - 1].after += values[i];
	}
}

size_t hpa_group_stacks(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
			const struct hpa_stack_format *fmt, struct hpa_strtab *texts,
			struct hpa_stack_group **out, double *total, uint32_t *group_of,
			double **per_input)
{
	struct group_stacks g;

	memset(&g, 0, sizeof(g));
	g.prof = prof;
	g.opts = opts;
	g.texts = texts;
	g.per_input = per_input != NULL;
	g.group_of = group_of;
	if (group_of)
		memset(group_of, 0, prof->samples_nr * sizeof(*group_of));
	*total = hpa_walk_stacks(prof, opts, fmt, true, group_emit, &g);
	*out = g.groups;
	if (per_input)
		*per_input = g.series;
	return g.ngroups;
}
