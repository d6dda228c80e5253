#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/reader.h"
#include "hpa/remote.h"
#include "hpa/strbuf.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct endpoint {
	const char *method;
	const char *path;        /* request path */
	bool symbols;            /* gperftools protocol: /pprof/symbol next to it */
};

/* Where the path of `url` starts (its end when it has none). */
static const char *path_start(const char *url)
{
	const char *sep = strstr(url, "://");
	const char *p = sep ? sep + 3 : url;

	return p + strcspn(p, "/?#");
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
	const char *p = path_start(url), *rest = p + strcspn(p, "?#");
	char *s;

	s = hpa_xasprintf("%.*s%s%s", (int)(p - url), url, path, rest);
	return s;
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

/* The whole answer in memory, NUL-terminated. */
static char *slurp(FILE *fp, size_t len)
{
	char *s = xmalloc(len + 1);

	s[fread(s, 1, len, fp)] = '\0';
	fclose(fp);
	return s;
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

void hpa_symbolize_remote(struct hpa_profile *prof, const struct hpa_http_opts *ho)
{
	size_t in;

	for (in = 0; in < prof->inputs_nr; in++) {
		const char *url = prof->inputs[in].symbol_url;
		uint64_t *addrs = NULL;
		size_t n = 0, alloc = 0, len, i;
		char *ans, *body, *line, *save = NULL, *shown;
		unsigned long nsym = 0;
		FILE *fp;

		if (!url)
			continue;
		/* GET answers "num_symbols: N"; N > 0 means it can name addresses. */
		for (i = 1; i < prof->locs_nr; i++) {
			const struct hpa_location *l = &prof->locs[i];
			if (l->line_nr || l->addr >= HPA_KERNEL_FLOOR || !l->addr)
				continue;
			HPA_GROW(addrs, n + 1, alloc);
			addrs[n++] = l->addr - 1;
		}
		if (!n || hpa_http_fetch(url, "GET", NULL, ho, true, &fp, &len) < 0) {
			free(addrs);
			continue;
		}
		shown = hpa_url_redact(url);
		ans = slurp(fp, len);
		if (sscanf(ans, "num_symbols: %lu", &nsym) != 1 || !nsym) {
			hpa_warn("%s: no symbols from the server", shown);
			free(ans);
			free(addrs);
			free(shown);
			continue;
		}
		free(ans);
		qsort(addrs, n, sizeof(*addrs), cmp_u64);
		body = xmalloc(n * 19 + 1);
		body[0] = '\0';
		for (i = 0, len = 0; i < n; i++)
			len += (size_t)sprintf(body + len, "%s0x%llx", i ? "+" : "", (unsigned long long)addrs[i]);
		if (hpa_http_fetch(url, "POST", body, ho, true, &fp, &len) == 0) {
			size_t named = 0;
			ans = slurp(fp, len);
			for (line = strtok_r(ans, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
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
				hpa_warn("%s: the server named none of %zu addresses", shown, n);
			free(ans);
		}
		free(body);
		free(addrs);
		free(shown);
	}
}
