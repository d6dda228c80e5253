/*
 * The rows --push sends to ClickHouse (clickhouse.h): one JSON object per
 * distinct stack of the view, its frames' names root first as --collapse
 * names them (an inlined callee marked "[inline]"), and its four values,
 * unsampled estimates, summed over the stack's samples.  The driver adds
 * the profile's id, time and labels to each.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>

#include "hpa/report.h"
#include "hpa/strbuf.h"
#include "hpa/view.h"

struct push_rows {
	FILE *fp;
	const struct hpa_profile *prof;
	const struct hpa_view_opts *vo;
	struct hpa_strbuf sb;
};

static void emit_row(void *ctx, const char *text, size_t len, const uint32_t *samples, const double *values,
		     size_t n)
{
	static const char *const names[HPA_NVALUES] = { "inuse_objects", "inuse_space", "alloc_objects",
							"alloc_space" };
	struct push_rows *p = ctx;
	double v[HPA_NVALUES] = { 0 };
	const char *f = text, *end = text + len;
	size_t i;
	int k;

	(void)values;
	for (i = 0; i < n; i++) {
		const struct hpa_sample *s = &p->prof->samples[samples[i]];
		double w = hpa_view_weight(p->vo, p->prof, s->input);
		for (k = 0; k < HPA_NVALUES; k++)
			v[k] += s->v[k] * w;
	}
	if (!v[0] && !v[1] && !v[2] && !v[3])
		return;
	p->sb.len = 0;
	hpa_sb_adds(&p->sb, "{\"stack\":[");
	if (strcmp(text, hpa_folded_format.empty)) {   /* a stack without frames: no names */
		for (i = 0; f < end; i++) {   /* "root;...;leaf;" */
			const char *semi = memchr(f, ';', (size_t)(end - f));
			char *name = hpa_xasprintf("%.*s", (int)((semi ? semi : end) - f), f);

			if (i)
				hpa_sb_addc(&p->sb, ',');
			hpa_sb_add_json(&p->sb, name);
			free(name);
			f = semi ? semi + 1 : end;
		}
	}
	hpa_sb_addc(&p->sb, ']');
	for (k = 0; k < HPA_NVALUES; k++)
		hpa_sb_addf(&p->sb, ",\"%s\":%.17g", names[k], v[k]);
	hpa_sb_adds(&p->sb, "}\n");
	fwrite(p->sb.buf, 1, p->sb.len, p->fp);
}

int hpa_report_push(FILE *fp, const struct hpa_profile *prof, const struct hpa_write_opts *opts)
{
	struct hpa_view_opts vo = opts->view;
	struct push_rows p = { fp, prof, &vo, HPA_STRBUF_INIT };

	vo.thread = HPA_THREAD_ALL;
	hpa_walk_stacks(prof, &vo, &hpa_folded_format, true, emit_row, &p);
	hpa_sb_release(&p.sb);
	return ferror(fp) ? -1 : 0;
}
