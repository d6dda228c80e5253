/*
 * A gzip member written as a protobuf message is packed into it
 * (protobuf-c's buffer interface), compressed in blocks by worker threads
 * while the caller packs the next, the blocks written in order: the same
 * bytes on any number of processors.  Private to src/write (--proto).
 */
#ifndef HPA_WRITE_GZIP_H
#define HPA_WRITE_GZIP_H

#include <stdio.h>

#include <protobuf-c/protobuf-c.h>

#include "hpa/compat.h"

struct gz;

/* Start a member on fp (its header written). */
struct gz *gz_open(FILE *fp);
/* The buffer to pack messages into (protobuf_c_message_pack_to_buffer()). */
ProtobufCBuffer *gz_buffer(struct gz *g);
/* Bytes data[0 .. len) next. */
void gz_append(struct gz *g, size_t len, const uint8_t *data);
/* Room for the next n bytes, to be written there at once; NULL when n is too large: gz_append() them. */
uint8_t *gz_reserve(struct gz *g, size_t n);
/* Has a write failed (the rest is not worth packing)? */
bool gz_failed(struct gz *g);
/* End the member (its trailer written) and free g: 0, or -1 after reporting a failed write. */
int gz_close(struct gz *g);

#endif
