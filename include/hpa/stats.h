/*
 * --stats: the allocator's statistics and the kernel's memory figures of a
 * process, and the breakdown of its RSS they give together with the heap
 * profile (spec/STATS.md).
 *
 *   readers    jemalloc malloc_stats_print() text and JSON, tcmalloc
 *              GetStats() text (also brpc's /memory page), /proc/PID/status,
 *              /proc/PID/smaps and smaps_rollup: whole buffers in, figures
 *              out, "FILE:LINE: what is wrong" for what does not parse
 *   breakdown  rows that sum exactly to RSS, none negative
 */
#ifndef HPA_STATS_H
#define HPA_STATS_H

#include "hpa/compat.h"
#include "hpa/profile.h"

struct hpa_http_opts;

enum hpa_allocator { HPA_ALLOC_JEMALLOC = 1, HPA_ALLOC_TCMALLOC };

/* One small size class of jemalloc: its slabs and regions, all arenas merged. */
struct hpa_je_bin {
	uint64_t size;          /* region size */
	uint64_t nregs;         /* regions per slab */
	uint64_t slab_size;     /* bytes per slab */
	uint64_t curregs;       /* regions allocated now (tcache-held ones too) */
	uint64_t curslabs;      /* slabs in use */
};

/* One tcmalloc size class of GetStats' level-2 table: its free objects in the caches. */
struct hpa_tc_class {
	uint64_t size;          /* object size */
	uint64_t free_objs;     /* free objects in the central, transfer and thread caches */
};

struct hpa_alloc_stats {
	enum hpa_allocator allocator;
	char *source;           /* the file or URL, for messages */
	char *format;           /* "jemalloc text", "jemalloc JSON", "tcmalloc GetStats" */
	char *version;          /* jemalloc's Version, or NULL */

	/* jemalloc, bytes; has_* say what the input had */
	uint64_t allocated, active, metadata, resident, mapped, retained;
	uint64_t base, internal, tcache_bytes, dirty, muzzy, page;
	bool has_internal, has_tcache, has_dirty, has_muzzy;
	int lg_prof_sample;     /* opt.lg_prof_sample, -1 unknown */
	bool prof_on;           /* opt.prof: true */
	bool cache_oblivious;   /* opt.cache_oblivious (true unless it says false): a pad page per large extent */
	struct hpa_je_bin *bins;
	size_t bins_nr, bins_alloc;

	/* tcmalloc's MALLOC: lines, bytes */
	uint64_t tc_in_use, tc_pageheap_free, tc_central, tc_transfer, tc_thread, tc_metadata;
	uint64_t tc_actual, tc_released, tc_virtual;
	struct hpa_tc_class *tc_classes;   /* level 2's table (classes with free objects), or none */
	size_t tc_classes_nr, tc_classes_alloc;
};

/*
 * What the allocator holds, in bytes, by the statistics alone: what the
 * program has allocated (live), what rounding to size classes and
 * half-used pages add (frag, jemalloc's active less allocated; -1 where
 * the allocator does not say: tcmalloc), free memory it keeps resident
 * (free: jemalloc's dirty and muzzy pages, tcmalloc's page heap and
 * caches) and its own metadata (meta).
 */
struct hpa_alloc_parts {
	double live, frag, free, meta;
};

void hpa_alloc_stats_parts(const struct hpa_alloc_stats *st, struct hpa_alloc_parts *out);

/* One VMA of smaps, with what the breakdown needs of it. */
struct hpa_vma {
	uint64_t start, end;
	char perms[5];
	uint64_t inode;
	char *name;             /* "" for an unnamed mapping */
	uint64_t rss, anonymous, shmem;   /* bytes */
	bool noreserve;         /* VmFlags "nr" (jemalloc maps with MAP_NORESERVE) */
};

struct hpa_proc_mem {
	/* status, bytes */
	bool has_status;
	uint64_t vm_rss, rss_anon, rss_file, rss_shmem;
	/* smaps (VMAs) or smaps_rollup (totals only) */
	bool has_smaps, rollup;
	struct hpa_vma *vmas;
	size_t vmas_nr, vmas_alloc;
	uint64_t smaps_rss, smaps_anon, smaps_shmem;    /* sums */
	/* --rss SIZE */
	bool has_rss;
	uint64_t rss;
};

/* Where --stats reads from: what the driver passes from the command line. */
struct hpa_stats_source {
	const char *stats;                  /* allocator statistics: a file, "-" or a URL */
	const char *status_file, *smaps_file;   /* saved /proc/PID/status and smaps, or NULL */
	long pid;                           /* a live process's /proc files instead, or 0 */
	double rss;                         /* the RSS when no /proc file is at hand, or < 0 */
	const struct hpa_http_opts *http;   /* for a URL */
};

/*
 * Read the statistics and the kernel's figures `src` names (*has_pm:
 * whether any RSS figure was given).  0, or -1 after reporting.
 */
int hpa_load_stats(const struct hpa_stats_source *src, struct hpa_alloc_stats *st,
		   struct hpa_proc_mem *pm, bool *has_pm);

void hpa_alloc_stats_release(struct hpa_alloc_stats *s);

/* The whole of a statistics file ("-": standard input) or URL, as it is; 0, or -1 after reporting. */
int hpa_stats_fetch(const char *path, const struct hpa_http_opts *http, uint8_t **data, size_t *len);
void hpa_proc_mem_release(struct hpa_proc_mem *m);

/*
 * Parse allocator statistics of any supported kind from `data` (`len`
 * bytes; need not be NUL-terminated); `name` is used in messages.
 * Returns 0, or -1 after reporting.
 */
int hpa_alloc_stats_parse(const char *name, const char *data, size_t len, struct hpa_alloc_stats *out);

/* The JSON reader alone (jemalloc opts "J"); hpa_alloc_stats_parse() calls it. */
int hpa_je_json_parse(const char *name, const char *data, size_t len, struct hpa_alloc_stats *out);

/* /proc/PID/status text into m (its Vm/Rss figures). */
int hpa_proc_status_parse(const char *name, const char *data, size_t len, struct hpa_proc_mem *m);

/* /proc/PID/smaps or smaps_rollup text into m. */
int hpa_proc_smaps_parse(const char *name, const char *data, size_t len, struct hpa_proc_mem *m);

/* A row of the breakdown. */
struct hpa_rss_row {
	int level;              /* 0: a group, 1: a part of the group above */
	const char *what;       /* label */
	uint64_t bytes;         /* its share of RSS */
	uint64_t said;          /* the allocator's own figure, when it differs (has_said) */
	bool has_said;
	double error;           /* a 95% error bar in bytes (the profile's estimate), 0 none */
	const char *hint;       /* what it means and what to try; NULL for none */
	char *detail;           /* malloc'ed: the largest mappings it holds, by name; or NULL */
};

struct hpa_rss_breakdown {
	uint64_t rss;
	uint64_t live;          /* what the allocator says it holds for the program */
	const char *rss_source; /* "VmRSS (status)", "smaps Rss", "--rss" */
	struct hpa_rss_row *rows;
	size_t nr, alloc;
	char **notes;           /* malloc'ed sentences printed under the table */
	size_t notes_nr, notes_alloc;
};

/*
 * The breakdown of RSS: from the statistics `st` (may be NULL), the
 * kernel's figures `pm` (may be NULL: then the allocator's own figures
 * stand for RSS), the profile's in-use estimate `seen` (bytes, < 0: no
 * profile) with its standard error `seen_se`, and the profiler's own
 * memory (`w`, may be NULL; waste.h: jemalloc's inside live allocations,
 * gperftools' outside the allocator).  Level-0 rows sum exactly to rss,
 * each group's level-1 rows to it.  Returns 0, or -1 after reporting.
 */
struct hpa_waste;
int hpa_rss_breakdown(const struct hpa_alloc_stats *st, const struct hpa_proc_mem *pm,
		      double seen, double seen_se, const struct hpa_waste *w, struct hpa_rss_breakdown *out);
void hpa_rss_breakdown_release(struct hpa_rss_breakdown *b);

/* The bin of jemalloc small size class nearest to `avg` bytes, or NULL (a large size). */
const struct hpa_je_bin *hpa_je_bin_for(const struct hpa_alloc_stats *st, double avg);

#endif
