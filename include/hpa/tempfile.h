/*
 * Temporary files that never outlive the run: each is registered when it
 * is created, and whatever is still registered is removed at exit and on
 * SIGINT, SIGTERM and SIGHUP (the handler only unlink()s, which is
 * async-signal-safe, then lets the signal end the process as it would
 * have).  A signal the program handles itself (--watch stops on SIGINT)
 * keeps its handler: that program finishes or discards its files itself.
 */
#ifndef HPA_TEMPFILE_H
#define HPA_TEMPFILE_H

#include "hpa/compat.h"

/* Prefix of every temporary file's name: hidden, so no glob of reports or dumps takes one. */
#define HPA_TEMP_PREFIX ".hpa-"

/*
 * Create DIR/.hpa-XXXXXX (mode 0600), registered: its fd, and its name in
 * *path (malloc'ed), or -1 with errno set.  The name is short whatever the
 * final file's name is, so it never exceeds NAME_MAX.
 */
int hpa_tempfile_create(const char *dir, char **path);

/* `path` was renamed or removed: forget it (NULL: nothing). */
void hpa_tempfile_forget(const char *path);

#endif
