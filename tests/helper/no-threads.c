/*
 * Preloaded by cli/processors.sh: no thread can be created, as under a
 * tight RLIMIT_NPROC or in a container at its task limit.  hpa must then
 * do each piece of work on the thread it has, and give the same output.
 */
#include <errno.h>
#include <pthread.h>

int pthread_create(pthread_t *tid, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	(void)tid;
	(void)attr;
	(void)fn;
	(void)arg;
	return EAGAIN;
}
