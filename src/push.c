/*
 * --push clickhouse+http://HOST:PORT/DATABASE: each PROFILE symbolized
 * here, where its binary is, and its stacks inserted into ClickHouse's
 * table (clickhouse.h; the schema in hpa_ch_create_sql), one row per
 * distinct stack with the profile's id, time and labels.  The id is a hash
 * of the rows, the time and the labels: the same profile pushed again is
 * found and not inserted twice.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hpa/clickhouse.h"
#include "hpa/diag.h"
#include "hpa/opts.h"
#include "hpa/push.h"
#include "hpa/series.h"
#include "hpa/strbuf.h"
#include "hpa/xalloc.h"

int hpa_push_run(const struct hpa_opts *opts, int (*run_one)(const struct hpa_opts *))
{
	struct hpa_strbuf sql = HPA_STRBUF_INIT;
	struct hpa_ch_url u;
	char *ans = NULL;
	size_t len, i;
	int rc = hpa_ch_url_parse(opts->push, &u), bad = 0;

	if (!rc) {   /* the table, when it is missing (the database must be there) */
		hpa_ch_create_sql(&sql, &u);
		rc = hpa_ch_query(&u, sql.buf, &opts->http, &ans, &len);
		free(ans);
	}
	hpa_sb_release(&sql);
	hpa_ch_url_release(&u);
	for (i = 0; !rc && i < opts->profiles_nr; i++) {   /* each PROFILE a profile of its own */
		struct hpa_opts o = *opts;

		o.profiles = &opts->profiles[i];
		o.profiles_nr = 1;
		bad |= run_one(&o) != 0;
	}
	return rc ? rc : bad ? -1 : 0;
}

/* A label pair into the two JSON arrays' texts. */
static void label(struct hpa_strbuf *keys, struct hpa_strbuf *values, const char *k, const char *v)
{
	if (keys->len > 1) {
		hpa_sb_addc(keys, ',');
		hpa_sb_addc(values, ',');
	}
	hpa_sb_add_json(keys, k);
	hpa_sb_add_json(values, v);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The profile's labels: what hpa knows of it (program, build-id, pid, producer), then the given ones. */
static void labels(const struct hpa_opts *opts, const struct hpa_profile *prof, struct hpa_strbuf *keys,
		   struct hpa_strbuf *values)
{
	static const char *const producers[] = { "jemalloc", "gperftools", "pprof", "folded", "clickhouse" };
	const struct hpa_input *in = &prof->inputs[0];
	const struct hpa_mapping *exe = in->map_nr ? &prof->mappings[in->map_first] : NULL;
	struct hpa_dump_name dn;
	char pid[32];
	size_t i, k;

	hpa_sb_addc(keys, '[');
	hpa_sb_addc(values, '[');
	for (k = 0; k < 4; k++) {
		const char *key = k == 0 ? "program" : k == 1 ? "build_id" : k == 2 ? "pid" : "producer";
		const char *v = NULL;

		for (i = 0; i < opts->labels_nr; i++)   /* given: the user's word */
			if (!strncmp(opts->labels[i], key, strlen(key)) && opts->labels[i][strlen(key)] == '=')
				break;
		if (i < opts->labels_nr)
			continue;
		if (k == 0)
			v = opts->binary ? base_name(opts->binary) : exe && *exe->path ? base_name(exe->path) : NULL;
		else if (k == 1)
			v = exe && exe->build_id ? hpa_profile_str(prof, exe->build_id) : NULL;
		else if (k == 2) {
			hpa_dump_name_parse(in->path, &dn);
			snprintf(pid, sizeof(pid), "%lld", dn.pid);
			v = dn.pid >= 0 ? pid : NULL;
		} else {
			v = (size_t)in->format < HPA_ARRAY_SIZE(producers) ? producers[in->format] : NULL;
		}
		if (v)
			label(keys, values, key, v);
	}
	for (i = 0; i < opts->labels_nr; i++) {
		const char *eq = strchr(opts->labels[i], '=');
		char *key = xstrndup(opts->labels[i], (size_t)(eq - opts->labels[i]));
		label(keys, values, key, eq + 1);
		free(key);
	}
	hpa_sb_addc(keys, ']');
	hpa_sb_addc(values, ']');
}

/* FNV-1a, 64 bits, over [p, p + n), from h. */
static uint64_t fnv(uint64_t h, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= (unsigned char)p[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

/* Whether the table holds profile `id` already: 1, 0, or -1 after reporting. */
static int pushed_before(const struct hpa_ch_url *u, const char *id, const struct hpa_http_opts *ho)
{
	struct hpa_strbuf sql = HPA_STRBUF_INIT;
	char *ans = NULL;
	size_t len;
	int rc;

	hpa_sb_adds(&sql, "SELECT count() FROM ");
	hpa_ch_ident(&sql, u->database);
	hpa_sb_adds(&sql, "." HPA_CH_TABLE " WHERE profile_id = ");
	hpa_ch_quote(&sql, id);
	hpa_sb_adds(&sql, " FORMAT TabSeparated");
	rc = hpa_ch_query(u, sql.buf, ho, &ans, &len);
	if (!rc)
		rc = strtoull(ans, NULL, 10) > 0;
	free(ans);
	hpa_sb_release(&sql);
	return rc;
}

int hpa_push_profile(const struct hpa_opts *opts, const struct hpa_profile *prof, const char *rows, size_t len)
{
	const struct hpa_input *in = &prof->inputs[0];
	struct hpa_strbuf keys = HPA_STRBUF_INIT, values = HPA_STRBUF_INIT, body = HPA_STRBUF_INIT;
	struct hpa_ch_url u;
	long long when = in->time_nanos ? in->time_nanos / 1000000000 : (long long)time(NULL);
	char id[17], head[64], *ans = NULL;
	const char *p, *end = rows + len;
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	size_t n = 0, alen;
	int rc;

	if (hpa_ch_url_parse(opts->push, &u) < 0)
		return -1;
	labels(opts, prof, &keys, &values);
	snprintf(head, sizeof(head), "%lld", when);
	h = fnv(fnv(fnv(h, head, strlen(head)), keys.buf, keys.len), values.buf, values.len);
	snprintf(id, sizeof(id), "%016llx", (unsigned long long)fnv(h, rows, len));
	rc = pushed_before(&u, id, &opts->http);
	if (rc > 0) {
		hpa_warn("%s: already in %s (profile %s): not inserted again", in->path, u.shown, id);
		rc = 0;
	} else if (!rc && !len) {
		hpa_warn("%s: no stacks with values to push", in->path);
	} else if (!rc) {
		hpa_sb_adds(&body, "INSERT INTO ");
		hpa_ch_ident(&body, u.database);
		hpa_sb_adds(&body, "." HPA_CH_TABLE " FORMAT JSONEachRow\n");
		for (p = rows; p < end; n++) {   /* each row: {"stack":...} gets the profile's fields first */
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *e = nl ? nl + 1 : end;
			hpa_sb_addf(&body, "{\"profile_id\":\"%s\",\"time\":%lld,\"label_keys\":%s,\"label_values\":%s,",
				    id, when, keys.buf, values.buf);
			hpa_sb_add(&body, p + 1, (size_t)(e - p - 1));
			p = e;
		}
		rc = hpa_ch_query(&u, body.buf, &opts->http, &ans, &alen);
		if (!rc)
			printf("pushed %s: %zu stacks as profile %s into %s\n", in->path, n, id, u.shown);
	}
	free(ans);
	hpa_sb_release(&body);
	hpa_sb_release(&keys);
	hpa_sb_release(&values);
	hpa_ch_url_release(&u);
	return rc;
}
