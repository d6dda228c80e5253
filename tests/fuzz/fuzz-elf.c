/*
 * libFuzzer target for the ELF/DWARF path: the input is written to a file
 * that a profile's maps section names, and some addresses in it are
 * symbolized (segments, bias, wrong-binary checks, DWARF index, symbol
 * tables, demangling).  Seed it with real ELF files.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/profile.h"
#include "hpa/strip.h"
#include "hpa/symbolize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static const uint64_t addrs[] = { 0x401005, 0x401100, 0x402345, 0x400001, 0x40ffff };
	struct hpa_profile prof;
	struct hpa_cuts cuts;
	struct hpa_symbols syms;
	struct hpa_sym_opts so = { NULL, NULL, NULL, 0, false, NULL, false };
	struct hpa_mapping m;
	double v[HPA_NVALUES] = { 1, 64, 1, 64 };
	uint32_t input;
	FILE *fp;

	hpa_diag_quiet = true;
	setenv("HPA_CACHE_DIR", "off", 1);   /* never write copies of what the fuzzer makes */
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/hpa-fuzz-elf.%d", (int)getpid());
	fp = fopen(path, "wb");
	if (!fp)
		abort();
	fwrite(data, 1, size, fp);
	fclose(fp);

	hpa_profile_init(&prof);
	input = hpa_profile_add_input(&prof, "fuzz");
	memset(&m, 0, sizeof(m));
	m.start = 0x400000;
	m.limit = 0x410000;
	memcpy(m.perms, "r-xp", 5);
	m.path = path;
	m.input = input;
	hpa_profile_add_mapping(&prof, &m);
	hpa_profile_input(&prof, input)->map_nr = 1;
	hpa_profile_input(&prof, input)->has_maps = true;
	hpa_profile_add_sample(&prof, hpa_profile_intern_stack(&prof, addrs, 5), HPA_THREAD_ALL,
			       input, v);
	hpa_profile_assign_mappings(&prof, input);
	hpa_profile_end_reading(&prof, &syms);
	hpa_symbolize(&prof, &so, &syms);
	hpa_mark_internal(&prof, &syms, NULL, &cuts);
	hpa_cuts_release(&cuts);
	hpa_symbols_release(&syms);
	hpa_profile_release(&prof);
	return 0;
}
