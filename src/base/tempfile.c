/*
 * The registry of temporary files (hpa/tempfile.h).  Entries are never
 * freed, only reused, so the signal handler can walk the list while the
 * program adds to it: a new entry is filled in before it is linked, and
 * an entry's name is set before it is marked live.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpa/tempfile.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

struct tempfile {
	char *path;
	volatile sig_atomic_t live;
	struct tempfile *volatile next;
};

static struct tempfile *volatile head;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool installed;

static void remove_all(void)
{
	for (struct tempfile *t = head; t; t = t->next)
		if (t->live) {
			t->live = 0;
			unlink(t->path);
		}
}

static void on_signal(int sig)
{
	int saved = errno;

	remove_all();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* Once: the exit hook, and the handlers of the signals nobody else handles. */
static void install(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	atexit(remove_all);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;

		if (sigaction(sigs[i], NULL, &old) < 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int hpa_tempfile_create(const char *dir, char **path)
{
	char *name = hpa_xasprintf("%s/" HPA_TEMP_PREFIX "XXXXXX", dir);
	struct tempfile *t;
	sigset_t all, old;
	int fd, err;

	/* No signal between the file's creation and its registration. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&lock);
	if (!installed) {
		install();
		installed = true;
	}
	fd = mkstemp(name);
	err = errno;
	if (fd >= 0) {
		for (t = head; t && t->live; t = t->next)
			;
		if (t) {
			free(t->path);
			t->path = xstrdup(name);
		} else {
			t = xcalloc(1, sizeof(*t));
			t->path = xstrdup(name);
			t->next = head;
			head = t;
		}
		t->live = 1;
	}
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		free(name);
		errno = err;
		return -1;
	}
	*path = name;
	return fd;
}

void hpa_tempfile_forget(const char *path)
{
	if (!path)
		return;
	pthread_mutex_lock(&lock);
	for (struct tempfile *t = head; t; t = t->next)
		if (t->live && !strcmp(t->path, path))
			t->live = 0;
	pthread_mutex_unlock(&lock);
}
