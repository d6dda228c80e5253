/*
 * The in-memory model of one or more heap profiles.
 *
 * All ids are uint32_t and 1-based; 0 means "none".  Tables are vectors that
 * may move when they grow: keep ids, never pointers into them.
 *
 *   location     one distinct frame address: while an input is read, one
 *                per address of that input; then hpa_unify_locations()
 *                makes it one per (module, file offset) across inputs
 *   stack        one distinct sequence of locations, leaf first, stored once
 *                as a slice of frames[] and interned by hashing the whole
 *                sequence (one lookup per stack, not per frame); stack 0 is
 *                the empty stack
 *   sample       stack + thread + the four values: as written until
 *                hpa_unsample_profile(), estimates after
 *   mapping      one line of an input's maps section
 *   input        one profile file that was read into the model
 *
 * What is known of the code at each location (functions, inline chains,
 * file:line) is a table of its own: symbols.h.
 */
#ifndef HPA_PROFILE_H
#define HPA_PROFILE_H

#include "hpa/compat.h"
#include "hpa/hashmap.h"
#include "hpa/strtab.h"

struct hpa_frame_name;

/* The four values every sample carries, in this order. */
enum hpa_value {
	HPA_INUSE_OBJECTS,
	HPA_INUSE_SPACE,
	HPA_ALLOC_OBJECTS,
	HPA_ALLOC_SPACE,
	HPA_NVALUES
};

/* Names as on the command line: "inuse_space", ... */
const char *hpa_value_name(enum hpa_value v);
bool hpa_value_is_objects(enum hpa_value v);

enum hpa_format {
	HPA_FORMAT_JEMALLOC,  /* heap_v2/<period> */
	HPA_FORMAT_GPERF,     /* heap profile: ... */
	HPA_FORMAT_PPROF,     /* perftools.profiles.Profile protobuf, gzipped or not */
	HPA_FORMAT_FOLDED,    /* folded stacks, "frame;frame;... VALUE" lines */
	HPA_FORMAT_CLICKHOUSE /* hpa --push's rows read back from ClickHouse */
};

enum hpa_kind {
	HPA_KIND_HEAP,
	HPA_KIND_GROWTH
};

/* How recorded counts are turned into estimates (FORMATS.md section 6). */
enum hpa_sampling {
	HPA_SAMPLING_NONE,
	HPA_SAMPLING_V1,  /* uniform, jeprof "remote heap version 1" */
	HPA_SAMPLING_V2   /* Poisson, jemalloc and tcmalloc sampling */
};

/*
 * Addresses from here up are kernel or vsyscall frames: no report row, as in
 * jeprof, and never symbolized.
 */
#define HPA_KERNEL_FLOOR UINT64_C(0x8000000000000000)

/* Thread of a sample: HPA_THREAD_ALL for jemalloc "t*" and gperftools rows. */
#define HPA_THREAD_ALL (-1)

struct hpa_mapping {
	uint64_t start, limit, offset; /* limit is exclusive */
	char perms[5];
	uint64_t inode;
	char *path;                     /* "" for anonymous mappings */
	bool deleted;                   /* path ended in " (deleted)" */
	uint32_t input;                 /* input id the line came from */
	uint32_t build_id;              /* string id: lowercase hex GNU build-id as read, 0 = unknown */
};

struct hpa_location {
	uint64_t addr;       /* as written in the profile (of input `input`) */
	uint64_t offset;     /* addr's offset in its module's file, if module */
	uint32_t input;      /* the input whose address `addr` is */
	uint32_t module;     /* strtab: build-id or path of its file, 0 = none */
	uint32_t mapping;    /* containing mapping, or 0 */
};

struct hpa_stack {
	uint32_t first;    /* index into frames[] of the leaf */
	uint32_t nr;       /* number of frames */
};

struct hpa_sample {
	uint32_t stack;    /* stack id, 0 for the empty stack */
	int32_t thread;    /* HPA_THREAD_ALL or a jemalloc thread id */
	uint32_t input;
	/*
	 * Of an all-threads sample: HPA_THREAD_ALL, or the one thread that
	 * holds all of it (the record's only per-thread line, with the same
	 * counts).  That thread's sample is then this one, not stored apart:
	 * half the samples of a profile whose stacks each come from one thread.
	 * hpa_profile_split_threads() stores it apart for the readers of
	 * per-thread samples that do not look here.
	 */
	int32_t sole_thread;
	double v[HPA_NVALUES];
};

struct hpa_thread {
	int32_t id;
	char *name;        /* thread.prof.name, or NULL */
};

struct hpa_input {
	char *path;                 /* as given by the user, "-" for stdin */
	enum hpa_format format;
	enum hpa_kind kind;
	enum hpa_sampling sampling;
	double period;              /* R of the unsampling formula */
	uint64_t header_period;     /* number written in the header, 0 if none */
	bool trunc_records;         /* estimates cut to whole numbers per record (Go's rule) */
	uint32_t map_first, map_nr; /* this input's mappings */
	bool has_maps;
	bool maps_cut;              /* the file ended inside its maps section, mid-line */
	bool no_samples;            /* no records, or all counts zero (said when read) */
	bool is_base;               /* read with --base */
	bool own_base;              /* a two-column folded file's first column (is_base too) */
	bool unsampled;             /* its samples hold estimates (hpa_unsample_profile ran) */
	bool remote;                /* fetched from a server (a URL) */
	char *symbol_url;           /* fetched from a server with /pprof/symbol, or NULL */
	char *value_types;          /* a pprof file's sample types, "a, b, ...", or NULL */
	int64_t time_nanos;         /* when the dump was taken: the file's, a pprof file's own, or the fetch's; 0 unknown */
	bool time_of_file;          /* time_nanos is the file's modification time, not the dump's own */
	double rss_bytes;           /* the process's RSS when the dump was taken (hpa --watch's record), -1 unknown */
	/*
	 * The allocator's statistics when the dump was taken (hpa --watch
	 * --stats's DUMP.stats; stats.h's hpa_alloc_parts), bytes: live -1
	 * unknown, frag -1 where the allocator does not say.
	 */
	double alloc_live, alloc_frag, alloc_free, alloc_meta;
	double weight;              /* factor on its values: 1, or negative for a base */
	bool estimated;             /* its samples were made estimates as they were read */
	double sampled_objects;     /* in-use objects as written (sampled), all threads */
	uint64_t records;           /* records read (all-threads lines), before any were summed */
	double inuse_var;           /* variance of its in-use bytes estimate (sampling), all threads */
	uint64_t clamped;           /* values clamped to HPA_MAX_VALUE by hpa_unsample_profile() */
};

struct hpa_build;

struct hpa_profile {
	/*
	 * The string pool of the profile and of what the passes after
	 * reading make of it (its symbols, the frames' names): append-only,
	 * an id names one string for good.  The profile owns it.
	 */
	struct hpa_strtab *strs;

	struct hpa_input *inputs;
	size_t inputs_nr, inputs_alloc;

	struct hpa_mapping *mappings;   /* [0] unused */
	size_t mappings_nr, mappings_alloc;

	struct hpa_location *locs;      /* [0] unused */
	size_t locs_nr, locs_alloc;

	struct hpa_stack *stacks;       /* [0] is the empty stack */
	size_t stacks_nr, stacks_alloc;
	uint32_t *frames;               /* location ids of every stack, leaf first */
	size_t frames_nr, frames_alloc;
	/*
	 * What only reading needs (model/build.h: the indexes that intern
	 * addresses and stacks, the frames of appended dumps not yet moved
	 * in); hpa_profile_end_reading() drops it: NULL after.
	 */
	struct hpa_build *build;

	struct hpa_sample *samples;
	size_t samples_nr, samples_alloc;
	/*
	 * Set by hpa_unsample_profile(), which every run makes before a report:
	 * bit v when some sample's value v is not 0 (jemalloc without
	 * prof_accum writes zeros for the alloc_ types), so that a report asks
	 * without a pass over the samples.
	 */
	unsigned values_nonzero;

	struct hpa_thread *threads;
	size_t threads_nr, threads_alloc;
	/*
	 * Set before reading when no report shows threads: the jemalloc
	 * reader then stores only each stack's all-thread sample ("t*:"), not
	 * one more per thread ("tN:"), which it still checks and names.
	 */
	bool no_thread_samples;

	struct hpa_hashmap thread_by_id;   /* past a few threads: id -> place + 1 in threads[] (threads.c) */

	/* A series folded as it was read (hpa_profile_fold_dump), or NULL. */
	struct hpa_dump_changes *changes;
};

/*
 * A series folded as it is read: after each dump, its samples become one
 * sample per stack across the dumps (its input the first dump that had
 * it), their values the sum of the dumps' (every total stays as it was),
 * and what each dump held of each is kept as changes, for the value types
 * in `values` alone: dump d's entries are the samples whose values differ
 * from dump d - 1's (a sample a dump lacks holds 0 there).  Memory follows
 * what changes, not dumps x stacks: 200 dumps of 50k stacks were 10M
 * samples of 48 bytes.
 */
struct hpa_dump_changes {
	unsigned values;        /* bit v for each enum hpa_value kept */
	unsigned nvalues;       /* how many: an entry's values, in enum order */
	size_t dumps;           /* dumps folded */
	size_t *first;          /* dump d's entries: first[d] .. first[d + 1] - 1 */
	double *v;              /* per entry: its nvalues values in that dump */
	/* Per entry: the same sample's entry before + 1 (0: none); per sample: its last entry + 1 */
	uint32_t *prev, *last;
	size_t nr, alloc, first_alloc, last_alloc;
	/* While folding: each sample's values in the last dump folded, and a stack's sample + 1. */
	double *now;
	size_t now_alloc;
	uint32_t *of_stack;
	size_t of_stack_alloc;
};

/*
 * Fold the samples of the last input read (from sample `mark` on: they
 * are the profile's last, unsampled) into the series, keeping the value
 * types in `values` per dump; a thread's own samples are dropped (the
 * all-threads ones hold them).  The first call makes prof->changes.
 */
void hpa_profile_fold_dump(struct hpa_profile *prof, size_t mark, unsigned values);
void hpa_dump_changes_free(struct hpa_dump_changes *c);
/*
 * Add sample i's value of type v in each dump, times w (its view's
 * weight), to out[0 .. dumps): from the folded series when the profile
 * has one (type v must be kept: a value holds from the dump that changed
 * it until the next change, 0 before its first), else the sample's own value at its dump.
 */
void hpa_sample_add_series(const struct hpa_profile *prof, uint32_t i, int v, double w, double *out);

void hpa_profile_init(struct hpa_profile *prof);
void hpa_profile_release(struct hpa_profile *prof);
/*
 * Reading ends: no stack is added from here on.  The reading indexes (the
 * one that finds a stack by its frames is 5 MiB on 180k stacks) are freed,
 * for what the passes after make to reuse before the heap grows, and the
 * symbols the files carried go to *syms (symbols.h), one chain for every
 * location.  Adding a stack after this is a bug.
 */
struct hpa_symbols;
void hpa_profile_end_reading(struct hpa_profile *prof, struct hpa_symbols *syms);

/* While the profile is read: the symbols its files carry (pprof functions, folded names). */
struct hpa_symbols *hpa_profile_symbols(struct hpa_profile *prof);

/* Append an input record; returns its id.  `path` is copied. */
uint32_t hpa_profile_add_input(struct hpa_profile *prof, const char *path);
static inline struct hpa_input *hpa_profile_input(struct hpa_profile *prof, uint32_t id)
{
	return &prof->inputs[id - 1];
}

/*
 * A heap dump with samples whose maps section is missing, or cut before a
 * complete line: its addresses belong to no module (a fixed-address BINARY
 * may be given them).  pprof and folded inputs need no maps.
 */
static inline bool hpa_input_without_maps(const struct hpa_input *in)
{
	return !in->no_samples && !(in->has_maps && (in->map_nr || in->format == HPA_FORMAT_PPROF ||
						      in->format == HPA_FORMAT_FOLDED ||
						      in->format == HPA_FORMAT_CLICKHOUSE));
}

/* Intern an address of the input read last; returns its location id. */
uint32_t hpa_profile_intern_loc(struct hpa_profile *prof, uint64_t addr);

/* A new location at `addr` that is not interned (pprof input: ids, not addresses). */
uint32_t hpa_profile_new_loc(struct hpa_profile *prof, uint64_t addr);

/* Intern a stack of location ids, leaf first. */
uint32_t hpa_profile_intern_stack_locs(struct hpa_profile *prof, const uint32_t *locs, size_t nr);

/*
 * Intern a stack given leaf first, as profiles write it: addrs[0] is the
 * leaf.  Returns the stack id (0 for nr == 0).
 */
uint32_t hpa_profile_intern_stack(struct hpa_profile *prof, const uint64_t *addrs, size_t nr);

/*
 * A stack of addresses, leaf first, for a profile whose stacks are
 * distinct by construction (a jemalloc dump writes each backtrace once): a
 * new id without looking for an equal stack.  Should one repeat, it is two
 * ids with the same frames, which every reader of stacks, going through
 * samples, groups as one.
 */
uint32_t hpa_profile_add_stack(struct hpa_profile *prof, const uint64_t *addrs, size_t nr);

/* Append a sample; returns a pointer valid until the next append. */
struct hpa_sample *hpa_profile_add_sample(struct hpa_profile *prof, uint32_t stack,
					  int32_t thread, uint32_t input,
					  const double v[HPA_NVALUES]);

/*
 * The sample last added, an all-threads one, is also thread `thread`'s own
 * sample, whole (its only per-thread line, with the same counts).
 */
void hpa_profile_set_sole_thread(struct hpa_profile *prof, int32_t thread);

/*
 * The thread whose own sample s is: its thread, or the one that holds all
 * of an all-threads sample; HPA_THREAD_ALL when it is no thread's own.
 */
static inline int32_t hpa_sample_own_thread(const struct hpa_sample *s)
{
	return s->thread != HPA_THREAD_ALL ? s->thread : s->sole_thread;
}

/* Whether some sample is a thread's own (jemalloc's "tN:" lines, pprof thread labels). */
bool hpa_profile_has_thread_samples(const struct hpa_profile *prof);

/*
 * Each sample held by one thread (sole_thread) gets that thread's own
 * sample stored apart, right after it: the samples as read, one per line.
 */
void hpa_profile_split_threads(struct hpa_profile *prof);

/* Record a thread seen in a jemalloc header; a later name replaces NULL. */
void hpa_profile_note_thread(struct hpa_profile *prof, int32_t id, const char *name);
/* The place + 1 of thread `id` in prof->threads, or 0 (model/threads.c). */
size_t hpa_profile_thread_place(const struct hpa_profile *prof, int32_t id);

/* Append a mapping; `path` is copied.  Returns its id. */
uint32_t hpa_profile_add_mapping(struct hpa_profile *prof, const struct hpa_mapping *m);

/*
 * Give every location that has no mapping yet the mapping of input `input`
 * that contains it (looked up at addr - 1, the call instruction).
 */
void hpa_profile_assign_mappings(struct hpa_profile *prof, uint32_t input);

/*
 * Append `from`, one input read into a profile of its own (a text heap
 * profile: addresses, stacks and samples, no functions or lines), to prof
 * as its next input: the tables reading it into prof would have made, ids
 * shifted past prof's.  Then, as for any input read, its mappings are given
 * to the locations without one.  `from` is released.
 */
void hpa_profile_append(struct hpa_profile *prof, struct hpa_profile *from);

/* The frames of an appended input into frames[] now (see build.h). */
void hpa_profile_settle(struct hpa_profile *prof);

/* The location ids of stack `id`, leaf first; *nr is set to their number. */
static inline const uint32_t *hpa_profile_stack(const struct hpa_profile *prof, uint32_t id,
						size_t *nr)
{
	*nr = prof->stacks[id].nr;
	return prof->frames + prof->stacks[id].first;
}

/*
 * The profile's strings are text to show: one from a profile, a server or
 * a binary is interned with its control bytes written as \xNN
 * (hpa_sb_add_shown()), so no report, message or page ever carries one.
 */
uint32_t hpa_profile_intern_text(struct hpa_profile *prof, const char *s);


static inline const char *hpa_profile_str(const struct hpa_profile *prof, uint32_t id)
{
	return hpa_strtab_get(prof->strs, id);
}

/* Path of a location's module ("" if anonymous), or NULL when in no mapping. */
const char *hpa_profile_loc_path(const struct hpa_profile *prof, uint32_t loc);

/*
 * Basename of a location's module: "[anon]" for an anonymous mapping, NULL
 * when it lies in no mapping.
 */
const char *hpa_profile_loc_module(const struct hpa_profile *prof, uint32_t loc);

/*
 * Location identity across inputs: every location in a mapped file is
 * keyed by (module, file offset), the module being the file's build-id when
 * known, else its path; locations with the same key become one, and the
 * frames of every stack follow (two stacks may then hold the same frames).
 * Addresses in no mapping, or in anonymous memory, stay addresses of their
 * own input.  A location then lives in the first input that maps its
 * module, so each module is symbolized once.  Run after every input and its
 * mappings are read (and unsampled), before symbolization.
 *
 * hpa_unify_locations_so_far() does the same between inputs, keeping the
 * room of the frames table: run after each input from the second on, the
 * dumps read so far share their stacks' frames while the next is read, so
 * that memory follows the distinct stacks, not the number of dumps (20
 * dumps of 180k stacks: 600 MiB otherwise).  The result is the same as
 * one run at the end, which then finds nothing left to merge.
 */
void hpa_unify_locations(struct hpa_profile *prof);
void hpa_unify_locations_so_far(struct hpa_profile *prof);


/* One frame: inline level `level` (0 = innermost) of location `loc`. */
struct hpa_frame {
	uint32_t loc;
	uint32_t level;
};

/* |v| below a millionth of a byte or object is rounding left by a diff: 0. */
static inline double hpa_dust_to_zero(double v)
{
	return v < 1e-6 && v > -1e-6 ? 0 : v;
}


/*
 * Sum of value `v` over the samples of `thread` (HPA_THREAD_ALL: the
 * all-threads ones; a thread: its own, hpa_sample_own_thread), in sample
 * order, weighted.
 */
double hpa_profile_total(const struct hpa_profile *prof, enum hpa_value v, int32_t thread);

#endif
