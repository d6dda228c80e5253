/*
 * HTTP and HTTPS through libcurl's easy interface, loaded on first use.
 *
 * Everything about the wire (chunked bodies, content lengths, TLS,
 * proxies from http_proxy/https_proxy/no_proxy) is libcurl's; this file
 * sets the bounds (protocols, time, size), follows redirects itself (from
 * https only to https; --header values and URL credentials only to the
 * host and port the user named), keeps the body in a temporary file, and
 * turns libcurl's outcome into one message that carries no secret (url.c
 * finds them).
 */
#include "hpa/compat.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Calls go through function pointers: no macro may rename them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

/* ---- libcurl, loaded on first use --------------------------------------- */

#define CURL_FUNCS(X)                                                   \
	X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt)       \
	X(curl_easy_perform) X(curl_easy_getinfo) X(curl_easy_cleanup)  \
	X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

static struct {
#define DECLARE(f) __typeof__(f) *f;
	CURL_FUNCS(DECLARE)
#undef DECLARE
} lc;

/* 0 on success; otherwise the reason libcurl cannot be used, in `why`. */
static int load_curl(char *why, size_t size)
{
	static const char *const sonames[] = { "libcurl.so.4", "libcurl-gnutls.so.4" };
	static int state;   /* 0 untried, 1 loaded, -1 failed */
	static char reason[512];
	void *h = NULL;
	size_t i;

	if (!state) {
		state = -1;
		for (i = 0; i < HPA_ARRAY_SIZE(sonames) && !h; i++) {
			h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
			if (!h && !i)
				snprintf(reason, sizeof(reason), "%s", dlerror());
		}
		if (!h)
			goto out;
#define RESOLVE(f)                                                              \
		*(void **)&lc.f = dlsym(h, #f);                                 \
		if (!lc.f) {                                                    \
			snprintf(reason, sizeof(reason), "libcurl lacks %s", #f);  \
			goto out;                                               \
		}
		CURL_FUNCS(RESOLVE)
#undef RESOLVE
		if (lc.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			snprintf(reason, sizeof(reason), "libcurl failed to start");
			goto out;
		}
		state = 1;
	}
out:
	if (state < 0)
		snprintf(why, size, "cannot load libcurl (%s); install Debian's libcurl4", reason);
	return state > 0 ? 0 : -1;
}

/* ---- one request -------------------------------------------------------- */

struct sink {
	FILE *fp;
	size_t n;
	bool over;       /* the body passed HPA_HTTP_MAX */
	int werr;        /* errno of a failed write to the temporary file */
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t len = size * nmemb;

	if (len > HPA_HTTP_MAX - s->n) {
		s->over = true;
		return 0;
	}
	if (len && fwrite(data, 1, len, s->fp) != len) {
		s->werr = errno ? errno : EIO;
		return 0;
	}
	s->n += len;
	return len;
}

/* The reason phrase of the last status line ("Internal Server Error"). */
static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	char *reason = arg;
	size_t len = size * nmemb, i = 0, k = 0;

	if (len < 5 || strncmp(data, "HTTP/", 5))
		return len;
	while (i < len && data[i] != ' ')   /* version */
		i++;
	while (i < len && data[i] == ' ')
		i++;
	while (i < len && data[i] != ' ' && data[i] != '\r' && data[i] != '\n')   /* code */
		i++;
	while (i < len && data[i] == ' ')
		i++;
	for (; i < len && data[i] != '\r' && data[i] != '\n' && k < 95; i++)
		reason[k++] = data[i] >= 0x20 && data[i] < 0x7f ? data[i] : '?';
	reason[k] = '\0';
	return len;
}

/* An unlinked temporary file in $TMPDIR (or /tmp). */
static FILE *temp_file(int *err)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	FILE *fp = NULL;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	path = hpa_xasprintf("%s/hpa-http-XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	*err = errno;
	if (fd >= 0) {
		unlink(path);
		fp = fdopen(fd, "w+b");
		*err = errno;
		if (!fp)
			close(fd);
	}
	free(path);
	return fp;
}

/* Host and port of the URL curl last used, "host:port", into buf. */
static void host_port(CURL *h, const char *url, char *buf, size_t size)
{
	struct hpa_url_span sp;
	char *eff = NULL;
	const char *u, *end;
	long port = 0;

	if (lc.curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff) != CURLE_OK || !eff)
		eff = (char *)url;
	hpa_url_span(eff, &sp);
	u = sp.host;
	end = sp.path;
	if (memchr(u, ':', (size_t)(end - u)) && u[0] != '[') {
		snprintf(buf, size, "%.*s", (int)(end - u), u);
		return;
	}
	if (u[0] == '[' && end > u && end[-1] != ']') {   /* [v6]:port */
		snprintf(buf, size, "%.*s", (int)(end - u), u);
		return;
	}
	lc.curl_easy_getinfo(h, CURLINFO_PRIMARY_PORT, &port);
	if (!port)
		port = !strncasecmp(eff, "https", 5) ? 443 : 80;
	snprintf(buf, size, "%.*s:%ld", (int)(end - u), u, port);
}

static const char *or_curl(const char *errbuf, CURLcode rc)
{
	return errbuf[0] ? errbuf : lc.curl_easy_strerror(rc);
}

/*
 * libcurl says where it failed to connect ("Failed to connect to HOST port
 * N ..."): when that is not the URL's host:port `hp`, it was the proxy
 * (libcurl 7.88 has no CURLINFO_USED_PROXY); its "HOST:N" into `other`.
 */
static bool tried_other(const char *detail, const char *hp, char *other, size_t size)
{
	const char *p = strstr(detail, "connect to "), *port;
	size_t hl;

	if (!p)
		return false;
	p += 11;
	port = strstr(p, " port ");
	if (!port || (hl = (size_t)(port - p)) == 0 || hl > 255)
		return false;
	snprintf(other, size, "%.*s:%ld", (int)hl, p, strtol(port + 6, NULL, 10));
	return strcmp(other, hp) != 0;
}

/* A failed TLS handshake, or a connection that broke while sending or receiving, in words. */
static void describe_handshake(char *msg, size_t size, CURLcode rc, const char *detail, bool tls,
			       const struct hpa_http_opts *ho)
{
	if (tls && !ho->cert && (strstr(detail, "certificate required") ||
				 strstr(detail, "handshake failure")))
		snprintf(msg, size, "TLS: the server wants a client certificate (%s); "
			 "give it with --cert FILE --key FILE", detail);
	else if (tls && ho->cert && strstr(detail, "alert") &&
		 (strstr(detail, "unknown ca") || strstr(detail, "bad certificate") ||
		  strstr(detail, "certificate unknown") || strstr(detail, "certificate expired") ||
		  strstr(detail, "certificate revoked") || strstr(detail, "unsupported certificate")))
		snprintf(msg, size, "TLS: the server refused the client certificate %s (%s)",
			 ho->cert, detail);
	else if (rc == CURLE_SSL_CONNECT_ERROR)
		snprintf(msg, size, "TLS: handshake failed (%s)", detail);
	else if (tls && (strstr(detail, "SSL") || strstr(detail, "alert")))
		snprintf(msg, size, "TLS: %s", detail);
	else
		snprintf(msg, size, "%s", detail);
}

/* A connection refused or not made in time (rc), in words. */
static void describe_connect(char *msg, size_t size, CURL *h, CURLcode rc, const char *detail, const char *url,
			     double total)
{
	char hp[300], other[300];
	long oserr = 0;
	curl_off_t connected = 0;

	host_port(h, url, hp, sizeof(hp));
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		lc.curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connected);
		if (!connected)
			snprintf(msg, size, "no connection to %s within %g s", hp,
				 total < HPA_HTTP_CONNECT_MAX ? total : HPA_HTTP_CONNECT_MAX);
		else
			snprintf(msg, size, "no complete answer within %g s", total);
		return;
	}
	lc.curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);
	if (tried_other(detail, hp, other, sizeof(other)))   /* the proxy */
		snprintf(msg, size, "cannot connect to the proxy %s: %s", other,
			 oserr ? strerror((int)oserr) : detail);
	else if (oserr)
		snprintf(msg, size, "cannot connect to %s: %s", hp, strerror((int)oserr));
	else
		snprintf(msg, size, "cannot connect to %s (%s)", hp, detail);
}

/* What went wrong, in words, into msg. */
static void describe(char *msg, size_t size, CURL *h, CURLcode rc, const char *errbuf,
		     const struct sink *sink, const struct hpa_http_opts *ho, const char *url,
		     double total)
{
	const char *detail = or_curl(errbuf, rc);
	bool tls = !strncasecmp(url, "https", 5);

	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		snprintf(msg, size, "cannot resolve the host name (%s)", detail);
		break;
	case CURLE_COULDNT_RESOLVE_PROXY:
		snprintf(msg, size, "cannot resolve the proxy's host name (%s)", detail);
		break;
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
		describe_connect(msg, size, h, rc, detail, url, total);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
		if (strstr(detail, "host name") || strstr(detail, "hostname"))
			snprintf(msg, size, "TLS: the server's certificate is not for this host (%s)",
				 detail);
		else
			snprintf(msg, size, "TLS: the server's certificate is not trusted (%s)%s", detail,
				 ho->cacert ? "" : "; name its CA with --cacert FILE");
		break;
	case CURLE_SSL_CERTPROBLEM:
		snprintf(msg, size, "TLS: cannot use the client certificate %s (%s)",
			 ho->cert ? ho->cert : "", detail);
		break;
	case CURLE_SSL_CACERT_BADFILE:
		snprintf(msg, size, "TLS: cannot read the CA certificates %s (%s)",
			 ho->cacert ? ho->cacert : "of the system", detail);
		break;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		describe_handshake(msg, size, rc, detail, tls, ho);
		break;
	case CURLE_FILESIZE_EXCEEDED:
		snprintf(msg, size, "answer larger than %zu MiB", HPA_HTTP_MAX >> 20);
		break;
	case CURLE_WRITE_ERROR:
		if (sink->over)
			snprintf(msg, size, "answer larger than %zu MiB", HPA_HTTP_MAX >> 20);
		else
			snprintf(msg, size, "cannot keep the answer in a temporary file: %s",
				 strerror(sink->werr ? sink->werr : EIO));
		break;
	case CURLE_PARTIAL_FILE:
		snprintf(msg, size, "the answer ended early (%s)", detail);
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
		snprintf(msg, size, "only http:// and https:// are followed (%s)", detail);
		break;
	case CURLE_ABORTED_BY_CALLBACK:
		snprintf(msg, size, "interrupted");
		break;
	case CURLE_GOT_NOTHING:
		snprintf(msg, size, "the server closed the connection without answering");
		break;
	case CURLE_WEIRD_SERVER_REPLY:
		snprintf(msg, size, "not an HTTP answer (%s)", detail);
		break;
	default:
		snprintf(msg, size, "%s", detail);
		break;
	}
}

/* Print `msg` about `url` with every secret scrubbed: an error or a warning. */
static int report(const char *url, const char *msg, const struct hpa_http_opts *ho, bool warn_only)
{
	char **secrets = hpa_url_secrets(url, ho);
	char *shown = hpa_url_redact(url);
	char *clean = hpa_scrub_secrets(msg, secrets);

	if (warn_only)
		hpa_warn("%s: %s", shown, clean);
	else
		hpa_error("%s: %s", shown, clean);
	free(clean);
	free(shown);
	hpa_free_secrets(secrets);
	return -1;
}

static bool insecure_warned;
static volatile sig_atomic_t *cancel;

void hpa_http_set_cancel(volatile sig_atomic_t *flag)
{
	cancel = flag;
}

/* Ends a transfer once the cancel flag is set (a signal during --watch). */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	(void)arg, (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	return cancel && *cancel;
}

/* Seconds as libcurl's milliseconds: at least 1 (0 would mean "no limit"). */
static long millis(double s)
{
	return s * 1000 < 1 ? 1 : s * 1000 > 1e12 ? (long)1e12 : (long)(s * 1000);
}

/* Append to a header list; libcurl fails only when out of memory. */
static struct curl_slist *add_header(struct curl_slist *list, const char *header)
{
	struct curl_slist *next = lc.curl_slist_append(list, header);

	if (!next)
		abort();
	return next;
}

/* Set one option; 0 or the failing option's error. */
#define SET(h, opt, val) do {                                           \
		CURLcode set_rc_ = lc.curl_easy_setopt((h), (opt), (val));  \
		if (set_rc_ != CURLE_OK && !setup_rc)                       \
			setup_rc = set_rc_;                                 \
	} while (0)

/* The user information of `from` put into `url` when it has none (malloc'ed). */
static char *with_user_of(const char *url, const char *from)
{
	struct hpa_url_span a, b;

	hpa_url_span(url, &a);
	hpa_url_span(from, &b);
	if (a.at || !b.at)
		return xstrdup(url);
	return hpa_xasprintf("%.*s%.*s%s", (int)(a.auth - url), url, (int)(b.host - b.auth), b.auth,
			     a.auth);
}

static bool is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

/*
 * The next URL of a redirect from `cur` (the user named `url`), or NULL
 * with the reason in msg.  From https only https is followed; another host
 * or port never gets the URL's credentials (nor, in the caller, the
 * --header values).
 */
static char *follow(const char *url, const char *cur, const char *next, char *msg, size_t size)
{
	if (!hpa_is_url(next)) {
		snprintf(msg, size, "redirected to a URL that is not http:// or https://; not followed");
		return NULL;
	}
	if (!strncasecmp(cur, "https://", 8) && strncasecmp(next, "https://", 8)) {
		char *shown = hpa_url_redact(next);
		snprintf(msg, size, "redirected from https:// to %s; not followed: the request would "
			 "go in clear text", shown);
		free(shown);
		return NULL;
	}
	return hpa_url_same_origin(url, next) ? with_user_of(next, url) : hpa_url_without_user(next);
}

/* One request and what it answers, while it is made (redirects included). */
struct request {
	CURL *h;
	struct sink sink;
	struct curl_slist *own, *plain;   /* headers with and without --header */
	bool post;
	double total;                     /* seconds for it all */
	CURLcode setup_rc;                /* the first setting libcurl refused (SET) */
	char errbuf[CURL_ERROR_SIZE];
	char reason[96];                  /* the status line's reason phrase */
	char msg[1024];                   /* what went wrong */
};

/* The headers: --header's (to the origin the user named only), and those hpa always sends. */
static void request_headers(struct request *r, const struct hpa_http_opts *ho)
{
	bool content_type = false;
	size_t i;

	for (i = 0; i < ho->headers_nr; i++) {
		r->own = add_header(r->own, ho->headers[i]);
		content_type |= !strncasecmp(ho->headers[i], "content-type:", 13);
	}
	if (r->post && !content_type)
		r->own = add_header(r->own, "Content-Type: text/plain");
	if (r->post)
		r->plain = add_header(r->plain, "Content-Type: text/plain");
	/* No "Expect: 100-continue" wait before a large /pprof/symbol body. */
	r->own = add_header(r->own, "Expect:");
	r->plain = add_header(r->plain, "Expect:");
}

/* The settings every hop of the request has; a refused one is kept in r->setup_rc. */
static void request_setup(struct request *r, const struct hpa_http_opts *ho)
{
	double conn = r->total < HPA_HTTP_CONNECT_MAX ? r->total : HPA_HTTP_CONNECT_MAX;
	CURLcode setup_rc = CURLE_OK;
	CURL *h = r->h;

	SET(h, CURLOPT_ERRORBUFFER, r->errbuf);
	SET(h, CURLOPT_NOSIGNAL, 1L);
	SET(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* Redirects are followed here, a hop at a time: libcurl would send
	 * --header values to any host it is sent to, and go from https to http. */
	SET(h, CURLOPT_FOLLOWLOCATION, 0L);
	SET(h, CURLOPT_TIMEOUT_MS, millis(r->total));
	SET(h, CURLOPT_CONNECTTIMEOUT_MS, millis(conn));
	if (cancel) {
		SET(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		SET(h, CURLOPT_NOPROGRESS, 0L);
	}
	SET(h, CURLOPT_USERAGENT, "hpa/" HPA_VERSION);
	SET(h, CURLOPT_ACCEPT_ENCODING, "");
	SET(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)HPA_HTTP_MAX);
	SET(h, CURLOPT_WRITEFUNCTION, on_body);
	SET(h, CURLOPT_WRITEDATA, &r->sink);
	SET(h, CURLOPT_HEADERFUNCTION, on_header);
	SET(h, CURLOPT_HEADERDATA, r->reason);
	if (ho->cacert)
		SET(h, CURLOPT_CAINFO, ho->cacert);
	if (ho->cert)
		SET(h, CURLOPT_SSLCERT, ho->cert);
	if (ho->key)
		SET(h, CURLOPT_SSLKEY, ho->key);
	if (ho->insecure) {
		SET(h, CURLOPT_SSL_VERIFYPEER, 0L);
		SET(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	r->setup_rc = setup_rc;
}

/* Empty the answer so far, for the next hop; false (r->msg said) if the file cannot be. */
static bool request_restart(struct request *r)
{
	fflush(r->sink.fp);
	if (ftruncate(fileno(r->sink.fp), 0) != 0 || fseek(r->sink.fp, 0, SEEK_SET) != 0) {
		snprintf(r->msg, sizeof(r->msg), "cannot keep the answer in a temporary file: %s",
			 strerror(errno));
		return false;
	}
	r->sink.n = 0;
	r->reason[0] = '\0';
	r->errbuf[0] = '\0';
	return true;
}

/* One hop to `cur`: CURLE_OK, or an error with r->msg said. */
static CURLcode request_hop(struct request *r, const char *url, const char *cur, const char *body,
			    const struct hpa_http_opts *ho)
{
	CURLcode setup_rc = r->setup_rc, rc;
	CURL *h = r->h;

	SET(h, CURLOPT_URL, cur);
	SET(h, CURLOPT_HTTPHEADER, hpa_url_same_origin(url, cur) ? r->own : r->plain);
	if (r->post) {
		SET(h, CURLOPT_POST, 1L);
		SET(h, CURLOPT_POSTFIELDS, body ? body : "");
		SET(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? strlen(body) : 0));
	} else {
		SET(h, CURLOPT_HTTPGET, 1L);
	}
	if (setup_rc != CURLE_OK) {
		snprintf(r->msg, sizeof(r->msg), "libcurl refused a setting (%s)",
			 lc.curl_easy_strerror(setup_rc));
		return setup_rc;
	}
	rc = lc.curl_easy_perform(h);
	if (rc != CURLE_OK)
		describe(r->msg, sizeof(r->msg), h, rc, r->errbuf, &r->sink, ho, cur, r->total);
	return rc;
}

/* The answer's first line (printable, at most 200 bytes) after r->msg: what the server said was wrong. */
static void error_text(struct request *r)
{
	char line[201];
	size_t n, i, m = strlen(r->msg);

	if (fflush(r->sink.fp) != 0 || fseek(r->sink.fp, 0, SEEK_SET) != 0)
		return;
	n = fread(line, 1, sizeof(line) - 1, r->sink.fp);
	for (i = 0; i < n && line[i] != '\n' && line[i] != '\r'; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	line[i] = '\0';
	if (i && m + 3 < sizeof(r->msg))
		snprintf(r->msg + m, sizeof(r->msg) - m, ": %s", line);
}

/* The request's hops, redirects followed by hpa: CURLE_OK with the answer, or an error said in r->msg. */
static CURLcode request_run(struct request *r, const char *url, const char *body,
			    const struct hpa_http_opts *ho)
{
	char *cur = xstrdup(url), *next, *to;
	long status = 0;
	int hops = 0;
	CURLcode rc;

	for (;;) {
		next = NULL;
		if ((rc = request_hop(r, url, cur, body, ho)) != CURLE_OK)
			break;
		lc.curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &status);
		lc.curl_easy_getinfo(r->h, CURLINFO_REDIRECT_URL, &next);
		if (is_redirect(status) && next) {
			rc = CURLE_TOO_MANY_REDIRECTS;
			if (hops++ == HPA_HTTP_REDIRECTS) {
				snprintf(r->msg, sizeof(r->msg), "more than %d redirects", HPA_HTTP_REDIRECTS);
				break;
			}
			if (!(to = follow(url, cur, next, r->msg, sizeof(r->msg))))
				break;
			free(cur);
			cur = to;
			r->post &= status != 303;   /* "see other": a GET; 301, 302, 307, 308 keep a POST */
			if (!request_restart(r))
				break;
			continue;
		}
		if (status < 200 || status > 299) {
			snprintf(r->msg, sizeof(r->msg), "HTTP %ld%s%s", status, r->reason[0] ? " " : "",
				 r->reason);
			if (ho->error_text)
				error_text(r);
			rc = CURLE_HTTP_RETURNED_ERROR;
		} else if (fflush(r->sink.fp) != 0 || fseek(r->sink.fp, 0, SEEK_SET) != 0) {
			snprintf(r->msg, sizeof(r->msg), "cannot keep the answer in a temporary file: %s",
				 strerror(errno));
			rc = CURLE_WRITE_ERROR;
		}
		break;
	}
	free(cur);
	return rc;
}

int hpa_http_fetch(const char *url, const char *method, const char *body,
		   const struct hpa_http_opts *ho, bool warn_only, FILE **out, size_t *len)
{
	struct request *r = xcalloc(1, sizeof(*r));
	CURLcode rc;
	int err, ret = 0;

	*out = NULL;
	*len = 0;
	r->total = ho->timeout > 0 ? ho->timeout : 60;
	r->post = !strcmp(method, "POST");
	if (load_curl(r->msg, sizeof(r->msg)) < 0) {
		ret = report(url, r->msg, ho, warn_only);
		goto done;
	}
	if (ho->insecure && !strncasecmp(url, "https", 5) && !insecure_warned) {
		insecure_warned = true;
		hpa_warn("--insecure: the server's certificate is not verified");
	}
	r->sink.fp = temp_file(&err);
	if (!r->sink.fp) {
		snprintf(r->msg, sizeof(r->msg), "cannot create a temporary file for the answer: %s",
			 strerror(err));
		ret = report(url, r->msg, ho, warn_only);
		goto done;
	}
	r->h = lc.curl_easy_init();
	if (!r->h) {
		fclose(r->sink.fp);
		ret = report(url, "libcurl cannot start a request", ho, warn_only);
		goto done;
	}
	request_headers(r, ho);
	request_setup(r, ho);
	rc = request_run(r, url, body, ho);
	lc.curl_easy_cleanup(r->h);
	lc.curl_slist_free_all(r->own);
	lc.curl_slist_free_all(r->plain);
	if (rc != CURLE_OK) {
		fclose(r->sink.fp);
		ret = report(url, r->msg, ho, warn_only);
	} else {
		*out = r->sink.fp;
		*len = r->sink.n;
	}
done:
	free(r);
	return ret;
}
