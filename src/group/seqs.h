/*
 * The view's samples as sequences of frame slots, walked in name order
 * without a lookup per frame (the engine under the call tree and the
 * stack groups).  Each kept sample's frames become slots; the caller names
 * the slots it uses and they are ranked by name; the walk then splits the
 * samples level by level, a range of samples sharing a prefix sorted by
 * the rank of their next frame (a stable radix sort), each run of one rank
 * a node.  Nodes come depth first, children in name order, and every
 * callback gets its samples in sample order, so sums over them are the
 * sums sample after sample would give.
 */
#ifndef HPA_XFORM_SEQS_H
#define HPA_XFORM_SEQS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hpa/group.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

struct hpa_seqs {
	const struct hpa_profile *prof;
	size_t kept;                 /* samples in view */
	uint32_t *sample;            /* per kept sample: its sample index */
	double *v;                   /* its view value (NULL when not asked for) */
	bool no_values;              /* v not made */
	uint32_t *seq_of;            /* its sequence id: equal ids, one stored sequence */
	bool one_each;               /* each kept sample has a sequence of its own: seq_of[k] == k */
	size_t nreps;                /* sequence ids */
	size_t *off;                 /* per sequence id: its slots seq[off[id]] ... */
	uint32_t *len;               /* ... len[id] of them */
	uint32_t *members;           /* the kept samples of sequence id, ascending (the first ... */
	size_t *member_start;        /* ... stands for it): members[member_start[id] .. [id + 1]); */
	                             /* made by the walk, not when one_each (kept sample k is */
	                             /* sequence k) */
	uint32_t *seq;               /* the slots; or, when every slot fits 16 bits, seq16 */
	uint16_t *seq16;             /* (half the room, and of the walk's misses): hpa_seqs_at() */
	size_t nslots;               /* profile slots, and one more: EMPTY_SLOT */
	struct hpa_frame *slot_frame;   /* a frame of each slot used */
	bool *slot_used;
	uint32_t *slot_rank;         /* 1, 2, ... in name order, after hpa_seqs_rank */
	unsigned rank_bits;
	double total;                /* the kept samples' values, summed in sample order */
};

/*
 * Kept sample k's sequence id.  One dump's samples have a sequence each
 * (its stacks are distinct): no lookup, which the walk would otherwise make
 * at random for each sample at each level.
 */
static inline uint32_t hpa_seqs_id(const struct hpa_seqs *s, uint32_t k)
{
	return s->one_each ? k : s->seq_of[k];
}

/* The i-th slot of the stored sequences. */
static inline uint32_t hpa_seqs_at(const struct hpa_seqs *s, size_t i)
{
	return s->seq16 ? s->seq16[i] : s->seq[i];
}

/* The slot of a sample without frames, when collect was asked for one. */
#define HPA_SEQS_EMPTY_SLOT(s) ((s)->nslots - 1)

/*
 * The view's samples, frames root first unless leaf_first, only the
 * innermost with leaf_only; with empty_frame a sample without frames has
 * the one frame HPA_SEQS_EMPTY_SLOT; with `values`, each kept sample's view
 * value in v (its sum in total either way).
 */
void hpa_seqs_collect(struct hpa_seqs *s, const struct hpa_profile *prof,
		      const struct hpa_view_opts *opts, bool leaf_first, bool leaf_only, bool empty_frame,
		      bool values);

/*
 * Ranks the slots used by their names: slot_name[slot] an id (equal ids
 * for equal names), str(ctx, id) its text; names compare as if each were
 * followed by `suffix`, so that the walk's order is the order of texts
 * made of name + suffix.
 */
void hpa_seqs_rank(struct hpa_seqs *s, const uint32_t *slot_name,
		   const char *(*str)(const void *ctx, uint32_t id), const void *ctx, const char *suffix);

struct hpa_seqs_visitor {
	/*
	 * A node at depth (1 = outermost frame) of slot `slot`, passed by kept
	 * samples items[0..n).  False declines it: nothing under it is visited.
	 */
	bool (*node)(void *ctx, uint32_t depth, uint32_t slot, const uint32_t *items, size_t n);
	/* The kept samples items[0..n) whose stacks end at the last node (depth 0: no frames). */
	void (*end)(void *ctx, uint32_t depth, const uint32_t *items, size_t n);
	void *ctx;
	/*
	 * Walk the distinct stored sequences, not the samples: node() gets one
	 * kept sample of each sequence under the node (it wants no sums), end()
	 * still every kept sample, in sample order.  With many dumps of the
	 * same stacks, a fraction of the work.
	 */
	bool by_sequence;
	/*
	 * Optional: a second thread may walk the end of the walk (the runs
	 * that would come last) while the caller's thread walks the rest.
	 * fork() gives that stretch a context of its own, in the state the
	 * visitor is in when called (between two nodes); its node() and end()
	 * calls come after all of the first stretch's.  join() then takes the
	 * second stretch's results into ctx as if they had been made in turn,
	 * and releases the forked context.  Both on the caller's thread.
	 */
	void *(*fork)(void *ctx);
	void (*join)(void *ctx, void *forked);
};

void hpa_seqs_walk(struct hpa_seqs *s, const struct hpa_seqs_visitor *v);
void hpa_seqs_release(struct hpa_seqs *s);

/*
 * (group.c) The view's sequences for stacks written in `fmt`, their slots
 * named (slot_name[slot]: an id in names; the caller frees both) and
 * ranked by name as fmt's texts sort (a stack without frames is one frame
 * where fmt's empty text is a frame's).
 */
void hpa_stack_seqs(struct hpa_seqs *s, const struct hpa_profile *prof,
		    const struct hpa_view_opts *opts, const struct hpa_stack_format *fmt,
		    struct hpa_strtab *names, uint32_t **slot_name);

#endif
