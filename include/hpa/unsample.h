/*
 * Turning recorded (sampled) counts into estimates, exactly as jeprof's
 * AdjustSamples does (FORMATS.md section 6): per record, both pairs, in
 * double precision, with jeprof's operation order so results match bit for
 * bit.  Zero cases that make jeprof divide by zero leave the pair unscaled.
 */
#ifndef HPA_UNSAMPLE_H
#define HPA_UNSAMPLE_H

#include "hpa/compat.h"
#include "hpa/profile.h"

/* Bits returned by hpa_unsample(): why a pair was left unscaled. */
enum {
	HPA_UNSAMPLE_BYTES_WITHOUT_OBJECTS = 1, /* n == 0, s != 0 */
	HPA_UNSAMPLE_OBJECTS_WITHOUT_BYTES = 2  /* n != 0, s == 0 */
};

/*
 * raw = {inuse objects, inuse bytes, alloc objects, alloc bytes} as written;
 * out gets the estimates in enum hpa_value order.  `period` is R (bytes).
 * Returns a mask of the HPA_UNSAMPLE_* notes for pairs that could not be
 * scaled (0 when sampling is HPA_SAMPLING_NONE).
 */
unsigned hpa_unsample(enum hpa_sampling sampling, double period,
		      const uint64_t raw[HPA_NVALUES], double out[HPA_NVALUES]);

/* The notes hpa_unsample() would return for `raw`, without scaling anything. */
unsigned hpa_unsample_notes(enum hpa_sampling sampling, const uint64_t raw[HPA_NVALUES]);

/*
 * The largest value a sample holds: 2^53, where doubles stop counting by
 * one.  An estimate beyond it (a period of 2^63 bytes and 1-byte objects
 * gives an infinite one) or not a number is clamped to it, and counted in
 * its input's `clamped`, so no report prints inf or nan and --proto writes
 * only what an int64 holds, sums included.
 */
#define HPA_MAX_VALUE 9007199254740992.0

/*
 * One record's counts (as written, `thread`'s line of it) into estimates,
 * in place, by the input's sampling and period, clamped to HPA_MAX_VALUE
 * (counted in its `clamped`); an all-threads line adds to its
 * `sampled_objects` and `inuse_var`.  The text readers estimate each record
 * as they store it, so that records of one stack can be summed (the input
 * is then `estimated`).
 */
void hpa_unsample_record(struct hpa_input *in, int32_t thread, double v[HPA_NVALUES]);

/*
 * The unsampling pass: turns the samples of every input not yet done (not
 * `estimated` as they were read) into estimates, warns of clamped values,
 * and notes which value types hold anything.  Run after reading, before
 * anything sums values.
 */
void hpa_unsample_profile(struct hpa_profile *prof);

/*
 * The in-use objects input `in` recorded for a sample whose estimates are
 * v: the estimate undone (its factor follows from the average size, which
 * unsampling keeps), so the objects the allocator sampled, the way the dump
 * wrote them.
 */
double hpa_unsample_recorded_objects(const struct hpa_input *in, const double v[HPA_NVALUES]);

#endif
