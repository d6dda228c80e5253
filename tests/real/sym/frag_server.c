/*
 * A server whose RSS grows outside its heap profile, for run-growth.sh:
 * run under libjemalloc with prof:true, on 127.0.0.1 at a free port
 * (written to PORTFILE), one request at a time, in this one process.
 *   /pprof/heap  first a step of fragmentation: 32 MiB of small objects of
 *                a size class of their own (64, 80, 96, ... bytes, step N's
 *                from a frame stepN of their own), all
 *                freed but one in 64, so every slab stays with a live
 *                object in it (RSS +32 MiB, the program holds 512 KiB
 *                more); then jemalloc's prof.dump, served
 *   /stats       malloc_stats_print()'s text
 * usage: frag_server PORTFILE DUMPFILE
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int (*mallctl_p)(const char *, void *, size_t *, void *, size_t);
static void (*stats_print_p)(void (*)(void *, const char *), void *, const char *);
static void **kept;
static size_t nkept;
static int steps;

/* The objects of step N come from a frame of their own (stepN), so that each class has its site. */
NOINLINE static void *object(size_t size)
{
	void *p = malloc(size);

	if (p)
		memset(p, 1, size);
	return p;
}
#define STEP(k) NOINLINE static void *step##k(size_t size) { void *p = object(size); return p; }
STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9) STEP(10) STEP(11)
static void *(*const step_fn[])(size_t) = { step0, step1, step2, step3, step4, step5, step6, step7,
					    step8, step9, step10, step11 };

/* One step: 32 MiB in objects of this step's size class, one in 64 kept. */
NOINLINE static void fragment(void)
{
	size_t k = (size_t)steps % 12, size = 64 + 16 * (size_t)steps++, n = ((size_t)32 << 20) / size, i;

	kept = realloc(kept, (nkept + n / 64 + 1) * sizeof(*kept));
	void **all = malloc(n * sizeof(*all));
	for (i = 0; i < n; i++)
		all[i] = step_fn[k](size);
	for (i = 0; i < n; i++) {
		if (i % 64 == 0)
			kept[nkept++] = all[i];
		else
			free(all[i]);
	}
	free(all);
}

struct buf {
	char *p;
	size_t len;
};

static void add_text(void *arg, const char *s)
{
	struct buf *b = arg;
	size_t n = strlen(s);

	b->p = realloc(b->p, b->len + n + 1);
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
}

static void reply(int fd, const char *body, size_t len)
{
	char head[128];
	int n = snprintf(head, sizeof(head), "HTTP/1.0 200 OK\r\nContent-Length: %zu\r\n\r\n", len);

	if (write(fd, head, (size_t)n) < 0 || (len && write(fd, body, len) < 0))
		return;
}

static void serve(int fd, const char *dump)
{
	char req[2048], path[256] = "";
	ssize_t n = read(fd, req, sizeof(req) - 1);
	struct buf b = { NULL, 0 };

	if (n <= 0)
		return;
	req[n] = '\0';
	sscanf(req, "%*s %255s", path);
	if (!strcmp(path, "/pprof/heap")) {
		FILE *fp;
		fragment();
		mallctl_p("prof.dump", NULL, NULL, (void *)&dump, sizeof(dump));
		fp = fopen(dump, "r");
		if (fp) {
			char chunk[65536];
			size_t got;
			while ((got = fread(chunk, 1, sizeof(chunk) - 1, fp)) > 0) {
				chunk[got] = '\0';
				add_text(&b, chunk);
			}
			fclose(fp);
		}
	} else if (!strcmp(path, "/stats")) {
		stats_print_p(add_text, &b, NULL);
	}
	reply(fd, b.p ? b.p : "", b.len);
	free(b.p);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	FILE *fp;
	int s;

	*(void **)&mallctl_p = dlsym(RTLD_DEFAULT, "mallctl");
	*(void **)&stats_print_p = dlsym(RTLD_DEFAULT, "malloc_stats_print");
	if (argc != 3 || !mallctl_p || !stats_print_p)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0)
		return 1;
	fp = fopen(argv[1], "w");
	if (!fp)
		return 1;
	fprintf(fp, "%d\n", ntohs(sa.sin_port));
	fclose(fp);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		serve(c, argv[2]);
		close(c);
	}
}
