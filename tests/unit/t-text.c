/* The text report: number formats, ordering, flat/cum, recursion, kernel frames. */
#include "hpa/compat.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>

#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/reader.h"
#include "hpa/report.h"
#include "hpa/unsample.h"
#include "test.h"

/* The writers' parameters from a command line's (static: one at a time). */
static const struct hpa_write_opts *wo(const struct hpa_opts *o)
{
	static struct hpa_write_opts w;

	w = hpa_opts_write(o);
	return &w;
}

static void formats(void)
{
	struct hpa_opts o = { 0 };
	char b[64];

	o.value = HPA_INUSE_SPACE;
	hpa_format_value(b, sizeof(b), 92627.9245, wo(&o));
	CHECK_STR_EQ(b, "0.1");
	hpa_format_value(b, sizeof(b), 0, wo(&o));
	CHECK_STR_EQ(b, "0.0");
	o.show_bytes = true;
	hpa_format_value(b, sizeof(b), 92627.9245, wo(&o));
	CHECK_STR_EQ(b, "92627");
	hpa_format_value(b, sizeof(b), -138905.7, wo(&o));
	CHECK_STR_EQ(b, "-138905");
	o.show_bytes = false;
	o.value = HPA_INUSE_OBJECTS;
	hpa_format_value(b, sizeof(b), 213.4636, wo(&o));
	CHECK_STR_EQ(b, "213");
	CHECK_STR_EQ(hpa_units(wo(&o)), "objects");

	hpa_format_percent(b, sizeof(b), 1, 3);
	CHECK_STR_EQ(b, "33.3%");
	/* a share of nothing is "-": never jeprof's nan or inf */
	hpa_format_percent(b, sizeof(b), 0, 0);
	CHECK_STR_EQ(b, "-");
	hpa_format_percent(b, sizeof(b), 100, 0);
	CHECK_STR_EQ(b, "-");
	hpa_format_percent(b, sizeof(b), -100, 0);
	CHECK_STR_EQ(b, "-");
	hpa_format_percent(b, sizeof(b), NAN, 5);
	CHECK_STR_EQ(b, "-");
	hpa_format_percent(b, sizeof(b), 0, -5);
	CHECK_STR_EQ(b, "-0.0%");
}

static char *report(const char *text, const struct hpa_opts *o)
{
	struct hpa_profile p;
	struct hpa_symbols syms;
	struct hpa_names names;
	struct hpa_write_opts w = *wo(o);
	FILE *in = tmpfile(), *out = tmpfile();
	char *buf = calloc(1, 4096);

	fputs(text, in);
	rewind(in);
	hpa_profile_init(&p);
	CHECK_INT_EQ(hpa_read_stream(&p, in, "t.heap"), 0);
	hpa_unsample_profile(&p);
	hpa_unify_locations(&p);
	hpa_profile_end_reading(&p, &syms);
	hpa_name_frames(&p, &syms, &names);
	w.view.symbols = &syms;
	w.view.names = &names;
	CHECK_INT_EQ(hpa_report_text(out, &p, &w), 0);
	rewind(out);
	if (fread(buf, 1, 4095, out) == 0)
		buf[0] = '\0';
	fclose(in);
	fclose(out);
	hpa_names_release(&names);
	hpa_symbols_release(&syms);
	hpa_profile_release(&p);
	return buf;
}

static void rows(void)
{
	struct hpa_opts o = { 0 };
	char *s;
	static const char prof[] =
		"heap_v2/0\n"
		"@ 0xa 0xb 0xb 0xc\n"                 /* recursion: 0xb counted once */
		"  t*: 1: 300 [0: 0]\n"
		"@ 0xd 0xc\n"
		"  t*: 1: 100 [0: 0]\n"
		"@ 0xffffffffff600000 0xe\n"          /* vsyscall leaf: flat goes to 0xe */
		"  t*: 1: 100 [0: 0]\n"
		"@\n"
		"  t*: 1: 500 [0: 0]\n"
		"\n"
		"MAPPED_LIBRARIES:\n"
		"00000000-00000100 r-xp 00000000 fe:00 1 /bin/prog\n";

	o.value = HPA_INUSE_SPACE;
	o.thread = HPA_THREAD_ALL;
	o.show_bytes = true;
	s = report(prof, &o);
	CHECK_STR_EQ(s,
		"Total: 1000 B\n"
		"     500  50.0%  50.0%      500  50.0% <no stack>\n"
		"     300  30.0%  80.0%      300  30.0% prog+0xa\n"
		"     100  10.0%  90.0%      100  10.0% prog+0xd\n"
		"     100  10.0% 100.0%      100  10.0% prog+0xe\n"
		"       0   0.0% 100.0%      300  30.0% prog+0xb\n"
		"       0   0.0% 100.0%      400  40.0% prog+0xc\n");
	free(s);

	o.cum = true;
	o.show_bytes = false;
	s = report(prof, &o);
	CHECK_STR_EQ(s,
		"Total: 0.0 MB\n"
		"     0.0  50.0%  50.0%      0.0  50.0% <no stack>\n"
		"     0.0   0.0%  50.0%      0.0  40.0% prog+0xc\n"
		"     0.0  30.0%  80.0%      0.0  30.0% prog+0xa\n"
		"     0.0   0.0%  80.0%      0.0  30.0% prog+0xb\n"
		"     0.0  10.0%  90.0%      0.0  10.0% prog+0xd\n"
		"     0.0  10.0% 100.0%      0.0  10.0% prog+0xe\n");
	free(s);
}

static void folded_names(void)
{
	char a[] = "rs::make::<[u8; 8]>";
	char b[] = "odd\tname\nhere";
	char c[] = "operator new 42";
	char d[] = "f42";
	char e[] = "1234";

	hpa_folded_name(a);
	hpa_folded_name(b);
	hpa_folded_name(c);
	hpa_folded_name(d);
	hpa_folded_name(e);
	CHECK_STR_EQ(a, "rs::make::<[u8: 8]>");
	CHECK_STR_EQ(b, "odd?name?here");
	CHECK_STR_EQ(c, "operator new_42");
	CHECK_STR_EQ(d, "f42");
	CHECK_STR_EQ(e, "1234");
}

int main(void)
{
	folded_names();
	formats();
	rows();
	TEST_MAIN_END();
}
