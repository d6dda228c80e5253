/*
 * What frames are called in reports (names.h).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/names.h"
#include "hpa/strbuf.h"
#include "hpa/strip.h"
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

char *hpa_folded_frame(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	return xstrdup(hpa_profile_str(prof, hpa_frame_name(prof, names, f)->folded));
}

char *hpa_folded_short_frame(const struct hpa_profile *prof, const struct hpa_names *names,
			     struct hpa_frame f)
{
	const struct hpa_frame_name *n = hpa_frame_name(prof, names, f);
	char *s = hpa_xasprintf("%s%s", hpa_profile_str(prof, n->shortn), n->inlined ? "[inline]" : "");

	hpa_folded_name(s);
	return s;
}

/*
 * `base` with `mark` appended when `inlined`, interned (sb is scratch);
 * `base_id`, when not 0, is base's own id, for a name that comes out as base.
 */
static uint32_t intern_marked(const struct hpa_profile *prof, struct hpa_strbuf *sb, const char *base,
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
	return hpa_strtab_intern(prof->strs, sb->buf);
}

/* All names of one frame, from its full name (or label) and inline flag. */
static void name_one(const struct hpa_profile *prof, struct hpa_strbuf *sb, struct hpa_frame_name *n,
		     const char *full, const struct hpa_function *fn, bool inlined)
{
	char *s = fn ? hpa_lang_short_name(full, hpa_name_lang(full,
			hpa_profile_str(prof, fn->system_name), (enum hpa_lang)fn->lang)) : xstrdup(full);

	n->known = fn != NULL;
	n->inlined = inlined;
	/* A function's name is in the table already; an outermost frame's marked names are its own. */
	n->full = fn ? fn->name : hpa_strtab_intern(prof->strs, full);
	n->shortn = hpa_strtab_intern(prof->strs, s);
	n->display = inlined ? intern_marked(prof, sb, s, true, " (inline)", false, 0) : n->shortn;
	n->graph = inlined ? intern_marked(prof, sb, full, true, " [inline]", false, 0) : n->full;
	n->folded = intern_marked(prof, sb, full, inlined, "[inline]", true, n->full);
	free(s);
}

/* One full name and its short name, for telling apart full names that share one. */
struct full_short {
	uint32_t shortn, full, func;   /* func 0: an unknown frame's label */
};

static int cmp_full_short(const void *a, const void *b)
{
	const struct full_short *x = a, *y = b;

	if (x->shortn != y->shortn)
		return x->shortn < y->shortn ? -1 : 1;
	return x->full < y->full ? -1 : x->full > y->full;
}

/* A member's name at one length, sorted with the others' to find the ones no other has. */
struct at_length {
	struct hpa_name_view v;
	size_t member;
};

static int cmp_view(struct hpa_name_view x, struct hpa_name_view y)
{
	int c = memcmp(x.p, y.p, x.len < y.len ? x.len : y.len);

	return c ? c : (x.len > y.len) - (x.len < y.len);
}

static int cmp_at_length(const void *a, const void *b)
{
	const struct at_length *x = a, *y = b;
	int c = cmp_view(x->v, y->v);

	return c ? c : (x->member > y->member) - (x->member < y->member);
}

/*
 * For each of the group g[0 .. n) of full names that share a short name,
 * its name: the shortest of its names that no other member has at the same
 * length (a member with fewer names than that length counts with its
 * longest); its full name when even that is taken by a row of another name.
 * A length at a time, sorted: groups of C++ template instances hold
 * hundreds.  The names are views of the string table's (which never move):
 * nothing is copied but the names picked.
 */
static void tell_apart(const struct hpa_profile *prof, const struct hpa_symbols *syms,
		       const struct full_short *g, size_t n,
		       const uint8_t *short_of, size_t strs, uint32_t *renamed)
{
	struct hpa_name_view (*names)[HPA_NAMES_MAX] = xcalloc(n, sizeof(*names));
	size_t *nr = xcalloc(n, sizeof(*nr)), i, j, k, most = 0, left = n;
	struct at_length *at = xcalloc(n, sizeof(*at));
	int *pick = xcalloc(n, sizeof(*pick));   /* the length picked + 1; 0 none yet */

	for (i = 0; i < n; i++) {
		const char *full = hpa_profile_str(prof, g[i].full);
		const struct hpa_function *fn = g[i].func ? &syms->funcs[g[i].func] : NULL;
		enum hpa_lang lang = fn ? hpa_name_lang(full, hpa_profile_str(prof, fn->system_name),
							(enum hpa_lang)fn->lang) : HPA_LANG_OTHER;
		nr[i] = hpa_lang_names(full, hpa_profile_str(prof, g[i].shortn), lang, names[i]);
		most = nr[i] > most ? nr[i] : most;
	}
	for (k = 0; k < most && left; k++) {
		for (i = 0; i < n; i++)
			at[i] = (struct at_length){ names[i][k < nr[i] ? k : nr[i] - 1], i };
		qsort(at, n, sizeof(*at), cmp_at_length);
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && !cmp_view(at[j].v, at[i].v); j++)
				;
			if (j == i + 1 && !pick[at[i].member]) {
				pick[at[i].member] = (int)(k < nr[at[i].member] ? k : nr[at[i].member] - 1) + 1;
				left--;
			}
		}
	}
	for (i = 0; i < n; i++) {
		uint32_t id = g[i].full;

		if (pick[i]) {
			const struct hpa_name_view *v = &names[i][pick[i] - 1];
			id = hpa_strtab_intern_len(prof->strs, v->p, v->len);
		}
		if (id < strs && short_of[id])   /* another row's short name already */
			id = g[i].full;
		renamed[g[i].full] = id;
	}
	/* names picked at different lengths may still meet: then both full */
	for (i = 0; i < n; i++) {
		const char *r = hpa_profile_str(prof, renamed[g[i].full]);
		at[i] = (struct at_length){ { r, strlen(r) }, i };
	}
	qsort(at, n, sizeof(*at), cmp_at_length);
	for (i = 0; i + 1 < n; i++)
		if (!cmp_view(at[i].v, at[i + 1].v)) {
			renamed[g[at[i].member].full] = g[at[i].member].full;
			renamed[g[at[i + 1].member].full] = g[at[i + 1].member].full;
		}
	free(names);
	free(nr);
	free(pick);
	free(at);
}

/* Slot i's full name into e[], once per name (seen[full]). */
static void list_full(const struct hpa_names *names, size_t i, uint8_t *seen,
		      struct full_short **e, size_t *nr, size_t *alloc)
{
	const struct hpa_frame_name *n = &names->by_slot[i];

	if (!n->full || seen[n->full])
		return;
	seen[n->full] = 1;
	HPA_GROW(*e, *nr + 1, *alloc);
	(*e)[*nr].shortn = n->shortn;
	(*e)[*nr].full = n->full;
	(*e)[*nr].func = n->known && i < names->syms->lines_nr ? names->syms->lines[i].func : 0;
	(*nr)++;
}

/*
 * The full names of frames a report can show, sorted by short name, as
 * many as *nr: allocator frames only without a cut, of the locations
 * used[loc] says a sample's stack shows.  True when two share a short name.
 */
static bool list_shown(const struct hpa_profile *prof, const struct hpa_names *names,
		       const struct hpa_cuts *cut, const uint8_t *used,
		       struct full_short **e, size_t *nr)
{
	uint8_t *seen = xcalloc(prof->strs->nr, 1);   /* by full name: listed */
	size_t i, lv, alloc = 0;
	bool clash = false;

	*e = NULL;
	*nr = 0;
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_chain *l = hpa_chain_of(names->syms, (uint32_t)i);
		uint16_t c = cut ? cut->loc[i] : 0;

		if (!used[i] || c == HPA_CUT_ALL)
			continue;
		if (!l->nr) {
			list_full(names, names->syms->lines_nr + i, seen, e, nr, &alloc);
			continue;
		}
		for (lv = c; lv < l->nr; lv++)
			list_full(names, l->first + lv, seen, e, nr, &alloc);
	}
	free(seen);
	if (*nr > 1)
		qsort(*e, *nr, sizeof(**e), cmp_full_short);
	for (i = 1; i < *nr && !clash; i++)
		clash = (*e)[i].shortn == (*e)[i - 1].shortn;
	return clash;
}

/* Whether two full names of any frames share a short name: one pass, no sort. */
static bool names_meet(const struct hpa_profile *prof, const struct hpa_names *names)
{
	uint32_t *full_of = xcalloc(prof->strs->nr, sizeof(*full_of));   /* by short name */
	bool meet = false;
	size_t i;

	for (i = 0; i < names->nr && !meet; i++) {
		const struct hpa_frame_name *n = &names->by_slot[i];
		uint32_t *f = &full_of[n->shortn];

		if (!n->full)
			continue;
		meet = *f && *f != n->full;
		*f = n->full;
	}
	free(full_of);
	return meet;
}

/* Per location: 1 when a report shows it, in the stack of a sample with a value. */
static uint8_t *shown_locations(const struct hpa_profile *prof, const struct hpa_cuts *cut)
{
	uint8_t *used = xcalloc(prof->locs_nr, 1);
	uint8_t *done = xcalloc(prof->stacks_nr, 1);   /* by stack: marked */
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		const struct hpa_sample *sm = &prof->samples[i];
		const uint32_t *fr;
		unsigned skip, k;
		size_t n, j;
		bool any = false;

		for (k = 0; k < HPA_NVALUES; k++)
			any |= sm->v[k] != 0;
		if (!any || done[sm->stack])
			continue;
		done[sm->stack] = 1;
		/* the profile's frames: a frame the base match moves has its match's names */
		n = hpa_visible_stack(prof, NULL, cut, sm->stack, &fr, &skip);
		for (j = 0; j < n; j++)
			used[fr[j]] = 1;
	}
	free(done);
	return used;
}

void hpa_name_distinct(const struct hpa_profile *prof, struct hpa_names *names, const struct hpa_cuts *cut)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	size_t strs = prof->strs->nr, i, nr, a, b;
	uint8_t *used, *short_of;
	uint32_t *renamed, *inline_display;
	struct full_short *e;
	bool meet;

	if (!names->syms || names->nr != hpa_symbols_slots(names->syms))
		HPA_BUG("hpa_name_distinct() before hpa_name_frames()");
	if (!names_meet(prof, names))
		return;   /* the common case: no two full names have one short name */
	/* Names meet: do they among the frames a report can show? */
	used = shown_locations(prof, cut);
	meet = list_shown(prof, names, cut, used, &e, &nr);
	free(used);
	if (!meet) {
		free(e);
		return;
	}
	short_of = xcalloc(strs, 1);   /* by string id: some row's short name */
	for (i = 0; i < nr; i++)
		short_of[e[i].shortn] = 1;
	renamed = xcalloc(strs, sizeof(*renamed));
	for (a = 0; a < nr; a = b) {
		for (b = a + 1; b < nr && e[b].shortn == e[a].shortn; b++)
			;
		if (b - a > 1)
			tell_apart(prof, names->syms, e + a, b - a, short_of, strs, renamed);
	}
	inline_display = xcalloc(strs, sizeof(*inline_display));   /* by full name */
	for (i = 0; i < names->nr; i++) {
		struct hpa_frame_name *n = &names->by_slot[i];
		uint32_t id = n->full < strs ? renamed[n->full] : 0;

		if (!id)
			continue;
		n->shortn = id;
		if (!n->inlined) {
			n->display = id;
			continue;
		}
		if (!inline_display[n->full])   /* "NAME (inline)": made once per name */
			inline_display[n->full] = intern_marked(prof, &sb, hpa_profile_str(prof, id), true,
								" (inline)", false, 0);
		n->display = inline_display[n->full];
	}
	free(inline_display);
	hpa_sb_release(&sb);
	free(short_of);
	free(renamed);
	free(e);
}

void hpa_name_frames(const struct hpa_profile *prof, const struct hpa_symbols *syms, struct hpa_names *out)
{
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	/* a function's names depend only on it and the inline flag: made once */
	uint32_t *made = xcalloc(syms->funcs_nr ? syms->funcs_nr * 2 : 1, sizeof(*made));
	size_t i, lv;

	struct hpa_frame_name *by_slot;

	if (syms->chains_nr != prof->locs_nr)
		HPA_BUG("names of %zu locations with symbols of %zu", prof->locs_nr, syms->chains_nr);
	out->syms = syms;
	out->nr = hpa_symbols_slots(syms);
	out->by_slot = by_slot = xcalloc(out->nr + 1, sizeof(*out->by_slot));
	for (i = 1; i < prof->locs_nr; i++) {
		const struct hpa_chain *l = hpa_chain_of(syms, (uint32_t)i);
		struct hpa_frame f = { (uint32_t)i, 0 };

		if (!l->nr) {
			char *label = hpa_frame_label(prof, f);
			name_one(prof, &sb, &by_slot[syms->lines_nr + i], label, NULL, false);
			free(label);
			continue;
		}
		for (lv = 0; lv < l->nr; lv++) {
			uint32_t func = syms->lines[l->first + lv].func;
			const struct hpa_function *fn = &syms->funcs[func];
			bool inlined = lv + 1 < l->nr;
			size_t slot = l->first + lv;
			uint32_t *seen = &made[(size_t)func * 2 + inlined];

			if (*seen) {
				by_slot[slot] = by_slot[*seen - 1];
				continue;
			}
			name_one(prof, &sb, &by_slot[slot], hpa_profile_str(prof, fn->name), fn,
				 inlined);
			*seen = (uint32_t)slot + 1;
		}
	}
	free(made);
	hpa_sb_release(&sb);
}

void hpa_names_release(struct hpa_names *names)
{
	free(names->by_slot);
	memset(names, 0, sizeof(*names));
}

const struct hpa_frame_name *hpa_frame_name(const struct hpa_profile *prof, const struct hpa_names *names,
					    struct hpa_frame f)
{
	if (!names || names->nr != hpa_symbols_slots(names->syms) || names->syms->chains_nr != prof->locs_nr)
		HPA_BUG("frame %u/%u: names %s", f.loc, f.level,
			names ? "out of date (frames changed since hpa_name_frames())"
			      : "not given (hpa_name_frames() gives them)");
	return &names->by_slot[hpa_frame_slot(names->syms, f)];
}

const char *hpa_frame_full(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f)
{
	return hpa_profile_str(prof, hpa_frame_name(prof, names, f)->full);
}

const char *hpa_frame_display(const struct hpa_profile *prof, const struct hpa_names *names,
			      struct hpa_frame f)
{
	return hpa_profile_str(prof, hpa_frame_name(prof, names, f)->display);
}
