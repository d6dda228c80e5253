/*
 * --proto: a gzip-compressed perftools.profiles.Profile, self-contained.
 *
 * Every location the view shows carries its lines (functions with
 * demangled and mangled names, files, line numbers, inline frames innermost
 * first); a frame hpa could not name gets a function named after its label,
 * so go tool pprof needs no binary and prints what hpa prints.  Locations
 * are the view's frames grouped by address, so the allocator cut and
 * --hide/--show are in the file.  Values are the four unsampled columns;
 * int64 values come from the running sums (floor of the cumulative sum), so
 * the file's totals equal hpa's.  Output is deterministic: no timestamps.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.pb-c.h"

#include "hpa/diag.h"
#include "hpa/group.h"
#include "hpa/reader.h"
#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/strtab.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"
#include "gzip.h"
#include "threadsplit.h"

typedef Perftools__Profiles__Profile PbProfile;
typedef Perftools__Profiles__Sample PbSample;
typedef Perftools__Profiles__Location PbLocation;
typedef Perftools__Profiles__Line PbLine;
typedef Perftools__Profiles__Function PbFunction;
typedef Perftools__Profiles__Mapping PbMapping;
typedef Perftools__Profiles__ValueType PbValueType;
typedef Perftools__Profiles__Label PbLabel;

/* Output columns, pprof's heap order, and the model value of each. */
static const enum hpa_value columns[4] = {
	HPA_ALLOC_OBJECTS, HPA_ALLOC_SPACE, HPA_INUSE_OBJECTS, HPA_INUSE_SPACE
};

struct writer {
	const struct hpa_profile *prof;
	const struct hpa_symbols *syms;
	const struct hpa_write_opts *opts;
	struct hpa_strtab strs;          /* the file's string table */
	struct hpa_hashmap loc_by_key;   /* (loc, first level, levels) -> output id */
	uint64_t *slot_loc;              /* per frame slot: levels << 32 | output id, 0 = not yet */
	uint32_t *slot0;                 /* per location: the slot of its level 0 (no location read per frame) */
	uint32_t *whole;                 /* per location: the output id of all its levels, 0 = not yet */
	struct hpa_strbuf loc_bytes;     /* the locations so far, each a packed field 4 of the profile */
	size_t nlocs;
	struct hpa_hashmap func_by_key;  /* model function id, or label string id | 1<<63 */
	struct hpa_strbuf func_bytes;    /* the functions so far, each a packed field 5 */
	size_t nfuncs;
	uint8_t *msg;                    /* one location's message, being made */
	size_t amsg;
	uint32_t *map_out;               /* model mapping id -> output id */
	PbMapping **maps;
	size_t nmaps, amaps;
	bool *map_all_named, *map_inline;
};

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		out[n++] = (uint8_t)(v | 0x80);
	out[n++] = (uint8_t)v;
	return n;
}

/* A scalar proto3 field (wire type 0): omitted when zero, as protobuf-c packs it. */
static size_t put_scalar(uint8_t *out, unsigned field, uint64_t v)
{
	size_t n;

	if (!v)
		return 0;
	n = put_varint(out, (uint64_t)field << 3);
	return n + put_varint(out + n, v);
}

/* The head of a length-delimited field (wire type 2) of len bytes: its tag and length. */
static size_t put_head(uint8_t *out, unsigned field, size_t len)
{
	size_t n = put_varint(out, (uint64_t)field << 3 | 2);

	return n + put_varint(out + n, len);
}

/* Message msg[0..len) as field `field` of the profile, into sb. */
static void put_message(struct hpa_strbuf *sb, unsigned field, const uint8_t *msg, size_t len)
{
	uint8_t head[16];

	hpa_sb_add(sb, head, put_head(head, field, len));
	hpa_sb_add(sb, msg, len);
}

static int64_t str(struct writer *w, const char *s)
{
	return hpa_strtab_intern(&w->strs, s ? s : "");
}

static uint64_t mapping_id(struct writer *w, uint32_t m)
{
	const struct hpa_mapping *hm;
	PbMapping *pm;
	uint32_t build_id;

	if (!m)
		return 0;
	if (w->map_out[m])
		return w->map_out[m];
	hm = &w->prof->mappings[m];
	pm = xcalloc(1, sizeof(*pm));
	perftools__profiles__mapping__init(pm);
	HPA_GROW(w->maps, w->nmaps + 1, w->amaps);
	w->maps[w->nmaps++] = pm;
	pm->id = w->nmaps;
	pm->memory_start = hm->start;
	pm->memory_limit = hm->limit;
	pm->file_offset = hm->offset;
	pm->filename = str(w, *hm->path ? hm->path : "[anon]");
	build_id = hpa_map_build_id(w->prof, w->syms, m);
	pm->build_id = build_id ? str(w, hpa_profile_str(w->prof, build_id)) : 0;
	w->map_out[m] = (uint32_t)pm->id;
	return pm->id;
}

/*
 * The output function for `key`: made on first use, its message packed
 * at once (the Function and Location messages are written as protobuf-c
 * would pack them, without a message object each).
 */
static uint64_t function_id(struct writer *w, uint64_t key, const char *name,
			    const char *system_name, const char *file, uint32_t start_line)
{
	uint32_t id = hpa_hashmap_get(&w->func_by_key, key);
	uint8_t msg[64];
	size_t n = 0;

	if (id)
		return id;
	id = (uint32_t)++w->nfuncs;
	n += put_scalar(msg + n, 1, id);
	n += put_scalar(msg + n, 2, (uint64_t)str(w, name));
	n += put_scalar(msg + n, 3, (uint64_t)str(w, system_name));
	n += put_scalar(msg + n, 4, (uint64_t)str(w, file));
	n += put_scalar(msg + n, 5, start_line);
	put_message(&w->func_bytes, 5, msg, n);
	hpa_hashmap_put(&w->func_by_key, key, id);
	return id;
}

/* A Line of a location's message being made: its function and line (function first). */
static void put_line(struct writer *w, size_t *n, uint64_t function_id, int64_t line)
{
	uint8_t m[32];
	size_t k = put_scalar(m, 1, function_id);

	k += put_scalar(m + k, 2, (uint64_t)line);
	HPA_GROW(w->msg, *n + k + 16, w->amsg);
	*n += put_head(w->msg + *n, 4, k);
	memcpy(w->msg + *n, m, k);
	*n += k;
}

/* The output location for levels [first, first + n) of model location loc. */
static uint64_t location_id(struct writer *w, uint32_t loc, uint32_t first, uint32_t n)
{
	const struct hpa_profile *prof = w->prof;
	const struct hpa_location *l = &prof->locs[loc];
	const struct hpa_chain *c = hpa_chain_of(w->syms, loc);
	uint64_t key = (uint64_t)loc << 32 | (uint64_t)first << 16 | n;
	uint32_t id = hpa_hashmap_get(&w->loc_by_key, key), i, nl;
	size_t len = 0;

	if (id)
		return id;
	id = (uint32_t)++w->nlocs;
	HPA_GROW(w->msg, 64, w->amsg);
	len += put_scalar(w->msg + len, 1, id);
	len += put_scalar(w->msg + len, 2, mapping_id(w, l->mapping));
	len += put_scalar(w->msg + len, 3, l->addr);
	nl = c->nr ? n : 1;
	for (i = 0; i < nl; i++) {
		if (c->nr) {
			const struct hpa_line *hl = &w->syms->lines[c->first + first + i];
			const struct hpa_function *hf = &w->syms->funcs[hl->func];
			/*
			 * The file is the line's, from the line table (as --traces prints it
			 * and pprof's own symbolizer does), not the function's declaring file:
			 * that is missing for static initialisers and lambdas, and names
			 * gram.c for a line of gram.y.  One Function per function and file.
			 */
			uint32_t file = hl->file ? hl->file : hf->filename;
			uint64_t f = function_id(w, (uint64_t)file << 32 | hl->func,
						 hpa_profile_str(prof, hf->name),
						 hpa_profile_str(prof, hf->system_name),
						 hpa_profile_str(prof, file), hf->start_line);
			put_line(w, &len, f, hl->line);
		} else {
			/* Unknown to hpa: named after its label, as in every hpa report. */
			struct hpa_frame fr = { loc, 0 };
			char *label = hpa_frame_label(prof, fr);
			uint64_t f = function_id(w, (uint64_t)str(w, label) | (UINT64_C(1) << 63),
						 label, label, "", 0);
			free(label);
			put_line(w, &len, f, 0);
		}
	}
	put_message(&w->loc_bytes, 4, w->msg, len);
	if (l->mapping && nl > 1)
		w->map_inline[l->mapping] = true;
	if (l->mapping && !c->nr)
		w->map_all_named[l->mapping] = false;
	hpa_hashmap_put(&w->loc_by_key, key, id);
	return id;
}

/* The "<no stack>" location of samples without frames (pprof drops empty samples). */
static uint64_t no_stack_location(struct writer *w)
{
	uint64_t key = UINT64_MAX, f;
	uint32_t id = hpa_hashmap_get(&w->loc_by_key, key);
	size_t len = 0;

	if (id)
		return id;
	id = (uint32_t)++w->nlocs;
	f = function_id(w, (uint64_t)str(w, "<no stack>") | (UINT64_C(1) << 63),
			"<no stack>", "<no stack>", "", 0);
	HPA_GROW(w->msg, 64, w->amsg);
	len += put_scalar(w->msg, 1, id);
	put_line(w, &len, f, 0);
	put_message(&w->loc_bytes, 4, w->msg, len);
	hpa_hashmap_put(&w->loc_by_key, key, id);
	return id;
}

/* The grouping engine's key of a frame: consecutive levels of one address are one location. */
static uint32_t path_key(void *ctx, const struct hpa_frame *frames, size_t nr, size_t *used)
{
	struct writer *w = ctx;
	size_t e = 1, slot = w->slot0[frames[0].loc] + frames[0].level;
	uint32_t id;

	while (e < nr && frames[e].loc == frames[0].loc && frames[e].level == frames[e - 1].level + 1)
		e++;
	*used = e;
	if (w->slot_loc[slot] >> 32 == e)   /* the same levels as last time: no lookup */
		return (uint32_t)w->slot_loc[slot];
	id = (uint32_t)location_id(w, frames[0].loc, frames[0].level, (uint32_t)e);
	w->slot_loc[slot] = (uint64_t)e << 32 | id;
	return id;
}

/* path_key() of location loc's levels from `first` on, with no frames to look at. */
static uint32_t path_loc_key(void *ctx, uint32_t loc, unsigned first)
{
	struct writer *w = ctx;
	const struct hpa_chain *c;
	uint32_t id, n;

	if (!first && w->whole[loc])
		return w->whole[loc];
	c = hpa_chain_of(w->syms, loc);
	n = (c->nr ? c->nr : 1) - first;
	id = (uint32_t)location_id(w, loc, first, n);
	if (!first)
		w->whole[loc] = id;
	return id;
}

static uint32_t path_empty(void *ctx)
{
	return (uint32_t)no_stack_location(ctx);
}

static PbValueType *value_type(struct writer *w, const char *type, const char *unit)
{
	PbValueType *vt = xcalloc(1, sizeof(*vt));

	perftools__profiles__value_type__init(vt);
	vt->type = str(w, type);
	vt->unit = str(w, unit);
	return vt;
}

/* A proto3 packed repeated field: tag, byte length, the varints (nothing when empty). */
static size_t put_packed(uint8_t *out, unsigned field, const uint64_t *v, size_t n)
{
	uint8_t *p = out;
	size_t i, len = 0;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		uint64_t x = v[i];
		len++;
		while (x >= 0x80) {
			x >>= 7;
			len++;
		}
	}
	p += put_head(p, field, len);
	for (i = 0; i < n; i++)
		p += put_varint(p, v[i]);
	return (size_t)(p - out);
}

/*
 * One Sample (profile field 2), encoded here rather than by protobuf-c's
 * descriptor walk (two passes per sample: its size, then its bytes): the
 * same bytes, written once.  Its location ids come as the grouping engine
 * keeps them, already a packed field's varints (locs, len bytes).
 */
static void put_sample(struct gz *g, const uint8_t *locs, size_t len,
		       const int64_t values[4], const int64_t label[4], size_t nlabels)
{
	uint8_t head[32], lenv[10], rest[160], *o;
	size_t i, n = 0, h, body;
	uint64_t v[4];

	for (i = 0; i < 4; i++)
		v[i] = (uint64_t)values[i];
	n += put_packed(rest + n, 2, v, 4);
	for (i = 0; i < nlabels; i++) {
		uint8_t lab[48];
		size_t lablen = put_scalar(lab, 1, (uint64_t)label[2 * i]);

		lablen += put_scalar(lab + lablen, 2, (uint64_t)label[2 * i + 1]);
		n += put_head(rest + n, 3, lablen);
		memcpy(rest + n, lab, lablen);
		n += lablen;
	}
	body = 1 + put_varint(lenv, len) + len + n;   /* field 1's tag, length, varints; then the rest */
	h = put_head(head, 2, body);
	h += put_head(head + h, 1, len);
	if ((o = gz_reserve(g, h + len + n)) != NULL) {   /* nearly all samples: in one place at once */
		memcpy(o, head, h);
		memcpy(o + h, locs, len);
		memcpy(o + h + len, rest, n);
		return;
	}
	gz_append(g, h, head);
	gz_append(g, len, locs);
	gz_append(g, n, rest);
}

static void free_profile(PbProfile *p, struct writer *w)
{
	size_t i, j;

	for (i = 0; i < p->n_sample; i++) {
		PbSample *s = p->sample[i];
		for (j = 0; j < s->n_label; j++)
			free(s->label[j]);
		free(s->label);
		free(s->location_id);
		free(s->value);
		free(s);
	}
	free(p->sample);
	hpa_sb_release(&w->loc_bytes);
	hpa_sb_release(&w->func_bytes);
	free(w->msg);
	for (i = 0; i < w->nmaps; i++)
		free(w->maps[i]);
	for (i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample_type);
	free(p->period_type);
	free(w->maps);
}

/* The strings of the thread labels of walk's groups, in their order (the first of each only). */
static void label_strings(struct writer *w, struct hpa_paths *paths, struct thread_split *ts, bool threads)
{
	const struct hpa_profile *prof = w->prof;
	struct hpa_hashmap known = HPA_HASHMAP_INIT;   /* the profile's thread ids -> 1, then 2 once seen */
	struct hpa_path_walk walk = { 0, 0 };
	struct hpa_path_group grp;
	int32_t last_thread = HPA_THREAD_ALL;
	size_t left = 0, i, j;
	bool unlisted = false;   /* a thread the profile does not list: no early end */

	for (i = 0; i < prof->threads_nr; i++)
		if (!hpa_hashmap_get(&known, (uint32_t)prof->threads[i].id)) {
			hpa_hashmap_put(&known, (uint32_t)prof->threads[i].id, 1);
			left++;
		}
	while (hpa_paths_next(paths, &walk, &grp)) {
		bool order = threads && grp.thread == HPA_THREAD_ALL;
		size_t nparts = order ? thread_order(ts, (uint32_t)walk.g) :
			group_parts(ts, threads, (uint32_t)walk.g, &grp);

		for (j = 0; j < nparts; j++) {
			int32_t thread = order ? ts->tp[nparts - 1 - j].thread : ts->out[j].thread;
			const char *name;
			char tid[16];

			if (thread == HPA_THREAD_ALL || thread == last_thread)
				continue;
			name = thread_name(prof, thread);
			snprintf(tid, sizeof(tid), "%d", thread);
			str(w, "thread");
			str(w, tid);
			if (name) {
				str(w, "thread_name");
				str(w, name);
			}
			last_thread = thread;
			switch (hpa_hashmap_get(&known, (uint32_t)thread)) {
			case 0:
				unlisted = true;
				break;
			case 1:
				hpa_hashmap_put(&known, (uint32_t)thread, 2);
				left--;
				break;
			}
		}
		if (!left && !unlisted)
			break;   /* every thread's strings are made */
	}
	hpa_hashmap_release(&known);
}

static void writer_init(struct writer *w, const struct hpa_profile *prof,
			const struct hpa_write_opts *opts)
{
	size_t m;

	memset(w, 0, sizeof(*w));
	w->prof = prof;
	w->syms = opts->view.symbols;
	w->opts = opts;
	hpa_strtab_init(&w->strs);
	w->map_out = xcalloc(prof->mappings_nr, sizeof(*w->map_out));
	w->map_all_named = xmalloc(prof->mappings_nr * sizeof(bool));
	memset(w->map_all_named, 1, prof->mappings_nr * sizeof(bool));
	w->map_inline = xcalloc(prof->mappings_nr, sizeof(bool));
	w->slot_loc = xcalloc(hpa_symbols_slots(w->syms) + 1, sizeof(*w->slot_loc));
	w->slot0 = hpa_symbols_slot0(w->syms);
	w->whole = xcalloc(prof->locs_nr + 1, sizeof(*w->whole));
	/* The main executable first: the first executable file mapping of input 1. */
	for (m = 0; prof->inputs_nr && m < prof->inputs[0].map_nr; m++) {
		uint32_t id = prof->inputs[0].map_first + (uint32_t)m;
		const char *path = prof->mappings[id].path;
		if (*path && *path != '[' && prof->mappings[id].perms[2] == 'x') {
			mapping_id(w, id);
			break;
		}
	}
}

static void writer_release(struct writer *w)
{
	free(w->map_out);
	free(w->map_all_named);
	free(w->map_inline);
	free(w->slot_loc);
	free(w->slot0);
	free(w->whole);
	hpa_hashmap_release(&w->loc_by_key);
	hpa_hashmap_release(&w->func_by_key);
	hpa_strtab_release(&w->strs);
}

/*
 * The samples: the view's, grouped by location list; per thread when the
 * profile has threads.  Without filters the groups are found by their
 * locations first and each group's keys (and the output locations) are
 * made as it is written, while the blocks before are compressed.
 */
struct sample_groups {
	struct hpa_view_opts vo;
	bool threads;                /* a sample per thread of each group */
	struct hpa_paths *paths;
	struct thread_split ts;
};

static void sample_groups_make(struct sample_groups *sg, struct writer *w,
			       const struct hpa_write_opts *opts)
{
	const struct hpa_profile *prof = w->prof;
	struct hpa_path_format fmt = { path_key, path_empty, w, path_loc_key, w->whole };

	memset(sg, 0, sizeof(*sg));
	sg->vo = opts->view;
	sg->threads = opts->view.thread == HPA_THREAD_ALL && hpa_profile_has_thread_samples(prof);
	sg->paths = hpa_group_paths(prof, &sg->vo, &fmt, sg->threads);
	if (sg->threads)
		thread_split_init(&sg->ts, prof, &sg->vo, hpa_paths_count(sg->paths),
				  hpa_paths_group_of(sg->paths));
}

static void sample_groups_release(struct sample_groups *sg)
{
	hpa_paths_release(sg->paths);
	thread_split_release(&sg->ts);
}

/*
 * The profile's fields but its tables: the value types, the period, when
 * the (first non-base) dump was taken (its file's mtime, or when it was
 * fetched), the default type.  The thread labels' strings come first, in
 * sample order (string ids); without thread samples or --thread no part
 * has a thread, and once every thread has had its strings the rest of the
 * groups would add none.
 */
static void profile_fields(PbProfile *p, struct writer *w, struct sample_groups *sg)
{
	const struct hpa_profile *prof = w->prof;
	size_t i, k;

	if (sg->threads || w->opts->view.thread != HPA_THREAD_ALL)
		label_strings(w, sg->paths, &sg->ts, sg->threads);
	p->n_sample_type = 4;
	p->sample_type = xcalloc(4, sizeof(*p->sample_type));
	for (k = 0; k < 4; k++)
		p->sample_type[k] = value_type(w, hpa_value_name(columns[k]),
					       hpa_value_is_objects(columns[k]) ? "count" : "bytes");
	p->period_type = value_type(w, "space", "bytes");
	p->period = !prof->inputs_nr ? 0 : prof->inputs[0].period >= 9.2e18 ? INT64_MAX :
		    (int64_t)prof->inputs[0].period;   /* a period of 2^63 is one int64 does not hold */
	for (i = 0; i < prof->inputs_nr; i++) {
		if (!prof->inputs[i].is_base) {
			p->time_nanos = prof->inputs[i].time_nanos;
			break;
		}
	}
	p->default_sample_type = str(w, hpa_value_name(w->opts->view.value));
}

/* What the samples written so far carry over: the running sums, the last thread's label strings. */
struct sample_state {
	double cum[4], done[4];
	int32_t last_thread;
	int64_t label[4];            /* "thread", its id, "thread_name", the name (0: none) */
};

/* A part's values: the floor of the running sums, so that the column totals come out exact. */
static void part_values(struct sample_state *st, const struct thread_part *part, int64_t values[4])
{
	size_t k;

	for (k = 0; k < 4; k++) {
		double next;
		st->cum[k] += part->v[columns[k]];
		next = floor(hpa_dust_to_zero(st->cum[k]) + 1e-9);
		values[k] = (int64_t)(next - st->done[k]);
		st->done[k] = next;
	}
}

/* A part's thread labels (strings: pprof drops numeric labels whose value is 0); their number. */
static size_t part_labels(struct writer *w, struct sample_state *st, int32_t thread)
{
	if (thread == HPA_THREAD_ALL)
		return 0;
	if (thread != st->last_thread) {   /* interned by profile_fields */
		const char *name = thread_name(w->prof, thread);
		char tid[16];
		snprintf(tid, sizeof(tid), "%d", thread);
		st->label[0] = str(w, "thread");
		st->label[1] = str(w, tid);
		st->label[2] = name ? str(w, "thread_name") : 0;
		st->label[3] = name ? str(w, name) : 0;
		st->last_thread = thread;
	}
	return st->label[3] ? 2 : 1;
}

/* Field 2: each group's samples (one per thread part), its location keys made as it goes. */
static void write_samples(struct gz *gz, struct writer *w, struct sample_groups *sg)
{
	struct hpa_path_walk walk = { 0, 0 };
	struct sample_state st = { { 0 }, { 0 }, HPA_THREAD_ALL, { 0 } };
	struct hpa_path_group grp;
	size_t j;

	while (!gz_failed(gz) && hpa_paths_next(sg->paths, &walk, &grp)) {
		size_t nparts = group_parts(&sg->ts, sg->threads, (uint32_t)walk.g, &grp), nkeys;
		const uint8_t *keys = hpa_paths_keys(sg->paths, &walk, &nkeys);

		for (j = 0; j < nparts; j++) {
			const struct thread_part *part = &sg->ts.out[j];
			int64_t values[4];
			size_t nlabels;

			part_values(&st, part, values);
			nlabels = part_labels(w, &st, part->thread);
			put_sample(gz, keys, nkeys, values, nlabels ? st.label : (int64_t[4]){ 0 }, nlabels);
		}
	}
}

/* Fields 3 to 6 (mappings with their flags, locations, functions, strings), then the rest. */
static void write_tables(struct gz *gz, struct writer *w, const PbProfile *p)
{
	const struct hpa_profile *prof = w->prof;
	PbProfile head = PERFTOOLS__PROFILES__PROFILE__INIT, tail;
	size_t i, m;

	for (i = 0; i < w->nmaps; i++) {   /* every location is made: the mappings' flags */
		PbMapping *pm = w->maps[i];
		for (m = 1; m < prof->mappings_nr && w->map_out[m] != pm->id; m++)
			;
		pm->has_functions = pm->has_filenames = pm->has_line_numbers = w->map_all_named[m];
		pm->has_inline_frames = w->map_inline[m];
	}
	head.n_mapping = w->nmaps;
	head.mapping = w->maps;
	if (!gz_failed(gz))
		protobuf_c_message_pack_to_buffer(&head.base, gz_buffer(gz));
	if (w->loc_bytes.len)
		gz_append(gz, w->loc_bytes.len, (const uint8_t *)w->loc_bytes.buf);
	if (w->func_bytes.len)
		gz_append(gz, w->func_bytes.len, (const uint8_t *)w->func_bytes.buf);
	for (i = 0; i < w->strs.nr && !gz_failed(gz); i++) {
		const char *sv = w->strs.strs[i];
		size_t len = strlen(sv), h;
		uint8_t sh[16];

		h = put_head(sh, 6, len);
		gz_append(gz, h, sh);
		gz_append(gz, len, (const uint8_t *)sv);
	}
	tail = *p;
	tail.n_sample_type = 0;
	tail.sample_type = NULL;
	tail.n_sample = 0;
	tail.sample = NULL;
	if (!gz_failed(gz))
		protobuf_c_message_pack_to_buffer(&tail.base, gz_buffer(gz));
}

/*
 * Packed in field order as one message would be, but each sample on its
 * own: the value types (field 1), the samples (2), then the rest.
 */
int hpa_report_pprof(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	PbProfile p = PERFTOOLS__PROFILES__PROFILE__INIT, head = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct writer w;
	struct sample_groups sg;
	struct gz *gz;
	int rc;

	if (isatty(fileno(fp)))
		return hpa_error("refusing to write a binary profile to a terminal; use -o FILE or a redirect");
	writer_init(&w, prof, opts);
	sample_groups_make(&sg, &w, opts);
	profile_fields(&p, &w, &sg);
	gz = gz_open(fp);
	head.n_sample_type = p.n_sample_type;
	head.sample_type = p.sample_type;
	protobuf_c_message_pack_to_buffer(&head.base, gz_buffer(gz));
	write_samples(gz, &w, &sg);
	write_tables(gz, &w, &p);
	rc = gz_close(gz);
	free_profile(&p, &w);
	sample_groups_release(&sg);
	writer_release(&w);
	return rc;
}
