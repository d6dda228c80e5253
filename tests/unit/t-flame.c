/*
 * The SVG writer on a hand-built model with hostile names: 5 KB long,
 * XML specials, invalid UTF-8, control bytes.  Writes flame-names.svg and
 * flame-empty.svg for the xmllint check in run-svg.sh.
 */
#include "hpa/compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpa/names.h"
#include "hpa/opts.h"
#include "hpa/profile.h"
#include "hpa/report.h"
#include "test.h"

static char *slurp(FILE *fp)
{
	long n;
	char *s;

	fseek(fp, 0, SEEK_END);
	n = ftell(fp);
	rewind(fp);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, fp) != (size_t)n)
		s[0] = '\0';
	return s;
}

static uint32_t frame(struct hpa_profile *p, const char *name, uint64_t addr)
{
	uint32_t loc = hpa_profile_new_loc(p, addr);
	struct hpa_line l = { hpa_symbols_intern_function(hpa_profile_symbols(p), p->strs, name, name, "x.c"),
			      hpa_strtab_intern(p->strs, "x.c"), 7 };

	hpa_symbols_set_chain(hpa_profile_symbols(p), loc, &l, 1, HPA_SYM_DWARF);
	return loc;
}

int main(void)
{
	struct hpa_profile p;
	struct hpa_opts o;
	struct hpa_write_opts w;
	struct hpa_symbols syms;
	struct hpa_names names;
	char *longname = malloc(5200), *svg;
	uint32_t stack[3];
	double v[HPA_NVALUES] = { 1, 1000, 1, 1000 };
	FILE *fp;
	int i;

	for (i = 0; i < 5000; i++)
		longname[i] = "Tmpl<int, &x> "[i % 14];
	longname[5000] = '\0';
	hpa_profile_init(&p);
	hpa_profile_add_input(&p, "synthetic");
	stack[2] = frame(&p, "main", 0x1000);
	stack[1] = frame(&p, longname, 0x2000);
	stack[0] = frame(&p, "bad\xff\xfe utf8 \x01 <tag> & \"q\"", 0x3000);
	hpa_profile_add_sample(&p, hpa_profile_intern_stack_locs(&p, stack, 3), HPA_THREAD_ALL, 1, v);
	v[HPA_INUSE_SPACE] = 3000;
	hpa_profile_add_sample(&p, hpa_profile_intern_stack_locs(&p, stack + 2, 1), HPA_THREAD_ALL, 1, v);

	memset(&o, 0, sizeof(o));
	o.value = HPA_INUSE_SPACE;
	o.thread = HPA_THREAD_ALL;
	o.keep_internal = true;
	w = hpa_opts_write(&o);
	hpa_profile_end_reading(&p, &syms);
	hpa_name_frames(&p, &syms, &names);
	w.view.symbols = &syms;
	w.view.names = &names;
	fp = fopen("flame-names.svg", "w+");
	CHECK_INT_EQ(hpa_report_svg(fp, &p, &w), 0);
	svg = slurp(fp);
	fclose(fp);
	CHECK(strstr(svg, "&lt;tag&gt; &amp; &quot;q&quot;") != NULL);
	/* Invalid UTF-8 as U+FFFD; a control byte as the text \x01 (the model's). */
	CHECK(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbd utf8 \\x01") != NULL);
	CHECK(strstr(svg, "\xff") == NULL);
	CHECK(strstr(svg, "<tag>") == NULL);
	/* The whole long name in the tooltip, a cut label ending in "..". */
	CHECK(strstr(svg, "Tmpl&lt;int, &amp;x&gt; Tmpl") != NULL);
	CHECK(strstr(svg, "..</text>") != NULL);
	CHECK(strstr(svg, "<g data-x=\"0.00000000\" data-w=\"1.00000000\" data-d=\"0\"><title>all&#10;4000 bytes") != NULL);
	free(svg);

	/* No samples: still a valid SVG, saying so. */
	hpa_profile_release(&p);
	hpa_profile_init(&p);
	hpa_profile_add_input(&p, "empty");
	hpa_names_release(&names);
	hpa_symbols_release(&syms);
	hpa_profile_end_reading(&p, &syms);
	hpa_name_frames(&p, &syms, &names);
	fp = fopen("flame-empty.svg", "w+");
	CHECK_INT_EQ(hpa_report_svg(fp, &p, &w), 0);
	svg = slurp(fp);
	fclose(fp);
	CHECK(strstr(svg, "No samples") != NULL);
	CHECK(strstr(svg, "</svg>") != NULL);
	free(svg);
	hpa_profile_release(&p);
	hpa_names_release(&names);
	hpa_symbols_release(&syms);
	free(longname);
	TEST_MAIN_END();
}
