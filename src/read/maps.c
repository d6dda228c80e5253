/*
 * Maps sections: "MAPPED_LIBRARIES:" (jemalloc, gperftools) and
 * "--- Memory map: ---" (with "name=value" lines and "$name" expansion), holding
 * /proc/PID/maps lines or the older "START-END: PATH" form.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "read.h"

bool is_maps_marker(const char *line)
{
	return !strncmp(line, "MAPPED_LIBRARIES:", 17) || !strncmp(line, "--- Memory map:", 15);
}

static bool parse_hex(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int n = 0;

	for (; hex_digit(*s) >= 0; s++, n++) {
		if (n == 16)
			return false;
		v = v << 4 | (unsigned)hex_digit(*s);
	}
	if (!n)
		return false;
	*p = s;
	*out = v;
	return true;
}

static bool need_blank(const char **p)
{
	if (!is_blank(**p))
		return false;
	skip_blanks(p);
	return true;
}

/* Fill `m` from one maps line; false if the line is not in a known form. */
static bool parse_maps_line(const char *line, struct hpa_mapping *m, char **path)
{
	const char *p = line, *end;
	uint64_t dev;
	int i;

	memset(m, 0, sizeof(*m));
	if (!parse_hex(&p, &m->start) || *p++ != '-' || !parse_hex(&p, &m->limit))
		return false;
	if (m->limit < m->start)
		return false;
	if (*p == ':') {   /* "START-END: PATH", gperftools' old cooked form */
		p++;
		skip_blanks(&p);
		memcpy(m->perms, "r-xp", 5);
	} else {
		if (!need_blank(&p))
			return false;
		for (i = 0; i < 4; i++) {
			if (!p[i] || is_blank(p[i]))
				return false;
			m->perms[i] = p[i];
		}
		p += 4;
		if (!need_blank(&p) || !parse_hex(&p, &m->offset) || !need_blank(&p) ||
		    !parse_hex(&p, &dev) || *p++ != ':' || !parse_hex(&p, &dev) ||
		    !need_blank(&p))
			return false;
		if (*p < '0' || *p > '9')
			return false;
		while (*p >= '0' && *p <= '9')
			m->inode = m->inode * 10 + (uint64_t)(*p++ - '0');
		if (*p && !is_blank(*p))
			return false;
		skip_blanks(&p);
	}
	end = p + strlen(p);
	while (end > p && is_blank(end[-1]))
		end--;
	if (end - p >= 10 && !memcmp(end - 10, " (deleted)", 10)) {
		m->deleted = true;
		end -= 10;
	}
	*path = xstrndup(p, (size_t)(end - p));
	return true;
}

static bool is_word_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z');
}

/* The "name=value" lines of a "--- Memory map: ---" section so far. */
struct map_vars {
	char **names, **values;
	size_t nr, alloc;
};

/* "name=value" (name a word): sets the variable; false for any other line. */
static bool set_var(struct map_vars *v, const char *line)
{
	const char *eq = line;
	size_t i, n;

	while (is_word_char(*eq))
		eq++;
	if (eq == line || *eq != '=')
		return false;
	n = (size_t)(eq - line);
	for (i = 0; i < v->nr; i++)
		if (strlen(v->names[i]) == n && !strncmp(v->names[i], line, n))
			break;
	if (i == v->nr) {
		HPA_GROW(v->names, v->nr + 1, v->alloc);
		v->values = xrealloc(v->values, st_mult(v->alloc, sizeof(*v->values)));
		v->names[i] = xstrndup(line, n);
		v->values[i] = NULL;
		v->nr++;
	}
	free(v->values[i]);
	v->values[i] = xstrdup(eq + 1);
	return true;
}

/* The value of variable name[0..n), or NULL. */
static const char *var_value(const struct map_vars *v, const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		if (strlen(v->names[i]) == n && !strncmp(v->names[i], name, n))
			return v->values[i];
	return NULL;
}

/* Expand "$name" and "${name}" of defined variables; others stay as written.  NULL: none. */
static char *expand_vars(const struct map_vars *v, const char *line)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	const char *p = line;
	bool any = false;

	if (!v->nr || !strchr(line, '$'))
		return NULL;
	while (*p) {
		if (*p == '$') {
			bool brace = p[1] == '{';
			const char *name = p + 1 + brace, *e = name, *val;
			while (is_word_char(*e))
				e++;
			val = e > name && (!brace || *e == '}') ? var_value(v, name, (size_t)(e - name)) : NULL;
			if (val) {
				hpa_sb_adds(&sb, val);
				p = e + brace;
				any = true;
				continue;
			}
		}
		hpa_sb_addc(&sb, *p++);
	}
	if (!any) {
		hpa_sb_release(&sb);
		return NULL;
	}
	return hpa_sb_detach(&sb);
}

static void vars_release(struct map_vars *v)
{
	size_t i;

	for (i = 0; i < v->nr; i++) {
		free(v->names[i]);
		free(v->values[i]);
	}
	free(v->names);
	free(v->values);
}

int read_maps(struct reader *r, const char *marker)
{
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	bool expand = !strncmp(marker, "--- Memory map:", 15);
	struct map_vars vars = { 0 };
	char *line;
	size_t len;
	int rc;

	in->has_maps = true;
	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		struct hpa_mapping m;
		char *path = NULL, *expanded = NULL;
		const char *text;

		line = trim(line, &len);
		if (!len)
			continue;
		if (expand && set_var(&vars, line))
			continue;   /* "build=DIR", "source=DIR": $build, $source in later lines */
		text = line;
		if (expand && (expanded = expand_vars(&vars, line)) != NULL)
			text = expanded;
		if (!r->io.nul && parse_maps_line(text, &m, &path)) {
			m.path = path;
			m.input = r->input;
			hpa_profile_add_mapping(r->prof, &m);
			in = hpa_profile_input(r->prof, r->input);
			in->map_nr++;
		} else {
			read_note(r, NOTE_MAPS_LINE);
		}
		free(path);
		free(expanded);
	}
	vars_release(&vars);
	if (rc == 0 && r->io.pos.line && !r->io.newline)
		hpa_profile_input(r->prof, r->input)->maps_cut = true;
	return rc;
}
