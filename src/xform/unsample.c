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
