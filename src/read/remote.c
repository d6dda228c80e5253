/*
 * A profile from a running server: the endpoint kinds (brpc/gperftools,
 * GreptimeDB, TiKV), the request, and reading the answer as an input.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/reader.h"
#include "hpa/remote.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

struct endpoint {
	const char *method;
	const char *path;        /* request path */
	bool symbols;            /* gperftools protocol: /pprof/symbol next to it */
};

/* Where the path of `url` starts (its end when it has none). */
static const char *path_start(const char *url)
{
	struct hpa_url_span sp;

	hpa_url_span(url, &sp);
	return sp.path;
}

/* Method and path for `url`, from --endpoint or from the URL's path. */
static int resolve(const char *url, const char *kind, struct endpoint *e)
{
	const char *path = path_start(url);
	size_t plen = strcspn(path, "?#");
	bool root = plen == 0 || (plen == 1 && path[0] == '/');

	if (!kind) {
		kind = strstr(path, "/debug/prof/mem") ? "greptime" :
		       strstr(path, "/debug/pprof/heap") ? "tikv" : "gperftools";
	}
	if (!strcmp(kind, "brpc") || !strcmp(kind, "gperftools")) {
		e->method = "GET";
		e->path = root ? "/pprof/heap" : NULL;
		e->symbols = !root ? memmem(path, plen, "/pprof/", 7) != NULL : true;
	} else if (!strcmp(kind, "greptime")) {
		e->method = "POST";
		e->path = root ? "/debug/prof/mem" : NULL;
		e->symbols = false;
	} else if (!strcmp(kind, "tikv")) {
		e->method = "GET";
		e->path = root ? "/debug/pprof/heap" : NULL;
		e->symbols = false;
	} else {
		char *shown = hpa_url_redact(url);
		hpa_error("%s: unknown --endpoint '%s' (brpc, gperftools, greptime, tikv)", shown, kind);
		free(shown);
		return -1;
	}
	return 0;
}

/* `url` with its path replaced by `path` (query and fragment kept). */
static char *with_path(const char *url, const char *path)
{
	const char *p = path_start(url);

	return hpa_xasprintf("%.*s%s%s", (int)(p - url), url, path, p + strcspn(p, "?#"));
}

int hpa_read_url(struct hpa_profile *prof, const char *url, const struct hpa_http_opts *ho,
		 FILE **raw, size_t *raw_len)
{
	struct endpoint e = { NULL, NULL, false };
	char *req, *shown;
	FILE *fp = NULL;
	size_t len = 0;
	int rc;

	if (resolve(url, ho->endpoint, &e) < 0)
		return -1;
	req = e.path ? with_path(url, e.path) : xstrdup(url);
	shown = hpa_url_redact(req);
	rc = hpa_http_fetch(req, e.method, NULL, ho, false, &fp, &len);
	if (!rc && !len)
		rc = hpa_error("%s: the server answered with an empty body", shown);
	if (!rc)
		rc = hpa_read_stream(prof, fp, shown);
	if (!rc) {   /* the dump's time: its own (pprof), else when it was fetched */
		struct hpa_input *in = hpa_profile_input(prof, (uint32_t)prof->inputs_nr);
		struct timespec now;
		in->remote = true;
		if (!in->time_nanos && clock_gettime(CLOCK_REALTIME, &now) == 0)
			in->time_nanos = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	}
	if (!rc && e.symbols) {
		/* The symbol service next to the profile: .../pprof/symbol */
		const char *p = path_start(req);
		const char *cut = memmem(p, strcspn(p, "?#"), "/pprof/", 7);
		char *sym;
		sym = hpa_xasprintf("%.*s/pprof/symbol", (int)((cut ? cut : p) - req), req);
		hpa_profile_input(prof, (uint32_t)prof->inputs_nr)->symbol_url = sym;
	}
	if (raw && !rc && fseek(fp, 0, SEEK_SET) == 0) {
		*raw = fp;
		*raw_len = len;
		fp = NULL;
	}
	if (fp)
		fclose(fp);
	free(shown);
	free(req);
	return rc;
}
