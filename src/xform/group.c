/*
 * Grouping the view's samples by the text of their stacks (group.h), for
 * the writers of whole stacks (--collapse, --traces) and --drop_negative.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/group.h"
#include "hpa/names.h"
#include "hpa/xalloc.h"

/* Frames joined by ';' root first: "name;" each (writers cut the last ';'). */
const struct hpa_stack_format hpa_folded_format = {
	hpa_folded_frame, true, "", ";", "<no stack>;"
};

size_t hpa_group_stacks(const struct hpa_profile *prof, const struct hpa_opts *opts,
			const struct hpa_stack_format *fmt, struct hpa_strtab *texts,
			struct hpa_stack_group **out, double *total, uint32_t *group_of)
{
	struct hpa_view view;
	struct hpa_strtab names;
	uint32_t *slot_name = xcalloc(prof->lines_nr + prof->locs_nr, sizeof(*slot_name));
	struct hpa_stack_group *groups = NULL;
	size_t ngroups = 0, agroups = 0, i, k, nr, len, alloc = 0;
	size_t pl = strlen(fmt->prefix), sl = strlen(fmt->suffix);
	const struct hpa_frame *frames;
	char *buf = NULL;

	*total = 0;
	hpa_strtab_init(&names);
	hpa_view_init(&view, prof, opts);
	for (i = 0; i < prof->samples_nr; i++) {
		double value;
		uint32_t id;

		if (group_of)
			group_of[i] = 0;
		if (!hpa_view_sample(&view, i, &frames, &nr))
			continue;
		value = hpa_view_value(&view, i);
		*total += value;
		len = 0;
		for (k = 0; k < nr; k++) {
			struct hpa_frame f = frames[fmt->root_first ? nr - 1 - k : k];
			size_t slot = hpa_frame_slot(prof, f), n;
			const char *name;

			if (!slot_name[slot]) {
				char *s = fmt->name(prof, f);
				slot_name[slot] = hpa_strtab_intern(&names, s);
				free(s);
			}
			name = hpa_strtab_get(&names, slot_name[slot]);
			n = strlen(name);
			HPA_GROW(buf, len + pl + n + sl + 1, alloc);
			memcpy(buf + len, fmt->prefix, pl);
			memcpy(buf + len + pl, name, n);
			memcpy(buf + len + pl + n, fmt->suffix, sl);
			len += pl + n + sl;
		}
		if (!len) {
			const char *e = fmt->empty;
			HPA_GROW(buf, strlen(e) + 1, alloc);
			len = strlen(e);
			memcpy(buf, e, len);
		}
		/* Stack text ids are dense from 1: group[id - 1] is the stack's. */
		id = hpa_strtab_intern_len(texts, buf, len);
		if (id > ngroups) {
			HPA_GROW(groups, ngroups + 1, agroups);
			groups[ngroups].text = id;
			groups[ngroups].before = groups[ngroups].after = 0;
			ngroups++;
		}
		if (group_of)
			group_of[i] = id;
		if (prof->inputs[prof->samples[i].input - 1].is_base)
			groups[id - 1].before -= value;
		else
			groups[id - 1].after += value;
	}
	hpa_view_release(&view);
	hpa_strtab_release(&names);
	free(slot_name);
	free(buf);
	*out = groups;
	return ngroups;
}
