/*
 * A small HTTP/1.1 client for fetching profiles from running servers
 * (plain http only: the fixed dependency list has no TLS library).
 */
#ifndef HPA_HTTP_H
#define HPA_HTTP_H

#include "hpa/compat.h"

#define HPA_HTTP_MAX ((size_t)2 << 30)   /* largest body accepted */

struct hpa_url {
	char *host, *port, *path;   /* path includes any query */
};

/* True for "http://..." and "https://..." (anything else is a file name). */
bool hpa_is_url(const char *s);

/* Split an http URL; -1 after reporting (https, malformed). */
int hpa_url_parse(struct hpa_url *u, const char *url);
void hpa_url_release(struct hpa_url *u);

/*
 * Request `path` on u's host with `method` ("GET"/"POST") and an optional
 * body.  Waits at most connect_s to connect and total_s in all.  On 0,
 * *out (malloc'ed, NUL-terminated) and *len hold the body of a 2xx answer.
 * Errors (refused, timeout, HTTP status, oversized) are reported, -1.
 */
int hpa_http_request(const struct hpa_url *u, const char *method, const char *path,
		     const char *body, double connect_s, double total_s, uint8_t **out, size_t *len);

#endif
