/*
 * pprof protobuf input (OUTPUTS.md part B): a gzip-compressed or plain
 * perftools.profiles.Profile.  Sample types are taken by name (inuse_space,
 * inuse_objects, alloc_space, alloc_objects; legacy "space"/"objects" mean
 * inuse); values are already unsampled.  Locations keep their lines, so a
 * symbolized profile needs no binary; unsymbolized ones are symbolized from
 * their mappings like any other input.  A "thread" label puts a sample in
 * that thread too; every sample counts in the total, as go tool pprof sums it.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "profile.pb-c.h"

#include "hpa/diag.h"
#include "hpa/xalloc.h"
#include "read.h"

typedef Perftools__Profiles__Profile PbProfile;

static const char *pstr(const PbProfile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : NULL;
}

/* Every string index in range, string_table[0] empty. */
static int check_strings(struct reader *r, const PbProfile *p)
{
	size_t i, j;

#define STR_OK(x) ((x) >= 0 && (size_t)(x) < p->n_string_table)
	if (!p->n_string_table || p->string_table[0][0])
		return hpa_error_at(&r->io.pos, "pprof profile: string_table[0] must be \"\"");
	for (i = 0; i < p->n_sample_type; i++)
		if (!STR_OK(p->sample_type[i]->type) || !STR_OK(p->sample_type[i]->unit))
			goto bad;
	for (i = 0; i < p->n_mapping; i++)
		if (!STR_OK(p->mapping[i]->filename) || !STR_OK(p->mapping[i]->build_id))
			goto bad;
	for (i = 0; i < p->n_function; i++)
		if (!STR_OK(p->function[i]->name) || !STR_OK(p->function[i]->system_name) ||
		    !STR_OK(p->function[i]->filename))
			goto bad;
	for (i = 0; i < p->n_sample; i++)
		for (j = 0; j < p->sample[i]->n_label; j++)
			if (!STR_OK(p->sample[i]->label[j]->key) || !STR_OK(p->sample[i]->label[j]->str))
				goto bad;
	return 0;
bad:
	return hpa_error_at(&r->io.pos, "pprof profile: a string index is out of range");
#undef STR_OK
}

/* Column of each model value in the sample values, or -1. */
static int find_columns(struct reader *r, const PbProfile *p, int col[HPA_NVALUES])
{
	size_t i;
	int v, found = 0;

	for (v = 0; v < HPA_NVALUES; v++)
		col[v] = -1;
	for (i = 0; i < p->n_sample_type; i++) {
		const char *t = pstr(p, p->sample_type[i]->type);
		for (v = 0; v < HPA_NVALUES; v++) {
			if (!strcmp(t, hpa_value_name((enum hpa_value)v)) ||
			    (v == HPA_INUSE_SPACE && !strcmp(t, "space")) ||
			    (v == HPA_INUSE_OBJECTS && !strcmp(t, "objects"))) {
				col[v] = (int)i;
				found++;
			}
		}
	}
	{
		char types[256] = "";
		for (i = 0; i < p->n_sample_type && strlen(types) < 200; i++) {
			strcat(types, i ? ", " : "");
			strncat(types, pstr(p, p->sample_type[i]->type), 40);
		}
		if (!found)
			return hpa_error_at(&r->io.pos, "pprof profile has no heap sample types "
					    "(inuse_space, alloc_space, ...); it has: %s",
					    *types ? types : "none");
		hpa_profile_input(r->prof, r->input)->value_types = xstrdup(types);
	}
	return 0;
}

/* hpa's name for a frame it could not name: "MODULE+0xOFFSET" or "0xADDR (MODULE)". */
static bool is_label(const struct hpa_profile *prof, uint32_t func)
{
	const char *n = func ? hpa_profile_str(prof, prof->funcs[func].name) : "";
	const char *plus = strrchr(n, '+');
	size_t i = 2;

	if (plus && plus > n && !strchr(n, ' ') && !strncmp(plus, "+0x", 3)) {
		for (i = 3; hex_digit(plus[i]) >= 0; i++)
			;
		return i > 3 && !plus[i];
	}
	if (strncmp(n, "0x", 2))
		return false;
	while (hex_digit(n[i]) >= 0)
		i++;
	return i > 2 && n[i] == ' ' && n[i + 1] == '(' && n[strlen(n) - 1] == ')';
}


/* A "thread" label's value: "N", "tN" or the number N, 0 <= N <= INT32_MAX. */
static int thread_label(const PbProfile *p, const Perftools__Profiles__Label *lb, int32_t *out)
{
	const char *s, *d;
	uint64_t n = 0;

	if (!lb->str) {
		if (lb->num < 0 || lb->num > INT32_MAX)
			return -1;
		*out = (int32_t)lb->num;
		return 0;
	}
	s = pstr(p, lb->str);
	if (!s)
		return -1;
	d = s + (s[0] == 't');
	if (!*d)
		return -1;
	for (; *d; d++) {
		if (*d < '0' || *d > '9')
			return -1;
		n = n * 10 + (uint64_t)(*d - '0');
		if (n > INT32_MAX)
			return -1;
	}
	*out = (int32_t)n;
	return 0;
}
static int convert(struct reader *r, const PbProfile *p)
{
	struct hpa_profile *prof = r->prof;
	struct hpa_input *in = hpa_profile_input(prof, r->input);
	struct hpa_hashmap map_ids, fn_ids, loc_ids;
	uint32_t *locs = NULL, thread_key = 0, name_key = 0;
	const char *tname;
	struct hpa_line *lines = NULL;
	size_t alocs = 0, alines = 0, i, j;
	int col[HPA_NVALUES], rc = -1;

	if (check_strings(r, p) < 0 || find_columns(r, p, col) < 0)
		return -1;
	in->format = HPA_FORMAT_PPROF;
	in->kind = HPA_KIND_HEAP;
	in->sampling = HPA_SAMPLING_NONE;
	in->period = (double)p->period;
	in->header_period = p->period > 0 ? (uint64_t)p->period : 0;
	in->has_maps = true;
	hpa_hashmap_init(&map_ids);
	hpa_hashmap_init(&fn_ids);
	hpa_hashmap_init(&loc_ids);

	for (i = 0; i < p->n_mapping; i++) {
		const Perftools__Profiles__Mapping *pm = p->mapping[i];
		struct hpa_mapping m;
		uint32_t id;

		memset(&m, 0, sizeof(m));
		m.start = pm->memory_start;
		m.limit = pm->memory_limit;
		m.offset = pm->file_offset;
		memcpy(m.perms, "r-xp", 5);
		m.path = (char *)pstr(p, pm->filename);
		m.input = r->input;
		if (!pm->id || hpa_hashmap_get(&map_ids, pm->id)) {
			hpa_error_at(&r->io.pos, "pprof profile: mapping id %llu is 0 or repeated",
				     (unsigned long long)pm->id);
			goto out;
		}
		id = hpa_profile_add_mapping(prof, &m);
		if (*pstr(p, pm->build_id))
			prof->mappings[id].build_id = hpa_strtab_intern(&prof->strs, pstr(p, pm->build_id));
		hpa_profile_input(prof, r->input)->map_nr++;
		hpa_hashmap_put(&map_ids, pm->id, id);
	}
	for (i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *pf = p->function[i];
		if (!pf->id || hpa_hashmap_get(&fn_ids, pf->id)) {
			hpa_error_at(&r->io.pos, "pprof profile: function id %llu is 0 or repeated",
				     (unsigned long long)pf->id);
			goto out;
		}
		{
			uint32_t f = hpa_profile_intern_function(prof, pstr(p, pf->name),
								 pstr(p, pf->system_name),
								 pstr(p, pf->filename));
			if (!prof->funcs[f].start_line && pf->start_line > 0 && pf->start_line <= UINT32_MAX)
				prof->funcs[f].start_line = (uint32_t)pf->start_line;
			hpa_hashmap_put(&fn_ids, pf->id, f);
		}
	}
	for (i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *pl = p->location[i];
		uint32_t loc;
		size_t nl;
		bool has_lines = false;

		if (!pl->id || hpa_hashmap_get(&loc_ids, pl->id)) {
			hpa_error_at(&r->io.pos, "pprof profile: location id %llu is 0 or repeated",
				     (unsigned long long)pl->id);
			goto out;
		}
		loc = hpa_profile_new_loc(prof, pl->address);
		/* hpa names frames it could not symbolize "0xADDR (module)": still unknown. */
		nl = pl->n_line;
		if (nl == 1 && is_label(prof, hpa_hashmap_get(&fn_ids, pl->line[0]->function_id)))
			nl = 0;
		prof->locs[loc].mapping = hpa_hashmap_get(&map_ids, pl->mapping_id);
		HPA_GROW(lines, nl + 1, alines);
		for (j = 0; j < nl; j++) {
			uint32_t f = hpa_hashmap_get(&fn_ids, pl->line[j]->function_id);
			if (!f) {
				hpa_error_at(&r->io.pos, "pprof profile: location %llu has a line with "
					     "no function", (unsigned long long)pl->id);
				goto out;
			}
			lines[j].func = f;
			lines[j].file = prof->funcs[f].filename;
			lines[j].line = pl->line[j]->line > 0 ? (uint32_t)pl->line[j]->line : 0;
			has_lines |= lines[j].line != 0;
		}
		if (nl)
			hpa_profile_set_lines(prof, loc, lines, nl,
					      has_lines ? HPA_SYM_DWARF : HPA_SYM_SYMTAB);
		hpa_hashmap_put(&loc_ids, pl->id, loc);
	}

	if (p->time_nanos > 0)
		hpa_profile_input(prof, r->input)->time_nanos = p->time_nanos;

	/* "thread" labels: a sample is also that thread's; every sample makes the total. */
	for (i = 0; i < p->n_string_table; i++) {
		if (!strcmp(p->string_table[i], "thread"))
			thread_key = (uint32_t)i;
		else if (!strcmp(p->string_table[i], "thread_name"))
			name_key = (uint32_t)i;
	}
	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *ps = p->sample[i];
		double v[HPA_NVALUES];
		int32_t thread = HPA_THREAD_ALL;
		uint32_t stack;
		int k;

		if (ps->n_value != p->n_sample_type) {
			hpa_error_at(&r->io.pos, "pprof profile: sample %zu has %zu values for %zu "
				     "sample types", i + 1, ps->n_value, p->n_sample_type);
			goto out;
		}
		HPA_GROW(locs, ps->n_location_id + 1, alocs);
		for (j = 0; j < ps->n_location_id; j++) {
			locs[j] = hpa_hashmap_get(&loc_ids, ps->location_id[j]);
			if (!locs[j]) {
				hpa_error_at(&r->io.pos, "pprof profile: sample %zu refers to location "
					     "%llu, which does not exist", i + 1,
					     (unsigned long long)ps->location_id[j]);
				goto out;
			}
		}
		tname = NULL;
		for (j = 0; thread_key && j < ps->n_label; j++) {
			const Perftools__Profiles__Label *lb = ps->label[j];
			if (name_key && lb->key == name_key && lb->str)
				tname = pstr(p, lb->str);
			if (lb->key == thread_key && thread_label(p, lb, &thread) < 0) {
				hpa_error_at(&r->io.pos, "pprof profile: sample %zu has thread label \"%.40s\"; "
					     "expected a thread number from 0 to %d", i + 1,
					     lb->str && pstr(p, lb->str) ? pstr(p, lb->str) : "(a number out of range)", INT32_MAX);
				goto out;
			}
		}
		for (k = 0; k < HPA_NVALUES; k++)
			v[k] = col[k] >= 0 ? (double)ps->value[col[k]] : 0;
		stack = hpa_profile_intern_stack_locs(prof, locs, ps->n_location_id);
		if (thread != HPA_THREAD_ALL)
			hpa_profile_note_thread(prof, thread, tname && *tname ? tname : NULL);
		hpa_profile_add_sample(prof, stack, thread, r->input, v);
		if (thread != HPA_THREAD_ALL)   /* pprof sums every sample: a label only adds a view */
			hpa_profile_add_sample(prof, stack, HPA_THREAD_ALL, r->input, v);
	}
	rc = 0;
out:
	free(locs);
	free(lines);
	hpa_hashmap_release(&map_ids);
	hpa_hashmap_release(&fn_ids);
	hpa_hashmap_release(&loc_ids);
	return rc;
}

int read_pprof(struct reader *r, const uint8_t *data, size_t len)
{
	PbProfile *p = perftools__profiles__profile__unpack(NULL, len, data);
	int rc;

	if (!p)
		return hpa_error_at(&r->io.pos, "not a valid pprof profile (protobuf decoding failed)");
	rc = convert(r, p);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return rc;
}
