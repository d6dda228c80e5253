/*
 * Generates a large C++ program for bench/run.sh, the shape of a big C++
 * database server: most of the binary is DWARF of templates and inlined
 * standard-library code.
 *
 *   gen_cxx DIR NFILES
 *
 * writes DIR/cx_<k>.cc and DIR/cx_main.cc.  Each file has its own namespace
 * with class templates over maps, unordered maps, strings, vectors, deques,
 * sets, shared pointers and std::function, and a recursive function template
 * that instantiates eight of them.  Built with g++ -O2 -g, each file gives
 * about 2.3 MB of DWARF: 100 files make about 200 MiB of it.  main()
 * runs RUNS seeds (its argument), each in the file and at the depth the
 * seed picks, and keeps what they allocate, so the number of distinct heap
 * profile stacks grows with RUNS.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int nfiles, k;
	char path[4096];
	FILE *fp;

	if (argc != 3 || (nfiles = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: gen_cxx DIR NFILES\n");
		return 2;
	}
	for (k = 0; k < nfiles; k++) {
		snprintf(path, sizeof(path), "%s/cx_%d.cc", argv[1], k);
		if (!(fp = fopen(path, "w")))
			return perror(path), 1;
		fprintf(fp,
			"#include <deque>\n#include <functional>\n#include <map>\n#include <memory>\n"
			"#include <set>\n#include <string>\n#include <unordered_map>\n#include <vector>\n"
			"namespace cx%d {\n"
			"template <int N> struct Rec {\n"
			"\tstd::string name;\n\tstd::vector<long> v;\n"
			"\tstd::map<std::string, std::shared_ptr<Rec>> kids;\n};\n"
			"template <int N> struct Node {\n"
			"\tstd::unordered_map<long, Rec<N>> m;\n"
			"\tstd::deque<std::function<long(long)>> q;\n\tstd::set<std::string> s;\n};\n"
			"template <int N> __attribute__((noinline)) long work(Node<N> &n, unsigned long seed, int depth)\n{\n"
			"\tauto &r = n.m[(long)(seed %% 97)];\n"
			"\tr.name += std::to_string(seed);\n"
			"\tr.v.push_back((long)seed);\n"
			"\tif (depth > 0)\n\t\tr.kids[std::to_string(seed %% 13)] = std::make_shared<Rec<N>>();\n"
			"\tn.q.push_back([seed](long x) { return x + (long)seed; });\n"
			"\tn.s.insert(r.name.substr(0, 8));\n"
			"\treturn (long)r.v.size() + (depth > 0 ?\n"
			"\t\twork<(N + 1) %% 8>(*new Node<(N + 1) %% 8>, seed * 31 + 7, depth - 1) : 0);\n}\n"
			"long run(unsigned long seed)\n{\n"
			"\tstatic Node<0> n;\n\treturn work<0>(n, seed, (int)((seed >> 7) %% 6));\n}\n"
			"}\n", k);
		fclose(fp);
	}
	snprintf(path, sizeof(path), "%s/cx_main.cc", argv[1]);
	if (!(fp = fopen(path, "w")))
		return perror(path), 1;
	for (k = 0; k < nfiles; k++)
		fprintf(fp, "namespace cx%d { long run(unsigned long seed); }\n", k);
	fprintf(fp, "#include <cstdlib>\nstatic long (*const runs[])(unsigned long) = {\n");
	for (k = 0; k < nfiles; k++)
		fprintf(fp, "\tcx%d::run,\n", k);
	fprintf(fp, "};\n"
		"int main(int argc, char **argv)\n{\n"
		"\tunsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1000, i;\n"
		"\tlong sum = 0;\n"
		"\tfor (i = 0; i < n; i++) {\n"
		"\t\tunsigned long x = i * 0x9e3779b97f4a7c15UL;\n"
		"\t\tx ^= x >> 29;\n"
		"\t\tsum += runs[x %% %d](x);\n\t}\n"
		"\treturn sum == 42;\n}\n", nfiles);
	fclose(fp);
	return 0;
}
