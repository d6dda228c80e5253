/*
 * Symbolization in-process with elfutils (libdwfl/libdw): every location is
 * given its inline chain of (function, file:line) frames from DWARF, or a
 * function name from the ELF symbol table, or stays unknown.
 */
#ifndef HPA_SYMBOLIZE_H
#define HPA_SYMBOLIZE_H

#include "hpa/compat.h"
#include "hpa/fetch.h"
#include "hpa/profile.h"
#include "hpa/symbols.h"

struct hpa_sym_opts {
	const char *binary;        /* main executable to use instead of the mapped path */
	const char *sysroot;       /* prefix for every mapped path, or NULL */
	const char *const *debug_dirs; /* extra debug-file directories */
	size_t debug_dirs_nr;
	bool debuginfod;           /* allow debuginfod (DEBUGINFOD_URLS) lookups */
	const char *binary_path;   /* PPROF_BINARY_PATH: folders to look in last, or NULL */
	bool no_lines;             /* functions only: no source file or line (the line
				      programs are most of libdw's work) */
};

/*
 * Symbolize every location of `prof` that lies in a mapped file and has no
 * chain in `syms` yet, the profile unchanged: what is found goes into
 * `syms` (each mapping's file, build-id and error, every location's inline
 * chain, the build folders), its strings into the profile's pool.
 * Problems with single modules are warnings; returns -1 (`syms` as it was)
 * only for setup failures.
 */
int hpa_symbolize(const struct hpa_profile *prof, const struct hpa_sym_opts *opts, struct hpa_symbols *syms);

/*
 * Whether the ELF file `path` is stripped: no .symtab and no DWARF, so
 * only its exported (.dynsym) names could name anything.  A file that
 * does not open is not called stripped.
 */
bool hpa_elf_is_stripped(const char *path);

/*
 * Whether `path` is an ELF executable linked at a fixed address (ET_EXEC,
 * not PIE): the only file whose addresses a profile without maps can name.
 */
bool hpa_elf_is_fixed(const char *path);

/*
 * Demangle a C++ (Itanium) or Rust (legacy, v0) name; NULL if `name` is not
 * mangled.  The result is malloc'ed.  A trailing "@VERSION" is dropped.
 */
char *hpa_demangle(const char *name);

/*
 * Remove compiler clone suffixes in place: " [clone .constprop.0]" in
 * demangled C++ names, ".constprop.0", ".isra.0", ".part.0", ".cold",
 * ".lto_priv.0", ".localalias" and ".llvm.123" in C symbol names.
 */
void hpa_strip_clone_suffix(char *name);

/*
 * jeprof's short function name: argument lists (and a following "const"),
 * template arguments and a leading return type removed, in place.
 */
void hpa_short_name(char *name);

/*
 * For inputs fetched from a gperftools/brpc server: ask its /pprof/symbol
 * for the addresses local symbolization left unnamed, their names into
 * `syms` as hpa_symbolize() does.  Problems are warnings.
 */
void hpa_symbolize_remote(const struct hpa_profile *prof, const struct hpa_http_opts *ho,
			  struct hpa_symbols *syms);

#endif
