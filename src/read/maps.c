/*
 * Maps sections: "MAPPED_LIBRARIES:" (jemalloc, gperftools) and
 * "--- Memory map: ---" (with "build=DIR" / "$build" expansion), holding
 * /proc/PID/maps lines or the older "START-END: PATH" form.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

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

/* Replace each "$build" not followed by a word character with `dir`. */
static char *expand_build(const char *line, const char *dir)
{
	size_t dl = strlen(dir), cap = strlen(line) + 1, used = 0;
	char *out = xmalloc(cap);
	const char *p = line;

	while (*p) {
		if (!strncmp(p, "$build", 6) && !is_word_char(p[6])) {
			cap += dl;
			out = xrealloc(out, cap);
			memcpy(out + used, dir, dl);
			used += dl;
			p += 6;
		} else {
			out[used++] = *p++;
		}
	}
	out[used] = '\0';
	return out;
}

int read_maps(struct reader *r, const char *marker)
{
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	bool expand = !strncmp(marker, "--- Memory map:", 15);
	char *build = NULL;
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
		if (expand && !strncmp(line, "build=", 6)) {
			free(build);
			build = xstrdup(line + 6);
			continue;
		}
		text = line;
		if (build && strstr(line, "$build"))
			text = expanded = expand_build(line, build);
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
	free(build);
	return rc;
}
