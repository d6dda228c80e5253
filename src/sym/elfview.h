/*
 * Private to src/sym: an opened ELF file's load segments, the load bias a
 * maps line implies, and the checks that tell whether the file can be the
 * one that ran.  Functions returning char * return NULL when all is well,
 * else a malloc'ed sentence saying what is wrong.
 */
#ifndef HPA_SYM_ELFVIEW_H
#define HPA_SYM_ELFVIEW_H

#include <gelf.h>

#include "hpa/compat.h"
#include "hpa/profile.h"

struct elf_view {
	const char *file;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Phdr *loads;     /* PT_LOAD headers */
	size_t nloads, aloads;
};

char *elf_view_open(struct elf_view *v, const char *file);
void elf_view_close(struct elf_view *v);

/*
 * Bias for the page at file `offset` mapped at `start` with permissions
 * `perms` ("r-xp"; NULL if unknown); 0 for ET_EXEC.
 */
char *elf_view_bias(const struct elf_view *v, uint64_t start, uint64_t offset,
		    const char *perms, uint64_t *bias);

/* Every mapping of `path` in input `in` must fit a load segment of the file. */
char *elf_view_check_mappings(const struct elf_view *v, const struct hpa_profile *prof,
			      const struct hpa_input *in, const char *path, uint64_t bias);

/*
 * The profile addresses of the module (`pcs`, already minus one, `nr` of
 * them) must lie in executable segments and, where the machine is known,
 * mostly right after a call instruction.
 */
char *elf_view_check_addresses(const struct elf_view *v, uint64_t bias,
			       const uint64_t *pcs, size_t nr);

/*
 * A compressed debug section may inflate to at most HPA_INFLATE_RATIO times
 * its compressed size, and HPA_INFLATE_MAX in all (DWARF compresses 3 to 10
 * times; a 3 MB section of zeros claims 3 GiB).  elf_inflate_check() says
 * which section of `e` claims more (NULL: none), and the sum of the claims
 * in *total; elf_inflate_check_fd() the same for an open file.
 */
#define HPA_INFLATE_RATIO 64
#define HPA_INFLATE_MAX ((uint64_t)4 << 30)
char *elf_inflate_check(Elf *e, const char *file, uint64_t *total);
char *elf_inflate_check_fd(int fd, const char *file, uint64_t *total);

/* A GNU build-id (`n` bytes) as lowercase hex into `hex`; false unless 0 < n <= 64. */
bool elf_build_id_hex(const unsigned char *bits, int n, char hex[129]);

#endif
