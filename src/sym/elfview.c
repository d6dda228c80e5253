/*
 * ELF load segments and the "is this the binary that ran?" checks.
 * jemalloc's maps section carries no build-ids, so hpa checks what it can:
 * every mapping must fit a load segment at its file offset, an ET_EXEC file
 * must sit at its link address, the profile's addresses must be in
 * executable segments, and being return addresses they must follow a call
 * instruction.  A different build of the same program fails at least one
 * of these almost always; printing names from it would be confident garbage.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "hpa/symbolize.h"
#include "elfview.h"

#define PAGE 4096

char *elf_view_open(struct elf_view *v, const char *file)
{
	struct stat st;
	size_t i, phnum;

	memset(v, 0, sizeof(*v));
	v->file = file;
	v->fd = -1;
	/*
	 * Least authority: read-only, never executed, and only regular files:
	 * a FIFO or device named in a maps section must not block or be read.
	 */
	if (stat(file, &st) < 0)
		return hpa_xasprintf("cannot open %s: %s", file, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return hpa_xasprintf("%s is not a regular file", file);
	v->fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (v->fd < 0)
		return hpa_xasprintf("cannot open %s: %s", file, strerror(errno));
	v->elf = elf_begin(v->fd, ELF_C_READ, NULL);
	if (!v->elf || elf_kind(v->elf) != ELF_K_ELF || !gelf_getehdr(v->elf, &v->ehdr))
		return hpa_xasprintf("%s is not an ELF file", file);
	if (v->ehdr.e_type != ET_EXEC && v->ehdr.e_type != ET_DYN)
		return hpa_xasprintf("%s is not an executable or shared library", file);
	if (elf_getphdrnum(v->elf, &phnum) < 0)
		return hpa_xasprintf("%s: no program headers", file);
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(v->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		HPA_GROW(v->loads, v->nloads + 1, v->aloads);
		v->loads[v->nloads++] = ph;
	}
	if (!v->nloads)
		return hpa_xasprintf("%s has no loadable segments", file);
	for (i = 0; i < v->nloads; i++) {
		uint64_t end = v->loads[i].p_offset + v->loads[i].p_filesz;
		if (end < v->loads[i].p_offset || end > (uint64_t)st.st_size)
			return hpa_xasprintf("%s is truncated: %lld bytes, its load segments need %llu",
					 file, (long long)st.st_size, (unsigned long long)end);
	}
	return NULL;
}

void elf_view_close(struct elf_view *v)
{
	if (v->elf)
		elf_end(v->elf);
	if (v->fd >= 0)
		close(v->fd);
	free(v->loads);
	memset(v, 0, sizeof(*v));
	v->fd = -1;
}

static bool flags_match(const GElf_Phdr *ph, const char *perms)
{
	return ((ph->p_flags & PF_R) != 0) == (perms[0] == 'r') &&
	       ((ph->p_flags & PF_W) != 0) == (perms[1] == 'w') &&
	       ((ph->p_flags & PF_X) != 0) == (perms[2] == 'x');
}

/* Does segment ph's file extent, from its first page, hold file offset `offset`? */
static bool covers_offset(const GElf_Phdr *ph, uint64_t offset)
{
	uint64_t lo = ph->p_offset & ~(uint64_t)(PAGE - 1);

	return offset >= lo && offset < ph->p_offset + (ph->p_filesz ? ph->p_filesz : 1);
}

/*
 * The load segment whose file pages hold `offset`, or NULL.  Linkers such
 * as lld let several segments share a file page, so of those the one whose
 * flags match the mapping's permissions wins.
 */
static const GElf_Phdr *segment_at_offset(const struct elf_view *v, uint64_t offset,
					  const char *perms)
{
	const GElf_Phdr *first = NULL;
	size_t i;

	for (i = 0; i < v->nloads; i++) {
		const GElf_Phdr *ph = &v->loads[i];

		if (!covers_offset(ph, offset))
			continue;
		if (perms && flags_match(ph, perms))
			return ph;
		if (!first)
			first = ph;
	}
	return first;
}

/* Where the page at file `offset` of segment `ph` lands, before the bias. */
static uint64_t page_vaddr(const GElf_Phdr *ph, uint64_t offset)
{
	return (ph->p_vaddr & ~(uint64_t)(PAGE - 1)) + (offset - (ph->p_offset & ~(uint64_t)(PAGE - 1)));
}

char *elf_view_bias(const struct elf_view *v, uint64_t start, uint64_t offset,
		    const char *perms, uint64_t *bias)
{
	const GElf_Phdr *ph = segment_at_offset(v, offset, perms);

	*bias = 0;
	if (!ph)
		return hpa_xasprintf("%s has no loadable segment at file offset 0x%llx: not the file "
				 "that was mapped", v->file, (unsigned long long)offset);
	if (v->ehdr.e_type == ET_EXEC) {
		uint64_t want = page_vaddr(ph, offset);
		/* start 0: no maps section, the binary stands for the whole address space */
		if (start != want && start != 0)
			return hpa_xasprintf("%s is a fixed-address executable linked at 0x%llx, but the "
					 "profile mapped it at 0x%llx: not the binary that ran",
					 v->file, (unsigned long long)want, (unsigned long long)start);
		return NULL;
	}
	*bias = start - page_vaddr(ph, offset);
	return NULL;
}

char *elf_view_check_mappings(const struct elf_view *v, const struct hpa_profile *prof,
			      const struct hpa_input *in, const char *path, uint64_t bias)
{
	uint32_t i;
	size_t j;

	for (i = 0; i < in->map_nr; i++) {
		const struct hpa_mapping *m = &prof->mappings[in->map_first + i];
		const GElf_Phdr *fit = NULL;
		bool covered = false;

		if (strcmp(m->path, path) || (m->start == 0 && m->limit == UINT64_MAX))
			continue;
		/*
		 * Some segment covering the offset must put the page where the
		 * profile saw it (permissions alone can mislead: RELRO makes
		 * part of a writable segment read-only).
		 */
		for (j = 0; j < v->nloads && !fit; j++) {
			const GElf_Phdr *ph = &v->loads[j];
			if (!covers_offset(ph, m->offset))
				continue;
			covered = true;
			if (m->start == bias + page_vaddr(ph, m->offset))
				fit = ph;
		}
		if (!covered)
			return hpa_xasprintf("%s has no loadable segment at file offset 0x%llx, where the "
					 "profile maps it: not the binary that ran", v->file,
					 (unsigned long long)m->offset);
		if (!fit)
			return hpa_xasprintf("%s: the profile maps file offset 0x%llx at 0x%llx, where no "
					 "program header of the file puts it: not the binary that ran",
					 v->file, (unsigned long long)m->offset,
					 (unsigned long long)m->start);
		/* The mapping may not run past the segment's last page in memory. */
		if (m->limit > ((fit->p_vaddr + fit->p_memsz + bias + PAGE - 1) & ~(uint64_t)(PAGE - 1)))
			return hpa_xasprintf("%s: the profile maps 0x%llx bytes at file offset 0x%llx, more "
					 "than its load segment holds: not the binary that ran", v->file,
					 (unsigned long long)(m->limit - m->start),
					 (unsigned long long)m->offset);
	}
	return NULL;
}

static bool in_exec_segment(const struct elf_view *v, uint64_t vaddr, uint64_t *file_off)
{
	size_t i;

	for (i = 0; i < v->nloads; i++) {
		const GElf_Phdr *ph = &v->loads[i];
		if ((ph->p_flags & PF_X) && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz) {
			*file_off = vaddr - ph->p_vaddr + ph->p_offset;
			return true;
		}
	}
	return false;
}

/* x86-64: does a call instruction end right at `ret` (bytes b[0..7] end there)? */
static bool x86_call_before(const unsigned char *b)
{
	/* b[8] is the byte at the return address; b[8 - k] is k bytes before. */
	static const int indirect_len[] = { 2, 3, 4, 6, 7 };
	size_t i;

	if (b[8 - 5] == 0xe8)                       /* call rel32 */
		return true;
	for (i = 0; i < HPA_ARRAY_SIZE(indirect_len); i++) {
		int k = indirect_len[i];
		if (b[8 - k] == 0xff && ((b[8 - k + 1] >> 3) & 7) == 2)   /* call r/m64 */
			return true;
	}
	return false;
}

static bool arm64_call_before(const unsigned char *b)
{
	uint32_t insn = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
			(uint32_t)b[7] << 24;

	return (insn & 0xfc000000) == 0x94000000 ||   /* bl */
	       (insn & 0xfffffc1f) == 0xd63f0000 ||   /* blr */
	       (insn & 0xfffffc1f) == 0xd63f081f;     /* blraaz and friends */
}

#define CALL_CHECKS 256

char *elf_view_check_addresses(const struct elf_view *v, uint64_t bias,
			       const uint64_t *pcs, size_t nr)
{
	size_t i, outside = 0, no_call = 0, checked = 0;
	bool x86 = v->ehdr.e_machine == EM_X86_64, arm = v->ehdr.e_machine == EM_AARCH64;
	/*
	 * Every address is checked against the segments, but the code before
	 * only of CALL_CHECKS of them, spread evenly: a mismatch shows in any
	 * few hundred.  Each is read with pread(): a system call costs less
	 * than the page fault of reading it from a mapping of the file (in a
	 * virtual machine a fault is dear).
	 */
	size_t every = nr > CALL_CHECKS ? (nr + CALL_CHECKS - 1) / CALL_CHECKS : 1;

	for (i = 0; i < nr; i++) {
		uint64_t ret = pcs[i] + 1 - bias, off;   /* the return address, file vaddr */
		unsigned char buf[9];

		if (!in_exec_segment(v, ret - 1, &off)) {
			outside++;
			continue;
		}
		if ((!x86 && !arm) || off < 8 || i % every)
			continue;
		if (pread(v->fd, buf, sizeof(buf), (off_t)(off + 1 - 8)) != (ssize_t)sizeof(buf))
			continue;
		checked++;
		if (!(x86 ? x86_call_before(buf) : arm64_call_before(buf)))
			no_call++;
	}
	if (outside)
		return hpa_xasprintf("%zu of %zu profile addresses lie outside the executable "
				 "segments of %s: not the binary that ran", outside, nr, v->file);
	/* A few misses are fine (unusual call encodings); most is a mismatch. */
	if (checked >= 4 && no_call * 2 > checked)
		return hpa_xasprintf("%zu of %zu profile addresses in %s do not follow a call "
				 "instruction: not the binary that ran (a different build?)",
				 no_call, checked, v->file);
	return NULL;
}

bool elf_build_id_hex(const unsigned char *bits, int n, char hex[129])
{
	int b;

	if (n <= 0 || n > 64)
		return false;
	for (b = 0; b < n; b++)
		sprintf(hex + 2 * b, "%02x", bits[b]);
	return true;
}

bool hpa_elf_is_fixed(const char *path)
{
	struct elf_view v;
	char *err;
	bool fixed;

	elf_version(EV_CURRENT);
	err = elf_view_open(&v, path);
	fixed = !err && v.ehdr.e_type == ET_EXEC;
	free(err);
	elf_view_close(&v);
	return fixed;
}

char *elf_inflate_check(Elf *e, const char *file, uint64_t *total)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*total = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		GElf_Chdr ch;
		const char *name;
		uint64_t bound;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_COMPRESSED) ||
		    !(name = elf_strptr(e, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
			continue;
		if (!gelf_getchdr(scn, &ch))
			return hpa_xasprintf("%s: section %s is compressed but its header is unreadable",
					     file, name);
		bound = sh.sh_size * HPA_INFLATE_RATIO;
		if (bound > HPA_INFLATE_MAX)
			bound = HPA_INFLATE_MAX;
		if (ch.ch_size > bound)
			return hpa_xasprintf("%s: section %s claims %.1f MiB when inflated, %.0f times its "
					     "%.1f MiB (more than %d times, or %d GiB): a decompression "
					     "bomb?", file, name, (double)ch.ch_size / 1048576,
					     sh.sh_size ? (double)ch.ch_size / (double)sh.sh_size : 0.0,
					     (double)sh.sh_size / 1048576, HPA_INFLATE_RATIO,
					     (int)(HPA_INFLATE_MAX >> 30));
		*total += ch.ch_size;
	}
	return NULL;
}

char *elf_inflate_check_fd(int fd, const char *file, uint64_t *total)
{
	Elf *e;
	char *why;

	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	why = elf_inflate_check(e, file, total);
	elf_end(e);
	return why;
}

/*
 * Whether the ELF file `path` is stripped: no .symtab and no DWARF, so
 * only its exported (.dynsym) names could name anything.  A .gnu_debuglink
 * names a debug file, which was not found: still stripped.
 */
bool hpa_elf_is_stripped(const char *path)
{
	struct elf_view v;
	char *err = elf_view_open(&v, path);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool symbols = true;   /* a file that does not open is not called stripped */

	if (!err && elf_getshdrstrndx(v.elf, &shstrndx) == 0)
		for (symbols = false; !symbols && (scn = elf_nextscn(v.elf, scn)) != NULL;) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(v.elf, shstrndx, sh.sh_name);
			symbols = sh.sh_type == SHT_SYMTAB ||
				  (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info") ||
					    !strcmp(name, ".gnu_debugdata")));
		}
	free(err);
	elf_view_close(&v);
	return !symbols;
}
