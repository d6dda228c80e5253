/*
 * In-process symbolization with libdwfl.
 *
 * For each input, the files named in its maps section that hold at least one
 * profile address are reported to a Dwfl of their own at the bias the maps
 * line implies (computed from the file's PT_LOAD headers, so layouts whose
 * first segment is r--p, or where p_offset != p_vaddr, come out right).
 * Every location is then looked up once, at addr - 1: all heap-profile
 * frames are return addresses, the leaf included.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "hpa/diag.h"
#include "hpa/symbolize.h"
#include "hpa/xalloc.h"

struct module {
	const char *map_path;    /* path in the maps section */
	char *file;              /* file actually used */
	uint64_t start, offset;  /* lowest mapping of the file */
	Dwfl_Module *mod;
	char *why;               /* why it could not be used, or NULL */
};

struct symbolizer {
	struct hpa_profile *prof;
	const struct hpa_sym_opts *opts;
	char *debuginfo_path;
	Dwfl_Callbacks callbacks;
	struct hpa_line *chain;  /* inline chain being built */
	size_t chain_nr, chain_alloc;
};

/* Mappings that are not files, or files never to open. */
static bool is_pseudo_path(const char *path)
{
	if (!path[0] || (path[0] != '/' && path[0] != '.'))
		return true;   /* "", [heap], [stack], [vdso], memfd:..., anon_inode:... */
	return !strncmp(path, "/dev/", 5) || !strncmp(path, "/memfd:", 7) ||
	       !strncmp(path, "/SYSV", 5) || !strncmp(path, "/anon_hugepage", 14) ||
	       !strncmp(path, "/proc/", 6) || !strncmp(path, "/sys/", 5);
}

static char *join_sysroot(const char *sysroot, const char *path)
{
	size_t n;
	char *out;

	if (!sysroot || path[0] != '/')
		return xstrdup(path);
	n = strlen(sysroot) + strlen(path) + 1;
	out = xmalloc(n);
	snprintf(out, n, "%s%s", sysroot, path);
	return out;
}

static char *xasprintf(const char *fmt, ...) HPA_PRINTF(1, 2);
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	return s;
}

/*
 * The load bias of `file` when the page at file offset `offset` is mapped at
 * `start`: from the PT_LOAD segment holding that offset.  0 for ET_EXEC.
 * Returns NULL, or why the file cannot be used.
 */
static char *elf_bias(const char *file, uint64_t start, uint64_t offset,
		      bool *is_dyn, uint64_t *bias)
{
	GElf_Ehdr ehdr;
	size_t i, phnum;
	char *why = NULL;
	Elf *elf;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return xasprintf("cannot open %s: %s", file, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		why = xasprintf("%s is not an ELF file", file);
		goto out;
	}
	*is_dyn = ehdr.e_type == ET_DYN;
	*bias = 0;
	if (ehdr.e_type == ET_EXEC)
		goto out;
	if (ehdr.e_type != ET_DYN) {
		why = xasprintf("%s is not an executable or shared library", file);
		goto out;
	}
	if (elf_getphdrnum(elf, &phnum) < 0) {
		why = xasprintf("%s: no program headers", file);
		goto out;
	}
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t page_off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		page_off = ph.p_offset & ~(uint64_t)(ph.p_align > 1 ? ph.p_align - 1 : 0);
		if (ph.p_align > 4096)
			page_off = ph.p_offset & ~(uint64_t)4095;
		if (offset >= page_off && offset < ph.p_offset + (ph.p_filesz ? ph.p_filesz : 1)) {
			*bias = start - offset - (ph.p_vaddr - ph.p_offset);
			goto out;
		}
	}
	why = xasprintf("%s: no loadable segment at file offset 0x%llx (a different build?)",
			file, (unsigned long long)offset);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return why;
}

/* The main executable of an input: the first file mapping of its maps. */
static const char *main_path(const struct hpa_profile *prof, const struct hpa_input *in)
{
	uint32_t i;

	for (i = 0; i < in->map_nr; i++) {
		const struct hpa_mapping *m = &prof->mappings[in->map_first + i];
		if (!is_pseudo_path(m->path))
			return m->path;
	}
	return NULL;
}

static void report_module(struct symbolizer *s, Dwfl *dwfl, struct module *mod,
			  const char *main)
{
	const char *base = strrchr(mod->map_path, '/');
	uint64_t bias = 0;
	bool dyn = false;

	base = base ? base + 1 : mod->map_path;
	if (s->opts->binary && main && !strcmp(mod->map_path, main))
		mod->file = xstrdup(s->opts->binary);
	else
		mod->file = join_sysroot(s->opts->sysroot, mod->map_path);
	mod->why = elf_bias(mod->file, mod->start, mod->offset, &dyn, &bias);
	if (mod->why)
		return;
	mod->mod = dwfl_report_elf(dwfl, base, mod->file, -1, bias, true);
	if (!mod->mod)
		mod->why = xasprintf("%s: %s", mod->file, dwfl_errmsg(-1));
}

static void chain_add(struct symbolizer *s, const char *name, const char *system_name,
		      const char *decl_file, const char *file, int line)
{
	struct hpa_profile *prof = s->prof;
	struct hpa_line *l;

	HPA_GROW(s->chain, s->chain_nr + 1, s->chain_alloc);
	l = &s->chain[s->chain_nr++];
	l->func = hpa_profile_intern_function(prof, name, system_name, decl_file);
	l->file = hpa_strtab_intern(&prof->strs, file ? file : "");
	l->line = line > 0 ? (uint32_t)line : 0;
}

/* Add a frame named after `die` (subprogram or inlined subroutine). */
static void add_die_frame(struct symbolizer *s, Dwarf_Die *die, const char *file, int line)
{
	Dwarf_Attribute attr;
	const char *linkage, *name;
	char *demangled = NULL;

	linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!linkage)
		linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	name = dwarf_diename(die);
	if (linkage && (demangled = hpa_demangle(linkage)))
		name = demangled;
	else if (!name)
		name = linkage ? linkage : "??";
	chain_add(s, name, linkage ? linkage : name, dwarf_decl_file(die), file, line);
	free(demangled);
}

/* File name for a DW_AT_call_file index of `cu`. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nfiles;

	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &idx) != 0)
		return NULL;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/*
 * The inline chain of `pc` from DWARF; false if DWARF has no function there.
 * dwarf_getscopes() finds the innermost function scope, but past an inlined
 * instance it continues into the abstract origin's scopes; the concrete
 * callers come from dwarf_getscopes_die() on that innermost DIE.
 */
static bool dwarf_chain(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, &bias), *scopes = NULL, *chain = NULL;
	Dwfl_Line *dl = dwfl_module_getsrc(mod, pc);
	const char *file = NULL;
	int line = 0, n, i;
	bool found = false;

	if (dl)
		file = dwfl_lineinfo(dl, NULL, &line, NULL, NULL, NULL);
	if (!cu)
		return false;
	n = dwarf_getscopes(cu, pc - bias, &scopes);
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			break;
	}
	if (i < n)
		n = dwarf_getscopes_die(&scopes[i], &chain);
	else
		n = 0;
	for (i = 0; i < n; i++) {
		int tag = dwarf_tag(&chain[i]);
		Dwarf_Attribute attr;
		Dwarf_Word cl;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		add_die_frame(s, &chain[i], file, line);
		found = true;
		if (tag == DW_TAG_subprogram)
			break;
		/* The caller's frame continues at this inline call site. */
		file = call_file(cu, &chain[i]);
		line = dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &attr), &cl) == 0 ?
			(int)cl : 0;
	}
	free(scopes);
	free(chain);
	return found;
}

/* Name from .symtab/.dynsym: only a function symbol with a size containing pc. */
static bool symtab_name(struct symbolizer *s, Dwfl_Module *mod, Dwarf_Addr pc)
{
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	char *demangled;
	int type;

	if (!name)
		return false;
	type = GELF_ST_TYPE(sym.st_info);
	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sym.st_size || off >= sym.st_size)
		return false;
	demangled = hpa_demangle(name);
	chain_add(s, demangled ? demangled : name, name, NULL, NULL, 0);
	free(demangled);
	return true;
}

static void symbolize_loc(struct symbolizer *s, Dwfl *dwfl, uint32_t loc)
{
	uint64_t addr = s->prof->locs[loc].addr;
	Dwarf_Addr pc = addr ? addr - 1 : 0;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	enum hpa_sym_source src = HPA_SYM_NONE;

	s->chain_nr = 0;
	if (!mod)
		return;
	if (dwarf_chain(s, mod, pc)) {
		src = HPA_SYM_DWARF;
	} else {
		s->chain_nr = 0;
		if (symtab_name(s, mod, pc))
			src = HPA_SYM_SYMTAB;
	}
	if (src != HPA_SYM_NONE)
		hpa_profile_set_lines(s->prof, loc, s->chain, s->chain_nr, src);
}

static int symbolize_input(struct symbolizer *s, uint32_t input)
{
	struct hpa_profile *prof = s->prof;
	const struct hpa_input *in = hpa_profile_input(prof, input);
	const char *main = main_path(prof, in);
	struct module *mods = NULL;
	uint32_t *mod_of_map;
	size_t nmods = 0, amods = 0, i;
	Dwfl *dwfl;

	if (!in->map_nr)
		return 0;
	/* One module per mapped file that holds a location of this input. */
	mod_of_map = xcalloc(in->map_nr, sizeof(*mod_of_map));
	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping;
		const struct hpa_mapping *map;
		size_t j;

		if (!m || m < in->map_first || m >= in->map_first + in->map_nr ||
		    mod_of_map[m - in->map_first])
			continue;
		map = &prof->mappings[m];
		if (is_pseudo_path(map->path))
			continue;
		for (j = 0; j < nmods; j++)
			if (!strcmp(mods[j].map_path, map->path))
				break;
		if (j == nmods) {
			uint32_t k;
			HPA_GROW(mods, nmods + 1, amods);
			memset(&mods[nmods], 0, sizeof(mods[nmods]));
			mods[nmods].map_path = map->path;
			mods[nmods].start = UINT64_MAX;
			/* The lowest mapping of the file fixes the bias. */
			for (k = 0; k < in->map_nr; k++) {
				const struct hpa_mapping *o = &prof->mappings[in->map_first + k];
				if (!strcmp(o->path, map->path) && o->start < mods[nmods].start) {
					mods[nmods].start = o->start;
					mods[nmods].offset = o->offset;
				}
			}
			nmods++;
		}
		mod_of_map[m - in->map_first] = (uint32_t)j + 1;
	}

	dwfl = dwfl_begin(&s->callbacks);
	if (!dwfl) {
		free(mod_of_map);
		free(mods);
		return hpa_error("cannot start libdwfl: %s", dwfl_errmsg(-1));
	}
	dwfl_report_begin(dwfl);
	for (i = 0; i < nmods; i++)
		report_module(s, dwfl, &mods[i], main);
	dwfl_report_end(dwfl, NULL, NULL);
	/* Remember, per mapping, what was opened and what went wrong. */
	for (i = 0; i < in->map_nr; i++) {
		uint32_t j = mod_of_map[i];
		struct hpa_mapping *map = &prof->mappings[in->map_first + i];
		if (!j)
			continue;
		map->sym_file = hpa_strtab_intern(&prof->strs, mods[j - 1].file);
		if (mods[j - 1].why)
			map->sym_error = hpa_strtab_intern(&prof->strs, mods[j - 1].why);
	}

	for (i = 1; i < prof->locs_nr; i++) {
		uint32_t m = prof->locs[i].mapping, j;
		if (!m || m < in->map_first || m >= in->map_first + in->map_nr)
			continue;
		j = mod_of_map[m - in->map_first];
		if (j && mods[j - 1].mod)
			symbolize_loc(s, dwfl, (uint32_t)i);
	}

	dwfl_end(dwfl);
	for (i = 0; i < nmods; i++) {
		free(mods[i].file);
		free(mods[i].why);
	}
	free(mods);
	free(mod_of_map);
	return 0;
}

int hpa_symbolize(struct hpa_profile *prof, const struct hpa_sym_opts *opts)
{
	struct symbolizer s;
	size_t i, n;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.prof = prof;
	s.opts = opts;
	if (!opts->debuginfod)
		unsetenv("DEBUGINFOD_URLS");   /* libdwfl would query it on its own */
	elf_version(EV_CURRENT);

	/* ":.debug:/usr/lib/debug[:SYSROOT/usr/lib/debug][:DIR...]" */
	n = 64 + (opts->sysroot ? strlen(opts->sysroot) : 0);
	for (i = 0; i < opts->debug_dirs_nr; i++)
		n += strlen(opts->debug_dirs[i]) + 1;
	s.debuginfo_path = xmalloc(n);
	strcpy(s.debuginfo_path, ":.debug:/usr/lib/debug");
	if (opts->sysroot) {
		strcat(s.debuginfo_path, ":");
		strcat(s.debuginfo_path, opts->sysroot);
		strcat(s.debuginfo_path, "/usr/lib/debug");
	}
	for (i = 0; i < opts->debug_dirs_nr; i++) {
		strcat(s.debuginfo_path, ":");
		strcat(s.debuginfo_path, opts->debug_dirs[i]);
	}
	s.callbacks.find_elf = dwfl_build_id_find_elf;
	s.callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	s.callbacks.section_address = dwfl_offline_section_address;
	s.callbacks.debuginfo_path = &s.debuginfo_path;

	for (i = 1; i <= prof->inputs_nr && !rc; i++)
		rc = symbolize_input(&s, (uint32_t)i);
	free(s.debuginfo_path);
	free(s.chain);
	return rc;
}
