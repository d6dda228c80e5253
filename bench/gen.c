/*
 * Generates a large synthetic C program for bench/run.sh:
 *
 *   gen DIR NFILES FUNCS_PER_FILE
 *
 * writes DIR/syn.h, DIR/syn_<k>.c and DIR/main.c.  Function f<i>(depth, seed)
 * does a little work in an always-inlined helper, then calls one of four
 * functions chosen by the seed (in any file), until depth 0, where an
 * inlined allocation helper calls malloc with a size taken from the seed.
 * main() runs many seeds, so the heap profile gets a very large number of
 * distinct, deep stacks with inline frames:
 *
 *   syn RUNS [DUMP_AT...]
 *
 * runs RUNS seeds and, when jemalloc is preloaded, asks it for a heap
 * profile (mallctl "prof.dump") after each DUMP_AT seeds (ascending), as a
 * server's memory is dumped while it grows: dumps of one process.
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdUL;
	x ^= x >> 33;
	return x;
}

int main(int argc, char **argv)
{
	int nfiles, per, n, k, i, c;
	char path[4096];
	FILE *fp;

	if (argc != 4 || (nfiles = atoi(argv[2])) <= 0 || (per = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: gen DIR NFILES FUNCS_PER_FILE\n");
		return 2;
	}
	n = nfiles * per;
	snprintf(path, sizeof(path), "%s/syn.h", argv[1]);
	if (!(fp = fopen(path, "w")))
		return perror(path), 1;
	fprintf(fp, "#include <stddef.h>\nextern void *syn_keep[];\nextern size_t syn_nkeep;\n");
	for (i = 0; i < n; i++)
		fprintf(fp, "void f%d(int depth, unsigned long seed);\n", i);
	fclose(fp);

	for (k = 0; k < nfiles; k++) {
		snprintf(path, sizeof(path), "%s/syn_%d.c", argv[1], k);
		if (!(fp = fopen(path, "w")))
			return perror(path), 1;
		fprintf(fp, "#include <stdlib.h>\n#include <string.h>\n#include \"syn.h\"\n\n"
			"static inline __attribute__((always_inline)) void *grab(size_t n)\n{\n"
			"\tvoid *p = malloc(n);\n\tif (p) memset(p, 1, n < 16 ? n : 16);\n"
			"\treturn p;\n}\n\n");
		for (i = k * per; i < (k + 1) * per; i++) {
			fprintf(fp, "static inline __attribute__((always_inline)) unsigned long "
				"step%d(unsigned long s)\n{\n\treturn s * %luUL + %d;\n}\n\n",
				i, mix((unsigned long)i) | 1, i);
			fprintf(fp, "__attribute__((noinline)) void f%d(int depth, unsigned long seed)\n{\n"
				"\tif (depth == 0) {\n"
				"\t\tsyn_keep[syn_nkeep++] = grab(16 + (seed %% 61) * 16);\n"
				"\t\treturn;\n\t}\n"
				"\tswitch (step%d(seed) >> 60 & 3) {\n", i, i);
			for (c = 0; c < 4; c++)
				fprintf(fp, "\tcase %d: f%lu(depth - 1, seed >> 2); break;\n", c,
					mix((unsigned long)i * 4 + c) % (unsigned long)n);
			fprintf(fp, "\t}\n\tsyn_keep[syn_nkeep] = NULL;   /* no tail call */\n}\n\n");
		}
		fclose(fp);
	}

	snprintf(path, sizeof(path), "%s/main.c", argv[1]);
	if (!(fp = fopen(path, "w")))
		return perror(path), 1;
	fprintf(fp, "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdlib.h>\n#include \"syn.h\"\n"
		"void *syn_keep[1 << 22];\nsize_t syn_nkeep;\n\n"
		"int main(int argc, char **argv)\n{\n"
		"\tlong i, runs = argc > 1 ? atol(argv[1]) : 200000;\n"
		"\tint next = 2;\n"
		"\tint (*mallctl)(const char *, void *, size_t *, void *, size_t) =\n"
		"\t\t(int (*)(const char *, void *, size_t *, void *, size_t))dlsym(RTLD_DEFAULT, \"mallctl\");\n"
		"\tfor (i = 0; i < runs && syn_nkeep < (1 << 22) - 1; i++) {\n"
		"\t\tunsigned long s = (unsigned long)i * 0x9e3779b97f4a7c15UL;\n"
		"\t\tf%d(8 + (int)(s >> 61), s);\n"
		"\t\tfor (; next < argc && atol(argv[next]) == i + 1; next++)\n"
		"\t\t\tif (mallctl)\n\t\t\t\tmallctl(\"prof.dump\", NULL, NULL, NULL, 0);\n"
		"\t}\n\treturn 0;\n}\n", 0);
	fclose(fp);
	return 0;
}
