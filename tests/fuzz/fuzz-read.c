/*
 * libFuzzer target for the readers.  The input follows FUZZ_PREFIX (a
 * header that steers it into one reader: jemalloc, gperftools, the maps
 * section, jeprof's symbol section; empty for the dispatch, gzip, pprof
 * and folded-stacks paths, whose seeds steer them), is read as a
 * profile, and, when that succeeds, reported as text, collapsed stacks,
 * traces and a flame graph.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/reader.h"
#include "hpa/report.h"
#include "hpa/unsample.h"

/* FUZZ_KIND picks the reader (set by CMake per target). */
static const char *const prefixes[] = {
	"",                                                        /* 0: dispatch, gzip, pprof */
	"heap_v2/1\n",                                             /* 1: jemalloc */
	"heap profile: 1: 1 [1: 1] @ heap_v2/524288\n",            /* 2: gperftools */
	"heap_v2/1\n@ 0x55d000001100\n  t*: 1: 1 [0: 0]\n\nMAPPED_LIBRARIES:\n", /* 3: maps */
	"--- symbol\n",                                           /* 4: jeprof's symbolized */
	"",                                                        /* 5: folded stacks (seeds) */
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *prefix = prefixes[FUZZ_KIND];
	size_t plen = strlen(prefix);
	char *buf = malloc(plen + size + 1);
	struct hpa_profile prof;
	struct hpa_opts opts;
	FILE *in, *out;

	hpa_diag_quiet = true;
	memcpy(buf, prefix, plen);
	memcpy(buf + plen, data, size);
	in = fmemopen(buf, plen + size, "rb");
	out = fopen("/dev/null", "w");
	if (!in || !out)
		abort();
	hpa_profile_init(&prof);
	if (hpa_read_stream(&prof, in, "fuzz") == 0) {
		hpa_unsample_profile(&prof);
		hpa_unify_locations(&prof);
		struct hpa_symbols syms;
		struct hpa_names names;

		hpa_profile_end_reading(&prof, &syms);
		hpa_name_frames(&prof, &syms, &names);
		memset(&opts, 0, sizeof(opts));
		opts.thread = HPA_THREAD_ALL;
		opts.show_bytes = true;
		opts.value = HPA_INUSE_SPACE;
		struct hpa_write_opts wo = hpa_opts_write(&opts);
		wo.view.symbols = &syms;
		wo.view.names = &names;
		hpa_report_text(out, &prof, &wo);
		hpa_report_collapse(out, &prof, &wo);
		hpa_report_traces(out, &prof, &wo);
		hpa_report_svg(out, &prof, &wo);
		hpa_names_release(&names);
		hpa_symbols_release(&syms);
	}
	hpa_profile_release(&prof);
	fclose(in);
	fclose(out);
	free(buf);
	return 0;
}
