/*
 * The "heap profile:" family (FORMATS.md section 3): gperftools HEAPPROFILE
 * dumps, tcmalloc GetHeapSample / GetHeapGrowthStacks (brpc /pprof/heap and
 * /pprof/growth), jemalloc 3.x and Go's legacy text profiles.  The header
 * decides the unsampling algorithm, following jeprof's table.
 */
#include "hpa/compat.h"

#include <string.h>

#include "read.h"

#define DEFAULT_PERIOD 131072.0

static int resolve_sampling(struct reader *r, struct hpa_input *in,
			    const uint64_t totals[HPA_NVALUES], const char *at)
{
	char type[64];
	size_t n;
	const char *slash;
	uint64_t period = 0;

	in->sampling = HPA_SAMPLING_NONE;
	if (!at) {
		/* Ancient "remote heap" profiles: no "@ TYPE" at all. */
		if (totals[HPA_INUSE_OBJECTS] == totals[HPA_ALLOC_OBJECTS] &&
		    totals[HPA_INUSE_SPACE] == totals[HPA_ALLOC_SPACE]) {
			in->sampling = HPA_SAMPLING_V1;
			in->period = DEFAULT_PERIOD;
		}
		return 0;
	}
	skip_blanks(&at);
	slash = strchr(at, '/');
	n = slash ? (size_t)(slash - at) : strlen(at);
	while (n && is_blank(at[n - 1]))
		n--;
	if (n >= sizeof(type))
		n = sizeof(type) - 1;
	memcpy(type, at, n);
	type[n] = '\0';
	if (slash && slash[1] >= '0' && slash[1] <= '9') {
		/* Digits only; jeprof ignores a non-numeric period. */
		const char *d = slash + 1;
		if (parse_u64(r, &d, &period) < 0 || period > HPA_MAX_PERIOD)
			return read_err(r, "sampling period %.*s does not fit (at most 2^63 bytes)",
					(int)strspn(slash + 1, "0123456789"), slash + 1);
	}
	in->header_period = period;
	if (!strcmp(type, "heapprofile") || !strstr(type, "heap"))
		return 0;
	if (strstr(type, "_v2")) {
		in->sampling = HPA_SAMPLING_V2;
		in->period = period ? (double)period : DEFAULT_PERIOD;
	} else if (!strcmp(type, "heap") && period) {
		/*
		 * "heap/N" is Go's runtime (N = 2 x MemProfileRate), which samples
		 * by Poisson process as jemalloc does: its producer's rule, as
		 * google/pprof follows it, is v2 with period N/2 (jeprof: v1),
		 * each record's estimate cut to a whole number.
		 */
		in->sampling = HPA_SAMPLING_V2;
		in->period = (double)period / 2;
		in->trunc_records = true;
	} else {
		in->sampling = HPA_SAMPLING_V1;
		in->period = period ? (double)period / 2 : DEFAULT_PERIOD;
	}
	return 0;
}

static unsigned hex_digits(uint64_t v)
{
	unsigned n = 1;

	while (v >>= 4)
		n++;
	return n;
}

/*
 * The last line has no newline: is its last address the first digits of
 * one the profile has elsewhere (a file cut inside "0x402000" ends in
 * "0x40")?  A complete line's addresses are not.
 */
static bool cut_address(const struct reader *r, uint64_t a)
{
	const struct hpa_profile *prof = r->prof;
	unsigned d = hex_digits(a);
	size_t i;

	for (i = r->first_loc ? r->first_loc : 1; i < prof->locs_nr; i++) {   /* this input's */
		uint64_t b = prof->locs[i].addr;
		unsigned e = hex_digits(b);
		if (e > d && b >> (4 * (e - d)) == a)
			return true;
	}
	return false;
}

static int record_line(struct reader *r, const char *line)
{
	const char *p = line;
	uint64_t raw[HPA_NVALUES];
	char q[64];

	if (parse_counts(r, &p, raw) < 0)
		return -1;
	skip_blanks(&p);
	if (*p != '@')
		return read_err(r, "expected \"@ ADDRESS...\" after the counts in \"%s\"",
				read_quote(line, q, sizeof(q)));
	if (parse_addrs(r, p + 1) < 0)
		return -1;
	if (!r->io.newline && r->addrs_nr)
		read_pipe_end(r);   /* cut_address() looks at the locations stored */
	if (!r->io.newline && r->addrs_nr && cut_address(r, r->addrs[r->addrs_nr - 1]))
		return read_err(r, "the last address of \"%s\" looks cut short",
				read_quote(line, q, sizeof(q)));
	if (!r->addrs_nr)
		read_note(r, NOTE_EMPTY_STACK);
	read_stack(r);
	read_add_sample(r, HPA_THREAD_ALL, raw);
	return 0;
}

int read_gperf(struct reader *r, const char *header)
{
	struct hpa_input *in = hpa_profile_input(r->prof, r->input);
	const char *p = header + 13;   /* after "heap profile:" */
	uint64_t totals[HPA_NVALUES];
	char *line;
	size_t len;
	int rc;

	in->format = HPA_FORMAT_GPERF;
	in->kind = strstr(header, "growth") || r->growth_marker ? HPA_KIND_GROWTH : HPA_KIND_HEAP;
	if (parse_counts(r, &p, totals) < 0) {
		char q[64];
		read_err(r, "malformed header \"%s\" (expected \"heap profile: OBJECTS: BYTES "
			 "[OBJECTS: BYTES] @ TYPE\")", read_quote(header, q, sizeof(q)));
		return read_fail(r);
	}
	skip_blanks(&p);
	if (*p && *p != '@') {
		char q[64];
		read_err(r, "malformed header \"%s\" (expected \"@ TYPE\" after the totals)",
			 read_quote(header, q, sizeof(q)));
		return read_fail(r);
	}
	if (resolve_sampling(r, in, totals, *p ? p + 1 : NULL) < 0)
		return read_fail(r);

	while ((rc = hpa_lineio_next(&r->io, &line, &len)) > 0) {
		char q[64];

		line = trim(line, &len);
		r->err[0] = '\0';
		if (!len || line[0] == '#')   /* Go writes "# runtime.MemStats" etc. */
			continue;
		if (r->io.nul) {
			read_err(r, "binary data (NUL byte) in profile");
		} else if (is_maps_marker(line)) {
			return read_maps(r, line);
		} else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '-') {
			if (record_line(r, line) == 0)
				continue;
		} else {
			read_err(r, "unexpected line \"%s\" (expected \"OBJECTS: BYTES "
				 "[OBJECTS: BYTES] @ ADDRESS...\")", read_quote(line, q, sizeof(q)));
		}
		if (read_line_failed(r) < 0)
			return -1;
	}
	return rc;
}
