#include "hpa/compat.h"

#include <math.h>

#include "hpa/unsample.h"

static unsigned scale_pair(enum hpa_sampling sampling, double period,
			   uint64_t n, uint64_t s, double *n_out, double *s_out)
{
	double dn = (double)n, ds = (double)s, ratio, k;

	*n_out = dn;
	*s_out = ds;
	if (sampling == HPA_SAMPLING_NONE)
		return 0;
	if (n == 0)
		return s ? HPA_UNSAMPLE_BYTES_WITHOUT_OBJECTS : 0;
	if (s == 0)
		return HPA_UNSAMPLE_OBJECTS_WITHOUT_BYTES;

	ratio = (ds * 1.0 / dn) / period;
	if (sampling == HPA_SAMPLING_V2) {
		/* Poisson: an object of size x is sampled with p = 1 - e^(-x/R). */
		k = 1 / (1 - exp(-ratio));
		*n_out = dn * k;
		*s_out = ds * k;
	} else if (ratio < 1) {
		/* v1: one sample per R bytes on average. */
		*n_out = dn / ratio;
		*s_out = ds / ratio;
	}
	return 0;
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

void hpa_unsample_profile(struct hpa_profile *prof)
{
	size_t i, k;

	for (i = 0; i < prof->samples_nr; i++) {
		struct hpa_sample *s = &prof->samples[i];
		const struct hpa_input *in = &prof->inputs[s->input - 1];
		uint64_t raw[HPA_NVALUES];

		if (in->unsampled || in->sampling == HPA_SAMPLING_NONE)
			continue;
		for (k = 0; k < HPA_NVALUES; k++)   /* as written: integers, exact up to 2^53 */
			raw[k] = s->v[k] >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)s->v[k];
		hpa_unsample(in->sampling, in->period, raw, s->v);
	}
	for (i = 0; i < prof->inputs_nr; i++)
		prof->inputs[i].unsampled = true;
}

unsigned hpa_unsample(enum hpa_sampling sampling, double period,
		      const uint64_t raw[HPA_NVALUES], double out[HPA_NVALUES])
{
	unsigned notes = 0;

	notes |= scale_pair(sampling, period, raw[HPA_INUSE_OBJECTS], raw[HPA_INUSE_SPACE],
			    &out[HPA_INUSE_OBJECTS], &out[HPA_INUSE_SPACE]);
	notes |= scale_pair(sampling, period, raw[HPA_ALLOC_OBJECTS], raw[HPA_ALLOC_SPACE],
			    &out[HPA_ALLOC_OBJECTS], &out[HPA_ALLOC_SPACE]);
	return notes;
}
