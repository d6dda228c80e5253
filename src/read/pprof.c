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
static bool is_label(const struct hpa_profile *prof, const struct hpa_symbols *syms, uint32_t func)
{
	const char *n = func ? hpa_profile_str(prof, syms->funcs[func].name) : "";
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
/* The profile being converted, and the ids of what is converted so far. */
struct conv {
	struct reader *r;
	const PbProfile *p;
	struct hpa_hashmap map_ids, fn_ids, loc_ids;   /* pprof id -> the model's */
};

static int convert_mappings(struct conv *c)
{
	struct hpa_profile *prof = c->r->prof;
	const PbProfile *p = c->p;
	size_t i;

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
		m.input = c->r->input;
		if (!pm->id || hpa_hashmap_get(&c->map_ids, pm->id))
			return hpa_error_at(&c->r->io.pos, "pprof profile: mapping id %llu is 0 or repeated",
					    (unsigned long long)pm->id);
		id = hpa_profile_add_mapping(prof, &m);
		if (*pstr(p, pm->build_id))
			prof->mappings[id].build_id = hpa_profile_intern_text(prof, pstr(p, pm->build_id));
		hpa_profile_input(prof, c->r->input)->map_nr++;
		hpa_hashmap_put(&c->map_ids, pm->id, id);
	}
	return 0;
}

static int convert_functions(struct conv *c)
{
	struct hpa_profile *prof = c->r->prof;
	struct hpa_symbols *syms = hpa_profile_symbols(prof);
	const PbProfile *p = c->p;
	size_t i;

	for (i = 0; i < p->n_function; i++) {
		const Perftools__Profiles__Function *pf = p->function[i];
		uint32_t f;

		if (!pf->id || hpa_hashmap_get(&c->fn_ids, pf->id))
			return hpa_error_at(&c->r->io.pos, "pprof profile: function id %llu is 0 or repeated",
					    (unsigned long long)pf->id);
		f = hpa_symbols_intern_function(syms, prof->strs, pstr(p, pf->name), pstr(p, pf->system_name),
						pstr(p, pf->filename));
		if (!syms->funcs[f].start_line && pf->start_line > 0 && pf->start_line <= UINT32_MAX)
			syms->funcs[f].start_line = (uint32_t)pf->start_line;
		hpa_hashmap_put(&c->fn_ids, pf->id, f);
	}
	return 0;
}

/* Location pl's lines (innermost first) into the model's location loc. */
static int convert_lines(struct conv *c, const Perftools__Profiles__Location *pl, uint32_t loc,
			 struct hpa_line **lines, size_t *alines)
{
	struct hpa_profile *prof = c->r->prof;
	struct hpa_symbols *syms = hpa_profile_symbols(prof);
	size_t nl = pl->n_line, j;
	bool has_lines = false;

	/* hpa names frames it could not symbolize "0xADDR (module)": still unknown. */
	if (nl == 1 && is_label(prof, syms, hpa_hashmap_get(&c->fn_ids, pl->line[0]->function_id)))
		nl = 0;
	HPA_GROW(*lines, nl + 1, *alines);
	for (j = 0; j < nl; j++) {
		uint32_t f = hpa_hashmap_get(&c->fn_ids, pl->line[j]->function_id);
		if (!f)
			return hpa_error_at(&c->r->io.pos, "pprof profile: location %llu has a line with "
					    "no function", (unsigned long long)pl->id);
		(*lines)[j].func = f;
		(*lines)[j].file = syms->funcs[f].filename;
		(*lines)[j].line = pl->line[j]->line > 0 ? (uint32_t)pl->line[j]->line : 0;
		has_lines |= (*lines)[j].line != 0;
	}
	if (nl)
		hpa_symbols_set_chain(syms, loc, *lines, nl, has_lines ? HPA_SYM_DWARF : HPA_SYM_SYMTAB);
	return 0;
}

static int convert_locations(struct conv *c)
{
	struct hpa_profile *prof = c->r->prof;
	const PbProfile *p = c->p;
	struct hpa_line *lines = NULL;
	size_t alines = 0, i;
	int rc = 0;

	for (i = 0; i < p->n_location && !rc; i++) {
		const Perftools__Profiles__Location *pl = p->location[i];
		uint32_t loc;

		if (!pl->id || hpa_hashmap_get(&c->loc_ids, pl->id)) {
			rc = hpa_error_at(&c->r->io.pos, "pprof profile: location id %llu is 0 or repeated",
					  (unsigned long long)pl->id);
			break;
		}
		loc = hpa_profile_new_loc(prof, pl->address);
		prof->locs[loc].mapping = hpa_hashmap_get(&c->map_ids, pl->mapping_id);
		rc = convert_lines(c, pl, loc, &lines, &alines);
		hpa_hashmap_put(&c->loc_ids, pl->id, loc);
	}
	free(lines);
	return rc;
}

/* Sample i's thread label (HPA_THREAD_ALL: none) and thread name (NULL: none). */
static int sample_thread(struct conv *c, size_t i, uint32_t thread_key, uint32_t name_key,
			 int32_t *thread, const char **tname)
{
	const Perftools__Profiles__Sample *ps = c->p->sample[i];
	size_t j;

	*thread = HPA_THREAD_ALL;
	*tname = NULL;
	for (j = 0; thread_key && j < ps->n_label; j++) {
		const Perftools__Profiles__Label *lb = ps->label[j];
		if (name_key && lb->key == name_key && lb->str)
			*tname = pstr(c->p, lb->str);
		if (lb->key == thread_key && thread_label(c->p, lb, thread) < 0)
			return hpa_error_at(&c->r->io.pos, "pprof profile: sample %zu has thread label "
					    "\"%.40s\"; expected a thread number from 0 to %d", i + 1,
					    lb->str && pstr(c->p, lb->str) ? pstr(c->p, lb->str) :
					    "(a number out of range)", INT32_MAX);
	}
	return 0;
}

/* The samples; "thread" labels: a sample is also that thread's, every sample makes the total. */
static int convert_samples(struct conv *c, const int col[HPA_NVALUES])
{
	struct hpa_profile *prof = c->r->prof;
	const PbProfile *p = c->p;
	uint32_t *locs = NULL, thread_key = 0, name_key = 0;
	size_t alocs = 0, i, j;
	int rc = 0;

	for (i = 0; i < p->n_string_table; i++) {
		if (!strcmp(p->string_table[i], "thread"))
			thread_key = (uint32_t)i;
		else if (!strcmp(p->string_table[i], "thread_name"))
			name_key = (uint32_t)i;
	}
	for (i = 0; i < p->n_sample && !rc; i++) {
		const Perftools__Profiles__Sample *ps = p->sample[i];
		double v[HPA_NVALUES];
		int32_t thread;
		const char *tname;
		uint32_t stack;
		int k;

		if (ps->n_value != p->n_sample_type) {
			rc = hpa_error_at(&c->r->io.pos, "pprof profile: sample %zu has %zu values for %zu "
					  "sample types", i + 1, ps->n_value, p->n_sample_type);
			break;
		}
		HPA_GROW(locs, ps->n_location_id + 1, alocs);
		for (j = 0; j < ps->n_location_id && !rc; j++) {
			locs[j] = hpa_hashmap_get(&c->loc_ids, ps->location_id[j]);
			if (!locs[j])
				rc = hpa_error_at(&c->r->io.pos, "pprof profile: sample %zu refers to location "
						  "%llu, which does not exist", i + 1,
						  (unsigned long long)ps->location_id[j]);
		}
		if (rc || (rc = sample_thread(c, i, thread_key, name_key, &thread, &tname)) < 0)
			break;
		for (k = 0; k < HPA_NVALUES; k++)
			v[k] = col[k] >= 0 ? (double)ps->value[col[k]] : 0;
		stack = hpa_profile_intern_stack_locs(prof, locs, ps->n_location_id);
		if (thread != HPA_THREAD_ALL)
			hpa_profile_note_thread(prof, thread, tname && *tname ? tname : NULL);
		hpa_profile_add_sample(prof, stack, thread, c->r->input, v);
		if (thread != HPA_THREAD_ALL)   /* pprof sums every sample: a label only adds a view */
			hpa_profile_add_sample(prof, stack, HPA_THREAD_ALL, c->r->input, v);
	}
	free(locs);
	return rc;
}

static int convert(struct reader *r, const PbProfile *p)
{
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	struct conv c = { r, p, HPA_HASHMAP_INIT, HPA_HASHMAP_INIT, HPA_HASHMAP_INIT };
	int col[HPA_NVALUES], rc;

	if (check_strings(r, p) < 0 || find_columns(r, p, col) < 0)
		return -1;
	in->format = HPA_FORMAT_PPROF;
	in->kind = HPA_KIND_HEAP;
	in->sampling = HPA_SAMPLING_NONE;
	in->period = (double)p->period;
	in->header_period = p->period > 0 ? (uint64_t)p->period : 0;
	in->has_maps = true;
	rc = convert_mappings(&c);
	if (!rc)
		rc = convert_functions(&c);
	if (!rc)
		rc = convert_locations(&c);
	if (!rc && p->time_nanos > 0)
		in->time_nanos = p->time_nanos;
	if (!rc)
		rc = convert_samples(&c, col);
	hpa_hashmap_release(&c.map_ids);
	hpa_hashmap_release(&c.fn_ids);
	hpa_hashmap_release(&c.loc_ids);
	return rc;
}

/*
 * What protobuf-c will allocate to unpack a message, counted from the wire
 * before it unpacks anything (it allocates 40-90 bytes for each 2-byte
 * empty element of a repeated field, so a 200 KB gzip of 200 MB of them
 * took 12 GB).  Walked by the schema, as protobuf-c walks it: each
 * message's structure, each repeated element's slot (8 bytes for a pointer
 * or a 64-bit number, 4 for a smaller one; packed numbers counted one by
 * one), each string's bytes, each unknown field's record and copy, and the
 * 32-byte record protobuf-c keeps of every field it scans while it unpacks
 * the message that holds it (the largest nested message's, and the top
 * message's for the whole time).
 */
#define PB_SCANNED 32   /* protobuf-c 1.4's ScannedMember */
#define PB_UNKNOWN 24   /* ProtobufCMessageUnknownField */

struct pb_cost {
	uint64_t kept;        /* what the unpacked message holds */
	uint64_t nested_max;  /* the largest nested message's scan records */
};

static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static unsigned pb_slot(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT64: case PROTOBUF_C_TYPE_SINT64: case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
	case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_MESSAGE:
		return 8;
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return 4;
	}
}

/* Numbers in a packed field's payload. */
static uint64_t pb_packed_count(ProtobufCType t, const uint8_t *p, uint64_t len)
{
	uint64_t n = 0;

	switch (t) {
	case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
		return len / 4;
	case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
		return len / 8;
	default:
		for (uint64_t i = 0; i < len; i++)
			n += !(p[i] & 0x80);
		return n;
	}
}

/* Adds message (p, len) of type d to *c; its own scan records to *scans.  false: malformed. */
static bool pb_count(const uint8_t *p, uint64_t len, const ProtobufCMessageDescriptor *d,
		     struct pb_cost *c, uint64_t *scans)
{
	const uint8_t *end = p + len;

	c->kept += d->sizeof_message;
	*scans = 0;
	while (p < end) {
		const ProtobufCFieldDescriptor *f;
		const uint8_t *start;
		uint64_t key, v = 0, n = 0;
		unsigned wire;

		if (!pb_varint(&p, end, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX)
			return false;
		wire = key & 7;
		start = p;
		switch (wire) {
		case 0: if (!pb_varint(&p, end, &v)) return false; break;
		case 1: if (end - p < 8) return false; p += 8; break;
		case 5: if (end - p < 4) return false; p += 4; break;
		case 2:
			if (!pb_varint(&p, end, &n) || n > (uint64_t)(end - p))
				return false;
			start = p;
			p += n;
			break;
		default:
			return false;
		}
		*scans += PB_SCANNED;
		f = protobuf_c_message_descriptor_get_field(d, (unsigned)(key >> 3));
		if (!f) {
			c->kept += PB_UNKNOWN + (uint64_t)(p - start);
			continue;
		}
		if (f->label == PROTOBUF_C_LABEL_REPEATED)
			c->kept += wire == 2 && f->type != PROTOBUF_C_TYPE_STRING &&
				   f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_MESSAGE ?
				   pb_packed_count(f->type, start, n) * pb_slot(f->type) : pb_slot(f->type);
		if (wire != 2)
			continue;
		if (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES) {
			c->kept += n + 1;
		} else if (f->type == PROTOBUF_C_TYPE_MESSAGE) {
			uint64_t inner;
			if (!pb_count(start, n, f->descriptor, c, &inner))
				return false;
			if (inner > c->nested_max)
				c->nested_max = inner;
		}
	}
	return true;
}

/* A decoded message may take at most PB_FACTOR times its size, plus PB_SLACK. */
#define PB_FACTOR 16   /* Go's own heap profiles take 9.4 (a "bytes" label per sample) */
#define PB_SLACK ((uint64_t)16 << 20)

int read_pprof(struct reader *r, const uint8_t *data, size_t len)
{
	struct pb_cost cost = { 0, 0 };
	uint64_t scans, need;
	PbProfile *p;
	int rc;

	if (!pb_count(data, len, &perftools__profiles__profile__descriptor, &cost, &scans))
		return hpa_error_at(&r->io.pos, "not a valid pprof profile (protobuf decoding failed)");
	need = cost.kept + scans + cost.nested_max;
	if (need > PB_FACTOR * (uint64_t)len + PB_SLACK)
		return hpa_error_at(&r->io.pos, "pprof profile of %zu bytes would take %llu MiB to decode, "
				    "more than %d times its size: refused (a profile of empty elements?)",
				    len, (unsigned long long)(need >> 20), PB_FACTOR);
	p = perftools__profiles__profile__unpack(NULL, len, data);
	if (!p)
		return hpa_error_at(&r->io.pos, "not a valid pprof profile (protobuf decoding failed)");
	rc = convert(r, p);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return rc;
}
