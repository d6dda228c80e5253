/*
 * What frames are called in reports (names.h).
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/names.h"
#include "hpa/strbuf.h"

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
	const struct hpa_location *l = &prof->locs[f.loc];
	char *name;

	if (!l->line_nr) {
		name = hpa_frame_label(prof, f);
	} else {
		const struct hpa_line *ln = &prof->lines[l->line_first + f.level];
		const char *fn = hpa_profile_str(prof, prof->funcs[ln->func].name);

		name = hpa_xasprintf("%s%s", fn, f.level + 1 < l->line_nr ? "[inline]" : "");
	}
	hpa_folded_name(name);
	return name;
}
