/*
 * The sections hpa's own DWARF decoders read (dwread.h).
 */
#include "hpa/compat.h"

#include <gelf.h>
#include <string.h>

#include "dwread.h"

void dw_sections(Dwarf *dbg, const char *const *names, size_t n, const unsigned char **data,
		 size_t *size)
{
	Elf *elf = dwarf_getelf(dbg);
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;

	for (i = 0; i < n; i++) {
		data[i] = NULL;
		size[i] = 0;
	}
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		for (i = 0; i < n && strcmp(name, names[i]); i++)
			;
		if (i == n || data[i])
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		data[i] = d->d_buf;
		size[i] = d->d_size;
	}
}
