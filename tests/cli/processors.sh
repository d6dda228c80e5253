here=$(cd "$(dirname "$0")" && pwd)
cd "$data" || exit 1
#!/bin/sh
# What hpa does on several threads gives what one thread gives: the same
# output files, standard output, messages (in order, warnings in --html's
# list too) and exit status on one processor (taskset) as on the run's own,
# and with NOTHREADS (a library that fails every pthread_create) preloaded:
# work meant for a second thread is done on the first, never waited for.
# Dumps read ahead on worker threads (src/read/ahead.c), and the walks that
# group stacks, split between two threads once large enough (seqs.c, with
# generated profiles of 11-12k stacks), are what this looks at.
#
# usage: processors.sh HPA TESTDATA [NOTHREADS]
set -u
hpa=$1 data=$2 nothreads=${3:-}
command -v taskset >/dev/null 2>&1 || { echo "SKIP: no taskset"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "SKIP: one processor: nothing runs beside"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
cd "$data" || exit 1
awk -v seed=1 -v n=12000 -f "$here/gen-tree.awk" >"$tmp/gen1.heap" &&
	awk -v seed=2 -v n=11000 -f "$here/gen-tree.awk" >"$tmp/gen2.heap" || exit 1
fail=0 n=0

# run WHICH ARGS...: hpa's stdout, stderr, status and -o file into $tmp/WHICH.*
run() {
	which=$1
	shift
	rm -rf "$tmp/$which.dir"
	if [ "$which" = one ]; then
		taskset -c 0 "$hpa" "$@" >"$tmp/$which.out" 2>"$tmp/$which.err" </dev/null
	elif [ "$which" = none ]; then   # a hang is a failure: 124 from timeout
		LD_PRELOAD=$nothreads ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
			timeout 120 "$hpa" "$@" >"$tmp/$which.out" 2>"$tmp/$which.err" </dev/null
	else
		"$hpa" "$@" >"$tmp/$which.out" 2>"$tmp/$which.err" </dev/null
	fi
	echo $? >"$tmp/$which.exit"
	if [ -f "$tmp/o" ]; then mv "$tmp/o" "$tmp/$which.file"; else : >"$tmp/$which.file"; fi
	if [ -d "$tmp/dir" ]; then
		mv "$tmp/dir" "$tmp/$which.dir"
	else
		mkdir "$tmp/$which.dir"
	fi
}

check() {
	n=$((n + 1))
	run many "$@"
	for which in one ${nothreads:+none}; do
		run $which "$@"
		for k in out err exit file; do
			if ! cmp -s "$tmp/$which.$k" "$tmp/many.$k"; then
				echo "FAIL ($k differs, $which): hpa $*"
				diff "$tmp/$which.$k" "$tmp/many.$k" | head -20
				fail=$((fail + 1))
			fi
		done
		if ! diff -r "$tmp/$which.dir" "$tmp/many.dir" >/dev/null; then
			echo "FAIL (--outdir files differ, $which): hpa $*"
			fail=$((fail + 1))
		fi
	done
}

# Warnings of every dump, then the error of the third: the fourth is not read.
check --no-symbols --growth jemalloc/coarse.heap bad/empty-stack.heap bad/bad-address.heap \
	jemalloc/paths-lg0.heap
check --no-symbols --text --base bad/truncated.heap jemalloc/coarse.heap
check --no-symbols --text --base missing.heap jemalloc/coarse.heap
check --no-symbols --growth jemalloc/paths-lg0.heap bad/no-newline.heap bad/maps-junk.heap \
	bad/no-total-line.heap bad/all-zero.heap jemalloc/paths-lg10.heap
# The same code at other addresses (ASLR), gperftools' interned stacks.
check --no-symbols --traces identity/proc1.heap identity/proc2.heap identity/proc3.heap
check --no-symbols --growth --collapse identity/proc1.heap identity/proc2.heap identity/proc3.heap
check --no-symbols --text --base gperf/sample-v2.heap gperf/tcmalloc.heap
check --no-symbols --traces gperf/tcmalloc.heap gperf/sample-v2.heap gperf/growth.heap
# Dumps the run reads itself (pprof, folded, standard input) between those read ahead.
check --no-symbols --growth jemalloc/paths-lg0.heap pprof/paths-lg0.pb.gz jemalloc/paths-lg10.heap \
	jemalloc/paths-lg19.heap
check --no-symbols --traces jemalloc/paths-lg0.heap folded/demo.collapse jemalloc/paths-lg10.heap
# Symbolized, with the warnings in the page; flame graphs per dump and pair.
check --html -o "$tmp/o" example/demo example/demo.heap bad/empty-stack.heap jemalloc/coarse.heap
check --proto -o "$tmp/o" --base example/demo.heap example/demo example/demo.heap
check --svg --outdir "$tmp/dir" identity/proc1.heap identity/proc2.heap identity/proc3.heap

# Walks split between two threads: folded stacks (written as they come,
# the second stretch's kept and written after), call trees, groups.
g1=$tmp/gen1.heap g2=$tmp/gen2.heap
check --no-symbols --collapse "$g1"
check --no-symbols --svg "$g1"
check --no-symbols --traces "$g1"
check --no-symbols --html -o "$tmp/o" "$g1"
check --no-symbols --proto -o "$tmp/o" "$g1"   # several gzip blocks through the pipeline
check --no-symbols --growth "$g1" "$g2"
check --no-symbols --growth --collapse "$g2" "$g1"
check --no-symbols --collapse --base "$g1" "$g2"
check --no-symbols --svg --base "$g2" "$g1"
check --no-symbols --html -o "$tmp/o" "$g1" "$g2"
check --no-symbols --proto -o "$tmp/o" "$g1" "$g2"
check --no-symbols --svg --hide='gen\+0x7.*' "$g1"

echo "$n commands, $fail differences"
[ "$fail" = 0 ]
