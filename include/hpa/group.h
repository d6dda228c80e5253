/*
 * One grouping engine: the view's samples grouped by the text of their
 * stacks, for the writers of whole stacks and for --drop_negative.
 */
#ifndef HPA_GROUP_H
#define HPA_GROUP_H

#include "hpa/compat.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/strtab.h"
#include "hpa/view.h"

/* How hpa_group_stacks() writes a stack as text. */
struct hpa_stack_format {
	char *(*name)(const struct hpa_profile *prof, struct hpa_frame f); /* malloc'ed */
	bool root_first;       /* frame order */
	const char *prefix;    /* before each frame name */
	const char *suffix;    /* after each frame name */
	const char *empty;     /* the whole text of a stack without frames; "": no group */
	bool leaf_only;        /* the innermost visible frame alone: flat per frame */
};

/* A distinct stack text and its values: the base's (positive) and the profile's. */
struct hpa_stack_group {
	uint32_t text;         /* id in the caller's strtab */
	double before, after;
};

/*
 * Group the view's samples by stack text (a trailing separator is left to
 * the format: frames are prefix + name + suffix, concatenated).  Returns the
 * number of groups, *out (malloc'ed, in order of first appearance) and the
 * view's weighted *total.  With `group_of` (one slot per sample), the
 * group of each sample (1-based index into *out), 0 for samples out of view.
 * With `per_input`, a malloc'ed matrix of each group's weighted value in
 * each input: (*per_input)[group * inputs_nr + input - 1] (dump series).
 */
size_t hpa_group_stacks(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
			const struct hpa_stack_format *fmt, struct hpa_strtab *texts,
			struct hpa_stack_group **out, double *total, uint32_t *group_of,
			double **per_input);

/*
 * Folded stacks, as --collapse groups them (and --svg, whose names differ
 * only in how an inline frame is marked): root first, full names, each
 * followed by ';'.  --drop_negative groups by the same key, so it drops
 * exactly the stacks they would print negative.
 */
extern const struct hpa_stack_format hpa_folded_format;

/*
 * Samples grouped by frame, as the --text rows: each key (what
 * `granularity` calls a frame: its display name, with the line, the
 * runtime address, or the file) with flat, the samples whose innermost
 * visible frame has it, and cum, the samples that have it anywhere, counted
 * once per sample even when it recurs.  A sample with no visible frame is
 * the key "<no stack>"; frames above 0x7fffffffffffffff (kernel, vsyscall)
 * have no key, as in jeprof.
 */
struct hpa_frame_groups {
	struct hpa_strtab keys;   /* key id = string id (id 0, "", unused) */
	double *flat, *cum;       /* by key id */
	double total;             /* the view's weighted total */
};

void hpa_group_frames(const struct hpa_profile *prof, const struct hpa_view_opts *opts,
		      enum hpa_granularity granularity, struct hpa_frame_groups *out);
void hpa_frame_groups_release(struct hpa_frame_groups *g);

#endif
