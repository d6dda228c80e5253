/*
 * demo: a toy key-value server whose cache never evicts.  The bundled
 * demo.heap is a jemalloc heap profile of it (see testdata/README.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct entry *next;
	char *key;
	char *value;
};

static struct entry *cache[4096];

static unsigned hash(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % 4096;
}

__attribute__((noinline)) static char *copy_string(const char *s, size_t n)
{
	char *p = malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

__attribute__((noinline)) static void cache_put(const char *key, const char *value, size_t vlen)
{
	struct entry *e = calloc(1, sizeof(*e));
	unsigned h = hash(key);

	e->key = copy_string(key, strlen(key));
	e->value = copy_string(value, vlen);
	e->next = cache[h];
	cache[h] = e;
}

__attribute__((noinline)) static size_t handle_request(int i, char *scratch)
{
	char key[32], *buf = malloc(16384);   /* per-request buffer, freed */
	size_t vlen = 200 + (size_t)(i % 7) * 300;

	snprintf(key, sizeof(key), "user:%d", i);
	memset(buf, 'v', vlen);
	cache_put(key, buf, vlen);            /* leaks: nothing evicts */
	memcpy(scratch, buf, 64);
	free(buf);
	return vlen;
}

__attribute__((noinline)) static char *load_config(void)
{
	return calloc(1, 1 << 20);            /* 1 MiB, kept for the whole run */
}

int main(void)
{
	char scratch[64];
	char *config = load_config();
	size_t total = 0;
	int i;

	for (i = 0; i < 20000; i++)
		total += handle_request(i, scratch);
	printf("%zu bytes cached, config at %p\n", total, (void *)config);
	return 0;
}
