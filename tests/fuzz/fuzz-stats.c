/*
 * libFuzzer targets for --stats' readers, one per FUZZ_KIND: 0 any
 * allocator statistics (the choice by content), 1 jemalloc text (after a
 * "Begin" line), 2 jemalloc JSON, 3 tcmalloc GetStats, 4 /proc/PID/status,
 * 5 smaps.  What parses is then broken down and printed, with the other
 * half fixed, so the breakdown's arithmetic sees hostile figures too.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/opts.h"
#include "hpa/report.h"
#include "hpa/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hpa_alloc_stats st;
	struct hpa_proc_mem pm;
	struct hpa_opts opts;
	struct hpa_write_opts wo;
	FILE *out = fopen("/dev/null", "w");
	int rc;

	if (!out)
		abort();
	hpa_diag_quiet = true;
	memset(&opts, 0, sizeof(opts));
	opts.show_bytes = true;
	wo = hpa_opts_write(&opts);
	memset(&pm, 0, sizeof(pm));
	if (FUZZ_KIND <= 3) {
		static const char *const prefix[] = { "", "___ Begin jemalloc statistics ___\n", "",
						      "MALLOC:\n" };
		size_t pl = strlen(prefix[FUZZ_KIND]);
		char *buf = malloc(pl + size + 1);

		memcpy(buf, prefix[FUZZ_KIND], pl);
		memcpy(buf + pl, data, size);
		if (FUZZ_KIND == 2) {
			memset(&st, 0, sizeof(st));
			st.source = strdup("fuzz");
			rc = hpa_je_json_parse("fuzz", buf, size, &st);
		} else {
			rc = hpa_alloc_stats_parse("fuzz", buf, pl + size, &st);
		}
		if (rc < 0 && FUZZ_KIND == 2)
			hpa_alloc_stats_release(&st);
		free(buf);
		if (rc == 0) {
			pm.has_status = true;
			pm.vm_rss = 200u << 20;
			pm.rss_anon = 150u << 20;
			pm.rss_file = 50u << 20;
			hpa_report_rss(out, NULL, &wo, &st, &pm, false);
			hpa_report_rss(out, NULL, &wo, &st, NULL, true);   /* the CSV too: every class row */
			hpa_alloc_stats_release(&st);
		}
	} else {
		rc = FUZZ_KIND == 5 ? hpa_proc_smaps_parse("fuzz", (const char *)data, size, &pm) :
				      hpa_proc_status_parse("fuzz", (const char *)data, size, &pm);
		if (rc == 0) {
			memset(&st, 0, sizeof(st));
			st.allocator = size & 1 ? HPA_ALLOC_TCMALLOC : HPA_ALLOC_JEMALLOC;
			st.source = "fuzz";
			st.format = "fuzz";
			st.allocated = 40u << 20;
			st.active = 60u << 20;
			st.resident = 90u << 20;
			st.dirty = 20u << 20;
			st.has_dirty = true;
			st.tc_in_use = 40u << 20;
			st.tc_actual = 60u << 20;
			st.tc_central = 20u << 20;
			hpa_report_rss(out, NULL, &wo, &st, &pm, size & 2);
		}
		hpa_proc_mem_release(&pm);
	}
	fclose(out);
	return 0;
}
