/*
 * The order of a series of dumps (series.h): sequence numbers in the
 * producers' names, else the pprof files' own times, else the command line.
 */
#include "hpa/compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hpa/fetch.h"
#include "hpa/diag.h"
#include "hpa/profile.h"
#include "hpa/series.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

/* jemalloc: .PID.SEQ.[fimu][N].heap at some dot of the name; *pid and *seq. */
static bool jemalloc_name(const char *base, const char *end, long long *pid, long long *seq)
{
	long long p = -1, s = -1;
	char kind;
	int used;

	for (; *base; base++) {
		if (*base != '.')
			continue;
		used = 0;
		if (sscanf(base, ".%lld.%lld.%c%*[0-9].heap%n", &p, &s, &kind, &used) == 3 &&
		    base + used == end && strchr("fimu", kind))
			break;
		used = 0;
		if (sscanf(base, ".%lld.%lld.%c.heap%n", &p, &s, &kind, &used) == 3 &&
		    base + used == end && strchr("fimu", kind))
			break;
	}
	if (!*base || p < 0 || s < 0)
		return false;
	*pid = p;
	*seq = s;
	return true;
}

/* hpa --watch: heap-YYYYmmdd-HHMMSS[-N].heap or .pb.gz; the stamp and N as one number. */
static bool watch_name(const char *base, long long *seq)
{
	int date, time, n = 0, used = 0;
	const char *rest;

	if (sscanf(base, "heap-%8d-%6d%n", &date, &time, &used) != 2 || used != 20)
		return false;
	rest = base + used;
	if (*rest == '-') {
		used = 0;
		if (sscanf(rest, "-%d%n", &n, &used) != 1 || n < 1 || n > 999)
			return false;
		rest += used;
	}
	if (strcmp(rest, ".heap") && strcmp(rest, ".pb.gz"))
		return false;
	*seq = ((long long)date * 1000000 + time) * 1000 + n;
	return true;
}

void hpa_dump_name_parse(const char *path, struct hpa_dump_name *out)
{
	const char *base = strrchr(path, '/'), *end;
	long long n;
	int used = 0;

	out->pid = out->seq = -1;
	if (hpa_is_url(path) || !strcmp(path, "-"))
		return;
	base = base ? base + 1 : path;
	end = base + strlen(base);
	if (watch_name(base, &out->seq))
		return;
	if (end - base < 6 || strcmp(end - 5, ".heap"))
		return;
	if (jemalloc_name(base, end, &out->pid, &out->seq))
		return;
	/* gperftools: PREFIX.NNNN.heap, four digits or more */
	for (end -= 5; end > base && end[-1] >= '0' && end[-1] <= '9'; end--)
		;
	if (end > base && end[-1] == '.' && strlen(end) >= 4 + 5 &&
	    sscanf(end, "%lld.heap%n", &n, &used) == 1 && end[used] == '\0')
		out->seq = n;
}

/* The largest pprof file whose time is looked for before it is read. */
#define PEEK_MAX ((size_t)256 << 20)

/* A varint at *p (before end); false when cut. */
static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

int64_t hpa_pprof_time(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	int64_t t = 0;
	uint64_t key, v;

	while (p < end) {
		if (!varint(&p, end, &key))
			return 0;
		switch (key & 7) {
		case 0:
			if (!varint(&p, end, &v))
				return 0;
			if (key >> 3 == 9)
				t = (int64_t)v;
			break;
		case 1:
			if (end - p < 8)
				return 0;
			p += 8;
			break;
		case 2:
			if (!varint(&p, end, &v) || v > (uint64_t)(end - p))
				return 0;
			p += v;
			break;
		case 5:
			if (end - p < 4)
				return 0;
			p += 4;
			break;
		default:
			return 0;   /* not a protobuf: a text profile */
		}
	}
	return t > 0 ? t : 0;
}

/* Whether data[0 .. len) starts as a text profile does: a printable first line. */
static bool starts_as_text(const uint8_t *b, size_t len)
{
	size_t i = 0;

	while (i < len && b[i] == '\n')   /* blank lines first; a protobuf's 0x0a is followed by a length */
		i++;
	for (; i < len && i < 64; i++) {
		if (b[i] == '\n')
			return true;
		if ((b[i] < 0x20 && b[i] != '\t' && b[i] != '\r') || b[i] == 0x7f)
			return false;
	}
	return true;
}

/* A pprof file's own time (gzipped or not); 0 for any other file, or none. */
static int64_t pprof_time(const char *path)
{
	gzFile gz = gzopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	int64_t t = 0;
	int n;

	if (!gz)
		return 0;
	do {
		if (len == cap) {
			if (cap >= PEEK_MAX)
				break;
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap);
		}
		n = gzread(gz, buf + len, (unsigned)(cap - len));
		if (n > 0)
			len += (size_t)n;
		if (len && len == (size_t)n && starts_as_text(buf, len))
			n = -1;   /* a text profile: no time of its own */
	} while (n > 0);
	if (n == 0 && len)
		t = hpa_pprof_time(buf, len);
	gzclose(gz);
	free(buf);
	return t;
}

static void record_unknown(struct hpa_dump_record *rec)
{
	rec->time_nanos = 0;
	rec->pid = -1;
	rec->rss_bytes = rec->in_use_bytes = -1;
}

void hpa_dump_record_parse(FILE *fp, struct hpa_dump_record *rec)
{
	char line[256], key[32], val[64], *end;
	long long n;

	record_unknown(rec);
	while (fgets(line, sizeof(line), fp)) {   /* "KEY VALUE" lines; anything else is skipped */
		if (sscanf(line, "%31s %63s", key, val) != 2)
			continue;
		errno = 0;
		n = strtoll(val, &end, 10);
		if (*end || n < 0 || errno)
			continue;
		if (!strcmp(key, "time_nanos"))
			rec->time_nanos = n;
		else if (!strcmp(key, "pid"))
			rec->pid = n;
		else if (!strcmp(key, "rss_bytes"))
			rec->rss_bytes = (double)n;
		else if (!strcmp(key, "in_use_bytes"))
			rec->in_use_bytes = (double)n;
	}
}

bool hpa_dump_record_read(const char *path, struct hpa_dump_record *rec)
{
	char *name = hpa_xasprintf("%s%s", path, HPA_RECORD_SUFFIX);
	FILE *fp = hpa_is_url(path) || !strcmp(path, "-") ? NULL : fopen(name, "r");

	free(name);
	if (!fp) {
		record_unknown(rec);
		return false;
	}
	hpa_dump_record_parse(fp, rec);
	fclose(fp);
	return true;
}

int hpa_dump_stats_load(const char *path, struct hpa_alloc_stats *st)
{
	char *name = hpa_xasprintf("%s%s", path, HPA_STATS_SUFFIX);
	struct hpa_stats_source src = { name, NULL, NULL, 0, -1, NULL };
	struct hpa_proc_mem pm;
	bool has_pm;
	int rc = hpa_load_stats(&src, st, &pm, &has_pm);

	if (!rc)
		hpa_proc_mem_release(&pm);
	free(name);
	return rc;
}

bool hpa_dump_stats_read(const char *path, struct hpa_input *in)
{
	char *name = hpa_xasprintf("%s%s", path, HPA_STATS_SUFFIX);
	struct hpa_alloc_stats st;
	struct hpa_alloc_parts parts;
	bool ok = !hpa_is_url(path) && strcmp(path, "-") && access(name, F_OK) == 0;

	if (ok && hpa_dump_stats_load(path, &st) < 0) {
		hpa_warn("%s: left out: not the allocator's statistics", name);
		ok = false;
	} else if (ok) {
		hpa_alloc_stats_parts(&st, &parts);
		in->alloc_live = parts.live;
		in->alloc_frag = parts.frag;
		in->alloc_free = parts.free;
		in->alloc_meta = parts.meta;
		hpa_alloc_stats_release(&st);
	}
	free(name);
	return ok;
}

struct dump {
	size_t index, process;
	long long key;
};

static int cmp_dump(const void *a, const void *b)
{
	const struct dump *x = a, *y = b;

	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Each dump's process: a PID of its own, in the order of first dumps; *pids made. */
static size_t processes(const struct hpa_dump_name *names, size_t n, struct dump *d, long long **pids)
{
	size_t i, k, np = 0;

	*pids = xcalloc(n + 1, sizeof(**pids));
	(*pids)[0] = -1;   /* no dump, or a name that does not say: the names tell no processes apart */
	for (i = 0; i < n; i++)
		if (names[i].pid < 0)
			return 1;
	for (i = 0; i < n; i++) {
		for (k = 0; k < np && (*pids)[k] != names[i].pid; k++)
			;
		if (k == np)
			(*pids)[np++] = names[i].pid;
		d[i].process = k;
	}
	return np ? np : 1;
}

void hpa_series_order(const char *const *paths, size_t n, struct hpa_series_order *out)
{
	struct hpa_dump_name *names = xcalloc(n + 1, sizeof(*names));
	struct dump *d = xcalloc(n + 1, sizeof(*d));
	int64_t *recorded = xcalloc(n + 1, sizeof(*recorded));
	bool by_seq = n > 1, by_time = n > 1;
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		struct hpa_dump_record rec;

		hpa_dump_name_parse(paths[i], &names[i]);
		if (n > 1 && hpa_dump_record_read(paths[i], &rec)) {   /* the watcher's record */
			recorded[i] = rec.time_nanos;
			if (names[i].pid < 0)
				names[i].pid = rec.pid;
		}
		by_seq &= names[i].seq >= 0;
		d[i].index = i;
	}
	out->nprocesses = processes(names, n, d, &out->pids);
	for (i = 0; i < n && !by_seq && by_time; i++) {
		d[i].key = recorded[i] ? recorded[i] : hpa_is_url(paths[i]) || !strcmp(paths[i], "-") ?
			0 : pprof_time(paths[i]);
		by_time &= d[i].key > 0;
	}
	for (i = 0; i < n; i++)
		d[i].key = by_seq ? names[i].seq : by_time ? d[i].key : 0;
	out->key = by_seq ? HPA_SERIES_BY_SEQ : by_time ? HPA_SERIES_BY_TIME : HPA_SERIES_AS_GIVEN;
	if (n > 1)
		qsort(d, n, sizeof(*d), cmp_dump);
	out->order = xcalloc(n + 1, sizeof(*out->order));
	out->process = xcalloc(n + 1, sizeof(*out->process));
	out->repeat[0] = out->repeat[1] = -1;
	for (i = 0; i < n; i++) {
		out->order[i] = d[i].index;
		out->process[i] = d[i].process;
		if (by_seq && i && d[i].process == d[i - 1].process && d[i].key == d[i - 1].key &&
		    out->repeat[0] < 0) {
			out->repeat[0] = (long long)d[i - 1].index;
			out->repeat[1] = (long long)d[i].index;
		}
	}
	free(names);
	free(d);
	free(recorded);
}

void hpa_series_order_release(struct hpa_series_order *o)
{
	free(o->order);
	free(o->process);
	free(o->pids);
	memset(o, 0, sizeof(*o));
}

const char *hpa_series_key_text(enum hpa_series_key key)
{
	switch (key) {
	case HPA_SERIES_BY_SEQ:
		return "the sequence numbers in their names";
	case HPA_SERIES_BY_TIME:
		return "the times the dumps record";
	case HPA_SERIES_AS_GIVEN:
	default:
		return "the command line";
	}
}
