/*
 * Short names by language (names.h): jeprof's C++ rule drops every
 * parenthesized group, which is right for C++ and Rust but turns Go's
 * "pkg.(*T).m" into "pkg..m" (merging methods of different types) and
 * JavaScript's "(anonymous)" into nothing.  So the rule follows the
 * function's language.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/names.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

static bool is_word(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* A legacy Rust symbol: _ZN...17h<16 hex digits>E. */
static bool rust_legacy_hash(const char *sym)
{
	const char *h = strstr(sym, "17h");
	size_t i;

	for (; h; h = strstr(h + 1, "17h")) {
		for (i = 0; i < 16 && ((h[3 + i] >= '0' && h[3 + i] <= '9') ||
				       (h[3 + i] >= 'a' && h[3 + i] <= 'f')); i++)
			;
		if (i == 16 && h[19] == 'E')
			return true;
	}
	return false;
}

/* A character of a Go import path and package-qualified name. */
static bool is_path_char(char c)
{
	return is_word(c) || c == '.' || c == '/' || c == '-' || c == '~';
}

/* Go: "pkg.f", "pkg.(*T).m", "example.com/a/pkg.T.m.func1": no blanks, no "::". */
static bool go_shaped(const char *name)
{
	const char *p = name, *slash = strchr(name, '/'), *dot = strrchr(name, '.');

	if (strstr(name, ".(*"))
		return true;
	while (is_path_char(*p))
		p++;
	/* A path with a package: "a/b.c" (Java and JS names have no '/') */
	return !*p && slash && dot && slash < dot;
}

/* C++ by shape: "ns::f", or "f(args)" / "f(args) const" with a word before the '('. */
static bool cxx_shaped(const char *name)
{
	const char *open = strchr(name, '('), *close = strrchr(name, ')');

	if (strstr(name, "::"))
		return true;
	if (!open || !close || open == name || !is_word(open[-1]))
		return false;
	close++;
	while (*close == ' ')
		close++;
	return !*close || !strcmp(close, "const");
}

enum hpa_lang hpa_name_lang(const char *name, const char *system_name, enum hpa_lang known)
{
	if (known != HPA_LANG_UNKNOWN)
		return known;
	if (system_name && (!strncmp(system_name, "_R", 2) ||
			    ((!strncmp(system_name, "_ZN", 3) || !strncmp(system_name, "__ZN", 4)) &&
			     rust_legacy_hash(system_name))))
		return HPA_LANG_RUST;
	if (system_name && (!strncmp(system_name, "_Z", 2) || !strncmp(system_name, "__Z", 3)))
		return HPA_LANG_CXX;
	if (name[0] == '(' || name[0] == '<')   /* JS "(anonymous)", Python "<module>" */
		return HPA_LANG_OTHER;
	if (go_shaped(name))
		return HPA_LANG_GO;
	if (cxx_shaped(name))
		return HPA_LANG_CXX;
	return HPA_LANG_UNKNOWN;   /* kept whole */
}

/*
 * The length of a Go module's major-version element at p ("v2" ... "v9",
 * "v10" ...: v0 and v1 are never path elements), followed by '.' or '/';
 * 0 when p is not one.
 */
static size_t go_major_version(const char *p)
{
	size_t n = 1;

	if (p[0] != 'v' || p[1] < '1' || p[1] > '9')
		return 0;
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	if (n == 2 && p[1] == '1')
		return 0;
	return p[n] == '.' || p[n] == '/' ? n : 0;
}

/*
 * Go: drop the import path's folders, "a.b/c/pkg.f" -> "pkg.f"; the
 * package is the last element that is not a major version, as go tool
 * pprof shows it ("x.io/badger/v3.(*DB).View" -> "badger.(*DB).View").
 */
static void go_short_name(char *name)
{
	char *p = name, *slash = NULL, *prev = NULL;
	size_t vn;

	while (is_path_char(*p)) {
		if (*p == '/') {
			prev = slash;
			slash = p;
		}
		p++;
	}
	/* Only a path that is followed by "pkg.something". */
	if (!slash || !strchr(slash + 1, '.') || slash[1] == '.')
		return;
	vn = go_major_version(slash + 1);
	if (vn && slash[1 + vn] == '.') {   /* "prev/pkg/vN.rest" -> "pkg.rest" */
		char *pkg = prev ? prev + 1 : name;
		size_t pl = (size_t)(slash - pkg);
		memmove(name, pkg, pl);
		memmove(name + pl, slash + 1 + vn, strlen(slash + 1 + vn) + 1);
		return;
	}
	memmove(name, slash + 1, strlen(slash + 1) + 1);
}

char *hpa_lang_short_name(const char *name, enum hpa_lang lang)
{
	char *s = xstrdup(name), *p;

	switch (lang) {
	case HPA_LANG_CXX:
	case HPA_LANG_RUST:
		hpa_short_name(s);
		break;
	case HPA_LANG_GO:
		go_short_name(s);
		break;
	default:
		break;
	}
	for (p = s; *p == ' ' || *p == '\t'; p++)
		;
	if (!*p) {   /* no rule leaves a name empty */
		free(s);
		s = xstrdup(name);
	}
	return s;
}

/*
 * A C++ or Rust name with its template arguments but without its argument
 * list and return type: "std::_Vector_base<long, std::allocator<long> >::
 * _M_allocate" of "...::_M_allocate(unsigned long)", a view of `name`;
 * false when the name has no argument list, or names an operator (whose
 * '<' and '>' are not brackets).
 */
static bool cxx_with_templates(const char *name, struct hpa_name_view *out)
{
	size_t n = strlen(name), i, start = 0;
	int depth = 0;

	if (strstr(name, "operator"))
		return false;
	while (n >= 6 && !strncmp(name + n - 6, " const", 6))
		n -= 6;
	if (!n || name[n - 1] != ')')
		return false;
	for (i = n; i-- > 0;) {   /* the argument list's '(' */
		depth += name[i] == ')' ? 1 : name[i] == '(' ? -1 : 0;
		if (!depth)
			break;
	}
	if (depth || !i)
		return false;
	n = i;
	for (i = 0; i < n; i++) {   /* a return type ends at the last blank outside brackets */
		if (name[i] == '<' || name[i] == '(')
			depth++;
		else if (name[i] == '>' || name[i] == ')')
			depth--;
		else if (name[i] == ' ' && !depth)
			start = i + 1;
		if (depth < 0)
			return false;
	}
	if (depth || start >= n)
		return false;
	*out = (struct hpa_name_view){ name + start, n - start };
	return true;
}

static bool view_is(const struct hpa_name_view *v, const char *s, size_t len)
{
	return v->len == len && !memcmp(v->p, s, len);
}

size_t hpa_lang_names(const char *name, const char *shortn, enum hpa_lang lang,
		      struct hpa_name_view out[HPA_NAMES_MAX])
{
	size_t n = 0, len = strlen(name);
	struct hpa_name_view t;

	out[n++] = (struct hpa_name_view){ shortn, strlen(shortn) };
	if (lang == HPA_LANG_GO) {   /* the import path's elements, one at a time from the right */
		const char *p, *end = name;

		while (is_path_char(*end))
			end++;
		for (p = end; p > name && n + 1 < HPA_NAMES_MAX; p--) {
			size_t vn;

			if (p[-1] != '/')
				continue;
			vn = go_major_version(p);
			if (vn && p[vn] == '.')
				continue;   /* "v3.(*DB).View" says less than the short name */
			if (view_is(&out[n - 1], p, len - (size_t)(p - name)))
				continue;
			out[n++] = (struct hpa_name_view){ p, len - (size_t)(p - name) };
		}
	}
	if ((lang == HPA_LANG_CXX || lang == HPA_LANG_RUST) && cxx_with_templates(name, &t) &&
	    !view_is(&out[n - 1], t.p, t.len))   /* template instances differ here */
		out[n++] = t;
	if (!view_is(&out[n - 1], name, len))
		out[n++] = (struct hpa_name_view){ name, len };
	return n;
}
