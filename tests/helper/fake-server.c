/*
 * A tiny HTTP/1.0 server for run-remote.sh, on 127.0.0.1 at a free port
 * (written to PORTFILE).  Routes, any method:
 *   PATH=FILE          serve FILE at PATH
 *   /grow              serve the next file of GROW=F1,F2,... (the last repeats)
 *   /pprof/symbol      GET: "num_symbols: 1"; POST "0xA+0xB": "0xA sym_a\n0xB sym_b\n"
 *   /fail              HTTP 500
 *   /stall             waits 30 s before answering
 *   /garbage           200 with binary junk
 *   /auth/PATH         401 unless "Authorization: Bearer good-token" came;
 *                      then as PATH
 *   /broken/...symbol  /pprof/symbol that fails with HTTP 500
 *   /redirect          302 to /pprof/heap;  /loop: 302 to itself
 *   /goto?URL          302 to URL (another server, another scheme)
 * With FAKE_LOG=FILE in the environment, each request's head is appended
 * to FILE (what a server was sent: headers, credentials).
 * Hostile answers:
 *   /chunked-bad       chunked, a chunk-size line "ffffff" without a newline
 *   /short             Content-Length larger than the body, then close
 *   /huge-length       Content-Length: 3 GiB
 *   /huge              no length, 2 GiB + 1 MiB of profile-like text
 *   /stall-mid         half a body, then 30 s of silence
 * A request in proxy form ("GET http://host/path") is served as /path, so
 * the server is also an HTTP proxy for any host name.
 * One child process per connection.  usage: fake-server PORTFILE ROUTE...
 */
#define _GNU_SOURCE 1
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
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

static void say(int fd, const char *s)
{
	if (write(fd, s, strlen(s)) < 0)
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
	if (!strncmp(path, "http://", 7)) {   /* proxy form */
		char *p = strchr(path + 7, '/');
		memmove(path, p ? p : "/", strlen(p ? p : "/") + 1);
	}
	if (getenv("FAKE_LOG")) {
		FILE *log = fopen(getenv("FAKE_LOG"), "a");
		char *end = strstr(req, "\r\n\r\n");
		if (log) {
			fprintf(log, "%.*s\n\n", (int)(end ? end - req : (ptrdiff_t)n), req);
			fclose(log);
		}
	}
	if (!strncmp(path, "/goto?", 6)) {
		char head[1200];
		snprintf(head, sizeof(head), "HTTP/1.0 302 Found\r\nLocation: %s\r\n"
			 "Content-Length: 0\r\n\r\n", path + 6);
		say(fd, head);
		return;
	}
	path[strcspn(path, "?")] = '\0';   /* routes ignore the query */
	body = strstr(req, "\r\n\r\n");
	body = body ? body + 4 : req + n;
	if (!strncmp(path, "/auth/", 6)) {
		if (!strstr(req, "\r\nAuthorization: Bearer good-token\r\n")) {
			reply(fd, "401 Unauthorized", "token needed\n", 13);
			return;
		}
		memmove(path, path + 5, strlen(path + 5) + 1);
	}
	if (!strcmp(path, "/redirect")) {
		say(fd, "HTTP/1.0 302 Found\r\nLocation: /pprof/heap\r\nContent-Length: 0\r\n\r\n");
	} else if (!strcmp(path, "/loop")) {
		say(fd, "HTTP/1.0 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n");
	} else if (!strcmp(path, "/chunked-bad")) {
		say(fd, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffff");
	} else if (!strcmp(path, "/short")) {
		say(fd, "HTTP/1.0 200 OK\r\nContent-Length: 1000000\r\n\r\nheap_v2/1\n");
	} else if (!strcmp(path, "/huge-length")) {
		say(fd, "HTTP/1.0 200 OK\r\nContent-Length: 3221225472\r\n\r\nheap_v2/1\n");
	} else if (!strcmp(path, "/huge")) {
		static char chunk[1 << 20];
		for (i = 0; i < (int)sizeof(chunk); i++)
			chunk[i] = i % 64 == 63 ? '\n' : '#';
		say(fd, "HTTP/1.0 200 OK\r\n\r\n");
		for (i = 0; i < 2048 + 1; i++)
			if (write(fd, chunk, sizeof(chunk)) < 0)
				return;
	} else if (!strcmp(path, "/stall-mid")) {
		say(fd, "HTTP/1.0 200 OK\r\nContent-Length: 1000\r\n\r\nheap_v2/1\n");
		sleep(30);
	} else if (!strncmp(path, "/broken/", 8) && strstr(path, "/pprof/symbol")) {
		reply(fd, "500 Internal Server Error", "no symbols here\n", 16);
	} else if (!strcmp(path, "/fail")) {
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
	signal(SIGPIPE, SIG_DFL);
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
