/*
 * Names from a gperftools/brpc server's /pprof/symbol for the addresses
 * local symbolization left unnamed (inputs fetched from such a server).
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

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
static void set_remote_names(const struct hpa_profile *prof, struct hpa_symbols *syms, uint32_t loc,
			     const char *names)
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
		lines[i].func = hpa_symbols_intern_function(syms, prof->strs, dem ? dem : raw, raw, NULL);
		lines[i].file = 0;
		lines[i].line = 0;
		free(dem);
	}
	hpa_symbols_set_chain(syms, loc, lines, n, HPA_SYM_SYMTAB);
	free(copy);
}

void hpa_symbolize_remote(const struct hpa_profile *prof, const struct hpa_http_opts *ho,
			  struct hpa_symbols *syms)
{
	size_t in;

	for (in = 0; in < prof->inputs_nr; in++) {
		const char *url = prof->inputs[in].symbol_url;
		struct hpa_hashmap by_addr = HPA_HASHMAP_INIT;
		uint64_t *addrs = NULL;
		size_t n = 0, alloc = 0, len, i;
		char *ans, *body, *line, *save = NULL, *shown;
		unsigned long nsym = 0;
		FILE *fp;

		if (!url)
			continue;
		/* The unnamed addresses of this input only: another's mean nothing here. */
		for (i = 1; i < prof->locs_nr; i++) {
			const struct hpa_location *l = &prof->locs[i];
			if (syms->chains[i].nr || l->addr >= HPA_KERNEL_FLOOR || !l->addr || l->input != in + 1)
				continue;
			HPA_GROW(addrs, n + 1, alloc);
			addrs[n++] = l->addr - 1;
			hpa_hashmap_put(&by_addr, l->addr, (uint32_t)i);
		}
		/* GET answers "num_symbols: N"; N > 0 means it can name addresses. */
		if (!n || hpa_http_fetch(url, "GET", NULL, ho, true, &fp, &len) < 0) {
			hpa_hashmap_release(&by_addr);
			free(addrs);
			continue;
		}
		shown = hpa_url_redact(url);
		ans = slurp(fp, len);
		if (sscanf(ans, "num_symbols: %lu", &nsym) != 1 || !nsym) {
			hpa_warn("%s: no symbols from the server", shown);
			hpa_hashmap_release(&by_addr);
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
				loc = hpa_hashmap_get(&by_addr, a + 1);
				if (loc && !syms->chains[loc].nr) {   /* the first line for it */
					set_remote_names(prof, syms, loc, line + off);
					named++;
				}
			}
			if (!named)
				hpa_warn("%s: the server named none of %zu addresses", shown, n);
			free(ans);
		}
		hpa_hashmap_release(&by_addr);
		free(body);
		free(addrs);
		free(shown);
	}
}
