/*
 * jemalloc malloc_stats_print() JSON (opts "J"; brpc's /memory page on
 * jemalloc gives "Ja"), read with json-c: Debian's well-kept JSON library,
 * so hpa carries no JSON parser of its own.  Paths are spec/STATS.md
 * section 2: "stats.arenas" is one key with a dot in it; bins are joined
 * with arenas.bin[j] for their size, regions and slab size.
 */
#include "hpa/compat.h"

#include <string.h>

#include <json-c/json.h>

#include "hpa/diag.h"
#include "hpa/stats.h"
#include "hpa/xalloc.h"

struct jctx {
	struct hpa_pos pos;
	const char *data;
};

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* An unsigned integer at o.key; false if absent or not one. */
static bool u64(struct json_object *o, const char *key, uint64_t *out)
{
	struct json_object *v = get(o, key);

	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

/* Line of byte offset `off`, for messages. */
static uint64_t line_at(const char *data, size_t off)
{
	uint64_t line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		line += data[i] == '\n';
	return line;
}

/* Add one arena block's figures (pages as pages) into the sums. */
static void add_arena(struct json_object *a, struct hpa_alloc_stats *st, uint64_t *pdirty,
		      uint64_t *pmuzzy, uint64_t *curregs, uint64_t *curslabs, size_t nbins)
{
	struct json_object *bins = get(a, "bins");
	uint64_t v;
	size_t j;

	if (u64(a, "pdirty", &v))
		*pdirty += v, st->has_dirty = true;
	if (u64(a, "pmuzzy", &v))
		*pmuzzy += v, st->has_muzzy = true;
	if (u64(a, "internal", &v))
		st->internal += v, st->has_internal = true;
	if (u64(a, "tcache_bytes", &v))
		st->tcache_bytes += v, st->has_tcache = true;
	if (u64(a, "base", &v))
		st->base += v;
	if (!bins || !json_object_is_type(bins, json_type_array))
		return;
	for (j = 0; j < nbins && j < json_object_array_length(bins); j++) {
		struct json_object *b = json_object_array_get_idx(bins, j);
		if (u64(b, "curregs", &v))
			curregs[j] += v;
		if (u64(b, "curslabs", &v) || u64(b, "curruns", &v))
			curslabs[j] += v;
	}
}

/* The JSON document data[0 .. len), or NULL after saying what is wrong at pos (its line set). */
static struct json_object *parse_json(const char *data, size_t len, struct hpa_pos *pos)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *root;

	if (!tok) {
		hpa_error_at(pos, "out of memory reading JSON");
		return NULL;
	}
	if (len > (size_t)INT32_MAX) {
		json_tokener_free(tok);
		hpa_error_at(pos, "JSON statistics larger than 2 GiB");
		return NULL;
	}
	root = json_tokener_parse_ex(tok, data, (int)len);
	pos->line = line_at(data, json_tokener_get_parse_end(tok));
	if (!root) {
		enum json_tokener_error e = json_tokener_get_error(tok);
		if (e == json_tokener_continue)
			hpa_error_at(pos, "JSON statistics cut short");
		else
			hpa_error_at(pos, "bad JSON: %s", json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	return root;
}

int hpa_je_json_parse(const char *name, const char *data, size_t len, struct hpa_alloc_stats *st)
{
	struct json_object *root, *j, *stats, *arenas, *sa, *merged, *bin, *v;
	struct hpa_pos pos = { name, 0 };
	uint64_t pdirty = 0, pmuzzy = 0, *curregs = NULL, *curslabs = NULL;
	size_t nbins = 0, i;
	int rc = -1;

	st->allocator = HPA_ALLOC_JEMALLOC;
	st->format = xstrdup("jemalloc statistics (JSON)");
	st->lg_prof_sample = -1;
	root = parse_json(data, len, &pos);
	if (!root)
		return -1;
	j = get(root, "jemalloc");
	stats = get(j, "stats");
	if (!j || !stats || !u64(stats, "allocated", &st->allocated) || !u64(stats, "active", &st->active)) {
		pos.line = 1;
		hpa_error_at(&pos, "JSON without jemalloc.stats.allocated and .active: not jemalloc's "
			     "malloc_stats_print() output, or printed without statistics");
		goto out;
	}
	if (!u64(stats, "resident", &st->resident))
		st->resident = st->active;
	u64(stats, "metadata", &st->metadata);
	u64(stats, "mapped", &st->mapped);
	u64(stats, "retained", &st->retained);
	if ((v = get(j, "version")) && json_object_is_type(v, json_type_string))
		st->version = xstrdup(json_object_get_string(v));
	{
		uint64_t lg;
		if (u64(get(j, "opt"), "lg_prof_sample", &lg) && lg < 64)
			st->lg_prof_sample = (int)lg;
		if ((v = get(get(j, "opt"), "prof")) && json_object_is_type(v, json_type_boolean))
			st->prof_on = json_object_get_boolean(v);
		st->cache_oblivious = true;
		if ((v = get(get(j, "opt"), "cache_oblivious")) && json_object_is_type(v, json_type_boolean))
			st->cache_oblivious = json_object_get_boolean(v);
	}
	arenas = get(j, "arenas");
	if (!u64(arenas, "page", &st->page) || !st->page || st->page & (st->page - 1))
		st->page = 4096;
	bin = get(arenas, "bin");
	if (bin && json_object_is_type(bin, json_type_array))
		nbins = json_object_array_length(bin);
	curregs = xcalloc(nbins + 1, sizeof(*curregs));
	curslabs = xcalloc(nbins + 1, sizeof(*curslabs));
	sa = get(j, "stats.arenas");
	merged = get(sa, "merged");
	if (merged) {
		add_arena(merged, st, &pdirty, &pmuzzy, curregs, curslabs, nbins);
	} else if (sa && json_object_is_type(sa, json_type_object)) {
		json_object_object_foreach(sa, key, a) {
			if (strcmp(key, "destroyed"))   /* destroyed arenas hold nothing now */
				add_arena(a, st, &pdirty, &pmuzzy, curregs, curslabs, nbins);
		}
	}
	st->dirty = pdirty * st->page;
	st->muzzy = pmuzzy * st->page;
	for (i = 0; i < nbins; i++) {
		struct json_object *b = json_object_array_get_idx(bin, i);
		uint64_t size, nregs, slab;

		if (!u64(b, "size", &size) || !u64(b, "nregs", &nregs) || !size || !nregs)
			continue;
		if (!u64(b, "slab_size", &slab) && !u64(b, "run_size", &slab))
			continue;
		HPA_GROW(st->bins, st->bins_nr + 1, st->bins_alloc);
		st->bins[st->bins_nr++] = (struct hpa_je_bin){ size, nregs, slab, curregs[i], curslabs[i] };
	}
	rc = 0;
out:
	free(curregs);
	free(curslabs);
	json_object_put(root);
	return rc;
}
