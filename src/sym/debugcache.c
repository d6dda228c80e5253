/*
 * A cache of decompressed debug files.
 *
 * Debian's debug packages (libc6-dbg, *-dbgsym) ship their DWARF
 * zlib-compressed, and libdw inflates every debug section of such a file
 * as it opens it, whatever is read afterwards: for libc that is megabytes
 * at every run, even for the two addresses a heap profile has in libc.  So the first time hpa meets a compressed debug file it writes
 * an uncompressed copy, named by build-id, and opens that from then on;
 * libdw then reads only the pages it needs.
 *
 * Where: $HPA_CACHE_DIR, else $XDG_CACHE_HOME/hpa, else ~/.cache/hpa; off
 * when HPA_CACHE_DIR is set to "" or "off".  A copy is written under a
 * temporary name and renamed into place, so a run that stops half way, or
 * two at once, never leave a partial file under a real name; a file that
 * is not a complete copy with the right build-id is ignored and replaced.
 * The folder is kept under 1 GiB by removing the least recently written
 * copies, and a copy that would be larger than that (or whose sections
 * claim more than elf_inflate_check() allows) is never written.  Any
 * failure just means the original file is used.
 */
#include "hpa/compat.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "hpa/strbuf.h"
#include "hpa/tempfile.h"
#include "hpa/xalloc.h"
#include "debugcache.h"
#include "elfview.h"

#define CACHE_LIMIT ((off_t)1 << 30)

/* The cache folder (malloc'ed, without the trailing "debug"), or NULL when off. */
static char *cache_dir(void)
{
	const char *d = getenv("HPA_CACHE_DIR"), *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");

	if (d)
		return *d && strcmp(d, "off") ? xstrdup(d) : NULL;
	if (x && *x == '/')
		return hpa_xasprintf("%s/hpa", x);
	if (h && *h == '/')
		return hpa_xasprintf("%s/.cache/hpa", h);
	return NULL;
}

/* Is `scn` a compressed .debug_ section? */
static bool compressed_debug(Elf *e, Elf_Scn *scn, size_t shstrndx)
{
	GElf_Shdr sh;
	const char *name;

	if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED))
		return false;
	name = elf_strptr(e, shstrndx, sh.sh_name);
	return name && !strncmp(name, ".debug_", 7);
}

/* Does the file have a compressed .debug_ section?  -1: not an ELF file. */
static int has_compressed_debug(Elf *e)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0)
		return -1;
	while ((scn = elf_nextscn(e, scn)) != NULL)
		if (compressed_debug(e, scn, shstrndx))
			return 1;
	return 0;
}

/* A complete uncompressed copy for this build-id: its fd, else -1. */
static int open_copy(const char *path, const unsigned char *id, int n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *got = NULL;
	Elf *e;
	bool ok;

	if (fd < 0)
		return -1;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = has_compressed_debug(e) == 0 && dwelf_elf_gnu_build_id(e, &got) == n &&
	     !memcmp(got, id, (size_t)n);
	elf_end(e);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool copy_bytes(int from, int to)
{
	char buf[1 << 16];
	off_t off = 0;
	ssize_t r;

	while ((r = pread(from, buf, sizeof(buf), off)) > 0) {
		const char *p = buf;
		ssize_t left = r;

		while (left > 0) {
			ssize_t w = write(to, p, (size_t)left);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				return false;
			p += w;
			left -= w;
		}
		off += r;
	}
	return r == 0;
}

/* The debug sections symbolization reads (libdw's, for units, lines and names). */
static bool read_by_symbolization(const char *name)
{
	static const char *const used[] = {
		".debug_info", ".debug_abbrev", ".debug_line", ".debug_line_str", ".debug_str",
		".debug_str_offsets", ".debug_addr", ".debug_ranges", ".debug_rnglists",
		".debug_aranges", ".debug_types", ".debug_sup",
	};

	for (size_t i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		if (!strcmp(name, used[i]))
			return true;
	return false;
}

/*
 * Write the uncompressed copy of `fd` to `tmp` (an open file); false on any
 * failure.  Only the sections symbolization reads are inflated; the other
 * compressed ones (.debug_macro, .debug_frame, ...) become empty (NOBITS),
 * which libdw skips.
 */
static bool write_copy(int fd, int tmp)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool ok;

	if (!copy_bytes(fd, tmp))
		return false;
	e = elf_begin(tmp, ELF_C_RDWR, NULL);
	ok = e && elf_getshdrstrndx(e, &shstrndx) == 0;
	while (ok && (scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;

		if (!compressed_debug(e, scn, shstrndx) || !gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (read_by_symbolization(name)) {
			ok = elf_compress(scn, 0, 0) >= 0;
		} else {
			sh.sh_type = SHT_NOBITS;
			sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
			ok = gelf_update_shdr(scn, &sh) != 0;
		}
	}
	if (ok)
		ok = elf_update(e, ELF_C_WRITE) >= 0;
	elf_end(e);
	return ok;
}

/* Remove the oldest copies while the folder holds more than CACHE_LIMIT. */
static void prune(const char *dir)
{
	struct entry {
		char *path;
		time_t mtime;
		off_t size;
	} *v = NULL;
	size_t n = 0, a = 0, i;
	off_t total = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		size_t len = strlen(de->d_name);
		char *path;

		if (de->d_name[0] == '.' || len < 7 || strcmp(de->d_name + len - 6, ".debug"))
			continue;
		path = hpa_xasprintf("%s/%s", dir, de->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		HPA_GROW(v, n + 1, a);
		v[n].path = path;
		v[n].mtime = st.st_mtime;
		v[n].size = st.st_size;
		total += st.st_size;
		n++;
	}
	closedir(d);
	while (total > CACHE_LIMIT && n > 1) {   /* the newest always stays */
		size_t old = 0;
		for (i = 1; i < n; i++)
			if (v[i].mtime < v[old].mtime)
				old = i;
		unlink(v[old].path);
		total -= v[old].size;
		free(v[old].path);
		v[old] = v[--n];
	}
	for (i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

/* The copy's path for this build-id and its folder, or NULL when the cache is off. */
static char *copy_path(const unsigned char *id, int n, char **dir)
{
	char *top, *path, hex[129];

	if (!elf_build_id_hex(id, n, hex) || !(top = cache_dir()))
		return NULL;
	*dir = hpa_xasprintf("%s/debug", top);
	path = hpa_xasprintf("%s/%s.debug", *dir, hex);
	free(top);
	return path;
}

int hpa_debug_cache_open(const unsigned char *id, int n, char **cached)
{
	char *dir = NULL, *path = copy_path(id, n, &dir);
	int fd = path ? open_copy(path, id, n) : -1;

	free(dir);
	if (fd < 0) {
		free(path);
		return -1;
	}
	*cached = path;
	return fd;
}

/* mkdir -p: every missing folder of `dir` (~/.cache may not exist yet). */
static void make_dir(char *dir)
{
	char *p;

	for (p = strchr(dir + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	mkdir(dir, 0700);
}

void hpa_debug_cache_store(int fd, const unsigned char *id, int n)
{
	char *dir = NULL, *path = copy_path(id, n, &dir), *tmp;
	Elf *e;
	int compressed, t;

	if (!path)
		return;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	compressed = has_compressed_debug(e);
	{   /* nothing is cached that the cache cannot hold, or that inflates past the bound */
		uint64_t total = 0;
		struct stat st;
		char *why = elf_inflate_check(e, "", &total);
		if (why || fstat(fd, &st) != 0 || total + (uint64_t)st.st_size > (uint64_t)CACHE_LIMIT)
			compressed = 0;
		free(why);
	}
	elf_end(e);
	if (compressed == 1) {
		make_dir(dir);
		t = hpa_tempfile_create(dir, &tmp);
		if (t >= 0) {
			bool ok = write_copy(fd, t);
			close(t);
			if (ok && rename(tmp, path) == 0)
				prune(dir);
			else
				unlink(tmp);
			hpa_tempfile_forget(tmp);
			free(tmp);
		}
	}
	free(path);
	free(dir);
}
