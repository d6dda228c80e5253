/*
 * The gzip writer of --proto (gzip.h).
 */
#include "hpa/compat.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "hpa/diag.h"
#include "hpa/task.h"
#include "hpa/xalloc.h"
#include "gzip.h"

/*
 * A gzip member written as the message is packed (protobuf-c's buffer
 * interface), so no packed copy of the profile is ever held.  deflate,
 * even at level 1, was half of writing the file (9 MB packed for 180k
 * stacks), so the packed bytes are cut into blocks of GZ_BLOCK that worker
 * threads compress side by side while this one packs the next, as pigz
 * does: each block is a raw deflate stretch of its own that ends on a byte
 * (Z_SYNC_FLUSH; the last one with Z_FINISH), so the stretches in order
 * are one deflate stream; the CRC-32 is combined from the blocks'.  A
 * stretch does not look back into the block before (pigz's dictionary):
 * on 180k stacks that dictionary made the file 0.9% smaller and deflate
 * 5% slower; deflate's hash of 64Ki entries (memLevel 9) takes another
 * 4% off (in time; the instructions are the same).  The blocks are cut at
 * the same bytes whoever compresses them, so the file is the same on any
 * number of processors (with one, this thread compresses each block
 * itself).
 */
#define GZ_BLOCK ((size_t)1 << 18)
#define GZ_SLOTS 4                  /* blocks in flight */
/*
 * What is packed goes to the blocks through a stage of GZ_STAGE bytes only
 * this thread touches, copied into a block in one piece.  Written straight
 * into a block, every short append met cache lines a worker had last read
 * (the blocks are reused): on the development machine that made the
 * packing thread wait at nearly each new line.
 */
#define GZ_STAGE ((size_t)1 << 16)
#define GZ_WORKERS 2

struct gz_slot {
	uint8_t *in, *out;
	size_t len, out_len, out_alloc;
	uint32_t crc;
	bool last, done;
};

struct gz {
	ProtobufCBuffer base;        /* first: protobuf-c calls append() with it */
	FILE *fp;
	atomic_bool failed;
	struct gz_slot slot[GZ_SLOTS];   /* block k in slot k % GZ_SLOTS */
	size_t filled;               /* blocks handed to the workers */
	size_t taken;                /* blocks a worker has started */
	size_t written;              /* blocks written out, in order */
	uint32_t crc;                /* of the bytes written so far */
	uint64_t total;
	bool stop;
	size_t workers;
	pthread_t tid[GZ_WORKERS];
	pthread_mutex_t mu;
	pthread_cond_t cv;
	z_stream z;                  /* the packing thread's, with no worker */
	uint8_t *stage;              /* bytes packed, not yet in a block */
	size_t staged;
};

/* Compress slot s with stream z (raw deflate, level 1). */
static void gz_block(struct gz *g, z_stream *z, struct gz_slot *s)
{
	size_t bound = deflateBound(z, s->len) + 16;
	int rc;

	if (s->out_alloc < bound) {
		free(s->out);
		s->out = xmalloc(bound);
		s->out_alloc = bound;
	}
	s->crc = (uint32_t)crc32(0, s->in, (uInt)s->len);
	if (deflateReset(z) != Z_OK) {
		g->failed = true;
		return;
	}
	z->next_in = s->in;
	z->avail_in = (uInt)s->len;
	z->next_out = s->out;
	z->avail_out = (uInt)bound;
	rc = deflate(z, s->last ? Z_FINISH : Z_SYNC_FLUSH);
	if (rc != (s->last ? Z_STREAM_END : Z_OK) || z->avail_in)
		g->failed = true;
	s->out_len = bound - z->avail_out;
}

static int gz_stream(z_stream *z)
{
	memset(z, 0, sizeof(*z));
	return deflateInit2(z, Z_BEST_SPEED, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY);
}

static void *gz_worker(void *arg)
{
	struct gz *g = arg;
	z_stream z;
	bool ok = gz_stream(&z) == Z_OK;

	pthread_mutex_lock(&g->mu);
	for (;;) {
		struct gz_slot *s;

		while (!g->stop && g->taken == g->filled)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->taken == g->filled)
			break;
		s = &g->slot[g->taken++ % GZ_SLOTS];
		pthread_mutex_unlock(&g->mu);
		if (ok)
			gz_block(g, &z, s);
		else
			g->failed = true;
		pthread_mutex_lock(&g->mu);
		s->done = true;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
	if (ok)
		deflateEnd(&z);
	return NULL;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Write out the blocks done, in order, up to block `upto` (waiting for it). */
static void gz_write(struct gz *g, size_t upto)
{
	while (g->written < upto) {
		struct gz_slot *s = &g->slot[g->written % GZ_SLOTS];

		if (g->workers) {
			pthread_mutex_lock(&g->mu);
			while (!s->done)
				pthread_cond_wait(&g->cv, &g->mu);
			pthread_mutex_unlock(&g->mu);
		}
		if (!g->failed && s->out_len && fwrite(s->out, 1, s->out_len, g->fp) != s->out_len)
			g->failed = true;
		g->crc = (uint32_t)crc32_combine(g->crc, s->crc, (z_off_t)s->len);
		g->total += s->len;
		g->written++;
	}
}

/* Hand the block being filled over (the last one with `last`); the next slot is free when this returns. */
static void gz_submit(struct gz *g, bool last)
{
	size_t k = g->filled;
	struct gz_slot *s = &g->slot[k % GZ_SLOTS], *next;

	s->last = last;
	s->done = false;
	if (!g->workers) {
		gz_block(g, &g->z, s);
		g->filled++;
	} else {
		pthread_mutex_lock(&g->mu);
		g->filled++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	if (last)
		return;
	/* The next block's slot: written out first. */
	if (g->filled >= GZ_SLOTS)
		gz_write(g, g->filled - GZ_SLOTS + 1);
	next = &g->slot[g->filled % GZ_SLOTS];
	next->len = 0;
}

/* data[0 .. len) into the blocks, each handed over once full. */
static void gz_put(struct gz *g, const uint8_t *data, size_t len)
{
	while (len) {
		struct gz_slot *s = &g->slot[g->filled % GZ_SLOTS];
		size_t n = len < GZ_BLOCK - s->len ? len : GZ_BLOCK - s->len;

		memcpy(s->in + s->len, data, n);
		s->len += n;
		data += n;
		len -= n;
		if (s->len == GZ_BLOCK)
			gz_submit(g, false);
	}
}

static void gz_flush_stage(struct gz *g)
{
	gz_put(g, g->stage, g->staged);
	g->staged = 0;
}

static void gz_buffer_append(ProtobufCBuffer *buf, size_t len, const uint8_t *data)
{
	gz_append((struct gz *)buf, len, data);
}

void gz_append(struct gz *g, size_t len, const uint8_t *data)
{

	if (!len)
		return;
	if (len > GZ_STAGE / 2) {   /* a large piece (the locations, say): in one copy, in order */
		gz_flush_stage(g);
		gz_put(g, data, len);
		return;
	}
	if (len > GZ_STAGE - g->staged)
		gz_flush_stage(g);
	memcpy(g->stage + g->staged, data, len);
	g->staged += len;
}

struct gz *gz_open(FILE *fp)
{
	struct gz *g = xmalloc(sizeof(*g));
	/* gzip's header as zlib writes it at level 1: no name, mtime 0, XFL 4, OS 3 (Unix). */
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };
	size_t k, want;

	memset(g, 0, sizeof(*g));
	g->base.append = gz_buffer_append;
	g->fp = fp;
	atomic_init(&g->failed, false);
	for (k = 0; k < GZ_SLOTS; k++)
		g->slot[k].in = xmalloc(GZ_BLOCK);
	g->stage = xmalloc(GZ_STAGE);
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	want = hpa_processors() > 1 ? GZ_WORKERS : 0;
	for (k = 0; k < want; k++)
		if (pthread_create(&g->tid[g->workers], NULL, gz_worker, g) == 0)
			g->workers++;
	if (!g->workers && gz_stream(&g->z) != Z_OK)
		g->failed = true;
	if (fwrite(head, 1, sizeof(head), fp) != sizeof(head))
		g->failed = true;
	return g;
}

ProtobufCBuffer *gz_buffer(struct gz *g)
{
	return &g->base;
}

bool gz_failed(struct gz *g)
{
	return atomic_load(&g->failed);
}

uint8_t *gz_reserve(struct gz *g, size_t n)
{
	uint8_t *o;

	if (n > GZ_STAGE)
		return NULL;
	if (n > GZ_STAGE - g->staged)
		gz_flush_stage(g);
	o = g->stage + g->staged;
	g->staged += n;
	return o;
}

int gz_close(struct gz *g)
{
	uint8_t tail[8];
	size_t k;
	bool failed;

	gz_flush_stage(g);
	gz_submit(g, true);
	gz_write(g, g->filled);
	if (g->workers) {
		pthread_mutex_lock(&g->mu);
		g->stop = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		for (k = 0; k < g->workers; k++)
			pthread_join(g->tid[k], NULL);
	} else {
		deflateEnd(&g->z);
	}
	put_le32(tail, g->crc);
	put_le32(tail + 4, (uint32_t)g->total);
	if (!g->failed && fwrite(tail, 1, sizeof(tail), g->fp) != sizeof(tail))
		g->failed = true;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	for (k = 0; k < GZ_SLOTS; k++) {
		free(g->slot[k].in);
		free(g->slot[k].out);
	}
	free(g->stage);
	failed = g->failed;
	free(g);
	return failed ? hpa_error("cannot write the compressed profile") : 0;
}
