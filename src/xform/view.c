#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct hpa_view_opts hpa_view_opts(const struct hpa_opts *opts)
{
	struct hpa_view_opts vo;

	vo.value = opts->value;
	vo.thread = opts->thread;
	vo.keep_internal = opts->keep_internal;
	vo.focus = &opts->focus;
	vo.ignore = &opts->ignore;
	vo.show = &opts->show;
	vo.hide = &opts->hide;
	return vo;
}

void hpa_view_init(struct hpa_view *v, const struct hpa_profile *prof,
		   const struct hpa_view_opts *opts)
{
	memset(v, 0, sizeof(*v));
	v->prof = prof;
	v->opts = *opts;
	v->bits = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*v->bits));
}

void hpa_view_release(struct hpa_view *v)
{
	free(v->bits);
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
	const struct hpa_location *l = &prof->locs[f.loc];
	size_t slot = hpa_frame_slot(prof, f);
	const struct hpa_frame_name *n = hpa_frame_name(prof, f);
	const char *texts[5] = { NULL };
	char addr[32], *fileline = NULL;
	uint8_t bits = M_KNOWN;

	if (v->bits[slot] & M_KNOWN)
		return v->bits[slot];
	snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)l->addr);
	texts[0] = addr;
	texts[1] = hpa_profile_loc_module(prof, f.loc);
	texts[2] = hpa_profile_str(prof, n->full);   /* an unknown frame's MODULE+0xOFFSET */
	if (l->line_nr) {
		const struct hpa_line *ln = &prof->lines[l->line_first + f.level];
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

bool hpa_view_sample(struct hpa_view *v, size_t i, const struct hpa_frame **frames, size_t *nr)
{
	const struct hpa_profile *prof = v->prof;
	const struct hpa_view_opts *o = &v->opts;
	const struct hpa_sample *s = &prof->samples[i];
	const uint32_t *locs;
	size_t nlocs, n = 0, j, k;
	unsigned skip;
	bool filtering = o->focus->set || o->ignore->set || o->show->set || o->hide->set;
	bool focused = !o->focus->set;

	if ((o->thread == HPA_THREAD_EACH ? s->thread == HPA_THREAD_ALL : s->thread != o->thread) ||
	    prof->inputs[s->input - 1].weight == 0)
		return false;   /* another thread, or an input switched off (--outdir) */
	nlocs = s->stack ? hpa_visible_stack(prof, s->stack, o->keep_internal, &locs, &skip) : 0;
	for (j = 0; j < nlocs; j++) {
		const struct hpa_location *l = &prof->locs[locs[j]];
		size_t levels = l->line_nr ? l->line_nr : 1;

		HPA_GROW(v->buf, n + levels, v->buf_alloc);
		for (k = j == 0 ? skip : 0; k < levels; k++) {
			v->buf[n].loc = locs[j];
			v->buf[n].level = (uint32_t)k;
			n++;
		}
	}
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
