/* URLs: what counts as one, and what of it may be shown (secrets redacted). */
#include "hpa/compat.h"

#include <stdlib.h>

#include "hpa/clickhouse.h"
#include "hpa/diag.h"
#include "hpa/fetch.h"
#include "hpa/strbuf.h"
#include "test.h"

static void check_redact(const char *in, const char *want)
{
	char *out = hpa_url_redact(in);

	CHECK_STR_EQ(out, want);
	free(out);
}

/* ClickHouse URLs: their parts, their parameters decoded, what is refused; quoting. */
static void clickhouse_urls(void)
{
	struct hpa_ch_url u;
	struct hpa_strbuf sb = HPA_STRBUF_INIT;

	CHECK(hpa_is_clickhouse_url("clickhouse+http://h:8123/db"));
	CHECK(hpa_is_clickhouse_url("clickhouse+https://h/db"));
	CHECK(hpa_is_clickhouse_url("clickhouse://h:9000/db"));
	CHECK(!hpa_is_url("clickhouse+http://h:8123/db"));
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://me:pw@h:8123/fleet?host=a%27b&v=1.1&where=x+%3D+1", &u), 0);
	CHECK_STR_EQ(u.http, "http://me:pw@h:8123/");
	CHECK_STR_EQ(u.database, "fleet");
	CHECK_STR_EQ(u.shown, "clickhouse+http://me:***@h:8123/fleet?host=a%27b&v=1.1&where=x+%3D+1");
	CHECK_INT_EQ(u.params_nr, 3);
	CHECK_STR_EQ(u.params[0].key, "host");
	CHECK_STR_EQ(u.params[0].value, "a'b");
	CHECK_STR_EQ(u.params[2].value, "x = 1");
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+https://h/db", &u), 0);
	CHECK_STR_EQ(u.http, "https://h/");
	CHECK_INT_EQ(u.params_nr, 0);
	hpa_ch_url_release(&u);
	hpa_diag_quiet = true;   /* each of these says why, as an error */
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse://h:9000/db", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/db/x", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/d-b", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/db?a=%00", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/db?a=%4", &u), -1);
	hpa_ch_url_release(&u);
	CHECK_INT_EQ(hpa_ch_url_parse("clickhouse+http://h:8123/db?novalue", &u), -1);
	hpa_ch_url_release(&u);
	hpa_diag_quiet = false;
	hpa_ch_quote(&sb, "it's a \\ x");
	hpa_sb_addc(&sb, ' ');
	hpa_ch_ident(&sb, "we`ird");
	CHECK_STR_EQ(sb.buf, "'it\\'s a \\\\ x' `we\\`ird`");
	hpa_sb_release(&sb);
}

int main(void)
{
	clickhouse_urls();
	CHECK(hpa_is_url("http://host/pprof/heap"));
	CHECK(hpa_is_url("https://host/pprof/heap"));
	CHECK(hpa_is_url("HTTPS://host/"));
	CHECK(!hpa_is_url("host:8080/pprof/heap"));
	CHECK(!hpa_is_url("ftp://host/x"));
	CHECK(!hpa_is_url("./http://x"));

	/* Nothing secret: unchanged. */
	check_redact("http://127.0.0.1:8000/pprof/heap", "http://127.0.0.1:8000/pprof/heap");
	check_redact("https://h/pprof/heap?seconds=30&gc=1", "https://h/pprof/heap?seconds=30&gc=1");
	check_redact("http://[::1]:80/x#frag", "http://[::1]:80/x#frag");
	check_redact("", "");
	/* Passwords; a user name alone may be a token. */
	check_redact("http://admin:pw@h:1/p", "http://admin:***@h:1/p");
	check_redact("http://ghp_0123456789@h/p", "http://***@h/p");
	check_redact("https://u:p@ss:w@rd@h/p?x", "https://u:***@h/p?x");
	check_redact("http://u:@h/", "http://u:***@h/");
	/* An '@' after the host is not user information. */
	check_redact("http://h/p@q?debug=b@c", "http://h/p@q?debug=b@c");
	/* Every query value but a profile endpoint's own parameters, any case, any position. */
	check_redact("http://h/p?token=abc", "http://h/p?token=***");
	check_redact("http://h/p?seconds=5&Access_Token=t&api_key=k&gc=1#top",
		     "http://h/p?seconds=5&Access_Token=***&api_key=***&gc=1#top");
	check_redact("http://h/p?X-Amz-Signature=s&password=&sessionid=9&auth",
		     "http://h/p?X-Amz-Signature=***&password=***&sessionid=***&auth");
	check_redact("http://h/p?a&&b=1&pwd=x", "http://h/p?a&&b=***&pwd=***");
	check_redact("http://h/p?jwt=j&code=c&access_code=a&bearer=b&Seconds=30&debug=1&sample_index=x",
		     "http://h/p?jwt=***&code=***&access_code=***&bearer=***&Seconds=30&debug=1&sample_index=x");
	/* Both at once; no scheme at all. */
	check_redact("http://a:b@h/p?secret=s", "http://a:***@h/p?secret=***");
	check_redact("user:pw@h/p", "user:***@h/p");

	/* The secrets of a request, and text scrubbed of them. */
	{
		const char *headers[] = { "Authorization: Bearer tok-abc", "X-Org: 7" };
		struct hpa_http_opts ho = { .headers = headers, .headers_nr = 2 };
		char **sec = hpa_url_secrets("http://u:pw-1@h/p?token=t-2&gc=1", &ho);
		char *out;

		CHECK_STR_EQ(sec[0], "pw-1");
		CHECK_STR_EQ(sec[1], "t-2");
		CHECK_STR_EQ(sec[2], "Bearer");
		CHECK_STR_EQ(sec[3], "tok-abc");
		CHECK(sec[4] == NULL);   /* "7" is too short to scrub */
		out = hpa_scrub_secrets("sent pw-1, t-2 and tok-abcdef; t-", sec);
		CHECK_STR_EQ(out, "sent ***, *** and ***def; t-");
		free(out);
		hpa_free_secrets(sec);
	}
	/* File names from URLs: host and path, never user information or query. */
	{
		const char *in[][2] = {
			{ "http://admin:pw@127.0.0.1:6060/debug/pprof/heap?jwt=x&seconds=5",
			  "127.0.0.1:6060_debug_pprof_heap" },
			{ "https://Host.example/", "Host.example" },
			{ "http://h/a b/%2e%2e/c#frag", "h_a_b__2e_2e_c" },
		};
		for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
			char *out = hpa_url_file_name(in[i][0]);
			CHECK_STR_EQ(out, in[i][1]);
			free(out);
		}
	}
	/* The host and port a request goes to, the scheme's own port when none is written. */
	CHECK(hpa_url_same_origin("http://h/a", "http://H:80/b?c"));
	CHECK(hpa_url_same_origin("https://u:p@h:443/a", "https://h/b"));
	CHECK(!hpa_url_same_origin("http://h/a", "https://h/a"));
	CHECK(!hpa_url_same_origin("http://h:8080/a", "http://h:8081/a"));
	CHECK(!hpa_url_same_origin("http://h/a", "http://h.evil/a"));
	CHECK(hpa_url_same_origin("http://[::1]:9/a", "http://[::1]:9/b"));
	CHECK(!hpa_url_same_origin("http://[::1]/a", "http://[::1]:9/b"));
	TEST_MAIN_END();
}
