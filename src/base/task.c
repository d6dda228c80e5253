#include "hpa/compat.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hpa/task.h"

/* Two numbers from `path` (the second may be absent: *b stays); false unless the first is one. */
static bool read_numbers(const char *path, double *a, double *b)
{
	FILE *fp = fopen(path, "r");
	bool ok;

	if (!fp)
		return false;
	ok = fscanf(fp, "%lf %lf", a, b) >= 1;
	fclose(fp);
	return ok;
}

/*
 * The smallest quota of `dir` and its parents up to `root` (cgroup v2's
 * cpu.max "QUOTA PERIOD", or v1's cpu.cfs_quota_us and cpu.cfs_period_us),
 * in processors; 0 when none is set.
 */
static double quota_up(const char *root, const char *dir, bool v2)
{
	char path[4096];
	double best = 0;
	size_t len = strlen(dir);

	for (;;) {
		double q = -1, period = 100000;
		int n = snprintf(path, sizeof(path), "%s%.*s/%s", root, (int)len, dir,
				 v2 ? "cpu.max" : "cpu.cfs_quota_us");
		if (n > 0 && (size_t)n < sizeof(path)) {
			if (v2) {
				read_numbers(path, &q, &period);   /* "max 100000": no number, no quota */
			} else if (read_numbers(path, &q, &period)) {
				snprintf(path, sizeof(path), "%s%.*s/cpu.cfs_period_us", root, (int)len, dir);
				read_numbers(path, &period, &period);
			}
			if (q > 0 && period > 0 && (!best || q / period < best))
				best = q / period;
		}
		while (len && dir[len - 1] != '/')
			len--;
		if (!len)
			break;
		len--;   /* the parent, "" at the top */
	}
	return best;
}

size_t hpa_cpu_quota(const char *fs_root, const char *self_cgroup)
{
	const char *line = self_cgroup;
	double best = 0;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *c1 = strchr(line, ':'), *c2;
		char root[4096], dir[4096];
		double q = 0;

		if (!end)
			end = line + strlen(line);
		c2 = c1 && c1 < end ? memchr(c1 + 1, ':', (size_t)(end - c1 - 1)) : NULL;
		if (c2 && (size_t)(end - c2 - 1) < sizeof(dir)) {
			size_t cl = (size_t)(c2 - c1 - 1);
			bool v2 = cl == 0, cpu = false;
			for (const char *p = c1 + 1; p < c2;) {   /* is "cpu" among v1's controllers? */
				size_t w = strcspn(p, ",:");
				cpu |= w == 3 && !strncmp(p, "cpu", 3);
				p += w + (p[w] == ',');
			}
			snprintf(dir, sizeof(dir), "%.*s", (int)(end - c2 - 1), c2 + 1);
			if (!strcmp(dir, "/"))
				dir[0] = '\0';
			if (v2) {
				snprintf(root, sizeof(root), "%s/unified", fs_root);
				q = quota_up(access(root, F_OK) == 0 ? root : fs_root, dir, true);
			} else if (cpu) {
				snprintf(root, sizeof(root), "%s/%.*s", fs_root, (int)cl, c1 + 1);
				if (access(root, F_OK) != 0)
					snprintf(root, sizeof(root), "%s/cpu", fs_root);
				q = quota_up(root, dir, false);
			}
		}
		if (q > 0 && (!best || q < best))
			best = q;
		line = *end ? end + 1 : NULL;
	}
	return best > 0 ? (size_t)ceil(best) : 0;
}

size_t hpa_processors(void)
{
	static size_t cached;
	cpu_set_t set;
	long n;
	size_t cpus, quota = 0;
	char text[4096] = "";
	FILE *fp;

	if ((cpus = __atomic_load_n(&cached, __ATOMIC_RELAXED)) != 0)   /* a run asks often; the answer stays */
		return cpus;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		cpus = (size_t)CPU_COUNT(&set);
	else
		cpus = (n = sysconf(_SC_NPROCESSORS_ONLN)) > 0 ? (size_t)n : 1;
	/* A container's CPU quota (cgroup cpu.max) caps the threads worth running. */
	if ((fp = fopen("/proc/self/cgroup", "r"))) {
		size_t got = fread(text, 1, sizeof(text) - 1, fp);
		text[got] = '\0';
		fclose(fp);
		quota = hpa_cpu_quota("/sys/fs/cgroup", text);
	}
	if (quota && quota < cpus)
		cpus = quota;
	__atomic_store_n(&cached, cpus, __ATOMIC_RELAXED);
	return cpus;
}

static void *task_main(void *arg)
{
	struct hpa_task *t = arg;

	t->fn(t->arg);
	return NULL;
}

void hpa_task_start(struct hpa_task *t, void (*fn)(void *arg), void *arg)
{
	t->fn = fn;
	t->arg = arg;
	t->started = hpa_processors() > 1 && pthread_create(&t->tid, NULL, task_main, t) == 0;
}

void hpa_task_wait(struct hpa_task *t)
{
	if (t->started)
		pthread_join(t->tid, NULL);
	else
		t->fn(t->arg);
	t->started = false;
}
