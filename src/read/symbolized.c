/*
 * jeprof's symbolized profiles (FORMATS.md section 5): a "--- symbol"
 * section of "0xADDR name[--inlined]..." lines and "name=value" lines,
 * ended by a "---" line, then an embedded heap profile.  Written by
 * `jeprof --raw` and shipped by ClickHouse as .symbolized dumps: they carry
 * their names, so no binary is needed.
 *
 * jeprof writes the keys already adjusted (callers minus 1, the leaf as
 * is), so a location at address A is looked up as A - 1, then as A.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"
#include "read.h"

/* A name as jeprof writes it, cleaned: no nm address tag "<0000000000001300>", no "@@VERSION". */
static char *clean_symbol(const char *s, size_t len)
{
	char *name = xstrndup(s, len), *at;
	size_t n = strlen(name), i;

	if (n >= 18 && name[n - 1] == '>' && name[n - 18] == '<') {
		for (i = n - 17; i < n - 1 && hex_digit(name[i]) >= 0; i++)
			;
		if (i == n - 1)
			name[n - 18] = '\0';
	}
	at = strchr(name, '@');
	if (at && at > name && at[-1] != ' ')
		*at = '\0';
	return name;
}

static int symbol_line(struct reader *r, const char *line)
{
	const char *p = line + 2, *names;
	uint64_t addr = 0;
	int digits = 0, d;
	struct read_symbol *sym;
	char q[64];

	while ((d = hex_digit(*p)) >= 0) {
		if (addr >> 60)
			return read_err(r, "address longer than 64 bits in \"%s\"",
					read_quote(line, q, sizeof(q)));
		addr = addr << 4 | (uint64_t)d;
		digits++;
		p++;
	}
	if (!digits || !is_blank(*p))
		return read_err(r, "expected \"0xADDRESS NAME\" in the symbol section, not \"%s\"",
				read_quote(line, q, sizeof(q)));
	skip_blanks(&p);
	names = p;
	if (!*names)
		return read_err(r, "address without a name in \"%s\"", read_quote(line, q, sizeof(q)));
	HPA_GROW(r->syms, r->syms_nr + 1, r->syms_alloc);
	sym = &r->syms[r->syms_nr++];
	sym->addr = addr;
	sym->names = xstrdup(names);
	return 0;
}

int read_symbol_section(struct reader *r)
{
	char *line;
	size_t len;
	int rc;

	r->symbolized = true;
	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		char q[64];

		line = trim(line, &len);
		if (!len)
			continue;
		if (!strncmp(line, "---", 3))
			return 0;   /* the end of the section; the profile follows */
		if (line[0] == '0' && (line[1] == 'x' || line[1] == 'X')) {
			if (symbol_line(r, line) < 0)
				return read_fail(r);
			continue;
		}
		if (strchr(line, '=')) {
			size_t n = strcspn(line, "=");
			if (n == 6 && !strncmp(line, "binary", 6)) {
				free(r->symbol_binary);
				r->symbol_binary = xstrdup(line + 7);
			} else {
				hpa_warn_at(&r->io.pos, "unknown symbol-section setting \"%s\" ignored",
					    read_quote(line, q, sizeof(q)));
			}
			continue;
		}
		return hpa_error_at(&r->io.pos, "expected \"0xADDRESS NAME\", \"name=value\" or \"---\" "
				    "in the symbol section, not \"%s\"", read_quote(line, q, sizeof(q)));
	}
	if (rc < 0)
		return -1;
	return hpa_error_at(&r->io.pos, "symbol section without its end (\"---\") and without a profile");
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct read_symbol *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

static const struct read_symbol *find(const struct reader *r, uint64_t addr)
{
	size_t lo = 0, hi = r->syms_nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->syms_nr && r->syms[lo].addr == addr ? &r->syms[lo] : NULL;
}

/* Name this input's locations from the symbol section: "outer--inlined", innermost first in the model. */
void read_apply_symbols(struct reader *r)
{
	struct hpa_profile *prof = r->prof;
	struct hpa_symbols *syms = hpa_profile_symbols(prof);
	struct hpa_line *lines = NULL;
	size_t alines = 0, i;

	if (r->syms_nr > 1)
		qsort(r->syms, r->syms_nr, sizeof(*r->syms), cmp_symbol);
	hpa_symbols_cover(syms, prof->locs_nr);
	for (i = r->first_loc ? r->first_loc : 1; i < prof->locs_nr; i++) {   /* this input's */
		const struct hpa_location *l = &prof->locs[i];
		const struct read_symbol *s;
		const char *p, *sep;
		size_t n = 0, k;

		if (syms->chains[i].nr)
			continue;
		s = l->addr ? find(r, l->addr - 1) : NULL;
		if (!s)
			s = find(r, l->addr);
		if (!s)
			continue;
		for (p = s->names;; p = sep + 2) {
			char *name;
			sep = strstr(p, "--");
			name = clean_symbol(p, sep ? (size_t)(sep - p) : strlen(p));
			HPA_GROW(lines, n + 1, alines);
			memset(&lines[n], 0, sizeof(lines[n]));
			lines[n++].func = hpa_symbols_intern_function(syms, prof->strs, *name ? name : "??", name, NULL);
			free(name);
			if (!sep)
				break;
		}
		for (k = 0; k < n / 2; k++) {   /* outer first as written; the model is innermost first */
			struct hpa_line t = lines[k];
			lines[k] = lines[n - 1 - k];
			lines[n - 1 - k] = t;
		}
		hpa_symbols_set_chain(syms, (uint32_t)i, lines, n, HPA_SYM_SYMTAB);
	}
	free(lines);
}

void read_symbols_release(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->syms_nr; i++)
		free(r->syms[i].names);
	free(r->syms);
	free(r->symbol_binary);
	r->syms = NULL;
	r->syms_nr = r->syms_alloc = 0;
	r->symbol_binary = NULL;
}
