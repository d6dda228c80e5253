#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include <demangle.h>

#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

char *hpa_demangle(const char *name)
{
	const char *at = strchr(name, '@');
	char *copy = at ? xstrndup(name, (size_t)(at - name)) : NULL;
	const char *n = copy ? copy : name;
	char *out = NULL;

	if (!strncmp(n, "_Z", 2) || !strncmp(n, "_R", 2) || !strncmp(n, "__Z", 3))
		out = cplus_demangle(n, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	if (!out && copy)
		out = xstrdup(copy);
	free(copy);
	return out;
}

void hpa_strip_clone_suffix(char *name)
{
	static const char *const words[] = {
		".constprop", ".isra", ".part", ".cold", ".lto_priv", ".localalias", ".llvm",
		".clone",
	};
	char *p;
	size_t i;

	while ((p = strstr(name, " [clone ")) != NULL) {
		char *end = strchr(p, ']');
		if (!end)
			break;
		memmove(p, end + 1, strlen(end + 1) + 1);
	}
	/* A C symbol: from the first ".word" suffix on, e.g. f.constprop.0.isra.0. */
	for (p = strchr(name, '.'); p; p = strchr(p + 1, '.')) {
		for (i = 0; i < HPA_ARRAY_SIZE(words); i++) {
			size_t n = strlen(words[i]);
			if (!strncmp(p, words[i], n) && (!p[n] || p[n] == '.')) {
				*p = '\0';
				return;
			}
		}
	}
}

/*
 * Remove every innermost `open`...`close` group (with `also_const`, also a
 * " const" after it).  One pass: after a group is removed the scan goes on
 * with no group open, so the enclosing group is removed by the next pass
 * (and its " const" is what follows it then).  The kept text is copied
 * down as it is scanned: a pass costs the name's length, not that per group
 * (long C++ template names hold hundreds).  Returns whether another pass
 * would remove anything: whether a kept `close` follows a kept `open`.
 */
static bool drop_groups(char *s, char open_c, char close_c, bool also_const)
{
	size_t r, w = 0, open = 0, first_open = SIZE_MAX;   /* the first kept open, in s[0..w) */
	bool more = false, has_open = false;

	for (r = 0; s[r]; r++) {
		if (s[r] == close_c && has_open) {
			size_t q = r + 1;
			while (also_const && (s[q] == ' ' || s[q] == '\t'))
				q++;
			if (also_const && !strncmp(s + q, "const", 5))
				r = q + 4;
			/* A Rust turbofish "f::<T>": its "::" goes with it. */
			if (open_c == '<' && open >= 2 && s[open - 1] == ':' && s[open - 2] == ':')
				open -= 2;
			w = open;
			if (first_open >= w)
				first_open = SIZE_MAX;
			has_open = false;
			continue;
		}
		if (s[r] == open_c) {
			open = w;
			has_open = true;
			if (first_open == SIZE_MAX)
				first_open = w;
		} else if (s[r] == close_c && first_open != SIZE_MAX) {
			more = true;   /* kept: nothing after it is removed back to here */
		}
		s[w++] = s[r];
	}
	s[w] = '\0';
	return more;
}

static bool is_word(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/*
 * Rust writes methods as "<Type>::m" or "<Type as Trait>::m": keep Type.
 * Returns true if it rewrote `name`.
 */
static bool unwrap_impl_path(char *name)
{
	int depth = 0;
	char *p, *as = NULL;

	if (name[0] != '<')
		return false;
	for (p = name; *p; p++) {
		if (*p == '<') {
			depth++;
		} else if (*p == '>' && --depth == 0) {
			break;
		} else if (depth == 1 && !as && !strncmp(p, " as ", 4)) {
			as = p;
		}
	}
	if (!*p || strncmp(p + 1, "::", 2))
		return false;
	/* name = Type + rest, with Type = name[1 .. as or p) */
	{
		char *type_end = as ? as : p;
		size_t tl = (size_t)(type_end - (name + 1));
		memmove(name, name + 1, tl);
		memmove(name + tl, p + 1, strlen(p + 1) + 1);
	}
	return true;
}

void hpa_short_name(char *name)
{
	char *p, *cut = NULL;

	while (unwrap_impl_path(name))
		;

	while (drop_groups(name, '(', ')', true))   /* argument lists */
		;
	while (drop_groups(name, '<', '>', false))  /* template arguments */
		;
	/* s/^.*\s+(\w+::)/$1/: the last blank that is followed by "word::". */
	for (p = name; *p; p++) {
		if (*p == ' ' || *p == '\t') {
			char *w = p + 1;
			while (is_word(*w))
				w++;
			if (w > p + 1 && w[0] == ':' && w[1] == ':')
				cut = p + 1;
		}
	}
	if (cut)
		memmove(name, cut, strlen(cut) + 1);
	/* "std::operator<< <T>" loses "<T>", not the blank before it: no name ends in one */
	for (p = name + strlen(name); p > name && (p[-1] == ' ' || p[-1] == '\t'); p--)
		p[-1] = '\0';
}
