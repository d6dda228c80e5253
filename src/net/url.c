/*
 * URLs as the user gave them: which arguments are URLs, what of a URL may
 * be shown, and which strings of a request are secrets never to print.
 */
#include "hpa/compat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hpa/clickhouse.h"
#include "hpa/fetch.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

bool hpa_is_url(const char *s)
{
	return !strncasecmp(s, "http://", 7) || !strncasecmp(s, "https://", 8);
}

void hpa_url_span(const char *url, struct hpa_url_span *s)
{
	const char *sep = strstr(url, "://"), *p;

	s->auth = sep ? sep + 3 : url;
	s->path = s->auth + strcspn(s->auth, "/?#");
	s->at = NULL;
	for (p = s->auth; p < s->path; p++)
		if (*p == '@')
			s->at = p;
	s->host = s->at ? s->at + 1 : s->auth;
}

/*
 * A query parameter whose value may be shown: the few that profile
 * endpoints take.  Any other value is a secret (jwt, code, access_code,
 * bearer, X-Amz-Signature, ...): a list of what to hide would always miss one.
 */
static bool shown_param(const char *name, size_t len)
{
	static const char *const words[] = { "seconds", "gc", "debug", "sample_index", "frequency",
					     "format", "output", "display", "type", "raw", "jeprof",
					     "interval", "mode", "view" };
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == len && !strncasecmp(name, words[i], len))
			return true;
	return false;
}

/* A ClickHouse URL's parameters are labels and selections, shown; these are not. */
static bool secret_param(const char *name, size_t len)
{
	static const char *const words[] = { "password", "user", "key", "token", "secret" };
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(words); i++)
		if (strlen(words[i]) == len && !strncasecmp(name, words[i], len))
			return true;
	return false;
}

/*
 * Walk `url`: copy it to `out` with secrets as "***" (if out), and collect
 * the secrets themselves (if secrets, a NULL-terminated array to free).
 */
static void split_secrets(const char *url, struct hpa_strbuf *out, char ***secrets)
{
	struct hpa_url_span sp;
	const char *p, *q;
	size_t n = 0, alloc = 0;
	char **list = NULL;
	bool ch;

#define SECRET(s, l) do {                                               \
		if (secrets && (l) > 0) {                               \
			HPA_GROW(list, n + 2, alloc);                   \
			list[n++] = xstrndup((s), (l));                 \
		}                                                       \
	} while (0)
#define COPY(s, l) do { if (out) hpa_sb_add(out, (s), (l)); } while (0)

	hpa_url_span(url, &sp);
	ch = hpa_is_clickhouse_url(url);
	COPY(url, (size_t)(sp.auth - url));
	if (sp.at) {
		const char *colon = memchr(sp.auth, ':', (size_t)(sp.at - sp.auth));
		if (colon) {
			COPY(sp.auth, (size_t)(colon - sp.auth));
			COPY(":***@", 5);
			SECRET(colon + 1, (size_t)(sp.at - colon - 1));
		} else {
			COPY("***@", 4);
			SECRET(sp.auth, (size_t)(sp.at - sp.auth));
		}
	}
	COPY(sp.host, (size_t)(sp.path - sp.host));
	p = sp.path;
	q = p + strcspn(p, "?#");
	COPY(p, (size_t)(q - p));
	if (*q == '?') {
		COPY("?", 1);
		p = q + 1;
		while (*p && *p != '#') {
			size_t len = strcspn(p, "&#");
			const char *eq = memchr(p, '=', len);
			if (eq && (ch ? secret_param(p, (size_t)(eq - p)) : !shown_param(p, (size_t)(eq - p)))) {
				COPY(p, (size_t)(eq - p) + 1);
				COPY("***", 3);
				SECRET(eq + 1, len - (size_t)(eq - p) - 1);
			} else {
				COPY(p, len);
			}
			p += len;
			if (*p == '&') {
				COPY("&", 1);
				p++;
			}
		}
		q = p;
	}
	COPY(q, strlen(q));
	if (secrets) {
		HPA_GROW(list, n + 1, alloc);
		list[n] = NULL;
		*secrets = list;
	}
#undef SECRET
#undef COPY
}

char *hpa_url_redact(const char *url)
{
	struct hpa_strbuf b = HPA_STRBUF_INIT;

	split_secrets(url, &b, NULL);
	return hpa_sb_detach(&b);
}

char **hpa_url_secrets(const char *url, const struct hpa_http_opts *ho)
{
	char **list;
	size_t n, alloc, i;

	split_secrets(url, NULL, &list);
	for (n = 0; list[n]; n++)
		;
	alloc = n + 1;
	for (i = 0; i < ho->headers_nr; i++) {
		const char *v = strchr(ho->headers[i], ':');
		while (v && *v) {
			size_t len;
			v += strspn(v, ": \t");
			len = strcspn(v, " \t");
			if (len >= 3) {
				HPA_GROW(list, n + 2, alloc);
				list[n++] = xstrndup(v, len);
			}
			v += len;
		}
	}
	list[n] = NULL;
	return list;
}

char *hpa_scrub_secrets(const char *msg, char *const *secrets)
{
	struct hpa_strbuf b = HPA_STRBUF_INIT;
	const char *p = msg;

	while (*p) {
		size_t best = 0, i;
		for (i = 0; secrets[i]; i++) {
			size_t l = strlen(secrets[i]);
			if (l >= 3 && l > best && !strncmp(p, secrets[i], l))
				best = l;
		}
		if (best) {
			hpa_sb_adds(&b, "***");
			p += best;
		} else {
			hpa_sb_addc(&b, *p++);
		}
	}
	return hpa_sb_detach(&b);
}

void hpa_free_secrets(char **list)
{
	size_t i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

char *hpa_url_file_name(const char *url)
{
	struct hpa_url_span sp;
	struct hpa_strbuf b = HPA_STRBUF_INIT;
	const char *p, *end;

	hpa_url_span(url, &sp);
	end = sp.path + strcspn(sp.path, "?#");
	for (p = sp.host; p < end; p++) {
		char c = *p;
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			    c == '.' || c == '-' || c == ':';
		if (p == end - 1 && c == '/')
			break;
		hpa_sb_addc(&b, keep ? c : '_');
	}
	return hpa_sb_detach(&b);
}

/* The URL's host and port, lower-cased, the port said even when it is the scheme's own. */
static char *origin(const char *url)
{
	struct hpa_url_span sp;
	const char *end, *colon = NULL, *p;
	bool tls = !strncasecmp(url, "https://", 8);
	char *o;

	hpa_url_span(url, &sp);
	end = sp.path;
	for (p = sp.host; p < end; p++)   /* the port's colon: after any "[v6]" */
		if (*p == ':')
			colon = p;
		else if (*p == ']')
			colon = NULL;
	if (colon && colon + 1 < end)
		o = hpa_xasprintf("%.*s", (int)(end - sp.host), sp.host);
	else
		o = hpa_xasprintf("%.*s:%d", (int)((colon ? colon : end) - sp.host), sp.host,
				  tls ? 443 : 80);
	for (char *q = o; *q; q++)
		*q = (char)tolower((unsigned char)*q);
	return o;
}

bool hpa_url_same_origin(const char *a, const char *b)
{
	char *x = origin(a), *y = origin(b);
	bool same = !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

char *hpa_url_without_user(const char *url)
{
	struct hpa_url_span sp;

	hpa_url_span(url, &sp);
	if (!sp.at)
		return xstrdup(url);
	return hpa_xasprintf("%.*s%s", (int)(sp.auth - url), url, sp.host);
}
