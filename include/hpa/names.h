/*
 * What a frame is called in reports, decided once: after symbolization,
 * hpa_name_frames() gives every frame (location and inline level) its
 * names as strings interned in the profile's table, in a struct hpa_names
 * of their own that the passes after it take (views: hpa_view_opts.names),
 * and every writer and filter reads them from there.  Language-aware short
 * names belong in that one place.
 */
#ifndef HPA_NAMES_H
#define HPA_NAMES_H

#include "hpa/compat.h"
#include "hpa/profile.h"
#include "hpa/strip.h"
#include "hpa/symbols.h"

/*
 * The name of a frame hpa could not symbolize; malloc'ed: "MODULE+0xOFFSET"
 * (file offset) in a mapped file, else "0xADDR ([anon])" or
 * "0xADDR (unmapped)".
 */
char *hpa_frame_label(const struct hpa_profile *prof, struct hpa_frame f);

/*
 * Make a frame name safe for folded text, in place: ';' becomes ':',
 * control characters '?', and a trailing " <digits>" becomes "_<digits>".
 */
void hpa_folded_name(char *name);


/* The names of one frame; strings are ids in the profile's string table. */
struct hpa_frame_name {
	uint32_t full;      /* demangled name; an unknown frame's label */
	uint32_t shortn;    /* jeprof's short name (C++ arguments dropped); the label */
	uint32_t display;   /* shortn, an inlined callee marked " (inline)": report rows */
	uint32_t folded;    /* full, an inlined callee marked "[inline]", folded-safe */
	uint32_t graph;     /* full, an inlined callee marked " [inline]": flame graphs */
	bool inlined;       /* an inlined callee, not its location's outermost function */
	bool known;         /* symbolized (else the names are its label) */
};

/* Every frame's names, by frame slot (view.h). */
struct hpa_names {
	const struct hpa_symbols *syms;   /* the symbols they name */
	struct hpa_frame_name *by_slot;
	size_t nr;          /* the symbols' slots when they were made */
};

/* A frame's name in folded stacks (full, "[inline]" marked, made safe); malloc'ed. */
char *hpa_folded_frame(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f);
/* The same with the short name (--short-names). */
char *hpa_folded_short_frame(const struct hpa_profile *prof, const struct hpa_names *names,
			     struct hpa_frame f);

/*
 * The language of a function named `name` (demangled) and `system_name`
 * (as in the binary): `known` when DWARF said, else the mangling scheme
 * (_Z: C++, _R or a legacy Rust hash: Rust), else the name's shape (Go's
 * "pkg.(*T).m" and "path/pkg.f", JS's "(anonymous)", C++'s "::" and
 * argument lists).
 */
enum hpa_lang hpa_name_lang(const char *name, const char *system_name, enum hpa_lang known);

/*
 * The short name of `name` by its language's rule, malloc'ed: C++ and
 * Rust drop argument and template lists and a return type (jeprof's rule);
 * Go drops the import path ("github.com/x/pkg.(*T).m" -> "pkg.(*T).m", as
 * pprof does); every other name is kept whole.  Never empty: a rule that
 * would leave nothing keeps the name.
 */
char *hpa_lang_short_name(const char *name, enum hpa_lang lang);

/* A piece of a string: a name without a copy of its own. */
struct hpa_name_view {
	const char *p;
	size_t len;
};

/* The most names hpa_lang_names() gives (a Go path's elements past that are skipped). */
#define HPA_NAMES_MAX 16

/*
 * The names `name` may be shown by, shortest first, into out[] (views of
 * `shortn` and `name`, which must outlive them), their number returned: its
 * short name `shortn`, then for Go the import path's elements added one
 * at a time ("pprof/profile.(*P).m"), for C++ and Rust the name with its
 * template arguments but no argument list or return type, last the name
 * itself.  What tells apart two functions whose short names are the same.
 */
size_t hpa_lang_names(const char *name, const char *shortn, enum hpa_lang lang,
		      struct hpa_name_view out[HPA_NAMES_MAX]);

/*
 * Name every frame of the profile into *out (the strings interned in the
 * profile's table); run after symbolization, before any report.
 */
void hpa_name_frames(const struct hpa_profile *prof, const struct hpa_symbols *syms, struct hpa_names *out);
void hpa_names_release(struct hpa_names *names);

/*
 * Report rows are keyed by full names: where two full names of frames a
 * report can show (allocator frames only without the allocator cut) share a short
 * name (Go's html/template and text/template "template.(*Template).Parse",
 * C++ overloads), each gets the shortest of its hpa_lang_names() that no
 * other of them has at the same length (as go tool pprof does), in its
 * short and display names.  Run after hpa_name_frames() and the allocator
 * cut (strip.h; NULL: --keep-internal or no symbols), before any report.
 */
void hpa_name_distinct(const struct hpa_profile *prof, struct hpa_names *names, const struct hpa_cuts *cut);

/* The names of frame `f` (names: what hpa_name_frames() gave for this profile). */
const struct hpa_frame_name *hpa_frame_name(const struct hpa_profile *prof, const struct hpa_names *names,
					    struct hpa_frame f);

/* Shorthands: one of a frame's names as a string. */
const char *hpa_frame_full(const struct hpa_profile *prof, const struct hpa_names *names, struct hpa_frame f);
const char *hpa_frame_display(const struct hpa_profile *prof, const struct hpa_names *names,
			      struct hpa_frame f);

#endif
