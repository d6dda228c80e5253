/*
 * libFuzzer target for --stats' readers.  FUZZ_KIND 0: the input is
 * allocator statistics (jemalloc text or JSON, tcmalloc GetStats); 1: the
 * kernel's figures (the first byte picks /proc/PID/status or smaps).  What
 * parses is then broken down and printed, with the other half fixed, so
 * the breakdown's arithmetic sees hostile figures too.
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
	FILE *out = fopen("/dev/null", "w");
	int rc;

	if (!out)
		abort();
	hpa_diag_quiet = true;
	memset(&opts, 0, sizeof(opts));
	opts.show_bytes = true;
	memset(&pm, 0, sizeof(pm));
	if (FUZZ_KIND == 0) {
		if (hpa_alloc_stats_parse("fuzz", (const char *)data, size, &st) == 0) {
			pm.has_status = true;
			pm.vm_rss = 200u << 20;
			pm.rss_anon = 150u << 20;
			pm.rss_file = 50u << 20;
			hpa_report_rss(out, NULL, &opts, &st, &pm);
			hpa_report_rss(out, NULL, &opts, &st, NULL);
			hpa_alloc_stats_release(&st);
		}
	} else if (size > 0) {
		rc = data[0] & 1 ? hpa_proc_smaps_parse("fuzz", (const char *)data + 1, size - 1, &pm) :
				   hpa_proc_status_parse("fuzz", (const char *)data + 1, size - 1, &pm);
		if (rc == 0) {
			memset(&st, 0, sizeof(st));
			st.allocator = data[0] & 2 ? HPA_ALLOC_TCMALLOC : HPA_ALLOC_JEMALLOC;
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
			hpa_report_rss(out, NULL, &opts, &st, &pm);
		}
		hpa_proc_mem_release(&pm);
	}
	fclose(out);
	return 0;
}
