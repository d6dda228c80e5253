/*
 * The growth pass (growth.h): per-dump series from the grouping engine,
 * with their metrics and rank.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/group.h"
#include "hpa/hashmap.h"
#include "hpa/growth.h"
#include "hpa/names.h"
#include "hpa/xalloc.h"
#include "seqs.h"

double hpa_steadiness(const double *v, size_t n, int dir)
{
	size_t i, k = 0;

	for (i = 0; i + 1 < n; i++)
		k += dir > 0 ? v[i + 1] > v[i] : v[i + 1] < v[i];
	return n > 1 ? (double)k / (double)(n - 1) : 0;
}

const char *hpa_growth_class_name(enum hpa_growth_class c)
{
	static const char *const names[] = { "leak", "plateau", "churn", "shrink", "flat" };

	return (size_t)c < HPA_ARRAY_SIZE(names) ? names[c] : "?";
}

/* R^2 of the least-squares line through (i, v[i]): 1 when v is constant. */
static double r_squared(const double *v, size_t n)
{
	double mx = (n - 1) / 2.0, my = 0, sxy = 0, sxx = 0, syy = 0;
	size_t i;

	for (i = 0; i < n; i++)
		my += v[i] / (double)n;
	for (i = 0; i < n; i++) {
		sxy += (i - mx) * (v[i] - my);
		sxx += (i - mx) * (i - mx);
		syy += (v[i] - my) * (v[i] - my);
	}
	return syy > 0 && sxx > 0 ? sxy * sxy / (sxx * syy) : 1;
}

/* Grew to within `tol` of its end by dump n - 3 or before, and stayed there. */
static bool settled(const double *v, size_t n, double tol)
{
	size_t k = n - 1;

	while (k > 0 && fabs(v[k - 1] - v[n - 1]) <= tol)
		k--;
	return n >= 3 && k + 2 < n && v[k] - v[0] > tol;
}

enum hpa_growth_class hpa_growth_classify(const double *v, size_t n, double *r2)
{
	double hi = 0, tol, step_tol, change;
	size_t i, up = 0, down = 0, steps = n > 1 ? n - 1 : 0;

	*r2 = n > 1 ? r_squared(v, n) : 1;
	if (!steps)
		return HPA_GROWTH_FLAT;
	for (i = 0; i < n; i++)
		hi = fmax(hi, fabs(v[i]));
	tol = hi * 0.05;
	step_tol = hi * 0.01;
	for (i = 0; i + 1 < n; i++) {
		up += v[i + 1] - v[i] > step_tol;
		down += v[i] - v[i + 1] > step_tol;
	}
	change = v[n - 1] - v[0];
	if (change > tol && ((up * 3 >= steps * 2 && (n < 4 || *r2 >= 0.5)) || (!down && up * 2 >= steps)))
		return HPA_GROWTH_LEAK;
	if (change > tol && settled(v, n, tol))
		return HPA_GROWTH_PLATEAU;
	if (-change > tol && (down * 3 >= steps * 2 || (!up && down * 2 >= steps)))
		return HPA_GROWTH_SHRINK;
	if (up + down == 0 || (fabs(change) <= tol && up + down <= 1))
		return HPA_GROWTH_FLAT;
	return HPA_GROWTH_CHURN;
}

static char *display_frame(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	return xstrdup(hpa_frame_display(prof, names, f));
}

/* Values v[0 .. n) with dust made zero (in place): their gain and rank score. */
static double score_of(double *v, size_t n, double *gain)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = hpa_dust_to_zero(v[i]);
	*gain = v[n - 1] - v[0];
	return (*gain > 0 ? *gain : 0) * hpa_steadiness(v, n, 1);
}

static void metrics(struct hpa_series *s, size_t n)
{
	double mx = (n - 1) / 2.0, num = 0, den = 0;
	size_t i;

	s->score = score_of(s->v, n, &s->gain);
	s->last = s->v[n - 1];
	s->cls = (uint8_t)hpa_growth_classify(s->v, n, &s->r2);
	for (i = 0; i < n; i++) {
		num += (i - mx) * (s->v[i] - 0);
		den += (i - mx) * (i - mx);
	}
	s->slope = den > 0 ? num / den : 0;
	s->steady = hpa_steadiness(s->v, n, 1);
}

/*
 * Series whose texts were not made (grouped by name, below) tie-break in
 * the walk's text order from their sequences of name ranks; the others by
 * `order`, which is that order already.
 */
struct ties {
	const struct hpa_seqs *s;    /* NULL: order decides */
	const uint32_t *seq;         /* per series order: one of its sequences */
	const uint64_t *prefix;      /* per sequence: its first ranks (PREFIX_BITS), or NULL */
};

/* Sequences a and b in text order: rank by rank, one that ends first before. */
static int cmp_seqs(const struct hpa_seqs *s, uint32_t a, uint32_t b)
{
	size_t i, la = s->len[a], lb = s->len[b];

	for (i = 0; i < la && i < lb; i++) {
		uint32_t x = s->slot_rank[hpa_seqs_at(s, s->off[a] + i)];
		uint32_t y = s->slot_rank[hpa_seqs_at(s, s->off[b] + i)];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return (la > lb) - (la < lb);
}

/*
 * Rank order of two series by their score, gain, size in the last dump
 * (what did not grow: the largest first) and order (see struct ties).
 */
static int cmp_rank(int xc, double xs, double xg, double xl, uint32_t xo, int yc, double ys, double yg,
		    double yl, uint32_t yo, const struct ties *t)
{
	if (xc != yc)
		return xc < yc ? -1 : 1;
	if (xs != ys)
		return xs > ys ? -1 : 1;
	if (xg != yg)
		return xg > yg ? -1 : 1;
	if (fabs(xl) != fabs(yl))
		return fabs(xl) > fabs(yl) ? -1 : 1;
	if (t->s) {
		uint32_t a = t->seq[xo], b = t->seq[yo];

		if (t->prefix && t->prefix[a] != t->prefix[b])
			return t->prefix[a] < t->prefix[b] ? -1 : 1;
		return cmp_seqs(t->s, a, b);
	}
	return (xo > yo) - (xo < yo);
}

static int cmp_series(const void *a, const void *b, void *arg)
{
	const struct hpa_series *x = a, *y = b;

	return cmp_rank(x->cls, x->score, x->gain, x->last, x->order, y->cls, y->score, y->gain, y->last,
			y->order, arg);
}

/*
 * h[0 .. k): the best k of indices 0 .. n (k <= n) in rank order, best
 * first; cmp(&i, &j, ctx) compares two indices (uint32_t).  The first k
 * are made a heap with the worst on top, then each better one goes in:
 * a report shows the first 20, not the whole 180k sorted.
 */
static void sift_down(uint32_t *h, size_t k, size_t at, int (*cmp)(const void *, const void *, void *),
		      void *ctx)
{
	for (;;) {
		size_t c = 2 * at + 1, worst = at;
		uint32_t x;

		if (c < k && cmp(&h[c], &h[worst], ctx) > 0)
			worst = c;
		if (c + 1 < k && cmp(&h[c + 1], &h[worst], ctx) > 0)
			worst = c + 1;
		if (worst == at)
			return;
		x = h[at];
		h[at] = h[worst];
		h[worst] = x;
		at = worst;
	}
}

static void best_of(uint32_t *h, size_t k, size_t n, int (*cmp)(const void *, const void *, void *),
		    void *ctx)
{
	size_t i;

	for (i = 0; i < k; i++)
		h[i] = (uint32_t)i;
	for (i = k / 2; i-- > 0;)
		sift_down(h, k, i, cmp, ctx);
	for (i = k; i < n; i++) {
		uint32_t x = (uint32_t)i;

		if (cmp(&h[0], &x, ctx) > 0) {   /* better than the worst kept */
			h[0] = x;
			sift_down(h, k, 0, cmp, ctx);
		}
	}
	qsort_r(h, k, sizeof(*h), cmp, ctx);
}

struct series_rank {
	const struct hpa_series *s;
	const struct ties *t;
};

static int cmp_series_at(const void *a, const void *b, void *arg)
{
	const struct series_rank *r = arg;

	return cmp_series(&r->s[*(const uint32_t *)a], &r->s[*(const uint32_t *)b], (void *)r->t);
}

/*
 * Rank the nr series: the first `ranked` of them in rank order, best first,
 * the others after them in no particular order (ranked 0: all in order).
 */
static void rank_series(struct hpa_series *s, size_t nr, size_t ranked, const struct ties *t)
{
	struct series_rank r = { s, t };
	struct hpa_series *out;
	uint32_t *h;
	bool *picked;
	size_t i, k;

	if (!ranked || ranked * 8 >= nr) {
		if (nr > 1)
			qsort_r(s, nr, sizeof(*s), cmp_series, (void *)t);
		return;
	}
	h = xmalloc(st_mult(ranked, sizeof(*h)));
	best_of(h, ranked, nr, cmp_series_at, &r);
	out = xmalloc(st_mult(nr, sizeof(*out)));
	picked = xcalloc(nr, sizeof(*picked));
	for (k = 0; k < ranked; k++) {
		out[k] = s[h[k]];
		picked[h[k]] = true;
	}
	for (i = 0; i < nr; i++)
		if (!picked[i])
			out[k++] = s[i];
	memcpy(s, out, nr * sizeof(*s));
	free(out);
	free(picked);
	free(h);
}

struct lazy {
	const struct hpa_profile *prof;
	const struct hpa_view_opts *vo;
	size_t dumps;
	uint32_t *sample;            /* per group: one of its samples */
	double *values;              /* per group: a value per dump */
	size_t n, alloc, values_alloc;
};

/* A group of a walk whose texts are each their own: kept as a sample, no text. */
static void keep_group(void *ctx, const char *text, size_t len, const uint32_t *samples,
		       const double *values, size_t n)
{
	struct lazy *z = ctx;
	size_t i, d = z->dumps;

	(void)text;
	(void)len;
	(void)values;
	HPA_GROW(z->sample, z->n + 1, z->alloc);
	HPA_GROW(z->values, (z->n + 1) * d, z->values_alloc);
	memset(z->values + z->n * d, 0, d * sizeof(*z->values));
	z->sample[z->n] = samples[0];
	for (i = 0; i < n; i++)
		hpa_sample_add_series(z->prof, samples[i], z->vo->value,
				      hpa_view_weight(z->vo, z->prof, z->prof->samples[samples[i]].input),
				      z->values + z->n * d);
	z->n++;
}

/*
 * Whether every stack of `fmt` has a text of its own, so none need be
 * kept: a single frame, or names that never hold the suffix's first byte
 * (the folded format), or, for " < ", no name with a '<' (then every '<'
 * is a separator).
 */
static bool texts_own(const struct hpa_profile *prof, const struct hpa_names *names,
		      const struct hpa_stack_format *fmt)
{
	size_t i;

	if (fmt->leaf_only || fmt == &hpa_folded_format)
		return true;
	if (strcmp(fmt->suffix, " < ") || fmt->name != display_frame || *fmt->prefix)
		return false;
	for (i = 0; i < names->nr; i++)
		if (strchr(hpa_profile_str(prof, names->by_slot[i].display), '<'))
			return false;
	return true;
}

/*
 * Where every text is its own and only the first few are ranked, the
 * groups need neither the walk nor its order: they are the distinct
 * sequences of names, found by hashing the sequences' name ranks, in the
 * order of their first sample; each group's values are its samples' per
 * dump, added in sample order as the walk adds them, and ties in the rank
 * are broken in text order from the sequences (struct ties), which only
 * the ranked few need: the walk's order, made for the whole series,
 * would cost about half of --growth.
 */
struct by_names {
	struct hpa_seqs s;
	uint32_t *seq;               /* per group: its first sequence */
	uint64_t *prefix;            /* per sequence: rank_hashes' */
	uint32_t *sample;            /* per group: its first sample */
	uint32_t *at, *member;       /* group g's kept samples (seqs' k): member[at[g] .. at[g + 1]) */
	size_t n;
};

/* Sequences [lo, hi): the hash of each one's name ranks. */
struct rank_hashes {
	const struct hpa_seqs *s;
	uint64_t *hash;
	uint64_t *prefix;            /* NULL when ranks take more than PREFIX_BITS */
	size_t lo, hi;
};

/*
 * A sequence's first three name ranks in 21 bits each, 0 past its end: two
 * sequences' prefixes compare as their first three ranks do, so most ties
 * in the rank are broken without reading the sequences.
 */
#define PREFIX_BITS 21

static void hash_ranks(struct rank_hashes *p)
{
	const struct hpa_seqs *s = p->s;
	uint32_t *ranks = NULL;
	size_t r, d, aranks = 0;

	for (r = p->lo; r < p->hi; r++) {
		size_t len = s->len[r];

		HPA_GROW(ranks, len, aranks);
		for (d = 0; d < len; d++)
			ranks[d] = s->slot_rank[hpa_seqs_at(s, s->off[r] + d)];
		p->hash[r] = hpa_hash_ids(ranks, len);
		if (p->prefix) {
			uint64_t x = 0;
			for (d = 0; d < 3; d++)
				x = x << PREFIX_BITS | (d < len ? ranks[d] : 0);
			p->prefix[r] = x;
		}
	}
	free(ranks);
}

/* Do sequences a and b (both with frames) have the same names?  For hpa_hash_reps(). */
static bool same_seqs(void *s, uint32_t a, uint32_t b)
{
	const struct hpa_seqs *q = s;

	return q->len[a] && q->len[b] && !cmp_seqs(q, a, b);
}

static void group_by_names(struct by_names *b, const struct hpa_profile *prof,
			   const struct hpa_view_opts *vo, const struct hpa_stack_format *fmt)
{
	struct hpa_seqs *s = &b->s;
	struct hpa_strtab names;
	struct rank_hashes all;
	uint32_t *slot_name, *group_of, *rep, *fill;
	uint64_t *hash;
	size_t r, k;

	hpa_stack_seqs(s, prof, vo, fmt, &names, &slot_name);
	free(slot_name);
	hpa_strtab_release(&names);
	group_of = xcalloc(s->nreps + 1, sizeof(*group_of));
	rep = xmalloc(st_mult(s->nreps + 1, sizeof(*rep)));
	hash = xmalloc(st_mult(s->nreps + 1, sizeof(*hash)));
	b->seq = xmalloc(st_mult(s->nreps + 1, sizeof(*b->seq)));
	b->prefix = s->rank_bits <= PREFIX_BITS ? xmalloc(st_mult(s->nreps + 1, sizeof(*b->prefix))) : NULL;
	b->n = 0;
	/*
	 * The hashes, then sorted (hpa_hash_reps): equal sequences lie side by
	 * side, each takes the first of them as its representative, and one
	 * pass in order numbers the groups as they first appear, as a table
	 * would (without a miss per sequence).
	 */
	all = (struct rank_hashes){ s, hash, b->prefix, 0, s->nreps };
	hash_ranks(&all);
	hpa_hash_reps(hash, NULL, 0, s->nreps, rep, same_seqs, s);
	for (r = 0; r < s->nreps; r++) {
		if (!s->len[r])
			continue;   /* a stack without frames and no text for one: no group */
		if (rep[r] == r) {
			group_of[r] = (uint32_t)++b->n;
			b->seq[b->n - 1] = (uint32_t)r;
		} else {
			group_of[r] = group_of[rep[r]];
		}
	}
	free(rep);
	free(hash);
	/*
	 * Each group's kept samples, in order (a counting sort), not a value per
	 * group per dump: top_groups() makes the series a group at a time
	 * (200 dumps of 50k stacks: 80 MB).
	 */
	b->sample = xmalloc(st_mult(b->n + 1, sizeof(*b->sample)));
	memset(b->sample, 0xff, (b->n + 1) * sizeof(*b->sample));
	b->at = xcalloc(b->n + 1, sizeof(*b->at));
	b->member = xmalloc(st_mult(s->kept + 1, sizeof(*b->member)));
	for (k = 0; k < s->kept; k++) {
		uint32_t g = group_of[hpa_seqs_id(s, (uint32_t)k)];
		if (g)
			b->at[g]++;
	}
	for (r = 1; r <= b->n; r++)
		b->at[r] += b->at[r - 1];
	fill = xmalloc(st_mult(b->n + 1, sizeof(*fill)));
	memcpy(fill, b->at, (b->n + 1) * sizeof(*fill));
	for (k = 0; k < s->kept; k++) {
		uint32_t g = group_of[hpa_seqs_id(s, (uint32_t)k)];

		if (!g--)
			continue;
		if (b->sample[g] == UINT32_MAX)
			b->sample[g] = s->sample[k];
		b->member[fill[g]++] = (uint32_t)k;
	}
	free(fill);
	free(group_of);
}

/* Groups by score, gain and last value (per group id), ties as struct ties says. */
struct group_rank {
	const double *score, *gain, *last;
	const uint8_t *cls;
	const struct ties *t;
};

static int cmp_groups(const void *a, const void *b, void *arg)
{
	const struct group_rank *r = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return cmp_rank(r->cls[x], r->score[x], r->gain[x], r->last[x], x, r->cls[y], r->score[y], r->gain[y],
			r->last[y], y, r->t);
}

/* Group g's value in each dump into out[0 .. dumps): the sum of its kept samples'. */
static void group_values(const struct by_names *b, const struct hpa_profile *prof,
			 const struct hpa_view_opts *vo, size_t g, size_t dumps, double *out)
{
	size_t m;

	memset(out, 0, dumps * sizeof(*out));
	for (m = b->at[g]; m < b->at[g + 1]; m++) {
		uint32_t i = b->s.sample[b->member[m]];

		hpa_sample_add_series(prof, i, vo->value, hpa_view_weight(vo, prof, prof->samples[i].input), out);
	}
}

/*
 * The first `ranked` of b's groups as series, best first (all of them
 * when fewer): scores from each group's values, made a group at a time
 * (and added to sum[0 .. dumps) when not NULL), the best few picked with a
 * heap of group ids, and only their values kept (*values).
 */
static struct hpa_series *top_groups(const struct by_names *b, const struct ties *t,
				     const struct hpa_profile *prof, const struct hpa_view_opts *vo,
				     size_t dumps, size_t ranked, const struct hpa_stack_format *fmt,
				     double **values, double *sum)
{
	struct group_rank r = { NULL, NULL, NULL, NULL, t };
	uint8_t *cls = xmalloc(b->n + 1);
	double r2;
	double *score = xmalloc(st_mult(b->n + 1, sizeof(*score)));
	double *gain = xmalloc(st_mult(b->n + 1, sizeof(*gain)));
	double *last = xmalloc(st_mult(b->n + 1, sizeof(*last)));
	double *v = xmalloc(st_mult(dumps + 1, sizeof(*v)));
	struct hpa_series *out;
	uint32_t *h;
	size_t i, d, k = ranked < b->n ? ranked : b->n;

	for (i = 0; i < b->n; i++) {
		group_values(b, prof, vo, i, dumps, v);
		score[i] = score_of(v, dumps, &gain[i]);   /* dust made zero */
		last[i] = v[dumps - 1];
		cls[i] = (uint8_t)hpa_growth_classify(v, dumps, &r2);
		for (d = 0; sum && d < dumps; d++)
			sum[d] += v[d];
	}
	free(v);
	r.cls = cls;
	r.score = score;
	r.gain = gain;
	r.last = last;
	h = xmalloc(st_mult(k + 1, sizeof(*h)));
	best_of(h, k, b->n, cmp_groups, &r);
	out = xcalloc(k + 1, sizeof(*out));
	*values = xcalloc(st_mult(k + 1, dumps), sizeof(**values));
	for (i = 0; i < k; i++) {
		out[i].sample = b->sample[h[i]];
		out[i].fmt = fmt;
		out[i].order = h[i];
		out[i].v = *values + i * dumps;
		group_values(b, prof, vo, h[i], dumps, out[i].v);
		metrics(&out[i], dumps);
	}
	free(h);
	free(score);
	free(gain);
	free(last);
	free(cls);
	return out;
}

/* group_series() grouped by names: its groups' values, count and first `ranked` series. */
static struct hpa_series *series_by_names(const struct hpa_profile *prof, const struct hpa_view_opts *vo,
					  const struct hpa_stack_format *fmt, size_t dumps,
					  double **values, size_t *nr, size_t ranked, double *sum)
{
	struct by_names b;
	struct ties ties;
	struct hpa_series *out;

	group_by_names(&b, prof, vo, fmt);
	ties = (struct ties){ &b.s, b.seq, b.prefix };
	out = top_groups(&b, &ties, prof, vo, dumps, ranked, fmt, values, sum);
	*nr = b.n;
	free(b.at);
	free(b.member);
	free(b.sample);
	free(b.seq);
	free(b.prefix);
	hpa_seqs_release(&b.s);
	return out;
}

/*
 * The series of `fmt`'s groups, one value per dump, from the grouping
 * engine; names without the format's trailing separator, made when asked
 * for (hpa_growth_name) unless two stacks could share a text.
 */
static struct hpa_series *group_series(struct hpa_growth *g, const struct hpa_profile *prof,
				   const struct hpa_view_opts *vo, const struct hpa_stack_format *fmt,
				   struct hpa_strtab *texts, double **values, size_t *nr, size_t ranked,
				   double *sum)
{
	struct hpa_stack_group *groups = NULL;
	struct hpa_series *out;
	struct lazy z = { prof, vo, g->dumps, NULL, NULL, 0, 0, 0 };
	const struct ties by_order = { NULL, NULL, NULL };
	bool lazy = texts_own(prof, vo->names, fmt);
	double total;
	size_t i, d, cut = strlen(fmt->suffix);

	hpa_strtab_init(texts);
	if (lazy && ranked)   /* only the first few become series */
		return series_by_names(prof, vo, fmt, g->dumps, values, nr, ranked, sum);
	if (lazy) {
		hpa_walk_stacks(prof, vo, fmt, false, keep_group, &z);
		*nr = z.n;
		*values = z.values;
	} else {
		*nr = hpa_group_stacks(prof, vo, fmt, texts, &groups, &total, NULL, values);
	}
	out = xcalloc(*nr + 1, sizeof(*out));
	for (i = 0; i < *nr; i++) {
		if (!lazy) {
			const char *text = hpa_strtab_get(texts, groups[i].text);
			size_t len = strlen(text);

			out[i].name = text;
			out[i].name_len = (int)(len >= cut ? len - cut : len);
		} else {
			out[i].sample = z.sample[i];
		}
		out[i].fmt = fmt;
		out[i].order = (uint32_t)i;
		out[i].v = *values + i * g->dumps;
		metrics(&out[i], g->dumps);   /* dust made zero */
		for (d = 0; sum && d < g->dumps; d++)
			sum[d] += out[i].v[d];
	}
	rank_series(out, *nr, ranked, &by_order);
	free(groups);
	free(z.sample);
	return out;
}

const char *hpa_growth_name(struct hpa_growth *g, const struct hpa_series *s, int *len)
{
	struct hpa_stack_namer *n = s->fmt == g->func_namer.fmt ? &g->func_namer : &g->stack_namer;
	size_t l, cut = strlen(s->fmt->suffix);
	const char *text;

	if (s->name) {
		*len = s->name_len;
		return s->name;
	}
	text = hpa_stack_text(n, s->sample, &l);
	*len = (int)(l >= cut ? l - cut : l);
	return text;
}

/* The whole view's series: every function's (each sample's leaf once), dump by dump. */
static void whole(struct hpa_growth *g)
{
	if (g->dumps)
		metrics(&g->total, g->dumps);
}

/*
 * Stacks ("leaf < caller < ...", or folded root first for --collapse) and
 * functions (the innermost visible frame: where they allocated).
 */
void hpa_growth(const struct hpa_profile *prof, const struct hpa_view_opts *opts, bool folded,
		size_t ranked, struct hpa_growth *g)
{
	static const struct hpa_stack_format stacks = {
		display_frame, false, "", " < ", "<no stack> < ", false
	};
	static const struct hpa_stack_format funcs = { display_frame, false, "", " < ", "", true };
	memset(g, 0, sizeof(*g));
	g->dumps = prof->inputs_nr;
	hpa_stack_namer_init(&g->stack_namer, prof, opts, folded ? &hpa_folded_format : &stacks);
	hpa_stack_namer_init(&g->func_namer, prof, opts, &funcs);
	g->stacks = group_series(g, prof, opts, folded ? &hpa_folded_format : &stacks,
				 &g->stack_texts, &g->stack_values, &g->nstacks, ranked, NULL);
	g->total.v = xcalloc(g->dumps + 1, sizeof(*g->total.v));   /* the sum of the functions' */
	g->funcs = group_series(g, prof, opts, &funcs, &g->func_texts, &g->func_values, &g->nfuncs,
				ranked, g->total.v);
	whole(g);
}

void hpa_growth_release(struct hpa_growth *g)
{
	free(g->stack_values);
	free(g->func_values);
	free(g->stacks);
	free(g->funcs);
	free(g->total.v);
	hpa_strtab_release(&g->stack_texts);
	hpa_strtab_release(&g->func_texts);
	hpa_stack_namer_release(&g->stack_namer);
	hpa_stack_namer_release(&g->func_namer);
}
