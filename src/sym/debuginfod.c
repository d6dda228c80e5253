/*
 * debuginfod, only when asked (--debuginfod).
 *
 * libdw 0.188 dlopens libdebuginfod from a constructor, before main(), in
 * every program that links it, whether or not anything will be downloaded:
 * with it come libcurl and some thirty libraries it needs (TLS, Kerberos,
 * LDAP, ...), loaded and relocated at every start.  hpa defines dlopen()
 * to refuse that one library until --debuginfod allows it, and then asks
 * debuginfod itself, for the debug file of a module that has none here
 * (libdw's own lookup is gone with the library).  Every other dlopen()
 * goes to the C library's (or the sanitizer's) as it would.
 */
#include "hpa/compat.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "hpa/diag.h"

#include "debugcache.h"
#include "debuginfod.h"
#include "elfview.h"

static bool allowed;

void *dlopen(const char *file, int mode)
{
	static void *(*next)(const char *, int);
	const char *base = file ? strrchr(file, '/') : NULL;

	base = base ? base + 1 : file;
	if (base && !strncmp(base, "libdebuginfod", 13) && !allowed)
		return NULL;
	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "dlopen");
	return next ? next(file, mode) : NULL;
}

/* The calls hpa makes, as libdebuginfod declares them (elfutils/debuginfod.h). */
typedef struct debuginfod_client debuginfod_client;
static debuginfod_client *(*di_begin)(void);
static int (*di_find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
static void (*di_end)(debuginfod_client *);

int hpa_debuginfod_enable(void)
{
	void *h;

	allowed = true;
	h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	*(void **)&di_begin = dlsym(h, "debuginfod_begin");
	*(void **)&di_find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
	*(void **)&di_end = dlsym(h, "debuginfod_end");
	if (!di_begin || !di_find_debuginfo || !di_end) {
		di_begin = NULL;
		return -1;
	}
	return 0;
}

/*
 * The uncompressed copy from the cache (debugcache.c) when there is one:
 * it must be given before the standard search, which keeps the file it
 * finds open inside libdwfl.  Else the standard search, then debuginfod;
 * a compressed file found is copied for the next run.
 */
int hpa_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, const char *file, const char *debuglink,
		       GElf_Word crc, char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	debuginfod_client *c;
	char *path = NULL;
	int n = dwfl_module_build_id(mod, &bits, &vaddr), fd;

	if (n > 0 && (fd = hpa_debug_cache_open(bits, n, &path)) >= 0) {
		free(*debuginfo_file_name);
		*debuginfo_file_name = path;
		return fd;
	}
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file, debuglink, crc,
					  debuginfo_file_name);
	if (fd < 0 && di_begin && n > 0 && (c = di_begin())) {
		uint64_t total;
		char *why = NULL;

		fd = di_find_debuginfo(c, bits, n, &path);
		di_end(c);
		/* A downloaded file is checked here; the standard search's were before it ran
		 * (symbolize.c: it keeps what it finds, so checking it now would be too late). */
		if (fd >= 0 && (why = elf_inflate_check_fd(fd, path, &total)) != NULL) {
			hpa_warn("%s; that debug file is not used", why);
			free(why);
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			free(*debuginfo_file_name);
			*debuginfo_file_name = path;
		} else {
			free(path);
		}
	}
	if (fd >= 0 && n > 0)
		hpa_debug_cache_store(fd, bits, n);
	return fd;
}
