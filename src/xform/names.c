/*
 * What frames are called in reports (names.h).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/names.h"
#include "hpa/strbuf.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

char *hpa_frame_label(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_location *l = &prof->locs[f.loc];
	const char *module = hpa_profile_loc_module(prof, f.loc);

	if (l->module)   /* stable across runs and ASLR; what addr2line -e takes */
		return hpa_xasprintf("%s+0x%llx", module, (unsigned long long)l->offset);
	return hpa_xasprintf("0x%llx (%s)", (unsigned long long)l->addr,
			     module ? module : "unmapped");
}

void hpa_folded_name(char *name)
{
	char *p;
	size_t n;

	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (*p == ';')
			*p = ':';
		else if (c < 0x20 || c == 0x7f)
			*p = '?';
	}
	n = strlen(name);
	p = name + n;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p < name + n && p > name && p[-1] == ' ')
		p[-1] = '_';
}

char *hpa_folded_frame(const struct hpa_profile *prof, struct hpa_frame f)
{
	return xstrdup(hpa_profile_str(prof, hpa_frame_name(prof, f)->folded));
}

char *hpa_folded_short_frame(const struct hpa_profile *prof, struct hpa_frame f)
{
	const struct hpa_frame_name *n = hpa_frame_name(prof, f);
	char *s = hpa_xasprintf("%s%s", hpa_profile_str(prof, n->shortn), n->inlined ? "[inline]" : "");

	hpa_folded_name(s);
	return s;
}

/*
 * `base` with `mark` appended when `inlined`, interned (sb is scratch);
 * `base_id`, when not 0, is base's own id, for a name that comes out as base.
 */
static uint32_t intern_marked(struct hpa_profile *prof, struct hpa_strbuf *sb, const char *base,
			      bool inlined, const char *mark, bool folded, uint32_t base_id)
{
	sb->len = 0;
	hpa_sb_adds(sb, base);
	if (inlined)
		hpa_sb_adds(sb, mark);
	if (folded)
		hpa_folded_name(sb->buf);
	if (base_id && !inlined && !strcmp(sb->buf, base))
		return base_id;
	return hpa_strtab_intern(&prof->strs, sb->buf);
}

/* All names of one frame, from its full name (or label) and inline flag. */
static void name_one(struct hpa_profile *prof, struct hpa_strbuf *sb, struct hpa_frame_name *n,
		     const char *full, const struct hpa_function *fn, bool inlined)
{
	char *s = fn ? hpa_lang_short_name(full, hpa_name_lang(full,
			hpa_profile_str(prof, fn->system_name), (enum hpa_lang)fn->lang)) : xstrdup(full);

	n->known = fn != NULL;
	n->inlined = inlined;
	/* A function's name is in the table already; an outermost frame's marked names are its own. */
	n->full = fn ? fn->name : hpa_strtab_intern(&prof->strs, full);
	n->shortn = hpa_strtab_intern(&prof->strs, s);
	n->display = inlined ? intern_marked(prof, sb, s, true, " (inline)", false, 0) : n->shortn;
	n->graph = inlined ? intern_marked(prof, sb, full, true, " [inline]", false, 0) : n->full;
	n->folded = intern_marked(prof, sb, full, inlined, "[inline]", true, n->full);
	free(s);
}

void hpa_name_frames(struct hpa_profile *prof)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	/* a function's names depend only on it and the inline flag: made once */
	uint32_t *made = xcalloc(prof->funcs_nr ? prof->funcs_nr * 2 : 1, sizeof(*made));
	size_t i, lv;

	free(prof->names);
	prof->names_nr = prof->lines_nr + prof->locs_nr;
	prof->names = xcalloc(prof->names_nr, sizeof(*prof->names));
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_location *l = &prof->locs[i];
		struct hpa_frame f = { (uint32_t)i, 0 };

		if (!l->line_nr) {
			char *label = hpa_frame_label(prof, f);
			name_one(prof, &sb, &prof->names[prof->lines_nr + i], label, NULL, false);
			free(label);
			continue;
		}
		for (lv = 0; lv < l->line_nr; lv++) {
			uint32_t func = prof->lines[l->line_first + lv].func;
			const struct hpa_function *fn = &prof->funcs[func];
			bool inlined = lv + 1 < l->line_nr;
			size_t slot = l->line_first + lv;
			uint32_t *seen = &made[(size_t)func * 2 + inlined];

			if (*seen) {
				prof->names[slot] = prof->names[*seen - 1];
				continue;
			}
			name_one(prof, &sb, &prof->names[slot], hpa_profile_str(prof, fn->name), fn,
				 inlined);
			*seen = (uint32_t)slot + 1;
		}
	}
	free(made);
	hpa_sb_release(&sb);
}

const struct hpa_frame_name *hpa_frame_name(const struct hpa_profile *prof, struct hpa_frame f)
{
	if (prof->names_nr != prof->lines_nr + prof->locs_nr)
		HPA_BUG("frame %u/%u: names %s", f.loc, f.level,
			prof->names ? "out of date (frames changed since hpa_name_frames())"
				    : "not made (hpa_name_frames() has not run)");
	return &prof->names[hpa_frame_slot(prof, f)];
}

const char *hpa_frame_full(const struct hpa_profile *prof, struct hpa_frame f)
{
	return hpa_profile_str(prof, hpa_frame_name(prof, f)->full);
}

const char *hpa_frame_display(const struct hpa_profile *prof, struct hpa_frame f)
{
	return hpa_profile_str(prof, hpa_frame_name(prof, f)->display);
}
