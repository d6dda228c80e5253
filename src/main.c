/*
 * hpa: heap-profile analyzer.  The only file that exits: 0 success,
 * 1 bad input or failed output, 2 usage error.
 */
#include "hpa/compat.h"

#include <stdlib.h>

#include "hpa/opts.h"
#include "hpa/output.h"
#include "hpa/timing.h"
#include "hpa/diag.h"
#include "hpa/run.h"
#include "hpa/xalloc.h"

int main(int argc, char **argv)
{
	struct hpa_opts opts;
	int rc;

	hpa_heap_setup();
	hpa_output_buffer_stdout();
	rc = hpa_opts_parse(&opts, argc, argv);
	if (rc == HPA_OPTS_RUN) {
		hpa_warnings_off = opts.quiet;
		hpa_timing_on = opts.timing;
		rc = hpa_run(&opts);
		rc = rc == -2 ? 2 : rc < 0 ? 1 : 0;   /* -2: a usage error found on reading */
	}
	else
		rc = rc == HPA_OPTS_EXIT ? 0 : 2;
	hpa_opts_release(&opts);
	return rc;
}
