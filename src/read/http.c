#include "hpa/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/http.h"
#include "hpa/xalloc.h"

bool hpa_is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

int hpa_url_parse(struct hpa_url *u, const char *url)
{
	const char *p, *slash, *colon;

	memset(u, 0, sizeof(*u));
	if (!strncmp(url, "https://", 8))
		return hpa_error("%s: https is not supported (hpa has no TLS); use http:// or a "
				 "saved profile", url);
	if (strncmp(url, "http://", 7))
		return hpa_error("%s: not an http URL", url);
	p = url + 7;
	slash = strchr(p, '/');
	if (!slash)
		slash = p + strlen(p);
	colon = memchr(p, ':', (size_t)(slash - p));
	if (slash == p || colon == p)
		return hpa_error("%s: no host in the URL", url);
	u->host = xstrndup(p, (size_t)((colon ? colon : slash) - p));
	u->port = colon ? xstrndup(colon + 1, (size_t)(slash - colon - 1)) : xstrdup("80");
	u->path = xstrdup(*slash ? slash : "/");
	if (!*u->port) {
		hpa_url_release(u);
		return hpa_error("%s: empty port", url);
	}
	return 0;
}

void hpa_url_release(struct hpa_url *u)
{
	free(u->host);
	free(u->port);
	free(u->path);
	memset(u, 0, sizeof(*u));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wait for `events` on fd until `deadline`; 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, double deadline)
{
	struct pollfd pfd = { fd, events, 0 };
	int left = (int)((deadline - now()) * 1000);
	int rc;

	if (left <= 0)
		return 0;
	do
		rc = poll(&pfd, 1, left);
	while (rc < 0 && errno == EINTR);
	return rc;
}

static int connect_to(const struct hpa_url *u, double connect_s, const char *what)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, rc, err = 0;
	double deadline = now() + connect_s;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(u->host, u->port, &hints, &res);
	if (rc)
		return hpa_error("%s: cannot resolve %s: %s", what, u->host, gai_strerror(rc));
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			err = errno;
			close(fd);
			fd = -1;
			continue;
		}
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc <= 0) {
			err = rc == 0 ? ETIMEDOUT : errno;
			close(fd);
			fd = -1;
			continue;
		}
		{
			socklen_t len = sizeof(err);
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		}
		if (err) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		if (err == ETIMEDOUT)
			return hpa_error("%s: no connection to %s:%s within %.0f s", what, u->host,
					 u->port, connect_s);
		return hpa_error("%s: cannot connect to %s:%s: %s", what, u->host, u->port,
				 strerror(err ? err : ECONNREFUSED));
	}
	return fd;
}

/* Decode a chunked body in place; -1 if malformed. */
static int dechunk(uint8_t *b, size_t *len)
{
	size_t in = 0, out = 0;

	for (;;) {
		char *end;
		unsigned long n;

		if (in >= *len)
			return -1;
		n = strtoul((char *)b + in, &end, 16);
		if (end == (char *)b + in)
			return -1;
		while (in < *len && b[in] != '\n')
			in++;
		in++;
		if (!n)
			break;
		if (n > *len - in)
			return -1;
		memmove(b + out, b + in, n);
		out += n;
		in += n;
		while (in < *len && (b[in] == '\r' || b[in] == '\n'))
			in++;
	}
	*len = out;
	b[out] = '\0';
	return 0;
}

int hpa_http_request(const struct hpa_url *u, const char *method, const char *path,
		     const char *body, double connect_s, double total_s, uint8_t **out, size_t *len)
{
	char *what, *req, *hdr_end;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, blen = body ? strlen(body) : 0, sent = 0, reqlen;
	double deadline = now() + total_s;
	int fd, status = 0, rc = -1;

	if (asprintf(&what, "http://%s:%s%s", u->host, u->port, path) < 0)
		abort();
	fd = connect_to(u, connect_s, what);
	if (fd < 0) {
		free(what);
		return -1;
	}
	if (asprintf(&req, "%s %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: hpa/%s\r\nAccept: */*\r\n"
		     "Connection: close\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n\r\n%s",
		     method, path, u->host, u->port, HPA_VERSION, blen, body ? body : "") < 0)
		abort();
	reqlen = strlen(req);
	while (sent < reqlen) {
		ssize_t w;
		if (wait_fd(fd, POLLOUT, deadline) <= 0)
			goto timeout;
		w = send(fd, req + sent, reqlen - sent, MSG_NOSIGNAL);
		if (w < 0 && errno != EAGAIN && errno != EINTR) {
			hpa_error("%s: send failed: %s", what, strerror(errno));
			goto out;
		}
		if (w > 0)
			sent += (size_t)w;
	}
	for (;;) {
		ssize_t r;
		int ready = wait_fd(fd, POLLIN, deadline);

		if (ready == 0)
			goto timeout;
		if (ready < 0) {
			hpa_error("%s: %s", what, strerror(errno));
			goto out;
		}
		if (n + 65536 + 1 > cap) {
			if (cap > HPA_HTTP_MAX) {
				hpa_error("%s: answer larger than %zu MiB", what, HPA_HTTP_MAX >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : 1 << 16;
			buf = xrealloc(buf, cap + 65536 + 1);
		}
		r = recv(fd, buf + n, 65536, 0);
		if (r == 0)
			break;
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			hpa_error("%s: %s", what, strerror(errno));
			goto out;
		}
		n += (size_t)r;
	}
	if (!buf || n < 12 || sscanf((char *)buf, "HTTP/%*d.%*d %d", &status) != 1) {
		hpa_error("%s: not an HTTP answer", what);
		goto out;
	}
	buf[n] = '\0';
	hdr_end = strstr((char *)buf, "\r\n\r\n");
	if (!hdr_end) {
		hpa_error("%s: HTTP answer without a header end", what);
		goto out;
	}
	if (status < 200 || status > 299) {
		char *eol = strchr((char *)buf, '\r');
		hpa_error("%s: HTTP %.*s", what, (int)(eol - (char *)buf) - 9, (char *)buf + 9);
		goto out;
	}
	{
		size_t hlen = (size_t)(hdr_end - (char *)buf) + 4;
		bool chunked = false;
		char *h;

		*hdr_end = '\0';
		for (h = (char *)buf; (h = strchr(h, '\n')); h++)
			if (!strncasecmp(h + 1, "transfer-encoding:", 18) && strstr(h, "chunked"))
				chunked = true;
		memmove(buf, buf + hlen, n - hlen);
		n -= hlen;
		buf[n] = '\0';
		if (chunked && dechunk(buf, &n) < 0) {
			hpa_error("%s: malformed chunked answer", what);
			goto out;
		}
	}
	*out = buf;
	*len = n;
	buf = NULL;
	rc = 0;
	goto out;
timeout:
	hpa_error("%s: no complete answer within %.0f s", what, total_s);
out:
	close(fd);
	free(buf);
	free(req);
	free(what);
	return rc;
}
