/*
 * Where a module's file and debug file are found (symbolizer.h): the
 * sysroot, the build-id and debug-link searches with the decompression
 * guard, PPROF_BINARY_PATH, and what a module that cannot be used says.
 */
#include "hpa/compat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "hpa/diag.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "debuginfod.h"
#include "elfview.h"
#include "symbolizer.h"

/* Mappings that are not files, or files never to open. */
bool is_pseudo_path(const char *path)
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

/*
 * libdw inflates every compressed debug section of a file it opens: one
 * whose claim passes the bound (a decompression bomb) keeps its DWARF
 * unread, and its names come from the symbol table (said once, by the
 * module's first part).
 */
static void inflate_guard(struct module *m)
{
	int fd = open(m->file, O_RDONLY | O_CLOEXEC);
	uint64_t total;
	char *why;

	if (fd < 0)
		return;
	why = elf_inflate_check_fd(fd, m->file, &total);
	close(fd);
	if (!why)
		return;
	m->no_dwarf = true;
	if (!m->part_no)
		hpa_warn("%s; its DWARF is not read, names come from its symbol table", why);
	free(why);
}

/* Is the file at `path`, if there is one, a decompression bomb?  Says so once. */
static bool is_bomb(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t total;
	struct stat st;
	char *why;

	if (fd < 0)
		return false;
	why = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? elf_inflate_check_fd(fd, path, &total) : NULL;
	close(fd);
	if (why)
		hpa_warn("%s; that debug file is not used", why);
	free(why);
	return why != NULL;
}

/*
 * libdwfl's standard search keeps the debug file it finds and inflates it
 * whatever this callback answers: so the files it would find (by build-id
 * under each folder of the search path, by debug link beside the module,
 * in its .debug folder and under each folder) are checked first, and with
 * a bomb among them there is no separate debug file.
 */
int find_debuginfo_guarded(Dwfl_Module *mod, void **userdata, const char *modname,
				  Dwarf_Addr base, const char *file, const char *debuglink,
				  GElf_Word crc, char **debuginfo_file_name)
{
	const char *path = userdata && *userdata ? *userdata : "", *p, *end;
	const unsigned char *bits;
	GElf_Addr vaddr;
	char hex[129];
	int n = dwfl_module_build_id(mod, &bits, &vaddr);
	bool bomb = false;
	char *dir = file ? xstrdup(file) : NULL, *slash = dir ? strrchr(dir, '/') : NULL;

	if (slash)
		*slash = '\0';
	for (p = path; !bomb && p; p = *end ? end + 1 : NULL) {
		char *cand;
		end = p + strcspn(p, ":");
		if (*p != '/')
			continue;
		if (n > 0 && elf_build_id_hex(bits, n, hex)) {
			cand = hpa_xasprintf("%.*s/.build-id/%.2s/%s.debug", (int)(end - p), p, hex, hex + 2);
			bomb = is_bomb(cand);
			free(cand);
		}
		if (!bomb && debuglink && slash) {
			cand = hpa_xasprintf("%.*s%s/%s", (int)(end - p), p, dir, debuglink);
			bomb = is_bomb(cand);
			free(cand);
		}
	}
	if (!bomb && debuglink && slash) {
		char *a = hpa_xasprintf("%s/%s", dir, debuglink), *b = hpa_xasprintf("%s/.debug/%s", dir, debuglink);
		bomb = (strcmp(a, file) && is_bomb(a)) || is_bomb(b);
		free(a);
		free(b);
	}
	free(dir);
	if (bomb)
		return -1;
	return hpa_find_debuginfo(mod, userdata, modname, base, file, debuglink, crc, debuginfo_file_name);
}

/* Open `file` and check that it can be the module that ran; NULL when it can, else why not. */
static char *check_file(const struct symbolizer *s, const struct module *m, const char *file,
			uint64_t *bias)
{
	const struct hpa_input *in = &s->prof->inputs[m->input - 1];
	struct elf_view v;
	char *why;

	*bias = 0;
	why = elf_view_open(&v, file);
	if (!why)
		why = elf_view_bias(&v, m->start, m->offset, m->perms, bias);
	if (!why && !(m->start == 0 && m->offset == 0 && in->map_nr == 1 &&
		      s->prof->mappings[in->map_first].limit == UINT64_MAX)) {
		/* Not for the catch-all of a profile without maps: nothing to check against. */
		why = elf_view_check_mappings(&v, s->prof, in, m->map_path, *bias);
		if (!why)
			why = elf_view_check_addresses(&v, *bias, m->all_pcs, m->all_npcs);
	}
	elf_view_close(&v);
	return why;
}

/* The build-id a mapping of the module's file carries in the profile (pprof), or "". */
static const char *mapping_build_id(const struct symbolizer *s, const struct module *m)
{
	const struct hpa_input *in = &s->prof->inputs[m->input - 1];
	uint32_t i;

	for (i = 0; i < in->map_nr; i++) {
		const struct hpa_mapping *map = &s->prof->mappings[in->map_first + i];
		if (map->build_id && !strcmp(map->path, m->map_path))
			return hpa_profile_str(s->prof, map->build_id);
	}
	return "";
}

/*
 * PPROF_BINARY_PATH, as pprof searches it: in each folder, DIR/BUILDID/NAME
 * (with the profile's build-id), DIR/NAME and DIR/MAPPED-PATH.  The first
 * file that can be the module is used.  Returns it, or NULL.
 */
static char *search_binary_path(const struct symbolizer *s, const struct module *m, uint64_t *bias)
{
	const char *list = s->opts->binary_path, *build_id = mapping_build_id(s, m);
	const char *base = strrchr(m->map_path, '/');

	base = base ? base + 1 : m->map_path;
	for (; list && *list; list += strcspn(list, ":") + (list[strcspn(list, ":")] == ':')) {
		int dl = (int)strcspn(list, ":");   /* one folder of the list */
		char *tries[3];
		size_t n = 0, i;
		int found = -1;

		if (!dl)
			continue;
		if (*build_id)
			tries[n++] = hpa_xasprintf("%.*s/%s/%s", dl, list, build_id, base);
		tries[n++] = hpa_xasprintf("%.*s/%s", dl, list, base);
		if (m->map_path[0] == '/')
			tries[n++] = hpa_xasprintf("%.*s%s", dl, list, m->map_path);
		for (i = 0; i < n && found < 0; i++) {
			char *why = check_file(s, m, tries[i], bias);
			if (!why)
				found = (int)i;
			free(why);
		}
		for (i = 0; i < n; i++)
			if ((int)i != found)
				free(tries[i]);
		if (found >= 0)
			return tries[found];
	}
	return NULL;
}

/*
 * Find the module's file (BINARY for the main program, else its mapped
 * path under --sysroot, else in PPROF_BINARY_PATH), check that it can be
 * the one that ran, and report it to its Dwfl at the bias its maps line
 * implies.
 */
void report_module(const struct symbolizer *s, struct module *m)
{
	const struct hpa_input *in = &s->prof->inputs[m->input - 1];
	const char *main = main_path(s->prof, in);
	const char *base = strrchr(m->map_path, '/');
	bool given = s->opts->binary && main && !strcmp(m->map_path, main);
	uint64_t bias = 0;

	base = base ? base + 1 : m->map_path;
	m->file = given ? xstrdup(s->opts->binary) : join_sysroot(s->opts->sysroot, m->map_path);
	m->why = check_file(s, m, m->file, &bias);
	if (m->why && given) {   /* the wrong BINARY: is the file the profile names the one? */
		char *own = join_sysroot(s->opts->sysroot, m->map_path);
		uint64_t own_bias;

		if (strcmp(own, m->file)) {
			char *no = check_file(s, m, own, &own_bias);
			if (!no) {
				char *why = hpa_xasprintf("%s; the profile's own %s is there and fits: "
							  "give it as BINARY, or no BINARY", m->why, own);
				free(m->why);
				m->why = why;
			}
			free(no);
		}
		free(own);
	}
	if (m->why && !given && s->opts->binary_path) {
		char *found = search_binary_path(s, m, &bias);
		if (found) {
			free(m->file);
			free(m->why);
			m->file = found;
			m->why = NULL;
		} else {
			char *why = hpa_xasprintf("%s; not in PPROF_BINARY_PATH either", m->why);
			free(m->why);
			m->why = why;
		}
	}
	if (m->why)
		return;
	inflate_guard(m);
	m->mod = dwfl_report_elf(m->dwfl, base, m->file, -1, bias, true);
	if (m->mod) {   /* find_debuginfo_guarded() gets the search path as the module's user data */
		void **ud = NULL;
		dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		if (ud)
			*ud = s->debuginfo_path;
	}
	if (!m->mod)
		m->why = hpa_xasprintf("%s: %s", m->file, dwfl_errmsg(-1));
}
