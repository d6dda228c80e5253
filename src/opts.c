/*
 * Table-driven option parsing in the style of jeprof's Getopt::Long: one or
 * two leading dashes, "--opt=value" or "--opt value", and any unambiguous
 * prefix of a long name.  --help is generated from the same table.
 */
#include "hpa/compat.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpa/diag.h"
#include "hpa/opts.h"
#include "hpa/xalloc.h"

enum opt_id {
	OPT_TEXT,
	OPT_INUSE_SPACE,
	OPT_INUSE_OBJECTS,
	OPT_ALLOC_SPACE,
	OPT_ALLOC_OBJECTS,
	OPT_SHOW_BYTES,
	OPT_CUM,
	OPT_OUTPUT,
	OPT_HELP,
	OPT_VERSION
};

struct opt_def {
	const char *name;
	char short_name;
	enum opt_id id;
	const char *arg;     /* NULL: no argument */
	const char *section; /* starts a new --help section */
	const char *help;
};

static const struct opt_def options[] = {
	{ "text", 0, OPT_TEXT, NULL, "Output (one of)",
	  "top list by flat and cumulative value, as jeprof --text (default)" },
	{ "inuse_space", 0, OPT_INUSE_SPACE, NULL, "Value (one of)",
	  "bytes in use at dump time (default)" },
	{ "inuse_objects", 0, OPT_INUSE_OBJECTS, NULL, NULL, "objects in use at dump time" },
	{ "alloc_space", 0, OPT_ALLOC_SPACE, NULL, NULL,
	  "bytes allocated since start (jemalloc: needs prof_accum:true)" },
	{ "alloc_objects", 0, OPT_ALLOC_OBJECTS, NULL, NULL, "objects allocated since start" },
	{ "show_bytes", 0, OPT_SHOW_BYTES, NULL, "Report",
	  "print sizes in bytes (B) instead of MB" },
	{ "cum", 0, OPT_CUM, NULL, NULL, "sort rows by cumulative value instead of flat" },
	{ "output", 'o', OPT_OUTPUT, "FILE", NULL,
	  "write to FILE (created only if the run succeeds) instead of stdout" },
	{ "help", 'h', OPT_HELP, NULL, "Other", "print this help and exit" },
	{ "version", 'V', OPT_VERSION, NULL, NULL, "print the version and exit" },
};

void hpa_opts_usage(FILE *fp)
{
	size_t i;

	fputs("usage: hpa [OPTIONS] [BINARY] [PROFILE...]\n"
	      "\n"
	      "Analyze jemalloc (heap_v2) and gperftools/tcmalloc (heap profile:) heap\n"
	      "profiles.  Several PROFILEs are summed.  With no PROFILE, or \"-\", the\n"
	      "profile is read from standard input.  BINARY, the program that wrote the\n"
	      "profile, is recognised as the first argument when it is an ELF file.\n",
	      fp);
	for (i = 0; i < HPA_ARRAY_SIZE(options); i++) {
		const struct opt_def *o = &options[i];
		char left[64];

		if (o->section)
			fprintf(fp, "\n%s:\n", o->section);
		if (o->short_name)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->short_name, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(fp, "  %-22s %s\n", left, o->help);
	}
	fputs("\nExit status: 0 success, 1 bad input or failed output, 2 usage error.\n"
	      "See hpa(1) for the input formats and report semantics.\n", fp);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs("hpa: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'hpa --help' for more information.\n", stderr);
	return HPA_OPTS_USAGE;
}

/* The option whose name `name` (length len) is, or abbreviates. */
static const struct opt_def *find_long(const char *name, size_t len, const char *arg)
{
	const struct opt_def *hit = NULL;
	size_t i;
	int nr = 0;

	for (i = 0; i < HPA_ARRAY_SIZE(options); i++) {
		if (strncmp(options[i].name, name, len))
			continue;
		if (strlen(options[i].name) == len)
			return &options[i];
		hit = &options[i];
		nr++;
	}
	if (nr == 1)
		return hit;
	usage_error(nr ? "option '%s' is ambiguous" : "unknown option '%s'", arg);
	return NULL;
}

static const struct opt_def *find_short(char c, const char *arg)
{
	size_t i;

	for (i = 0; i < HPA_ARRAY_SIZE(options); i++)
		if (options[i].short_name == c)
			return &options[i];
	usage_error("unknown option '%s'", arg);
	return NULL;
}

static bool is_elf_file(const char *path)
{
	struct stat st;
	unsigned char magic[4];
	FILE *fp;
	bool elf = false;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	fp = fopen(path, "rb");
	if (!fp)
		return false;
	if (fread(magic, 1, 4, fp) == 4)
		elf = !memcmp(magic, "\177ELF", 4);
	fclose(fp);
	return elf;
}

int hpa_opts_parse(struct hpa_opts *opts, int argc, char **argv)
{
	const char *value_opt = NULL;
	bool mode_set = false;
	int i, stdin_nr;

	memset(opts, 0, sizeof(*opts));
	opts->mode = HPA_MODE_TEXT;
	opts->value = HPA_INUSE_SPACE;
	opts->profiles = xcalloc((size_t)argc + 1, sizeof(*opts->profiles));

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *name, *eq, *val = NULL;
		const struct opt_def *o;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				opts->profiles[opts->profiles_nr++] = argv[i];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			opts->profiles[opts->profiles_nr++] = a;
			continue;
		}
		name = a + 1 + (a[1] == '-');
		eq = strchr(name, '=');
		if (a[1] != '-' && !a[2])
			o = find_short(a[1], a);
		else
			o = find_long(name, eq ? (size_t)(eq - name) : strlen(name), a);
		if (!o)
			return HPA_OPTS_USAGE;
		if (o->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_error("option '%s' needs an argument", a);
		} else if (eq) {
			return usage_error("option '%s' takes no argument", a);
		}

		switch (o->id) {
		case OPT_TEXT:
			if (mode_set && opts->mode != HPA_MODE_TEXT)
				return usage_error("only one output mode may be given (%s)", a);
			mode_set = true;
			opts->mode = HPA_MODE_TEXT;
			break;
		case OPT_INUSE_SPACE:
		case OPT_INUSE_OBJECTS:
		case OPT_ALLOC_SPACE:
		case OPT_ALLOC_OBJECTS: {
			enum hpa_value v = o->id == OPT_INUSE_SPACE ? HPA_INUSE_SPACE :
				o->id == OPT_INUSE_OBJECTS ? HPA_INUSE_OBJECTS :
				o->id == OPT_ALLOC_SPACE ? HPA_ALLOC_SPACE : HPA_ALLOC_OBJECTS;
			if (value_opt && v != opts->value) {
				fprintf(stderr, "hpa: %s conflicts with %s: give at most one of "
					"--inuse_space, --inuse_objects, --alloc_space, --alloc_objects\n",
					a, value_opt);
				fputs("Try 'hpa --help' for more information.\n", stderr);
				return HPA_OPTS_USAGE;
			}
			value_opt = a;
			opts->value = v;
			break;
		}
		case OPT_SHOW_BYTES:
			opts->show_bytes = true;
			break;
		case OPT_CUM:
			opts->cum = true;
			break;
		case OPT_OUTPUT:
			if (!*val)
				return usage_error("option '%s' needs a file name", a);
			opts->output = val;
			break;
		case OPT_HELP:
			hpa_opts_usage(stdout);
			return HPA_OPTS_EXIT;
		case OPT_VERSION:
			printf("hpa %s\n", HPA_VERSION);
			return HPA_OPTS_EXIT;
		}
	}

	/* [BINARY] PROFILE...: the first argument is the binary if it is ELF. */
	if (opts->profiles_nr && strcmp(opts->profiles[0], "-") &&
	    is_elf_file(opts->profiles[0])) {
		opts->binary = opts->profiles[0];
		memmove(opts->profiles, opts->profiles + 1,
			(opts->profiles_nr - 1) * sizeof(*opts->profiles));
		opts->profiles_nr--;
	}
	if (!opts->profiles_nr) {
		if (isatty(STDIN_FILENO))
			return usage_error("%s", "no PROFILE given and standard input is a terminal");
		opts->profiles[opts->profiles_nr++] = "-";
	}
	for (i = 0, stdin_nr = 0; (size_t)i < opts->profiles_nr; i++)
		if (!strcmp(opts->profiles[i], "-") && ++stdin_nr > 1)
			return usage_error("%s", "standard input ('-') can be read only once");
	return HPA_OPTS_RUN;
}

void hpa_opts_release(struct hpa_opts *opts)
{
	free(opts->profiles);
	opts->profiles = NULL;
}
