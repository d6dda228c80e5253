/*
 * The gzip writer of --proto (gzip.h).
 */
#include "hpa/compat.h"

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
 * even at level 1, is about half of writing the file, so the packed bytes are cut into blocks of GZ_BLOCK that worker
 * threads compress side by side while this one packs the next, as pigz
 * does: each block is a raw deflate stretch of its own that ends on a byte
 * (Z_SYNC_FLUSH; the last one with Z_FINISH), so the stretches in order
 * are one deflate stream; the CRC-32 is combined from the blocks'.  A
 * stretch does not look back into the block before (pigz's dictionary),
 * which makes the file hardly smaller and deflate slower; deflate's hash
 * is the largest (memLevel 9).  The blocks go through an
 * ordered pipeline (task.h), each compressed by any worker with a stream
 * of its own and written in order; they are cut at the same bytes
 * whoever compresses them, so the file is the same on any number of
 * processors.
 */
#define GZ_BLOCK ((size_t)1 << 18)
#define GZ_SLOTS 4                  /* blocks in flight */
/*
 * What is packed goes to the blocks through a stage of GZ_STAGE bytes only
 * this thread touches, copied into a block in one piece: written straight
 * into a block, short appends meet cache lines a worker last read.
 */
#define GZ_STAGE ((size_t)1 << 16)
#define GZ_WORKERS 3                /* at most: the packing thread and two helpers */

struct gz_slot {
	uint8_t *in, *out;
	size_t len, out_len, out_alloc;
	uint32_t crc;
	bool last, failed;
};

struct gz {
	ProtobufCBuffer base;        /* first: protobuf-c calls append() with it */
	FILE *fp;
	bool failed;
	struct gz_slot slot[GZ_SLOTS];   /* owned by the pipeline, one block each */
	struct gz_slot *cur;         /* the block being filled */
	struct hpa_ordered *pipe;
	z_stream *z;                 /* per worker */
	bool *z_ready;               /* per worker: its stream made */
	uint32_t crc;                /* of the bytes written so far */
	uint64_t total;
	uint8_t *stage;              /* bytes packed, not yet in a block */
	size_t staged;
};

/* Compress slot s with stream z (raw deflate, level 1). */
static void gz_block(z_stream *z, struct gz_slot *s)
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
		s->failed = true;
		return;
	}
	z->next_in = s->in;
	z->avail_in = (uInt)s->len;
	z->next_out = s->out;
	z->avail_out = (uInt)bound;
	rc = deflate(z, s->last ? Z_FINISH : Z_SYNC_FLUSH);
	if (rc != (s->last ? Z_STREAM_END : Z_OK) || z->avail_in)
		s->failed = true;
	s->out_len = bound - z->avail_out;
}

/* The pipeline's work: a block compressed with the worker's own stream. */
static void gz_work(void *ctx, void *slot, size_t worker)
{
	struct gz *g = ctx;
	struct gz_slot *s = slot;
	z_stream *z = &g->z[worker];

	s->failed = false;
	if (!g->z_ready[worker]) {
		memset(z, 0, sizeof(*z));
		if (deflateInit2(z, Z_BEST_SPEED, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
			s->failed = true;
			return;
		}
		g->z_ready[worker] = true;
	}
	gz_block(z, s);
}

/* The pipeline's output, in block order on the packing thread. */
static void gz_emit(void *ctx, void *slot)
{
	struct gz *g = ctx;
	struct gz_slot *s = slot;

	g->failed |= s->failed;
	if (!g->failed && s->out_len && fwrite(s->out, 1, s->out_len, g->fp) != s->out_len)
		g->failed = true;
	g->crc = (uint32_t)crc32_combine(g->crc, s->crc, (z_off_t)s->len);
	g->total += s->len;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Hand the block being filled over (the last one with `last`), and take the next. */
static void gz_submit(struct gz *g, bool last)
{
	g->cur->last = last;
	hpa_ordered_submit(g->pipe);
	if (last)
		return;
	g->cur = hpa_ordered_next(g->pipe);
	g->cur->len = 0;
}

/* data[0 .. len) into the blocks, each handed over once full. */
static void gz_put(struct gz *g, const uint8_t *data, size_t len)
{
	while (len) {
		struct gz_slot *s = g->cur;
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
	struct gz *g = xcalloc(1, sizeof(*g));
	/* gzip's header as zlib writes it at level 1: no name, mtime 0, XFL 4, OS 3 (Unix). */
	static const uint8_t head[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };
	size_t k, workers;

	g->base.append = gz_buffer_append;
	g->fp = fp;
	for (k = 0; k < GZ_SLOTS; k++)
		g->slot[k].in = xmalloc(GZ_BLOCK);
	g->stage = xmalloc(GZ_STAGE);
	g->pipe = hpa_ordered_start(g->slot, sizeof(g->slot[0]), GZ_SLOTS, GZ_WORKERS, gz_work,
				    gz_emit, g);
	workers = hpa_ordered_workers(g->pipe);
	g->z = xcalloc(workers, sizeof(*g->z));
	g->z_ready = xcalloc(workers, sizeof(*g->z_ready));
	g->cur = hpa_ordered_next(g->pipe);
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
	return g->failed;
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
	size_t k, workers = hpa_ordered_workers(g->pipe);
	bool failed;

	gz_flush_stage(g);
	gz_submit(g, true);
	hpa_ordered_finish(g->pipe);
	for (k = 0; k < workers; k++)
		if (g->z_ready[k])
			deflateEnd(&g->z[k]);
	put_le32(tail, g->crc);
	put_le32(tail + 4, (uint32_t)g->total);
	if (!g->failed && fwrite(tail, 1, sizeof(tail), g->fp) != sizeof(tail))
		g->failed = true;
	for (k = 0; k < GZ_SLOTS; k++) {
		free(g->slot[k].in);
		free(g->slot[k].out);
	}
	free(g->stage);
	free(g->z);
	free(g->z_ready);
	failed = g->failed;
	free(g);
	return failed ? hpa_error("cannot write the compressed profile") : 0;
}
