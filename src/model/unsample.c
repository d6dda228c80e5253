#include "hpa/compat.h"

#include <math.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/hashmap.h"
#include "hpa/unsample.h"

/*
 * 1 / (1 - e^-ratio) for the Poisson rule, remembered by ratio: a profile
 * has a few thousand distinct mean sizes among a million records, and exp()
 * is most of a record's unsampling.  The same ratio gives the same factor,
 * so the cache changes no digit.  Per thread: walks may unsample on several.
 */
#define FACTOR_BITS 10
static _Thread_local struct { uint64_t ratio; double k; } factor_cache[1u << FACTOR_BITS];

static double poisson_factor(double ratio)
{
	uint64_t bits;
	size_t slot;

	memcpy(&bits, &ratio, sizeof(bits));
	slot = (size_t)(hpa_hash64(bits) >> (64 - FACTOR_BITS));
	if (factor_cache[slot].ratio != bits || factor_cache[slot].k == 0) {
		factor_cache[slot].ratio = bits;
		factor_cache[slot].k = 1 / (1 - exp(-ratio));
	}
	return factor_cache[slot].k;
}

/*
 * One (objects, bytes) pair, in place.  The zero cases that would make
 * jeprof divide by zero stay unscaled (hpa_unsample_notes() names them).
 */
static void scale_pair(enum hpa_sampling sampling, double period, double *n, double *s)
{
	double ratio, k;

	if (sampling == HPA_SAMPLING_NONE || *n == 0 || *s == 0)
		return;
	ratio = (*s * 1.0 / *n) / period;
	if (sampling == HPA_SAMPLING_V2) {
		/* Poisson: an object of size x is sampled with p = 1 - e^(-x/R). */
		k = poisson_factor(ratio);
		*n = *n * k;
		*s = *s * k;
	} else if (ratio < 1) {
		/* v1: one sample per R bytes on average. */
		*n = *n / ratio;
		*s = *s / ratio;
	}
}

/* The counts in v (as written) become estimates. */
static void scale(enum hpa_sampling sampling, double period, double v[HPA_NVALUES])
{
	scale_pair(sampling, period, &v[HPA_INUSE_OBJECTS], &v[HPA_INUSE_SPACE]);
	scale_pair(sampling, period, &v[HPA_ALLOC_OBJECTS], &v[HPA_ALLOC_SPACE]);
}

unsigned hpa_unsample_notes(enum hpa_sampling sampling, const uint64_t raw[HPA_NVALUES])
{
	unsigned notes = 0, i;

	if (sampling == HPA_SAMPLING_NONE)
		return 0;
	for (i = 0; i < HPA_NVALUES; i += 2) {   /* (objects, bytes) pairs */
		if (!raw[i] && raw[i + 1])
			notes |= HPA_UNSAMPLE_BYTES_WITHOUT_OBJECTS;
		else if (raw[i] && !raw[i + 1])
			notes |= HPA_UNSAMPLE_OBJECTS_WITHOUT_BYTES;
	}
	return notes;
}

/* Values past HPA_MAX_VALUE (or nan) to it, with their sign; returns how many. */
static unsigned clamp(double v[HPA_NVALUES])
{
	unsigned k, n = 0;

	for (k = 0; k < HPA_NVALUES; k++) {
		if (fabs(v[k]) <= HPA_MAX_VALUE)   /* false for nan too */
			continue;
		v[k] = v[k] < 0 ? -HPA_MAX_VALUE : HPA_MAX_VALUE;
		n++;
	}
	return n;
}

void hpa_unsample_record(struct hpa_input *in, int32_t thread, double v[HPA_NVALUES])
{
	double n = v[HPA_INUSE_OBJECTS];
	unsigned k;

	if (thread == HPA_THREAD_ALL)
		in->sampled_objects += n;   /* as written: for the coarse-estimate note */
	scale(in->sampling, in->period, v);
	/* one test per sample: a sum within bounds holds no nan, inf or value past them */
	if (!(fabs(v[0]) + fabs(v[1]) + fabs(v[2]) + fabs(v[3]) <= HPA_MAX_VALUE))
		in->clamped += clamp(v);
	/*
	 * Sampled objects are Poisson (binomial) counts: each object is in with
	 * p = n/estimate, so the bytes' variance is estimate^2 * (1 - p) / n.
	 */
	if (thread == HPA_THREAD_ALL && n > 0 && v[HPA_INUSE_OBJECTS] > n)
		in->inuse_var += v[HPA_INUSE_SPACE] * v[HPA_INUSE_SPACE] *
				 (1 - n / v[HPA_INUSE_OBJECTS]) / n;
	if (in->trunc_records)
		for (k = 0; k < HPA_NVALUES; k++)
			v[k] = trunc(v[k]);
}

void hpa_unsample_profile(struct hpa_profile *prof)
{
	unsigned nonzero = 0, k;
	size_t i;

	for (i = 0; i < prof->samples_nr; i++) {
		struct hpa_sample *s = &prof->samples[i];
		struct hpa_input *in = &prof->inputs[s->input - 1];

		if (!in->unsampled && !in->estimated)
			hpa_unsample_record(in, s->thread, s->v);
		for (k = 0; k < HPA_NVALUES; k++)
			nonzero |= (unsigned)(s->v[k] != 0) << k;
	}
	for (i = 0; i < prof->inputs_nr; i++) {
		struct hpa_input *in = &prof->inputs[i];
		struct hpa_pos pos = { in->path, 0 };

		if (!in->unsampled && in->clamped && in->sampling != HPA_SAMPLING_NONE)
			hpa_warn_at(&pos, "%llu value%s clamped to 2^53: estimates that are not finite "
				    "or beyond any real heap (sampling period %.0f); its totals are "
				    "not to be trusted", (unsigned long long)in->clamped,
				    in->clamped == 1 ? "" : "s", in->period);
		else if (!in->unsampled && in->clamped)
			hpa_warn_at(&pos, "%llu value%s beyond 2^53 clamped to it; its totals are not "
				    "to be trusted", (unsigned long long)in->clamped,
				    in->clamped == 1 ? "" : "s");
		in->unsampled = true;
	}
	prof->values_nonzero = nonzero;
}

unsigned hpa_unsample(enum hpa_sampling sampling, double period,
		      const uint64_t raw[HPA_NVALUES], double out[HPA_NVALUES])
{
	size_t i;

	for (i = 0; i < HPA_NVALUES; i++)
		out[i] = (double)raw[i];
	scale(sampling, period, out);
	return hpa_unsample_notes(sampling, raw);
}

double hpa_unsample_recorded_objects(const struct hpa_input *in, const double v[HPA_NVALUES])
{
	double n = v[HPA_INUSE_OBJECTS], s = v[HPA_INUSE_SPACE], ratio;

	if (in->sampling == HPA_SAMPLING_NONE || n <= 0 || s <= 0 || in->period <= 0)
		return n > 0 ? n : 0;
	ratio = (s / n) / in->period;
	if (in->sampling == HPA_SAMPLING_V2)
		return n / poisson_factor(ratio);
	return ratio < 1 ? n * ratio : n;
}
