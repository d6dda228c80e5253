/*
 * A series: several dumps of one process, in the order they were taken.
 * Every mode that reads several dumps gets them in the order decided here
 * (hpa_series_order), from what each producer writes:
 *
 *   1. the producer's sequence number in the file name: jemalloc's
 *      PREFIX.PID.SEQ.[fimu]N.heap, gperftools' PREFIX.NNNN.heap, and the
 *      names hpa --watch saves (heap-YYYYmmdd-HHMMSS[-N].heap / .pb.gz);
 *   2. else the dump's own time: a pprof file's time_nanos, or the record
 *      hpa --watch keeps beside each dump (DUMP.record);
 *   3. else the order of the command line.
 *
 * A jemalloc name (or the watcher's record) also says the process (its
 * PID): dumps of two processes are two series, never one.
 */
#ifndef HPA_SERIES_H
#define HPA_SERIES_H

#include "hpa/compat.h"

#include <stdio.h>

/*
 * What hpa --watch writes beside each dump it saves, DUMP.record: when the
 * dump was taken and, with --pid, the process and its RSS then (lines
 * "KEY VALUE": time_nanos, pid, rss_bytes, in_use_bytes).
 */
struct hpa_dump_record {
	int64_t time_nanos;   /* 0 unknown */
	long long pid;        /* -1 unknown */
	double rss_bytes;     /* -1 unknown */
	double in_use_bytes;  /* the profile's in-use total as the watcher saw it; -1 unknown */
};

#define HPA_RECORD_SUFFIX ".record"
/* The allocator's statistics hpa --watch --stats saves beside a dump, as the server gave them. */
#define HPA_STATS_SUFFIX ".stats"

/* Read `path`.record into *rec; false (and *rec all unknown) when there is none. */
bool hpa_dump_record_read(const char *path, struct hpa_dump_record *rec);
struct hpa_input;
/*
 * `path`.stats (hpa --watch --stats) into in's alloc_* figures: false when
 * there is none, or (said in a warning) when it does not parse.
 */
bool hpa_dump_stats_read(const char *path, struct hpa_input *in);
struct hpa_alloc_stats;
/* `path`.stats whole into *st (hpa_alloc_stats_release() it): 0, or -1 after reporting. */
int hpa_dump_stats_load(const char *path, struct hpa_alloc_stats *st);
/* A record's lines from fp into *rec; a line that is not "KEY VALUE" with a known key and a count is skipped. */
void hpa_dump_record_parse(FILE *fp, struct hpa_dump_record *rec);

/*
 * A pprof Profile's time_nanos (field 9) in data[0 .. len), the protobuf
 * as it is (not gzipped); 0 when it has none, or data is not a protobuf.
 */
int64_t hpa_pprof_time(const uint8_t *data, size_t len);

/* What a dump's file name says of its place; -1 where it says nothing. */
struct hpa_dump_name {
	long long pid;   /* the process (jemalloc names) */
	long long seq;   /* the sequence number (or an hpa --watch name's time stamp) */
};

void hpa_dump_name_parse(const char *path, struct hpa_dump_name *out);

/* By what the series was ordered. */
enum hpa_series_key {
	HPA_SERIES_AS_GIVEN,   /* the command line's order */
	HPA_SERIES_BY_SEQ,     /* the sequence numbers in the names */
	HPA_SERIES_BY_TIME     /* the pprof files' own times */
};

struct hpa_series_order {
	size_t *order;               /* order[k]: the index (in paths) of the k-th dump */
	enum hpa_series_key key;
	/*
	 * The processes the names tell apart, in the order of their first
	 * dumps: process[k] is the process (0-based) of the k-th dump of the
	 * order, whose dumps are consecutive.  nprocesses is 1 when the names
	 * do not tell (or all say one PID).
	 */
	size_t *process;
	size_t nprocesses;
	long long *pids;             /* each process's PID, -1 unknown */
	/*
	 * Two dumps of one process with the same sequence number (indexes in
	 * paths), or both -1: the sequence restarted, two runs' dumps.
	 */
	long long repeat[2];
};

/*
 * The order of dumps paths[0 .. n): by the rules above, each process's
 * dumps together (processes in the order of their first dumps on the
 * command line).  A URL or "-" has no name to go by: the command line's
 * order then.  Reads only the pprof files' times, when no name says.
 */
void hpa_series_order(const char *const *paths, size_t n, struct hpa_series_order *out);
void hpa_series_order_release(struct hpa_series_order *o);

/* "their sequence numbers", ... : what the key was, for reports. */
const char *hpa_series_key_text(enum hpa_series_key key);

#endif
