/*
 * A tiny HTTP/1.0 server for run-remote.sh, on 127.0.0.1 at a free port
 * (written to PORTFILE).  Routes, any method:
 *   PATH=FILE          serve FILE at PATH
 *   /grow              serve the next file of GROW=F1,F2,... (the last repeats)
 *   /pprof/symbol      GET: "num_symbols: 1"; POST "0xA+0xB": "0xA sym_a\n0xB sym_b\n"
 *   /fail              HTTP 500
 *   /stall             waits 30 s before answering
 *   /garbage           200 with binary junk
 * One child process per connection.  usage: fake-server PORTFILE ROUTE...
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char **routes;
static int nroutes;
static char *grow[16];
static int ngrow;

static void reply(int fd, const char *status, const char *body, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Length: %zu\r\n"
			 "Content-Type: application/octet-stream\r\n\r\n", status, len);
	if (write(fd, head, (size_t)n) < 0 || (len && write(fd, body, len) < 0))
		_exit(1);
}

static void send_file(int fd, const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (!fp) {
		reply(fd, "404 Not Found", "no file\n", 8);
		return;
	}
	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, fp) != (size_t)n)
		n = 0;
	fclose(fp);
	reply(fd, "200 OK", buf, (size_t)n);
	free(buf);
}

static void serve(int fd, int count)
{
	static char req[1 << 20];
	size_t n = 0;
	ssize_t r;
	char method[16], path[1024], *body;
	int i;

	/* Read the head and a Content-Length body. */
	while (n < sizeof(req) - 1 && (r = read(fd, req + n, sizeof(req) - 1 - n)) > 0) {
		char *cl, *end;
		n += (size_t)r;
		req[n] = '\0';
		if (!(end = strstr(req, "\r\n\r\n")))
			continue;
		cl = strcasestr(req, "Content-Length:");
		if (!cl || (size_t)(end + 4 - req) + strtoul(cl + 15, NULL, 10) <= n)
			break;
	}
	req[n] = '\0';
	if (sscanf(req, "%15s %1023s", method, path) != 2)
		return;
	body = strstr(req, "\r\n\r\n");
	body = body ? body + 4 : req + n;
	if (!strcmp(path, "/fail")) {
		reply(fd, "500 Internal Server Error", "broken\n", 7);
	} else if (!strcmp(path, "/stall")) {
		sleep(30);
		reply(fd, "200 OK", "late\n", 5);
	} else if (!strcmp(path, "/garbage")) {
		char junk[1000];
		for (i = 0; i < 1000; i++)
			junk[i] = (char)(i * 7919 % 251);
		reply(fd, "200 OK", junk, sizeof(junk));
	} else if (!strcmp(path, "/grow") && ngrow) {
		send_file(fd, grow[count < ngrow ? count : ngrow - 1]);
	} else if (strstr(path, "/pprof/symbol")) {
		if (!strcmp(method, "GET")) {
			reply(fd, "200 OK", "num_symbols: 1\n", 15);
		} else {
			static char out[1 << 20];
			size_t o = 0;
			char *tok, *save = NULL;
			for (tok = strtok_r(body, "+", &save); tok && o < sizeof(out) - 100;
			     tok = strtok_r(NULL, "+", &save)) {
				unsigned long long a = strtoull(tok, NULL, 16);
				o += (size_t)snprintf(out + o, sizeof(out) - o, "0x%llx sym_%llx\n", a, a);
			}
			reply(fd, "200 OK", out, o);
		}
	} else {
		for (i = 0; i < nroutes; i++) {
			size_t pl = strcspn(routes[i], "=");
			if (strlen(path) == pl && !strncmp(routes[i], path, pl)) {
				send_file(fd, routes[i] + pl + 1);
				return;
			}
		}
		reply(fd, "404 Not Found", "no route\n", 9);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int s, i, count = 0;
	FILE *fp;

	if (argc < 2)
		return 2;
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "GROW=", 5)) {
			char *p = argv[i] + 5, *save = NULL, *t;
			for (t = strtok_r(p, ",", &save); t && ngrow < 16; t = strtok_r(NULL, ",", &save))
				grow[ngrow++] = t;
		}
	}
	routes = argv + 2;
	nroutes = argc - 2;
	signal(SIGCHLD, SIG_IGN);
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 16) < 0 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) < 0)
		return 1;
	fp = fopen(argv[1], "w");
	fprintf(fp, "%d\n", ntohs(sa.sin_port));
	fclose(fp);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		if (fork() == 0) {
			serve(c, count);
			close(c);
			_exit(0);
		}
		close(c);
		/* /grow advances per request; count all of them, good enough here */
		count++;
	}
}
