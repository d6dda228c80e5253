/*
 * ClickHouse's HTTP interface (clickhouse.h): the URLs, the quoting, a
 * query's round trip.
 */
#include "hpa/compat.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hpa/clickhouse.h"
#include "hpa/diag.h"
#include "hpa/xalloc.h"

bool hpa_is_clickhouse_url(const char *s)
{
	return !strncasecmp(s, "clickhouse+http://", 18) || !strncasecmp(s, "clickhouse+https://", 19) ||
	       !strncasecmp(s, "clickhouse://", 13);
}

static int hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* [s, s + n) percent-decoded ('+' a blank, as forms write it); NULL for a bad escape or a NUL. */
static char *decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < n ? hex(s[i + 1]) : -1, lo = i + 2 < n ? hex(s[i + 2]) : -1;

			if (hi < 0 || lo < 0 || !(hi | lo)) {
				free(out);
				return NULL;
			}
			*o++ = (char)(hi << 4 | lo);
			i += 2;
		} else {
			*o++ = s[i] == '+' ? ' ' : s[i];
		}
	}
	*o = '\0';
	return out;
}

static int bad_url(const char *shown, const char *why)
{
	return hpa_error("%s: %s", shown, why);
}

/* The query's KEY=VALUE pairs into u->params; -1 after reporting. */
static int parse_params(const char *q, struct hpa_ch_url *u)
{
	size_t alloc = 0;

	while (*q && *q != '#') {
		size_t len = strcspn(q, "&#");
		const char *eq = memchr(q, '=', len);
		char *k, *v;

		if (len) {
			if (!eq || eq == q)
				return bad_url(u->shown, "a query parameter that is not KEY=VALUE");
			k = decode(q, (size_t)(eq - q));
			v = decode(eq + 1, len - (size_t)(eq - q) - 1);
			if (!k || !v) {
				free(k);
				free(v);
				return bad_url(u->shown, "a bad %-escape in a query parameter");
			}
			HPA_GROW(u->params, u->params_nr + 1, alloc);
			u->params[u->params_nr++] = (struct hpa_ch_param){ k, v };
		}
		q += len;
		if (*q == '&')
			q++;
	}
	return 0;
}

int hpa_ch_url_parse(const char *url, struct hpa_ch_url *out)
{
	const char *rest, *slash, *q;
	struct hpa_url_span sp;
	bool tls;
	size_t i, dblen;

	memset(out, 0, sizeof(out[0]));
	out->shown = hpa_url_redact(url);
	if (!strncasecmp(url, "clickhouse://", 13))
		return bad_url(out->shown, "clickhouse:// is ClickHouse's native protocol, which hpa does not "
			       "speak; name its HTTP interface: clickhouse+http://HOST:8123/DATABASE");
	tls = !strncasecmp(url, "clickhouse+https://", 19);
	rest = url + (tls ? 19 : 18);
	hpa_url_span(url, &sp);
	slash = sp.path;
	if (sp.host == sp.path)
		return bad_url(out->shown, "no host: clickhouse+http://HOST:PORT/DATABASE");
	if (*slash != '/' || !slash[1] || slash[1] == '?' || slash[1] == '#')
		return bad_url(out->shown, "no database: clickhouse+http://HOST:PORT/DATABASE");
	dblen = strcspn(slash + 1, "?#/");
	if (slash[1 + dblen] == '/')
		return bad_url(out->shown, "a path past the database: clickhouse+http://HOST:PORT/DATABASE");
	out->database = decode(slash + 1, dblen);
	if (!out->database)
		return bad_url(out->shown, "a bad %-escape in the database's name");
	for (i = 0; out->database[i]; i++)
		if (!isalnum((unsigned char)out->database[i]) && out->database[i] != '_')
			return bad_url(out->shown, "a database name other than letters, digits and '_'");
	out->http = hpa_xasprintf("%s://%.*s/", tls ? "https" : "http", (int)(slash - rest), rest);
	q = slash + 1 + dblen;
	return *q == '?' ? parse_params(q + 1, out) : 0;
}

void hpa_ch_url_release(struct hpa_ch_url *u)
{
	size_t i;

	for (i = 0; i < u->params_nr; i++) {
		free(u->params[i].key);
		free(u->params[i].value);
	}
	free(u->params);
	free(u->http);
	free(u->database);
	free(u->shown);
	memset(u, 0, sizeof(*u));
}

/* s between two `q`s, with `q` and backslashes escaped by a backslash. */
static void quoted(struct hpa_strbuf *sb, const char *s, char q)
{
	hpa_sb_addc(sb, q);
	for (; *s; s++) {
		if (*s == q || *s == '\\')
			hpa_sb_addc(sb, '\\');
		hpa_sb_addc(sb, *s);
	}
	hpa_sb_addc(sb, q);
}

void hpa_ch_quote(struct hpa_strbuf *sb, const char *s)
{
	quoted(sb, s, '\'');
}

void hpa_ch_ident(struct hpa_strbuf *sb, const char *s)
{
	quoted(sb, s, '`');
}

int hpa_ch_query(const struct hpa_ch_url *u, const char *sql, const struct hpa_http_opts *ho, char **out,
		 size_t *len)
{
	struct hpa_http_opts o = *ho;
	FILE *fp = NULL;
	size_t n = 0;
	char *buf;

	*out = NULL;
	*len = 0;
	o.error_text = true;
	o.endpoint = NULL;
	if (hpa_http_fetch(u->http, "POST", sql, &o, false, &fp, &n) < 0)
		return -1;
	buf = xmalloc(n + 1);
	if (n && fread(buf, 1, n, fp) != n) {
		fclose(fp);
		free(buf);
		return hpa_error("%s: cannot read the answer back", u->shown);
	}
	fclose(fp);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

void hpa_ch_create_sql(struct hpa_strbuf *sb, const struct hpa_ch_url *u)
{
	hpa_sb_adds(sb, "CREATE TABLE IF NOT EXISTS ");
	hpa_ch_ident(sb, u->database);
	hpa_sb_adds(sb, "." HPA_CH_TABLE " (profile_id String, time DateTime, label_keys Array(String), "
		    "label_values Array(String), stack Array(String), inuse_objects Float64, "
		    "inuse_space Float64, alloc_objects Float64, alloc_space Float64) "
		    "ENGINE = MergeTree() PARTITION BY toYYYYMM(time) ORDER BY (profile_id, time)");
}
