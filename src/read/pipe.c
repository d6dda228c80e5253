/*
 * Reading a text profile on two threads.  The parser (the caller's thread)
 * turns lines into counts and stacks of addresses.  Storing them is about
 * as much work again: each address becomes a location id (one lookup
 * each), and the stacks and samples go to the profile's tables.  So the
 * parser writes what it read into batches of words, and a pipeline beside
 * it (task.h) stores them in order on a second thread while the parser goes
 * on.
 *
 * What is stored, and in which order, is exactly what one thread would
 * store: the storer takes batch after batch, op after op.  The two threads
 * share no table: the storer owns the locations, frames, stacks and
 * samples, which the parser does not look at until read_pipe_end() has
 * returned.  A profile smaller than one batch starts no thread: its batch
 * is stored at the end, in the parser's thread.
 *
 * Memory follows the distinct stacks, not the records: each stack is
 * interned, each record is made an estimate as it is stored (its own
 * sampling rule, per record, as jeprof), and a record of a stack already
 * stored adds to that stack's sample (and a thread's line to that
 * thread's), so a file holding the same stacks twelve times takes what it
 * takes once.
 *
 * A batch is a run of 32-bit words.  An op starts with a word holding its
 * kind in the top two bits and its size below:
 *   STACK n, then n addresses (2 words each, as in memory):
 *                                         the stack, found or added
 *   SAMPLE, the thread, the 4 values:     a sample of the stack last stored
 *   SOLE, the thread:                     the sample last stored is also that
 *                                         thread's own (hpa_profile_set_sole_thread)
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/hashmap.h"
#include "hpa/task.h"
#include "hpa/unsample.h"
#include "hpa/xalloc.h"
#include "read.h"

#define PIPE_WORDS ((size_t)1 << 16)   /* a batch: 256 KiB */
#define PIPE_SLOTS 4                   /* batches: the one filled, the others queued or stored */
#define PREFETCH_AHEAD 128             /* words: 512 bytes, eight cache lines */

enum { OP_STACK, OP_SAMPLE, OP_SOLE };
#define OP_SHIFT 30
#define OP_ARG_MASK ((UINT32_C(1) << OP_SHIFT) - 1)
#define SAMPLE_WORDS (2 + HPA_NVALUES * sizeof(double) / sizeof(uint32_t))

struct batch {
	uint32_t *w;
	size_t nr, alloc;
};

struct read_pipe {
	struct hpa_profile *prof;
	uint32_t input;
	uint32_t stack;                 /* the storer's: the stack last stored */
	/* The storer's, for summing records of one stack: */
	uint32_t *stack_sample;         /* by stack: its all-threads sample + 1, 0 none yet */
	size_t stack_sample_alloc;
	struct hpa_hashmap thread_sample;   /* stack << 32 | thread -> that thread's sample + 1 */
	size_t last;                    /* the all-threads sample the last record went to */
	bool last_summed;               /* ... added to an earlier record's */
	double last_v[HPA_NVALUES];     /* ... with these values */
	uint64_t *addrs;                /* the storer's: a stack's addresses, aligned */
	size_t addrs_alloc;
	struct batch first;             /* the first batch, filled before any pipeline */
	struct batch *cur;              /* the parser's, being filled */
	struct hpa_ordered *storer;     /* from the first full batch on */
	struct batch slots[PIPE_SLOTS]; /* the storer's batches */
};

/* Where the all-threads sample of `stack` stored for this input is kept: its index + 1, or 0. */
static uint32_t *sample_slot(struct read_pipe *p, uint32_t stack)
{
	if (stack >= p->stack_sample_alloc) {
		size_t old = p->stack_sample_alloc;
		HPA_GROW(p->stack_sample, (size_t)stack + 1, p->stack_sample_alloc);
		memset(p->stack_sample + old, 0, (p->stack_sample_alloc - old) * sizeof(*p->stack_sample));
	}
	return &p->stack_sample[stack];
}

/* Store a record's (estimated) values for the stack last stored and `thread`, summed into its sample if it has one. */
static void add_sample(struct read_pipe *p, int32_t thread, const double v[HPA_NVALUES])
{
	struct hpa_profile *prof = p->prof;
	uint64_t key = (uint64_t)p->stack << 32 | (uint32_t)thread;
	uint32_t at = thread == HPA_THREAD_ALL ? *sample_slot(p, p->stack) :
		      hpa_hashmap_get(&p->thread_sample, key);
	struct hpa_sample *s;
	unsigned k;

	if (!at) {
		s = hpa_profile_add_sample(prof, p->stack, thread, p->input, v);
		at = (uint32_t)prof->samples_nr;
		if (thread == HPA_THREAD_ALL)
			*sample_slot(p, p->stack) = at;
		else
			hpa_hashmap_put(&p->thread_sample, key, at);
		if (thread == HPA_THREAD_ALL) {
			p->last = at - 1;
			p->last_summed = false;
		}
		return;
	}
	s = &prof->samples[at - 1];
	if (s->sole_thread != HPA_THREAD_ALL) {
		/* It stood for its one thread's line too: that line becomes a sample of its own. */
		double was[HPA_NVALUES];
		int32_t t = s->sole_thread;
		memcpy(was, s->v, sizeof(was));
		s->sole_thread = HPA_THREAD_ALL;
		add_sample(p, t, was);
		s = &prof->samples[at - 1];
	}
	for (k = 0; k < HPA_NVALUES; k++)
		s->v[k] += v[k];
	if (thread == HPA_THREAD_ALL) {
		p->last = at - 1;
		p->last_summed = true;
		memcpy(p->last_v, v, sizeof(p->last_v));
	}
}

static void store(struct read_pipe *p, const struct batch *b)
{
	size_t i = 0;

	while (i < b->nr) {
		uint32_t head = b->w[i];
		unsigned op = head >> OP_SHIFT;
		size_t arg = head & OP_ARG_MASK;

		if (op == OP_SAMPLE) {
			double v[HPA_NVALUES];
			int32_t thread = (int32_t)b->w[i + 1];
			memcpy(v, &b->w[i + 2], sizeof(v));
			hpa_unsample_record(hpa_profile_input(p->prof, p->input), thread, v);
			hpa_profile_input(p->prof, p->input)->records += thread == HPA_THREAD_ALL;
			add_sample(p, thread, v);
			i += SAMPLE_WORDS;
		} else if (op == OP_SOLE) {
			int32_t thread = (int32_t)b->w[i + 1];
			if (p->last_summed)   /* the sample stands for several records: the line is its own */
				add_sample(p, thread, p->last_v);
			else
				hpa_profile_set_sole_thread(p->prof, thread);
			i += 2;
		} else {
			HPA_GROW(p->addrs, arg + 1, p->addrs_alloc);
			memcpy(p->addrs, &b->w[i + 1], arg * sizeof(*p->addrs));
			p->stack = hpa_profile_intern_stack(p->prof, p->addrs, arg);
			i += 1 + 2 * arg;
		}
	}
}

/* The storer's work: one batch, stored in order (one helper: one at a time, in order). */
static void store_batch(void *ctx, void *slot, size_t worker)
{
	struct batch *b = slot;

	(void)worker;
	store(ctx, b);
	b->nr = 0;
}

/* Hand the parser's batch to the storer, starting it on the first full batch. */
static void submit(struct read_pipe *p)
{
	if (!p->storer) {
		p->storer = hpa_ordered_start_beside(p->slots, sizeof(p->slots[0]), PIPE_SLOTS, 1,
						     store_batch, NULL, p);
		struct batch filled = p->first;   /* the batch filled so far, into the first slot */
		p->cur = hpa_ordered_next(p->storer);
		p->first = *p->cur;
		*p->cur = filled;
	}
	hpa_ordered_submit(p->storer);
	p->cur = hpa_ordered_next(p->storer);
}

static struct read_pipe *pipe_of(struct reader *r)
{
	if (!r->pipe) {
		r->pipe = xcalloc(1, sizeof(*r->pipe));
		r->pipe->prof = r->prof;
		r->pipe->input = r->input;
		r->pipe->cur = &r->pipe->first;
	}
	return r->pipe;
}

/* Room for `n` more words in the batch being filled. */
static uint32_t *room(struct reader *r, size_t n)
{
	struct read_pipe *p = pipe_of(r);
	size_t need = n > PIPE_WORDS ? n : PIPE_WORDS;
	uint32_t *w;

	struct batch *b;

	if (p->cur->nr && p->cur->nr + n > PIPE_WORDS)
		submit(p);
	b = p->cur;
	if (b->alloc < need) {   /* its own size: not the room for growth HPA_GROW keeps */
		b->alloc = need;
		b->w = xrealloc(b->w, st_mult(need, sizeof(*b->w)));
	}
	w = b->w + b->nr;
	b->nr += n;
	/*
	 * A recycled batch was last read by the storer, on another processor:
	 * each line written here first waits for it to give the line up.
	 * Ask for the lines a stack or two ahead now.
	 */
	if (b->nr + PREFETCH_AHEAD < b->alloc) {
		__builtin_prefetch(b->w + b->nr + PREFETCH_AHEAD, 1);
		__builtin_prefetch(b->w + b->nr + PREFETCH_AHEAD + 16, 1);
	}
	return w;
}

void read_stack(struct reader *r)
{
	size_t n = r->addrs_nr;
	uint32_t *w;

	if (n > OP_ARG_MASK / 2)   /* 2^29 addresses: more than a line of HPA_LINE_MAX holds */
		HPA_BUG("stack of %zu frames", n);
	w = room(r, 1 + 2 * n);
	w[0] = (uint32_t)OP_STACK << OP_SHIFT | (uint32_t)n;
	if (n)   /* a stack with no frames may come before any address was read */
		memcpy(w + 1, r->addrs, n * sizeof(*r->addrs));
}

void read_pipe_sample(struct reader *r, int32_t thread, const double v[HPA_NVALUES])
{
	uint32_t *w = room(r, SAMPLE_WORDS);

	w[0] = (uint32_t)OP_SAMPLE << OP_SHIFT;
	w[1] = (uint32_t)thread;
	memcpy(w + 2, v, HPA_NVALUES * sizeof(*v));
}

void read_pipe_sole_thread(struct reader *r, int32_t thread)
{
	uint32_t *w = room(r, 2);

	w[0] = (uint32_t)OP_SOLE << OP_SHIFT;
	w[1] = (uint32_t)thread;
}

void read_pipe_end(struct reader *r)
{
	struct read_pipe *p = r->pipe;
	size_t k;

	if (!p)
		return;
	if (p->storer) {
		if (p->cur->nr)
			hpa_ordered_submit(p->storer);
		hpa_ordered_finish(p->storer);
	} else {
		store(p, &p->first);   /* less than a batch: stored here, no thread started */
	}
	for (k = 0; k < PIPE_SLOTS; k++)
		free(p->slots[k].w);
	free(p->first.w);
	free(p->addrs);
	free(p->stack_sample);
	hpa_hashmap_release(&p->thread_sample);
	hpa_profile_input(p->prof, p->input)->estimated = true;
	free(p);
	r->pipe = NULL;
}
