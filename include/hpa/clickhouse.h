/*
 * ClickHouse over its HTTP interface (libcurl, fetch.h): where a fleet's
 * profiles are kept (--push) and read back (a clickhouse+http:// PROFILE).
 *
 * URLs name the HTTP interface as SQLAlchemy's dialect does:
 *   clickhouse+http://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE[?KEY=VALUE&...]
 *   clickhouse+https://...
 * (a bare clickhouse:// is the native protocol in other clients: refused).
 * The query parameters select rows when the URL is read (a label's value;
 * since, until, where): they are percent-decoded here, and every value
 * reaches the server as a quoted string literal, never as SQL.
 */
#ifndef HPA_CLICKHOUSE_H
#define HPA_CLICKHOUSE_H

#include "hpa/compat.h"
#include "hpa/fetch.h"
#include "hpa/strbuf.h"

/* The table hpa writes and reads, in the URL's database. */
#define HPA_CH_TABLE "hpa_samples"

struct hpa_ch_param {
	char *key, *value;        /* percent-decoded */
};

struct hpa_ch_url {
	char *http;               /* http(s)://[USER[:PASSWORD]@]HOST[:PORT]/ */
	char *database;
	char *shown;              /* the URL as messages show it: no password */
	struct hpa_ch_param *params;
	size_t params_nr;
};

/* Whether s names ClickHouse: "clickhouse+http://", "clickhouse+https://" or "clickhouse://". */
bool hpa_is_clickhouse_url(const char *s);

/* Parse `url`; 0, or -1 after reporting what is wrong with it. */
int hpa_ch_url_parse(const char *url, struct hpa_ch_url *out);
void hpa_ch_url_release(struct hpa_ch_url *u);

/* `s` as a ClickHouse string literal ('...', backslashes and quotes escaped) onto sb. */
void hpa_ch_quote(struct hpa_strbuf *sb, const char *s);
/* `s` as a back-quoted identifier onto sb. */
void hpa_ch_ident(struct hpa_strbuf *sb, const char *s);

/*
 * Run `sql` on the server (its data, if any, after it in the same body):
 * 0 with *out the answer (malloc'ed, NUL-terminated, *len bytes), or -1
 * after one "hpa: URL: ..." line with ClickHouse's own reason.
 */
int hpa_ch_query(const struct hpa_ch_url *u, const char *sql, const struct hpa_http_opts *ho, char **out,
		 size_t *len);

/* The table's statement: CREATE TABLE IF NOT EXISTS, types ClickHouse 18.16 and later know. */
void hpa_ch_create_sql(struct hpa_strbuf *sb, const struct hpa_ch_url *u);

#endif
