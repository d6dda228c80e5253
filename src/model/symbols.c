/*
 * The symbols table (symbols.h): functions interned by their three
 * strings, each location's inline chain a slice of lines[].
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/symbols.h"
#include "hpa/xalloc.h"

void hpa_symbols_init(struct hpa_symbols *syms)
{
	memset(syms, 0, sizeof(*syms));
	hpa_hashmap_init(&syms->func_by_hash);
	HPA_GROW(syms->funcs, 1, syms->funcs_alloc);
	memset(&syms->funcs[0], 0, sizeof(syms->funcs[0]));
	syms->funcs_nr = 1;
	syms->func_next = xcalloc(syms->funcs_alloc, sizeof(*syms->func_next));
	hpa_symbols_cover(syms, 1);   /* location 0 is "none" */
}

void hpa_symbols_release(struct hpa_symbols *syms)
{
	free(syms->funcs);
	free(syms->func_next);
	free(syms->lines);
	free(syms->chains);
	free(syms->maps);
	free(syms->source_dirs);
	hpa_hashmap_release(&syms->func_by_hash);
	memset(syms, 0, sizeof(*syms));
}

uint32_t hpa_symbols_intern_function(struct hpa_symbols *syms, struct hpa_strtab *strs,
				     const char *name, const char *system_name, const char *filename)
{
	uint32_t n = hpa_strtab_intern_shown(strs, name);
	uint32_t sn = hpa_strtab_intern_shown(strs, system_name);
	uint32_t fn = hpa_strtab_intern_shown(strs, filename);
	uint64_t h = hpa_hash64(((uint64_t)n << 32 | sn) ^ hpa_hash64(fn));
	uint32_t first = hpa_hashmap_get(&syms->func_by_hash, h), id;
	size_t old_alloc = syms->funcs_alloc;

	for (id = first; id; id = syms->func_next[id]) {
		const struct hpa_function *f = &syms->funcs[id];
		if (f->name == n && f->system_name == sn && f->filename == fn)
			return id;
	}
	if (syms->funcs_nr >= UINT32_MAX)
		HPA_BUG("more than 2^32 functions");
	id = (uint32_t)syms->funcs_nr;
	HPA_GROW(syms->funcs, syms->funcs_nr + 1, syms->funcs_alloc);
	if (syms->funcs_alloc != old_alloc)
		syms->func_next = xgrow(syms->func_next, old_alloc * sizeof(*syms->func_next),
					st_mult(syms->funcs_alloc, sizeof(*syms->func_next)));
	syms->funcs[id] = (struct hpa_function){ n, sn, fn, 0, HPA_LANG_UNKNOWN };
	syms->func_next[id] = first;
	syms->funcs_nr++;
	hpa_hashmap_put(&syms->func_by_hash, h, id);
	return id;
}

void hpa_symbols_cover(struct hpa_symbols *syms, size_t locs_nr)
{
	if (locs_nr <= syms->chains_nr)
		return;
	HPA_GROW(syms->chains, locs_nr, syms->chains_alloc);
	memset(syms->chains + syms->chains_nr, 0, (locs_nr - syms->chains_nr) * sizeof(*syms->chains));
	syms->chains_nr = locs_nr;
}

void hpa_symbols_set_chain(struct hpa_symbols *syms, uint32_t loc, const struct hpa_line *lines,
			   size_t nr, enum hpa_sym_source source)
{
	struct hpa_chain *c;

	if (nr > UINT16_MAX)
		nr = UINT16_MAX;
	if (syms->lines_nr + nr > UINT32_MAX)
		HPA_BUG("more than 2^32 inline frames");
	hpa_symbols_cover(syms, (size_t)loc + 1);
	HPA_GROW(syms->lines, syms->lines_nr + nr, syms->lines_alloc);
	memcpy(syms->lines + syms->lines_nr, lines, nr * sizeof(*lines));
	c = &syms->chains[loc];
	c->first = (uint32_t)syms->lines_nr;
	c->nr = (uint16_t)nr;
	c->source = (uint8_t)(nr ? source : HPA_SYM_NONE);
	syms->lines_nr += nr;
}

void hpa_symbols_add_source_dir(struct hpa_symbols *syms, uint32_t dir)
{
	size_t k;

	for (k = 0; k < syms->source_dirs_nr; k++)
		if (syms->source_dirs[k] == dir)
			return;
	HPA_GROW(syms->source_dirs, syms->source_dirs_nr + 1, syms->source_dirs_alloc);
	syms->source_dirs[syms->source_dirs_nr++] = dir;
}

struct hpa_map_symbols *hpa_symbols_map(struct hpa_symbols *syms, uint32_t m, size_t maps_nr)
{
	if (!syms->maps) {
		syms->maps = xcalloc(maps_nr, sizeof(*syms->maps));
		syms->maps_nr = maps_nr;
	}
	if (m >= syms->maps_nr)
		HPA_BUG("mapping %u of %zu", m, syms->maps_nr);
	return &syms->maps[m];
}

uint32_t hpa_map_build_id(const struct hpa_profile *prof, const struct hpa_symbols *syms, uint32_t m)
{
	if (syms && m < syms->maps_nr && syms->maps[m].set)
		return syms->maps[m].build_id;
	return prof->mappings[m].build_id;
}

uint32_t *hpa_symbols_slot0(const struct hpa_symbols *syms)
{
	uint32_t *slot0 = xmalloc(st_mult(syms->chains_nr + 1, sizeof(*slot0)));
	size_t i;

	for (i = 0; i < syms->chains_nr; i++)
		slot0[i] = (uint32_t)hpa_frame_slot(syms, (struct hpa_frame){ (uint32_t)i, 0 });
	return slot0;
}
