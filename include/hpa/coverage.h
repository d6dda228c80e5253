/*
 * What symbolization left unnamed, said per module after the names are
 * made: the share of the reported value each module's unnamed frames
 * carry, and where hpa looked for its symbols.
 */
#ifndef HPA_COVERAGE_H
#define HPA_COVERAGE_H

#include "hpa/compat.h"
#include "hpa/profile.h"
#include "hpa/strip.h"
#include "hpa/symbols.h"
#include "hpa/symbolize.h"

/*
 * Warn once per module whose frames stay unnamed in what a report shows,
 * with the share of value `v` they cover and where hpa looked, e.g.
 *   hpa: warning: libfoo.so.1: 3 addresses without symbols (12.3% of
 *   inuse_space); looked in /usr/lib/libfoo.so.1, /usr/lib/debug
 */
void hpa_warn_unsymbolized(const struct hpa_profile *prof, const struct hpa_symbols *syms,
			   const struct hpa_sym_opts *opts, enum hpa_value v, const struct hpa_cuts *cut);

#endif
