/*
 * The kernel's memory figures of a process (stats.h): /proc/PID/status
 * (VmRSS and its anonymous, file and shmem parts) and /proc/PID/smaps or
 * smaps_rollup (per mapping: Rss, Anonymous, VmFlags).  Keys are found by
 * name, as kernels add some; values are kB (spec/STATS.md section 5).
 */
#include "hpa/compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/diag.h"
#include "hpa/stats.h"
#include "hpa/xalloc.h"
#include "read.h"

/* "Key:   123 kB" -> key (NUL-cut in line), bytes; false if the line is not one. */
static bool kb_line(char *line, char **key, uint64_t *bytes)
{
	char *colon = strchr(line, ':'), *s, *end;
	unsigned long long v;

	if (!colon || colon == line)
		return false;
	for (s = line; s < colon; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	s = colon + 1;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	v = strtoull(s, &end, 10);
	if (strcmp(end, " kB") || v > UINT64_MAX / 1024)
		return false;
	*colon = '\0';
	*key = line;
	*bytes = (uint64_t)v * 1024;
	return true;
}

int hpa_proc_status_parse(const char *name, const char *data, size_t len, struct hpa_proc_mem *m)
{
	struct buf_lines l = { data, data + len, { name, 0 }, NULL, 0 };
	char *key;
	uint64_t v;
	bool rss = false;

	while (buf_next_line(&l)) {
		char *line = l.line;

		if (!strncmp(line, "VmRSS:", 6) || !strncmp(line, "RssAnon:", 8) ||
		    !strncmp(line, "RssFile:", 8) || !strncmp(line, "RssShmem:", 9)) {
			if (!kb_line(line, &key, &v)) {
				buf_line_error(&l, "bad memory line");
				free(l.line);
				return -1;
			}
			if (!strcmp(key, "VmRSS"))
				m->vm_rss = v, rss = true;
			else if (!strcmp(key, "RssAnon"))
				m->rss_anon = v;
			else if (!strcmp(key, "RssFile"))
				m->rss_file = v;
			else
				m->rss_shmem = v;
		}
	}
	free(l.line);
	if (!rss) {
		l.pos.line = 0;
		return hpa_error_at(&l.pos, "no VmRSS line: not a /proc/PID/status file (or a kernel thread's)");
	}
	m->has_status = true;
	return 0;
}

/* "start-end perms offset dev inode [name]" */
static bool vma_header(const char *line, struct hpa_vma *v)
{
	unsigned long long start, end, off, inode;
	char perms[5];
	unsigned maj, min;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &start, &end, perms, &off, &maj, &min,
		   &inode, &n) != 7 || end < start || strlen(perms) != 4)
		return false;
	if (line[n] && line[n] != ' ')
		return false;
	while (line[n] == ' ')
		n++;
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->end = end;
	memcpy(v->perms, perms, 5);
	v->inode = inode;
	v->name = xstrdup(line + n);
	return true;
}

int hpa_proc_smaps_parse(const char *name, const char *data, size_t len, struct hpa_proc_mem *m)
{
	struct buf_lines l = { data, data + len, { name, 0 }, NULL, 0 };
	char *key;
	struct hpa_vma *cur = NULL;
	uint64_t v;

	while (buf_next_line(&l)) {
		char *line = l.line;

		struct hpa_vma vma;

		if (!*line)
			continue;
		if (vma_header(line, &vma)) {
			if (m->rollup) {   /* smaps_rollup has one header */
				free(vma.name);
				goto bad_line;
			}
			if (!strcmp(vma.name, "[rollup]"))
				m->rollup = true;
			HPA_GROW(m->vmas, m->vmas_nr + 1, m->vmas_alloc);
			m->vmas[m->vmas_nr] = vma;
			cur = &m->vmas[m->vmas_nr++];
			continue;
		}
		if (!cur)
			goto bad_line;
		if (!strncmp(line, "VmFlags:", 8)) {
			const char *f = line + 8;
			for (; *f; f++)
				if (f[0] == 'n' && f[1] == 'r' && (f[2] == ' ' || !f[2]) && f[-1] == ' ')
					cur->noreserve = true;
			continue;
		}
		if (!strncmp(line, "Rss:", 4) || !strncmp(line, "Anonymous:", 10)) {
			if (!kb_line(line, &key, &v)) {
				buf_line_error(&l, "bad figure (expected 'N kB')");
				free(l.line);
				return -1;
			}
			if (!strcmp(key, "Rss"))
				cur->rss = v;
			else
				cur->anonymous = v;
			continue;
		}
		/* Other keys ("THPeligible: 0", "ProtectionKey: 0"): "Name: value" lines. */
		if (strchr(line, ':') && isalpha((unsigned char)*line))
			continue;
	bad_line:
		buf_line_error(&l, m->vmas_nr ? "not an smaps line" :
			       "not /proc/PID/smaps: no mapping line first");
		free(l.line);
		return -1;
	}
	free(l.line);
	if (!m->vmas_nr) {
		l.pos.line = 0;
		return hpa_error_at(&l.pos, "no mapping in it: not /proc/PID/smaps or smaps_rollup");
	}
	for (size_t i = 0; i < m->vmas_nr; i++) {
		if (m->vmas[i].anonymous > m->vmas[i].rss) {
			l.pos.line = 0;
			return hpa_error_at(&l.pos, "mapping %llx-%llx has more Anonymous than Rss",
					    (unsigned long long)m->vmas[i].start,
					    (unsigned long long)m->vmas[i].end);
		}
		m->smaps_rss += m->vmas[i].rss;
		m->smaps_anon += m->vmas[i].anonymous;
	}
	m->has_smaps = true;
	return 0;
}

void hpa_proc_mem_release(struct hpa_proc_mem *m)
{
	size_t i;

	for (i = 0; i < m->vmas_nr; i++)
		free(m->vmas[i].name);
	free(m->vmas);
	memset(m, 0, sizeof(*m));
}
