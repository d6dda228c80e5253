/*
 * libFuzzer target for what a series reads besides the dumps (series.h),
 * one per FUZZ_KIND: 0 the record --watch keeps beside a dump, 1 a pprof
 * file's own time (the protobuf scan before reading), 2 a dump's name.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (FUZZ_KIND == 0) {
		struct hpa_dump_record rec;
		FILE *fp = fmemopen((void *)data, size, "rb");

		if (!fp)
			return 0;   /* fmemopen refuses size 0 */
		hpa_dump_record_parse(fp, &rec);
		fclose(fp);
		if (rec.time_nanos < 0 || rec.pid < -1 || (rec.rss_bytes < 0 && rec.rss_bytes != -1))
			abort();   /* a count is never negative; unknown is the only -1 */
	} else if (FUZZ_KIND == 1) {
		if (hpa_pprof_time(data, size) < 0)
			abort();
	} else {
		struct hpa_dump_name n;
		char *path = malloc(size + 1);

		memcpy(path, data, size);
		path[size] = '\0';
		hpa_dump_name_parse(path, &n);
		if (n.pid < -1 || n.seq < -1)
			abort();
		free(path);
	}
	return 0;
}
