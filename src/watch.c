/*
 * --watch URL: poll a server and keep a profile each time in-use memory
 * grew by more than --threshold since the last one kept.  The measure is
 * the fetched profile's unsampled in-use total, or with --pid the RSS of a
 * local process (then the profile is fetched only when it is to be kept).
 * Beside each dump kept: DUMP.record (when, the process and its RSS) and
 * with --stats the allocator's statistics then, DUMP.stats.
 * One line per check; SIGINT or SIGTERM stops it cleanly between checks.
 */
#include "hpa/compat.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/opts.h"
#include "hpa/output.h"
#include "hpa/remote.h"
#include "hpa/run.h"
#include "hpa/series.h"
#include "hpa/stats.h"
#include "hpa/strbuf.h"
#include "hpa/tempfile.h"
#include "hpa/unsample.h"
#include "hpa/report.h"
#include "hpa/xalloc.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* RSS of pid in bytes from /proc/PID/status, or -1. */
static double rss_of(long pid)
{
	char path[64], line[256];
	double kb = -1;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "VmRSS: %lf kB", &kb) == 1)
			break;
	fclose(fp);
	return kb < 0 ? -1 : kb * 1024;
}

/* Fetch once: the in-use total, and the raw answer to keep. */
static int fetch(const struct hpa_opts *opts, double *total, FILE **raw, size_t *len)
{
	struct hpa_profile prof;
	int rc;

	hpa_profile_init(&prof);
	rc = hpa_read_url(&prof, opts->watch, &opts->http, raw, len);
	if (!rc)
		hpa_unsample_profile(&prof);
	if (!rc)
		*total = hpa_profile_total(&prof, HPA_INUSE_SPACE, HPA_THREAD_ALL);
	hpa_profile_release(&prof);
	return rc;
}

static int save(const struct hpa_opts *opts, FILE *raw, size_t len, char *name, size_t size)
{
	struct hpa_output out;
	time_t t = time(NULL);
	struct tm tm;
	char stamp[32], *path, buf[65536];
	unsigned char magic[2] = { 0, 0 };
	bool gz;
	size_t n;
	int rc;

	gz = len >= 2 && fread(magic, 1, 2, raw) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	rewind(raw);
	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(name, size, "%s/heap-%s%s", opts->outdir, stamp, gz ? ".pb.gz" : ".heap");
	/* Two saves in one second: number them. */
	for (int i = 1; access(name, F_OK) == 0 && i < 1000; i++)
		snprintf(name, size, "%s/heap-%s-%d%s", opts->outdir, stamp, i, gz ? ".pb.gz" : ".heap");
	path = xstrdup(name);
	rc = hpa_output_open(&out, path, NULL, 0);
	if (!rc) {
		while ((n = fread(buf, 1, sizeof(buf), raw)) > 0)
			fwrite(buf, 1, n, out.fp);
		if (ferror(raw))
			hpa_error("%s: cannot read the fetched answer back", path);
		rc = hpa_output_close(&out, !ferror(raw));   /* -1 when not ok */
	}
	free(path);
	return rc;
}

/*
 * The watcher's record beside a saved dump (series.h): when it was taken,
 * and with --pid the process and its RSS then; the profile's in-use total.
 */
static int save_record(const struct hpa_opts *opts, const char *dump, double rss, double in_use)
{
	struct hpa_output out;
	struct timespec now;
	char *path = hpa_xasprintf("%s%s", dump, HPA_RECORD_SUFFIX);
	int rc = hpa_output_open(&out, path, NULL, 0);

	if (!rc) {
		clock_gettime(CLOCK_REALTIME, &now);
		fprintf(out.fp, "# hpa --watch: the dump beside this file, as it was taken\n");
		fprintf(out.fp, "time_nanos %lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
		if (opts->pid)
			fprintf(out.fp, "pid %ld\nrss_bytes %.0f\n", opts->pid, rss);
		if (in_use >= 0)
			fprintf(out.fp, "in_use_bytes %.0f\n", in_use);
		rc = hpa_output_close(&out, true);
	}
	free(path);
	return rc;
}

/* The allocator's statistics (--stats) beside a saved dump, as they were given: DUMP.stats. */
static int save_stats(const struct hpa_opts *opts, const char *dump)
{
	struct hpa_output out;
	uint8_t *data = NULL;
	size_t len = 0;
	char *path;
	int rc = hpa_stats_fetch(opts->stats, &opts->http, &data, &len);

	if (rc < 0) {
		hpa_warn("%s: kept without the allocator's statistics", dump);
		return rc;
	}
	path = hpa_xasprintf("%s%s", dump, HPA_STATS_SUFFIX);
	rc = hpa_output_open(&out, path, NULL, 0);
	if (!rc) {
		fwrite(data, 1, len, out.fp);
		rc = hpa_output_close(&out, true);
	}
	free(path);
	free(data);
	return rc;
}

/*
 * A watcher killed mid-save (even by SIGKILL) leaves at most a hidden
 * temporary file, never a partial dump under a dump's name: remove such
 * leftovers of an earlier run from the folder.
 */
static void remove_leftovers(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, HPA_TEMP_PREFIX, strlen(HPA_TEMP_PREFIX)))
			continue;
		char *path = hpa_xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
			hpa_warn("%s: removed, a partial save of an earlier run", path);
		free(path);
	}
	closedir(d);
}

int hpa_watch(const struct hpa_opts *opts)
{
	double interval = opts->interval > 0 ? opts->interval : 60;
	double threshold = opts->threshold > 0 ? opts->threshold : 10 * 1048576.0;
	double last = -1;
	struct sigaction sa;
	unsigned checks = 0;

	if (hpa_output_make_dirs(opts->outdir) < 0)
		return -1;
	remove_leftovers(opts->outdir);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	hpa_http_set_cancel(&stop);
	setvbuf(stdout, NULL, _IOLBF, 0);

	while (!stop) {
		FILE *raw = NULL;
		size_t len = 0;
		double measure = -1;
		char when[32], name[4096] = "";
		time_t t = time(NULL);
		struct tm tm;
		struct timespec ts;
		double slept = 0;

		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		checks++;
		if (opts->pid) {
			measure = rss_of(opts->pid);
			if (measure < 0) {
				hpa_warn("process %ld is gone; stopping", opts->pid);
				break;
			}
		} else if (fetch(opts, &measure, &raw, &len) < 0 && !stop) {
			printf("%s check %u: fetch failed; retrying in %.0f s\n", when, checks, interval);
		}
		if (measure >= 0) {
			double prev = last, in_use = opts->pid ? -1 : measure;
			bool keep = last < 0 || measure - last > threshold;
			if (keep && opts->pid && fetch(opts, &in_use, &raw, &len) < 0)
				keep = false;
			if (keep && save(opts, raw, len, name, sizeof(name)) == 0) {
				last = measure;
				if (opts->stats)   /* before the record, which says the dump is whole */
					save_stats(opts, name);
				/* the RSS when the dump was taken: after the fetch that made it */
				save_record(opts, name, opts->pid ? rss_of(opts->pid) : -1, in_use);
			} else {
				name[0] = '\0';
			}
			char now[48], grew[48];
			struct hpa_write_opts o = hpa_opts_write(opts);   /* sizes as people read them: */
			if (o.unit == HPA_UNIT_DEFAULT)                   /* --unit auto by default */
				o.unit = o.show_bytes ? HPA_UNIT_B : HPA_UNIT_AUTO;
			o.view.value = HPA_INUSE_SPACE;
			hpa_format_total(now, sizeof(now), measure, &o);
			hpa_format_total(grew, sizeof(grew), prev < 0 ? 0 : measure - prev, &o);
			printf("%s check %u: %s %s (%s%s since the last saved)%s%s\n", when, checks,
			       opts->pid ? "RSS" : "in use", now, prev >= 0 && measure > prev ? "+" : "",
			       grew, *name ? "; saved " : "", name);
		}
		if (raw)
			fclose(raw);
		/* Sleep in short steps so a signal ends the wait at once. */
		while (!stop && slept < interval) {
			double step = interval - slept < 0.2 ? interval - slept : 0.2;
			ts.tv_sec = (time_t)step;
			ts.tv_nsec = (long)((step - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
			slept += step;
		}
	}
	printf("stopped after %u checks\n", checks);
	return 0;
}
