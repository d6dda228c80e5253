/*
 * HTTP and HTTPS requests through libcurl.
 *
 * libcurl is loaded with dlopen() on the first request, not linked: its
 * chain of TLS, HTTP/2, IDN and LDAP libraries would be loaded at every
 * start, and most runs read local files.
 */
#ifndef HPA_FETCH_H
#define HPA_FETCH_H

#include <signal.h>
#include <stdio.h>

#include "hpa/compat.h"

#define HPA_HTTP_MAX ((size_t)2 << 30)   /* largest body accepted, as for other inputs */
#define HPA_HTTP_REDIRECTS 5             /* redirects followed at most */
#define HPA_HTTP_CONNECT_MAX 5.0         /* seconds to connect, at most */

/* How to reach a server: the command line's --endpoint, --timeout, TLS and headers. */
struct hpa_http_opts {
	const char *endpoint;     /* brpc, gperftools, greptime, tikv; NULL: from the path */
	double timeout;           /* seconds per request, whole; 0: 60 */
	const char *cacert;       /* --cacert FILE: trust this CA instead of the system's */
	const char *cert, *key;   /* --cert/--key FILE: client certificate (mutual TLS) */
	bool insecure;            /* --insecure: do not verify the server's certificate */
	const char **headers;     /* --header 'Name: value', repeatable */
	size_t headers_nr;
	bool error_text;          /* an HTTP error's message ends with the answer's first line (ClickHouse's reason) */
};

/* True for "http://..." and "https://..." (anything else is a file name). */
bool hpa_is_url(const char *s);

/*
 * Where the parts of a URL lie, as written: the authority after "://"
 * (user information, if any, up to the last '@' in it, then host[:port])
 * and the path, which starts where the authority ends (at '/', '?', '#' or
 * the end).
 */
struct hpa_url_span {
	const char *auth;     /* start of the authority */
	const char *at;       /* the '@' ending user information, or NULL */
	const char *host;     /* host[:port]: after `at`, else `auth` */
	const char *path;     /* end of the authority */
};

void hpa_url_span(const char *url, struct hpa_url_span *s);

/*
 * `url` fit for messages and titles: a password in it becomes "***" (a
 * user name alone, often a token, too), and so does the value of every
 * query parameter but the few profile endpoints take (seconds, gc, debug,
 * sample_index, frequency, format, output, ...).  Returns a malloc'ed string.
 */
char *hpa_url_redact(const char *url);

/*
 * A file name for what came from `url`: its host[:port] and path, every
 * byte but [A-Za-z0-9.:-] as '_', never its user information or query
 * ("127.0.0.1:6060_debug_pprof_heap").  Malloc'ed.
 */
char *hpa_url_file_name(const char *url);

/* Do the two URLs name the same host and port (the scheme's own when none is written)? */
bool hpa_url_same_origin(const char *a, const char *b);

/* `url` without its user information (malloc'ed). */
char *hpa_url_without_user(const char *url);

/*
 * The secrets of a request, to scrub from any text shown: the URL's
 * password (or lone user name) and the query values not shown, and each word
 * of each header value.  A NULL-terminated list for hpa_free_secrets().
 */
char **hpa_url_secrets(const char *url, const struct hpa_http_opts *ho);
void hpa_free_secrets(char **secrets);

/* `msg` with every secret of 3 bytes or more replaced by "***" (malloc'ed). */
char *hpa_scrub_secrets(const char *msg, char *const *secrets);

/*
 * Request `url` with `method` ("GET" or "POST", then with `body`).  On 0,
 * *out is a rewound, unlinked temporary file holding the body of a 2xx
 * answer and *len its size.  Otherwise one "hpa: URL: ..." line is printed
 * (a warning instead of an error when `warn_only`) and -1 returned: refused
 * connections, timeouts, TLS and HTTP errors, malformed or truncated
 * answers, redirect loops and bodies over HPA_HTTP_MAX.  Secrets from the
 * URL and the headers never appear in the message.
 */
int hpa_http_fetch(const char *url, const char *method, const char *body,
		   const struct hpa_http_opts *ho, bool warn_only, FILE **out, size_t *len);

/* Requests end early, "interrupted", once *flag is nonzero (NULL: never). */
void hpa_http_set_cancel(volatile sig_atomic_t *flag);

#endif
