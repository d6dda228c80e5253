/*
 * Private to src/sym: debuginfod only when --debuginfod asks (debuginfod.c).
 */
#ifndef HPA_SYM_DEBUGINFOD_H
#define HPA_SYM_DEBUGINFOD_H

#include <elfutils/libdwfl.h>

#include "hpa/compat.h"

/* Allow and load libdebuginfod; -1 if it is not installed. */
int hpa_debuginfod_enable(void);

/*
 * libdwfl's find_debuginfo callback: the cache's uncompressed copy
 * (debugcache.h), else the standard search, then, once enabled,
 * debuginfod by the module's build-id.
 */
int hpa_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file, const char *debuglink,
		       GElf_Word crc, char **debuginfo_file_name);

#endif
