/*
 * A clickhouse+http(s):// URL as a PROFILE (clickhouse.h): the rows --push
 * wrote that its parameters select, summed per stack by ClickHouse (only
 * distinct stacks travel, however many hosts pushed), read back as one
 * input whose frames are names.
 *
 *   KEY=VALUE     the label KEY is VALUE (host=, version=, program=, ...)
 *   since=, until=  the dump's time is at or after / at or before it
 *                 (seconds since 1970, or a date and time ClickHouse's
 *                 parseDateTimeBestEffort reads)
 *   where=SQL     a condition of its own on the table's columns
 *
 * Every value is sent as a quoted string literal; only where= is SQL.
 * With `per_profile` the sums are divided by the number of profiles the
 * parameters match: a fleet's mean profile, so that two versions on
 * different numbers of hosts compare.
 */
#include "hpa/compat.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/clickhouse.h"
#include "hpa/diag.h"
#include "hpa/reader.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"
#include "read.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* " WHERE ..." of the URL's parameters (an empty condition: every row). */
static void where(struct hpa_strbuf *sb, const struct hpa_ch_url *u)
{
	size_t i;

	hpa_sb_adds(sb, " WHERE 1");
	for (i = 0; i < u->params_nr; i++) {
		const struct hpa_ch_param *p = &u->params[i];

		if (!strcmp(p->key, "since") || !strcmp(p->key, "until")) {
			hpa_sb_adds(sb, !strcmp(p->key, "since") ? " AND time >= " : " AND time <= ");
			hpa_sb_adds(sb, all_digits(p->value) ? "toDateTime(" : "parseDateTimeBestEffort(");
			hpa_ch_quote(sb, p->value);
			hpa_sb_addc(sb, ')');
		} else if (!strcmp(p->key, "where")) {
			hpa_sb_addf(sb, " AND (%s)", p->value);
		} else {
			hpa_sb_adds(sb, " AND label_values[indexOf(label_keys, ");
			hpa_ch_quote(sb, p->key);
			hpa_sb_adds(sb, ")] = ");
			hpa_ch_quote(sb, p->value);
		}
	}
}

/* SELECT ... FROM `db`.table WHERE ... */
static void select_from(struct hpa_strbuf *sb, const struct hpa_ch_url *u, const char *what)
{
	hpa_sb_addf(sb, "SELECT %s FROM ", what);
	hpa_ch_ident(sb, u->database);
	hpa_sb_adds(sb, "." HPA_CH_TABLE);
	where(sb, u);
}

/* How many profiles the parameters match, and the last one's time: 0, or -1 after reporting. */
static int matched(const struct hpa_ch_url *u, const struct hpa_http_opts *ho, unsigned long long *n,
		   long long *last)
{
	struct hpa_strbuf sql = HPA_STRBUF_INIT;
	char *ans = NULL, *end;
	size_t len;
	int rc;

	select_from(&sql, u, "uniqExact(profile_id), toUInt32(max(time))");
	hpa_sb_adds(&sql, " FORMAT TabSeparated");
	rc = hpa_ch_query(u, sql.buf, ho, &ans, &len);
	if (!rc) {
		*n = strtoull(ans, &end, 10);
		*last = *end == '\t' ? strtoll(end + 1, NULL, 10) : 0;
		if (end == ans || *end != '\t')
			rc = hpa_error("%s: ClickHouse answered the count with '%.40s'", u->shown, ans);
	}
	free(ans);
	hpa_sb_release(&sql);
	return rc;
}

/* One row {"stack":[...],"v":[4 sums]} into prof as a sample of `input`; -1 for a row that is not one. */
static int add_row(struct hpa_profile *prof, struct named_frames *nf, uint32_t input, const char *line,
		   double divide)
{
	struct json_object *o = json_tokener_parse(line), *st, *vs;
	struct hpa_strbuf text = HPA_STRBUF_INIT;
	double v[HPA_NVALUES];
	size_t i, n;
	int k, rc = -1;

	if (!o || !json_object_object_get_ex(o, "stack", &st) || !json_object_is_type(st, json_type_array) ||
	    !json_object_object_get_ex(o, "v", &vs) || !json_object_is_type(vs, json_type_array) ||
	    json_object_array_length(vs) != HPA_NVALUES)
		goto out;
	n = json_object_array_length(st);
	for (i = 0; i < n; i++) {
		struct json_object *f = json_object_array_get_idx(st, i);
		if (!json_object_is_type(f, json_type_string))
			goto out;
		if (i)
			hpa_sb_addc(&text, ';');
		hpa_sb_adds(&text, json_object_get_string(f));
	}
	for (k = 0; k < HPA_NVALUES; k++) {
		struct json_object *x = json_object_array_get_idx(vs, (size_t)k);
		if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
			goto out;
		v[k] = json_object_get_double(x) / divide;
	}
	hpa_profile_add_sample(prof, named_frames_stack(nf, prof, n ? text.buf : "<no stack>",
							 n ? text.len : strlen("<no stack>")),
			       HPA_THREAD_ALL, input, v);
	rc = 0;
out:
	hpa_sb_release(&text);
	json_object_put(o);
	return rc;
}

int read_clickhouse_rows(struct hpa_profile *prof, uint32_t input, char *answer, double divide, const char *shown)
{
	struct named_frames nf;
	char *p, *nl;
	size_t line = 0;
	int rc = 0;

	named_frames_init(&nf);
	for (p = answer; !rc && p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		if (*p && add_row(prof, &nf, input, p, divide) < 0)
			rc = hpa_error("%s: row %zu of ClickHouse's answer is not a stack with four sums: "
				       "'%.60s'", shown, line, p);
	}
	named_frames_release(&nf);
	return rc;
}

/* The stacks and their sums, ordered by stack (the same rows give the same profile), into input. */
static int read_rows(struct hpa_profile *prof, uint32_t input, const struct hpa_ch_url *u,
		     const struct hpa_http_opts *ho, double divide)
{
	struct hpa_strbuf sql = HPA_STRBUF_INIT;
	char *ans = NULL;
	size_t len;
	int rc;

	select_from(&sql, u, "stack, [sum(inuse_objects), sum(inuse_space), sum(alloc_objects), "
		    "sum(alloc_space)] AS v");
	hpa_sb_adds(&sql, " GROUP BY stack ORDER BY stack FORMAT JSONEachRow");
	rc = hpa_ch_query(u, sql.buf, ho, &ans, &len);
	if (!rc && strlen(ans) != len)
		rc = hpa_error("%s: ClickHouse's answer holds a NUL byte", u->shown);
	if (!rc)
		rc = read_clickhouse_rows(prof, input, ans, divide, u->shown);
	free(ans);
	hpa_sb_release(&sql);
	return rc;
}

int hpa_read_clickhouse(struct hpa_profile *prof, const char *url, const struct hpa_http_opts *ho,
			bool per_profile)
{
	struct hpa_ch_url u;
	unsigned long long n = 0;
	long long last = 0;
	uint32_t input;
	struct hpa_input *in;
	int rc = hpa_ch_url_parse(url, &u);

	if (!rc)
		rc = matched(&u, ho, &n, &last);
	if (!rc && !n)
		rc = hpa_error("%s: no profile in %s." HPA_CH_TABLE " matches%s", u.shown, u.database,
			       u.params_nr ? " these parameters" : " (the table is empty)");
	if (!rc) {
		input = hpa_profile_add_input(prof, u.shown);
		in = hpa_profile_input(prof, input);
		in->format = HPA_FORMAT_CLICKHOUSE;
		in->kind = HPA_KIND_HEAP;
		in->sampling = HPA_SAMPLING_NONE;   /* the rows hold estimates */
		in->has_maps = true;                /* none needed: frames are names */
		in->remote = true;
		in->time_nanos = last * 1000000000;
		rc = read_rows(prof, input, &u, ho, per_profile ? (double)n : 1);
	}
	hpa_ch_url_release(&u);
	return rc;
}
