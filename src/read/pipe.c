/*
 * Reading a text profile on two threads.  The parser (the caller's thread)
 * turns lines into counts and stacks of addresses.  Storing them is about
 * as much work again: each address becomes a location id (one lookup
 * each), and the stacks and samples go to the profile's tables.  So the
 * parser writes what it read into batches of words, and a second thread
 * stores them in order while the parser goes on.
 *
 * What is stored, and in which order, is exactly what one thread would
 * store: the storer takes batch after batch, op after op.  The two threads
 * share no table: the storer owns the locations, frames, stacks and
 * samples, which the parser does not look at until read_pipe_end() has
 * returned.  A profile smaller than one batch starts no thread: its batch
 * is stored at the end, in the parser's thread.
 *
 * A batch is a run of 32-bit words.  An op starts with a word holding its
 * kind in the top two bits and its size below:
 *   STACK_ADD n, then n addresses (2 words each, as in memory):
 *                                         a new stack (jemalloc writes each once)
 *   STACK_INTERN n, then n addresses:     the stack, found or added
 *   SAMPLE, the thread, the 4 values:     a sample of the stack last stored
 *   SOLE, the thread:                     the sample last stored is also that
 *                                         thread's own (hpa_profile_set_sole_thread)
 */
#include "hpa/compat.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/task.h"
#include "hpa/xalloc.h"
#include "read.h"

#define PIPE_WORDS ((size_t)1 << 16)   /* a batch: 256 KiB */
#define PIPE_QUEUE 3                   /* full batches waiting at most */
#define PREFETCH_AHEAD 128             /* words: 512 bytes, eight cache lines */

enum { OP_STACK_ADD, OP_STACK_INTERN, OP_SAMPLE, OP_SOLE };
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
	uint64_t *addrs;                /* the storer's: a stack's addresses, aligned */
	size_t addrs_alloc;
	struct batch cur;               /* the parser's, being filled */
	bool threaded;                  /* the storer runs */
	bool alone;                     /* no storer to be had: batches are stored here */
	pthread_t tid;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct batch queue[PIPE_QUEUE]; /* full batches, oldest first */
	size_t queued;
	struct batch spare[PIPE_QUEUE + 2];   /* emptied batches to fill again */
	size_t spares;
	bool closing;
};

static void store(struct read_pipe *p, const struct batch *b)
{
	size_t i = 0;

	while (i < b->nr) {
		uint32_t head = b->w[i];
		unsigned op = head >> OP_SHIFT;
		size_t arg = head & OP_ARG_MASK;

		if (op == OP_SAMPLE) {
			double v[HPA_NVALUES];
			memcpy(v, &b->w[i + 2], sizeof(v));
			hpa_profile_add_sample(p->prof, p->stack, (int32_t)b->w[i + 1], p->input, v);
			i += SAMPLE_WORDS;
		} else if (op == OP_SOLE) {
			hpa_profile_set_sole_thread(p->prof, (int32_t)b->w[i + 1]);
			i += 2;
		} else {
			HPA_GROW(p->addrs, arg + 1, p->addrs_alloc);
			memcpy(p->addrs, &b->w[i + 1], arg * sizeof(*p->addrs));
			p->stack = op == OP_STACK_ADD ?
				hpa_profile_add_stack(p->prof, p->addrs, arg) :
				hpa_profile_intern_stack(p->prof, p->addrs, arg);
			i += 1 + 2 * arg;
		}
	}
}

static void *storer(void *arg)
{
	struct read_pipe *p = arg;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct batch b;

		while (!p->queued && !p->closing)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->queued)
			break;
		b = p->queue[0];
		memmove(p->queue, p->queue + 1, --p->queued * sizeof(p->queue[0]));
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		store(p, &b);
		b.nr = 0;
		pthread_mutex_lock(&p->mu);
		if (p->spares < sizeof(p->spare) / sizeof(p->spare[0]))
			p->spare[p->spares++] = b;
		else
			free(b.w);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/*
 * Hand the parser's batch to the storer, starting it on the first full
 * batch; with one processor, or no thread to be had, store it here.
 */
static void submit(struct read_pipe *p)
{
	if (!p->threaded && !p->alone) {
		p->alone = hpa_processors() < 2;
		if (!p->alone) {
			pthread_mutex_init(&p->mu, NULL);
			pthread_cond_init(&p->cv, NULL);
			p->threaded = pthread_create(&p->tid, NULL, storer, p) == 0;
			if (!p->threaded) {
				pthread_cond_destroy(&p->cv);
				pthread_mutex_destroy(&p->mu);
				p->alone = true;
			}
		}
	}
	if (p->alone) {
		store(p, &p->cur);
		p->cur.nr = 0;
		return;
	}
	pthread_mutex_lock(&p->mu);
	while (p->queued == PIPE_QUEUE)
		pthread_cond_wait(&p->cv, &p->mu);
	p->queue[p->queued++] = p->cur;
	memset(&p->cur, 0, sizeof(p->cur));
	if (p->spares)
		p->cur = p->spare[--p->spares];
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static struct read_pipe *pipe_of(struct reader *r)
{
	if (!r->pipe) {
		r->pipe = xcalloc(1, sizeof(*r->pipe));
		r->pipe->prof = r->prof;
		r->pipe->input = r->input;
	}
	return r->pipe;
}

/* Room for `n` more words in the batch being filled. */
static uint32_t *room(struct reader *r, size_t n)
{
	struct read_pipe *p = pipe_of(r);
	size_t need = n > PIPE_WORDS ? n : PIPE_WORDS;
	uint32_t *w;

	if (p->cur.nr && p->cur.nr + n > PIPE_WORDS)
		submit(p);
	if (p->cur.alloc < need) {   /* its own size: not the room for growth HPA_GROW keeps */
		p->cur.alloc = need;
		p->cur.w = xrealloc(p->cur.w, st_mult(need, sizeof(*p->cur.w)));
	}
	w = p->cur.w + p->cur.nr;
	p->cur.nr += n;
	/*
	 * A recycled batch was last read by the storer, on another processor:
	 * each line written here first waits for it to give the line up.
	 * Ask for the lines a stack or two ahead now.
	 */
	if (p->cur.nr + PREFETCH_AHEAD < p->cur.alloc) {
		__builtin_prefetch(p->cur.w + p->cur.nr + PREFETCH_AHEAD, 1);
		__builtin_prefetch(p->cur.w + p->cur.nr + PREFETCH_AHEAD + 16, 1);
	}
	return w;
}

void read_stack(struct reader *r, bool intern)
{
	size_t n = r->addrs_nr;
	uint32_t *w;

	if (n > OP_ARG_MASK / 2)   /* 2^29 addresses: more than a line of HPA_LINE_MAX holds */
		HPA_BUG("stack of %zu frames", n);
	w = room(r, 1 + 2 * n);
	w[0] = (uint32_t)(intern ? OP_STACK_INTERN : OP_STACK_ADD) << OP_SHIFT | (uint32_t)n;
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

	if (!p)
		return;
	if (p->threaded) {
		if (p->cur.nr)
			submit(p);
		pthread_mutex_lock(&p->mu);
		p->closing = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->tid, NULL);
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
	} else {
		store(p, &p->cur);
	}
	free(p->cur.w);
	free(p->addrs);
	while (p->spares)
		free(p->spare[--p->spares].w);
	free(p);
	r->pipe = NULL;
}
