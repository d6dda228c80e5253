/*
 * Private to src/sym: the cache of decompressed debug files (debugcache.c).
 */
#ifndef HPA_SYM_DEBUGCACHE_H
#define HPA_SYM_DEBUGCACHE_H

#include "hpa/compat.h"

/*
 * The uncompressed copy of the debug file with build-id `id` (`n` bytes):
 * its fd and *cached, its path (malloc'ed); -1 when there is none or the
 * cache is off.
 */
int hpa_debug_cache_open(const unsigned char *id, int n, char **cached);

/*
 * The debug file open on `fd` was found for build-id `id`: when it has
 * compressed debug sections, write its uncompressed copy for the next run.
 * `fd` is only read (pread), never moved or closed.
 */
void hpa_debug_cache_store(int fd, const unsigned char *id, int n);

#endif
