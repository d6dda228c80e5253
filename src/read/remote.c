#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/http.h"
#include "hpa/reader.h"
#include "hpa/remote.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct endpoint {
	const char *method;
	const char *path;        /* request path */
	bool symbols;            /* gperftools protocol: /pprof/symbol next to it */
};

/* Method and path for `u`, from --endpoint or from the URL's path. */
static int resolve(const struct hpa_url *u, const char *kind, struct endpoint *e, const char *url)
{
	bool root = !strcmp(u->path, "/");

	if (!kind) {
		kind = strstr(u->path, "/debug/prof/mem") ? "greptime" :
		       strstr(u->path, "/debug/pprof/heap") ? "tikv" : "gperftools";
	}
	if (!strcmp(kind, "brpc") || !strcmp(kind, "gperftools")) {
		e->method = "GET";
		e->path = root ? "/pprof/heap" : u->path;
		e->symbols = strstr(e->path, "/pprof/") != NULL;
	} else if (!strcmp(kind, "greptime")) {
		e->method = "POST";
		e->path = root ? "/debug/prof/mem" : u->path;
		e->symbols = false;
	} else if (!strcmp(kind, "tikv")) {
		e->method = "GET";
		e->path = root ? "/debug/pprof/heap" : u->path;
		e->symbols = false;
	} else {
		return hpa_error("%s: unknown --endpoint '%s' (brpc, gperftools, greptime, tikv)", url, kind);
	}
	return 0;
}

int hpa_read_url(struct hpa_profile *prof, const char *url, const struct hpa_fetch_opts *fo,
		 uint8_t **raw, size_t *raw_len)
{
	struct hpa_url u;
	struct endpoint e = { NULL, NULL, false };
	uint8_t *body = NULL;
	size_t len = 0;
	double t = fo->timeout > 0 ? fo->timeout : 60;
	FILE *fp;
	int rc;

	if (hpa_url_parse(&u, url) < 0)
		return -1;
	if (resolve(&u, fo->endpoint, &e, url) < 0 ||
	    hpa_http_request(&u, e.method, e.path, NULL, t < 5 ? t : 5, t, &body, &len) < 0) {
		hpa_url_release(&u);
		return -1;
	}
	if (!len) {
		free(body);
		hpa_url_release(&u);
		return hpa_error("%s: the server answered with an empty body", url);
	}
	fp = fmemopen(body, len, "rb");
	rc = fp ? hpa_read_stream(prof, fp, url) : hpa_error("%s: cannot read the answer", url);
	if (fp)
		fclose(fp);
	if (!rc && e.symbols) {
		/* The symbol service next to the profile: .../pprof/symbol */
		char *sym = xmalloc(strlen(url) + 16);
		const char *cut = strstr(url + 7, "/pprof/");
		size_t keep = cut ? (size_t)(cut - url) : strlen(url);
		memcpy(sym, url, keep);
		strcpy(sym + keep, "/pprof/symbol");
		hpa_profile_input(prof, (uint32_t)prof->inputs_nr)->symbol_url = sym;
	}
	if (raw && !rc) {
		*raw = body;
		*raw_len = len;
	} else {
		free(body);
	}
	hpa_url_release(&u);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Give location `loc` the names of one symbol-service line: "a--b--c", outer first. */
static void set_remote_names(struct hpa_profile *prof, uint32_t loc, const char *names)
{
	struct hpa_line lines[64];
	const char *parts[64];
	size_t n = 0, i;
	char *copy = xstrdup(names), *p = copy, *sep;

	while (n < 64) {
		parts[n++] = p;
		sep = strstr(p, "--");
		if (!sep)
			break;
		*sep = '\0';
		p = sep + 2;
	}
	for (i = 0; i < n; i++) {   /* innermost first */
		const char *raw = parts[n - 1 - i];
		char *dem = hpa_demangle(raw);
		lines[i].func = hpa_profile_intern_function(prof, dem ? dem : raw, raw, NULL);
		lines[i].file = 0;
		lines[i].line = 0;
		free(dem);
	}
	hpa_profile_set_lines(prof, loc, lines, n, HPA_SYM_SYMTAB);
	free(copy);
}

void hpa_symbolize_remote(struct hpa_profile *prof, const struct hpa_fetch_opts *fo)
{
	double t = fo->timeout > 0 ? fo->timeout : 60;
	size_t in;

	for (in = 0; in < prof->inputs_nr; in++) {
		const char *url = prof->inputs[in].symbol_url;
		struct hpa_url u;
		uint8_t *ans = NULL;
		uint64_t *addrs = NULL;
		size_t n = 0, alloc = 0, len, i;
		char *body, *line, *save = NULL;
		unsigned long nsym = 0;

		if (!url || hpa_url_parse(&u, url) < 0)
			continue;
		/* GET answers "num_symbols: N"; N > 0 means it can name addresses. */
		if (hpa_http_request(&u, "GET", u.path, NULL, t < 5 ? t : 5, t, &ans, &len) < 0 ||
		    sscanf((char *)ans, "num_symbols: %lu", &nsym) != 1 || !nsym) {
			if (ans)
				hpa_warn("%s: no symbols from the server", url);
			free(ans);
			hpa_url_release(&u);
			continue;
		}
		free(ans);
		ans = NULL;
		for (i = 1; i < prof->locs_nr; i++) {
			const struct hpa_location *l = &prof->locs[i];
			if (l->line_nr || l->addr >= HPA_KERNEL_FLOOR || !l->addr)
				continue;
			HPA_GROW(addrs, n + 1, alloc);
			addrs[n++] = l->addr - 1;
		}
		if (!n) {
			hpa_url_release(&u);
			continue;
		}
		qsort(addrs, n, sizeof(*addrs), cmp_u64);
		body = xmalloc(n * 19 + 1);
		body[0] = '\0';
		for (i = 0, len = 0; i < n; i++)
			len += (size_t)sprintf(body + len, "%s0x%llx", i ? "+" : "", (unsigned long long)addrs[i]);
		if (hpa_http_request(&u, "POST", u.path, body, t < 5 ? t : 5, t, &ans, &len) == 0) {
			size_t named = 0;
			for (line = strtok_r((char *)ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				unsigned long long a;
				int off = 0;
				uint32_t loc;
				char *end = line + strlen(line);

				while (end > line && (end[-1] == '\r' || end[-1] == ' '))
					*--end = '\0';
				if (sscanf(line, "0x%llx %n", &a, &off) != 1 || !off || !line[off])
					continue;
				loc = hpa_hashmap_get(&prof->loc_by_addr, a + 1);
				if (loc && !prof->locs[loc].line_nr) {
					set_remote_names(prof, loc, line + off);
					named++;
				}
			}
			if (!named)
				hpa_warn("%s: the server named none of %zu addresses", url, n);
		}
		free(ans);
		free(body);
		free(addrs);
		hpa_url_release(&u);
	}
}
