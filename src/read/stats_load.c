/*
 * --stats: the allocator's statistics (a file or a URL) and the kernel's
 * figures (--pid, --status, --smaps, --rss), read whole and parsed
 * (stats.c, stats_json.c, procmem.c) for the RSS breakdown.
 */
#include "hpa/compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/lineio.h"
#include "hpa/stats.h"
#include "hpa/xalloc.h"

#define MAX_STATS ((size_t)1 << 30)

int hpa_stats_fetch(const char *path, const struct hpa_http_opts *http, uint8_t **data, size_t *len)
{
	struct hpa_lineio io;
	int rc;

	if (hpa_is_url(path)) {
		FILE *fp = NULL;
		char *shown = hpa_url_redact(path);
		rc = hpa_http_fetch(path, "GET", NULL, http, false, &fp, len);
		if (!rc) {
			hpa_lineio_from_stream(&io, fp, shown);
			rc = hpa_lineio_slurp(&io, data, len, MAX_STATS);
			hpa_lineio_close(&io);
			fclose(fp);
		}
		free(shown);
		return rc;
	}
	if (hpa_lineio_open(&io, path, path) < 0)
		return -1;
	rc = hpa_lineio_slurp(&io, data, len, MAX_STATS);
	hpa_lineio_close(&io);
	return rc;
}

static int load_parse(const char *path, const char *name, const struct hpa_http_opts *http,
		      int (*parse)(const char *, const char *, size_t, struct hpa_proc_mem *),
		      struct hpa_proc_mem *pm)
{
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = hpa_stats_fetch(path, http, &data, &len);

	if (!rc)
		rc = parse(name, (const char *)data, len, pm);
	free(data);
	return rc;
}

int hpa_load_stats(const struct hpa_stats_source *src, struct hpa_alloc_stats *st,
		   struct hpa_proc_mem *pm, bool *has_pm)
{
	uint8_t *data = NULL;
	size_t len = 0;
	char *shown = hpa_is_url(src->stats) ? hpa_url_redact(src->stats) : xstrdup(src->stats);
	int rc = hpa_stats_fetch(src->stats, src->http, &data, &len);

	if (!rc)
		rc = hpa_alloc_stats_parse(shown, (const char *)data, len, st);
	free(data);
	free(shown);
	if (rc)
		return rc;
	memset(pm, 0, sizeof(*pm));
	*has_pm = true;
	if (src->pid) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%ld/status", src->pid);
		rc = load_parse(path, path, src->http, hpa_proc_status_parse, pm);
		if (!rc) {   /* smaps needs ptrace rights over the process: status alone then */
			snprintf(path, sizeof(path), "/proc/%ld/smaps", src->pid);
			bool was = hpa_diag_quiet;
			hpa_diag_quiet = true;
			if (load_parse(path, path, src->http, hpa_proc_smaps_parse, pm) < 0)
				hpa_warn("cannot read %s (another user's process?): memory outside the "
					 "allocator is split by status alone", path);
			hpa_diag_quiet = was;
		}
	} else {
		if (src->status_file)
			rc = load_parse(src->status_file, src->status_file, src->http, hpa_proc_status_parse, pm);
		if (!rc && src->smaps_file)
			rc = load_parse(src->smaps_file, src->smaps_file, src->http, hpa_proc_smaps_parse, pm);
		if (src->rss >= 0) {
			pm->has_rss = true;
			pm->rss = (uint64_t)llround(src->rss);
		}
		*has_pm = src->status_file || src->smaps_file || src->rss >= 0;
	}
	if (rc) {
		hpa_alloc_stats_release(st);
		hpa_proc_mem_release(pm);
	}
	return rc;
}
