#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/names.h"
#include "hpa/strip.h"
#include "hpa/strbuf.h"
#include "hpa/view.h"
#include "hpa/xalloc.h"

enum {
	M_FOCUS = 1,
	M_IGNORE = 2,
	M_SHOW = 4,
	M_HIDE = 8,
	M_KNOWN = 0x80
};

void hpa_view_init(struct hpa_view *v, const struct hpa_profile *prof,
		   const struct hpa_view_opts *opts)
{
	const struct hpa_symbols *syms = opts->symbols;
	size_t i;

	memset(v, 0, sizeof(*v));
	if (!syms || syms->chains_nr != prof->locs_nr || (opts->names && opts->names->syms != syms))
		HPA_BUG("a view without the profile's symbols, or with another's names");
	v->prof = prof;
	v->syms = syms;
	v->opts = *opts;
	v->bits = xcalloc(hpa_symbols_slots(syms), sizeof(*v->bits));
	v->levels = xmalloc(st_mult(prof->locs_nr + 1, sizeof(*v->levels)));
	v->slot0 = hpa_symbols_slot0(syms);   /* small and dense: walks read them per frame */
	for (i = 0; i < prof->locs_nr; i++)
		v->levels[i] = syms->chains[i].nr ? syms->chains[i].nr : 1;
}

void hpa_view_release(struct hpa_view *v)
{
	free(v->bits);
	free(v->levels);
	free(v->slot0);
	free(v->buf);
	memset(v, 0, sizeof(*v));
}

static bool any_match(const struct hpa_filter_re *f, const char *const *texts, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (texts[i] && regexec(&f->re, texts[i], 0, NULL, 0) == 0)
			return true;
	return false;
}

/*
 * Which filters a frame matches.  A frame is named by its function (full
 * and short; an unknown frame by its MODULE+0xOFFSET), its file:line, its
 * address and its module: an expression
 * matching any of them matches the frame.
 */
static uint8_t frame_bits(struct hpa_view *v, struct hpa_frame f)
{
	const struct hpa_profile *prof = v->prof;
	const struct hpa_view_opts *o = &v->opts;
	size_t slot = hpa_view_slot(v, f);
	const struct hpa_location *l;
	const struct hpa_chain *c = hpa_chain_of(v->syms, f.loc);
	const struct hpa_frame_name *n;
	const char *texts[5] = { NULL };
	char addr[32], *fileline = NULL;
	uint8_t bits = M_KNOWN;

	if (v->bits[slot] & M_KNOWN)
		return v->bits[slot];
	l = &prof->locs[f.loc];
	n = hpa_frame_name(prof, v->opts.names, f);
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->addr);
	texts[0] = addr;
	texts[1] = hpa_profile_loc_module(prof, f.loc);
	texts[2] = hpa_profile_str(prof, n->full);   /* an unknown frame's MODULE+0xOFFSET */
	if (c->nr) {
		const struct hpa_line *ln = &v->syms->lines[c->first + f.level];
		const char *file = hpa_profile_str(prof, ln->file);

		texts[3] = hpa_profile_str(prof, n->shortn);
		if (*file)
			fileline = hpa_xasprintf("%s:%u", file, ln->line);
		texts[4] = fileline;
	}
	if (o->focus->set && any_match(o->focus, texts, 5))
		bits |= M_FOCUS;
	if (o->ignore->set && any_match(o->ignore, texts, 5))
		bits |= M_IGNORE;
	if (o->show->set && any_match(o->show, texts, 5))
		bits |= M_SHOW;
	if (o->hide->set && any_match(o->hide, texts, 5))
		bits |= M_HIDE;
	free(fileline);
	v->bits[slot] = bits;
	return bits;
}

bool hpa_view_keeps(const struct hpa_view *v, size_t i)
{
	const struct hpa_profile *prof = v->prof;
	const struct hpa_view_opts *o = &v->opts;
	const struct hpa_sample *s = &prof->samples[i];

	if (o->dropped && o->dropped[i])
		return false;   /* --drop_negative */
	if ((s->thread != o->thread && o->thread != HPA_VIEW_EVERY_THREAD) ||
	    hpa_view_weight(o, prof, s->input) == 0)
		return false;   /* another thread, or an input left out (--outdir) */
	if (o->part && hpa_view_base(o, prof, s->input) != (o->part < 0))
		return false;   /* the other side of a --base diff */
	return true;
}

bool hpa_view_has_base(const struct hpa_view_opts *o, const struct hpa_profile *prof)
{
	uint32_t i;

	for (i = 1; i <= prof->inputs_nr; i++)
		if (hpa_view_base(o, prof, i))
			return true;
	return false;
}

bool hpa_view_filters(const struct hpa_view_opts *o)
{
	return o->focus->set || o->ignore->set || o->show->set || o->hide->set;
}

size_t hpa_view_locations(const struct hpa_view *v, uint32_t stack, const uint32_t **locs,
			  unsigned *first)
{
	size_t n = stack ? hpa_visible_stack(v->prof, v->opts.frames, v->opts.cuts, stack, locs, first) : 0;

	if (n && *first >= v->levels[**locs]) {   /* every level of the leaf's location cut */
		(*locs)++;
		n--;
		*first = 0;
	}
	if (!n)
		*first = 0;
	return n;
}

bool hpa_view_stack(struct hpa_view *v, uint32_t stack, const struct hpa_frame **frames,
		    size_t *nr)
{
	const struct hpa_view_opts *o = &v->opts;
	const uint32_t *locs;
	struct hpa_frame *out;
	const uint32_t *lp;
	const uint16_t *lev;
	size_t nlocs, n, j, k;
	unsigned first;
	bool filtering = hpa_view_filters(o);
	bool focused = !o->focus->set;

	nlocs = hpa_view_locations(v, stack, &locs, &first);
	/* Room for a frame per location left, kept so: only inline levels need more. */
	HPA_GROW(v->buf, nlocs + 1, v->buf_alloc);
	out = v->buf;
	lp = locs;   /* copies in registers: locs's address was taken, v is written through out */
	lev = v->levels;
	for (j = 0; j < nlocs; j++) {
		uint32_t loc = lp[j];
		unsigned levels = lev[loc];

		if (levels == 1) {   /* most locations: no inline frames */
			out->loc = loc;
			out->level = 0;
			out++;
			continue;
		}
		n = (size_t)(out - v->buf);
		HPA_GROW(v->buf, n + levels + (nlocs - j - 1), v->buf_alloc);
		out = v->buf + n;
		for (k = j == 0 ? first : 0; k < levels; k++, out++) {
			out->loc = loc;
			out->level = (uint32_t)k;
		}
	}
	n = (size_t)(out - v->buf);
	if (filtering) {
		size_t kept = 0;

		for (j = 0; j < n; j++) {
			uint8_t bits = frame_bits(v, v->buf[j]);

			if (bits & M_IGNORE)
				return false;
			if (bits & M_FOCUS)
				focused = true;
			if ((bits & M_HIDE) || (o->show->set && !(bits & M_SHOW)))
				continue;
			v->buf[kept++] = v->buf[j];
		}
		if (!focused)
			return false;
		n = kept;
	}
	*frames = v->buf;
	*nr = n;
	return true;
}

bool hpa_view_sample(struct hpa_view *v, size_t i, const struct hpa_frame **frames, size_t *nr)
{
	return hpa_view_keeps(v, i) && hpa_view_stack(v, v->prof->samples[i].stack, frames, nr);
}

void hpa_view_check_filters(const struct hpa_profile *prof, const struct hpa_view_opts *opts)
{
	const struct hpa_filter_re *const f[4] = { opts->focus, opts->ignore, opts->show, opts->hide };
	static const char *const names[4] = { "focus", "ignore", "show", "hide" };
	static const uint8_t bit[4] = { M_FOCUS, M_IGNORE, M_SHOW, M_HIDE };
	struct hpa_view v;
	uint8_t seen = 0;
	bool any_thread = false, any_set = false;
	size_t i, k;

	for (k = 0; k < 4; k++)
		any_set |= f[k]->set;
	for (i = 0; i < prof->samples_nr && !any_thread; i++)
		any_thread = prof->samples[i].thread == opts->thread && !(opts->dropped && opts->dropped[i]);
	if (!any_thread && opts->thread != HPA_THREAD_ALL) {
		struct hpa_strbuf sb = HPA_STRBUF_INIT;
		for (i = 0; i < prof->threads_nr && i < 20; i++)
			hpa_sb_addf(&sb, "%st%d", i ? ", " : "", prof->threads[i].id);
		if (prof->threads_nr > 20)
			hpa_sb_adds(&sb, ", ...");
		hpa_warn("--thread %d: the profile has no samples of that thread (%s%s)", opts->thread,
			 prof->threads_nr ? "its threads: " : "it has no per-thread data",
			 sb.len ? sb.buf : "");
		hpa_sb_release(&sb);
		return;
	}
	if (!any_set)
		return;
	/*
	 * Every frame of the thread's samples, after the allocator cut: what
	 * the filters see.  A view without filters gives the frames, the
	 * filtering one their matches.
	 */
	{
		static const struct hpa_filter_re none = { false };
		struct hpa_view_opts all = *opts;
		struct hpa_view plain;
		const struct hpa_frame *frames;
		size_t n, j;

		all.focus = all.ignore = all.show = all.hide = &none;
		hpa_view_init(&plain, prof, &all);
		hpa_view_init(&v, prof, opts);
		for (i = 0; i < prof->samples_nr && seen != (M_FOCUS | M_IGNORE | M_SHOW | M_HIDE); i++)
			if (hpa_view_sample(&plain, i, &frames, &n))
				for (j = 0; j < n; j++)
					seen |= frame_bits(&v, frames[j]);
		hpa_view_release(&plain);
	}
	hpa_view_release(&v);
	for (k = 0; k < 4; k++)
		if (f[k]->set && !(seen & bit[k]))
			hpa_warn("--%s '%s' matches no frame of the profile (functions, file:line, "
				 "modules and addresses were tried)%s", names[k], f[k]->src ? f[k]->src : "",
				 k == 0 ? ": the report is empty" : k == 2 ? ": every frame is hidden" : "");
}

char *hpa_view_filters_text(const struct hpa_view_opts *opts)
{
	const struct hpa_filter_re *const f[4] = { opts->focus, opts->ignore, opts->show, opts->hide };
	static const char *const names[4] = { "focus", "ignore", "show", "hide" };
	struct hpa_strbuf sb = HPA_STRBUF_INIT;
	size_t k;

	for (k = 0; k < 4; k++)
		if (f[k]->set)
			hpa_sb_addf(&sb, "%s%s=%s", sb.len ? " " : "", names[k], f[k]->src ? f[k]->src : "");
	if (!sb.len) {
		hpa_sb_release(&sb);
		return NULL;
	}
	return hpa_sb_detach(&sb);
}
