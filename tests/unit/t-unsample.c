/* Unsampling against the worked examples of FORMATS.md section 6. */
#include "hpa/compat.h"

#include <string.h>

#include "hpa/unsample.h"
#include "test.h"

static void v2_worked_example(void)
{
	/* jeprof.out.3490.0.f.heap: R = 1024, the eight t* record lines. */
	static const uint64_t lines[][2] = {
		{ 1, 2066 }, { 2, 1073 }, { 1, 8 }, { 1, 885 },
		{ 1, 32 }, { 1, 48 }, { 1, 48 }, { 1, 81920 },
	};
	double objs = 0, bytes = 0;
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(lines); i++) {
		uint64_t raw[HPA_NVALUES] = { lines[i][0], lines[i][1], 0, 0 };
		double v[HPA_NVALUES];
		CHECK_INT_EQ(hpa_unsample(HPA_SAMPLING_V2, 1024, raw, v), 0);
		objs += v[HPA_INUSE_OBJECTS];
		bytes += v[HPA_INUSE_SPACE];
		CHECK_DBL_EQ(v[HPA_ALLOC_OBJECTS], 0, 0);
	}
	CHECK_DBL_EQ(objs, 213.4636, 5e-5);
	CHECK_DBL_EQ(bytes, 92627.9245, 5e-5);
	CHECK_INT_EQ((long long)bytes, 92627);   /* jeprof: Total: 92627 B */
	CHECK_INT_EQ((long long)objs, 213);      /* jeprof: Total: 213 objects */
}

static double two_records(enum hpa_sampling alg, double period)
{
	uint64_t raw[HPA_NVALUES] = { 1, 300000, 1, 300000 };
	double v[HPA_NVALUES], total = 0;
	int i;

	for (i = 0; i < 2; i++) {
		hpa_unsample(alg, period, raw, v);
		total += v[HPA_INUSE_SPACE];
		CHECK_DBL_EQ(v[HPA_ALLOC_SPACE], v[HPA_INUSE_SPACE], 0);
	}
	return total;
}

static void tcmalloc_examples(void)
{
	/* sample.heap: @ heap_v2/65536 -> 606231; heapprofile -> 600000. */
	CHECK_INT_EQ((long long)two_records(HPA_SAMPLING_V2, 65536), 606231);
	CHECK_INT_EQ((long long)two_records(HPA_SAMPLING_NONE, 0), 600000);
	/* @ heap_v2/0 means the 128 KiB default -> 667695. */
	CHECK_INT_EQ((long long)two_records(HPA_SAMPLING_V2, 131072), 667695);
	/* @ heap/131072: v1 with R = 65536; r >= 1 leaves it unchanged. */
	CHECK_INT_EQ((long long)two_records(HPA_SAMPLING_V1, 65536), 600000);
}

static void v1_example(void)
{
	/* v1.heap: 10: 1000 [10: 1000] under @ heap/131072 -> 655360 B, 6553 objects. */
	uint64_t raw[HPA_NVALUES] = { 10, 1000, 10, 1000 };
	double v[HPA_NVALUES];

	hpa_unsample(HPA_SAMPLING_V1, 65536, raw, v);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 655360, 1e-6);
	CHECK_INT_EQ((long long)v[HPA_INUSE_OBJECTS], 6553);
	CHECK_DBL_EQ(v[HPA_ALLOC_SPACE], 655360, 1e-6);
}

static void zero_cases(void)
{
	double v[HPA_NVALUES];
	uint64_t objs_no_bytes[HPA_NVALUES] = { 1, 0, 0, 0 };
	uint64_t bytes_no_objs[HPA_NVALUES] = { 0, 500, 0, 0 };
	uint64_t v1_zero[HPA_NVALUES] = { 0, 0, 1, 64 };

	/* jeprof dies dividing by zero here; hpa leaves the pair unscaled. */
	CHECK_INT_EQ(hpa_unsample(HPA_SAMPLING_V2, 1024, objs_no_bytes, v),
		     HPA_UNSAMPLE_OBJECTS_WITHOUT_BYTES);
	CHECK_DBL_EQ(v[HPA_INUSE_OBJECTS], 1, 0);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 0, 0);

	CHECK_INT_EQ(hpa_unsample(HPA_SAMPLING_V2, 1024, bytes_no_objs, v),
		     HPA_UNSAMPLE_BYTES_WITHOUT_OBJECTS);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 500, 0);

	/* v1 with a zero pair: that pair unscaled, the other one scaled. */
	CHECK_INT_EQ(hpa_unsample(HPA_SAMPLING_V1, 65536, v1_zero, v), 0);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 0, 0);
	CHECK_DBL_EQ(v[HPA_ALLOC_SPACE], 65536, 1e-9);
	CHECK_DBL_EQ(v[HPA_ALLOC_OBJECTS], 1024, 1e-9);

	/* No sampling: values as written, no notes even for odd pairs. */
	CHECK_INT_EQ(hpa_unsample(HPA_SAMPLING_NONE, 0, objs_no_bytes, v), 0);
	CHECK_DBL_EQ(v[HPA_INUSE_OBJECTS], 1, 0);
}

static void rate_one(void)
{
	/* heap_v2/1 still scales: k = 1/(1 - e^-1) for 1-byte objects. */
	uint64_t raw[HPA_NVALUES] = { 1, 1, 0, 0 };
	double v[HPA_NVALUES];

	hpa_unsample(HPA_SAMPLING_V2, 1, raw, v);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 1.5819767068693265, 1e-15);
	/* Large objects at R = 1: k is exactly 1 in double precision. */
	raw[0] = 1000;
	raw[1] = 4096000;
	hpa_unsample(HPA_SAMPLING_V2, 1, raw, v);
	CHECK_DBL_EQ(v[HPA_INUSE_SPACE], 4096000, 0);
	CHECK_DBL_EQ(v[HPA_INUSE_OBJECTS], 1000, 0);
}

/* hpa_unsample_recorded_objects() undoes the estimate: the objects the dump recorded. */
static void recorded_objects(void)
{
	static const enum hpa_sampling algs[] = { HPA_SAMPLING_V2, HPA_SAMPLING_V1, HPA_SAMPLING_NONE };
	struct hpa_input in;
	size_t a;

	memset(&in, 0, sizeof(in));
	for (a = 0; a < HPA_ARRAY_SIZE(algs); a++) {
		uint64_t raw[HPA_NVALUES] = { 7, 7 * 48, 0, 0 };
		double v[HPA_NVALUES];

		in.sampling = algs[a];
		in.period = 4096;
		hpa_unsample(in.sampling, in.period, raw, v);
		CHECK_DBL_EQ(hpa_unsample_recorded_objects(&in, v), 7, 1e-9);
	}
}

int main(void)
{
	recorded_objects();
	v2_worked_example();
	tcmalloc_examples();
	v1_example();
	zero_cases();
	rate_one();
	TEST_MAIN_END();
}
