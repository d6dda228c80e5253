/*
 * Test helper: shows parts of the model that no report prints yet.
 *
 *   hpa-test-tool threads PROFILE
 *       one line per thread, "t*" first, then ascending ids:
 *       ID NAME inuse_objects inuse_space alloc_objects alloc_space
 *       (values truncated to integers; NAME "-" when unnamed)
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/profile.h"
#include "hpa/reader.h"
#include "hpa/unsample.h"

static void print_thread(const struct hpa_profile *p, int32_t id, const char *name)
{
	int v;

	if (id == HPA_THREAD_ALL)
		printf("t* -");
	else
		printf("t%d %s", id, name ? name : "-");
	for (v = 0; v < HPA_NVALUES; v++)
		printf(" %lld", (long long)hpa_profile_total(p, (enum hpa_value)v, id));
	putchar('\n');
}

static int cmp_thread(const void *a, const void *b)
{
	const struct hpa_thread *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

int main(int argc, char **argv)
{
	struct hpa_profile p;
	size_t i;

	if (argc != 3 || strcmp(argv[1], "threads")) {
		fprintf(stderr, "usage: hpa-test-tool threads PROFILE\n");
		return 2;
	}
	hpa_profile_init(&p);
	if (hpa_read_profile(&p, argv[2]) < 0)
		return 1;
	hpa_unsample_profile(&p);
	qsort(p.threads, p.threads_nr, sizeof(*p.threads), cmp_thread);
	print_thread(&p, HPA_THREAD_ALL, NULL);
	for (i = 0; i < p.threads_nr; i++)
		print_thread(&p, p.threads[i].id, p.threads[i].name);
	hpa_profile_release(&p);
	return 0;
}
