#!/bin/sh
# --growth on real dump series of sym/leaky.c under libjemalloc
# (lg_prof_sample:0) and libtcmalloc: the leaking path ranks first, with its
# gain exact, above a path that churns far more bytes and one that spikes
# once; dumps are put in order by their names; every output form agrees.
#
# usage: run-growth.sh HPA SOURCEDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 src=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc
fresh_dir "$work"
$cc -O2 -g -fno-omit-frame-pointer -o leaky "$src/leaky.c" -ldl || exit 1
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/je" LD_PRELOAD="$je" ./leaky ||
	{ echo "FAIL: leaky under jemalloc"; exit 1; }
HEAPPROFILE="$work/tc" LD_PRELOAD="$tc" ./leaky 2>/dev/null || { echo "FAIL: leaky under tcmalloc"; exit 1; }
je_dumps=$(ls je.*.heap | LC_ALL=C sort -r)    # deliberately out of order
tc_dumps=$(ls tc.000[1-5].heap | LC_ALL=C sort -r)   # not the exit dump
check "jemalloc wrote 5 dumps" "5" "$(echo "$je_dumps" | wc -l | tr -d ' ')"

growth() { "$hpa" --growth --show_bytes "$@" 2>/dev/null; }
first_row() {   # first_row SECTION OUTPUT: "gain grew class name" of the first row
	awk -v s="$1" 'index($0, s) == 1 { f = 1; next } f && $1 == "gain" { next }
		f { for (i = 1; i <= NF; i++) if ($i == "<") break; print $1, $3, $4, $(i - 1); exit }'
}
for set in je tc; do
	eval "dumps=\$${set}_dumps"
	out=$(growth leaky $dumps)
	n=$(echo "$dumps" | wc -l | tr -d ' ')
	last=$(echo "$dumps" | head -n 1)
	check "$set: dumps in sequence order" "$(echo "$dumps" | LC_ALL=C sort | head -n 1)" \
		"$(echo "$out" | sed -n 's/^  dump1: //p')"
	check "$set: the leak ranks first among stacks, gain exact, classified" "1048576 100% leak leak_path" \
		"$(echo "$out" | first_row "Stacks")"
	check "$set: the leak ranks first among functions, classified" "1048576 100% leak leak_path" \
		"$(echo "$out" | first_row "Functions")"
	check "$set: churn and spike have no gain" "0 0" \
		"$(echo "$out" | awk '/^Stacks/ { f = 1 } /^Functions/ { f = 0 } f && $NF ~ /_start$/ && /churn_path|spike_path/ { printf "%s ", $1 }' | sed 's/ $//')"
	check "$set: --csv series" "\"leak_path\",1048576" \
		"$("$hpa" --growth --csv leaky $dumps 2>/dev/null | grep '^function,"leak_path"' | cut -d, -f2,3)"
	check "$set: --csv has a column per dump" "$((8 + n))" \
		"$("$hpa" --growth --csv leaky $dumps 2>/dev/null | head -n 1 | awk -F, '{ print NF }')"
	check "$set: --collapse gives the gain" "1048576" \
		"$("$hpa" --growth --collapse leaky $dumps 2>/dev/null | grep ';leak_path ' | awk '{ print $NF }')"
	"$hpa" --growth --svg leaky $dumps > "$set-growth.svg" 2>/dev/null
	check "$set: --svg is well formed" "ok" "$(xmllint --noout "$set-growth.svg" 2>&1 && echo ok)"
	check "$set: --svg leak frame red (its class), grew every step" "1" \
		"$(grep -c '<title>leak_path&#10;[^<]*; leak, grew in 100% of steps[^<]*</title><rect [^>]*fill="rgb(2[2-5][0-9],\([0-9]*\),\1)"' "$set-growth.svg")"
done

# Twelve dumps of one run whose names do not sort (a glob puts .10. and .11.
# before .2.), and a second run's three in the same folder.
mkdir s
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/s/leaky" LEAKY_STEPS=12 LD_PRELOAD="$je" ./leaky ||
	{ echo "FAIL: leaky (12 steps) under jemalloc"; exit 1; }
pid1=$(ls s | sed -n 's/^leaky\.\([0-9]*\)\..*/\1/p' | head -n 1)
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/s/leaky" LEAKY_STEPS=3 LD_PRELOAD="$je" ./leaky ||
	{ echo "FAIL: leaky (3 steps) under jemalloc"; exit 1; }
pid2=$(ls s | sed -n 's/^leaky\.\([0-9]*\)\..*/\1/p' | grep -v "^$pid1\$" | head -n 1)
twelve=$(ls s/leaky.$pid1.*.heap)   # the shell's order
check "12 dumps of the first run, their names out of order" "12 s/leaky.$pid1.10.m10.heap" \
	"$(echo "$twelve" | wc -l | tr -d ' ') $(echo "$twelve" | sed -n 3p)"
out=$(growth leaky $twelve)
check "12 dumps: in sequence order" "s/leaky.$pid1.0.m0.heap s/leaky.$pid1.11.m11.heap" \
	"$(echo "$out" | sed -n 's/^  dump1: //p') $(echo "$out" | sed -n 's/^  dump12: //p')"
fclass() {   # fclass NAME: NAME's class in the Functions table of $out
	echo "$out" | awk -v n="$1" '/^Functions/ { f = 1 } f && $NF == n { print $4; exit }'
}
check "12 dumps: leak, plateau and churn told apart" "leak plateau churn" \
	"$(fclass leak_path) $(fclass plateau_path) $(fclass churn_path)"
check "12 dumps: the leak ranks first, gain exact" "2883584 100% leak leak_path" "$(echo "$out" | first_row "Functions")"
# --outdir: each pair's file is --collapse --base of the dump before it and the dump.
"$hpa" --outdir o --collapse leaky $twelve >/dev/null 2>&1
check "--outdir: a file per dump and per pair" "23" "$(ls o | wc -l | tr -d ' ')"
pairs=0
for f in o/*.diff.collapse; do
	seq=$(echo "$f" | sed -n "s/.*-leaky\.$pid1\.\([0-9]*\)\..*/\1/p")
	prev=$(ls s/leaky.$pid1.$((seq - 1)).m*.heap)
	cur=$(ls s/leaky.$pid1.$seq.m*.heap)
	"$hpa" --collapse leaky --base "$prev" "$cur" > want.collapse 2>/dev/null
	if cmp -s want.collapse "$f" && [ -s want.collapse ]; then pairs=$((pairs + 1)); else echo "  $f differs from --base $prev $cur"; fi
done
check "--outdir: each pair file equals --collapse --base PREV DUMP" "11" "$pairs"
check "--outdir: files numbered in dump order" "01-leaky.$pid1.0.m0.heap.collapse 12-leaky.$pid1.11.m11.heap.collapse" \
	"$(ls o | grep -v diff | head -n 1) $(ls o | grep -v diff | tail -n 1)"
# Both runs in one folder: two series, never one.
both=$(growth leaky s/*.heap)
check "two runs in one folder: a series each" "Process $pid1: 12 dumps|Process $pid2: 3 dumps" \
	"$(echo "$both" | grep '^Process ' | sed 's/ (.*//' | paste -sd'|' -)"
check "two runs in one folder: the --html page refused" "2" \
	"$("$hpa" --html -o both.html leaky s/*.heap >/dev/null 2>&1; echo $?)"
"$hpa" --outdir two --collapse leaky s/*.heap >/dev/null 2>&1
check "two runs in one folder: --outdir a folder each" "$pid1 $pid2" "$(ls two | LC_ALL=C sort -n | paste -sd' ' -)"
# The page of the twelve, in a headless browser: it opens on the last dump,
# with its own total, and ranks and classifies as --growth.
need_chromium
"$hpa" --html -o series.html leaky $twelve 2>/dev/null
check "html: opens on the last dump" "dump	11" "$(browse series.html dump | head -n 1)"
check "html: the last dump's total, as --text of it alone" \
	"$("$hpa" --text --show_bytes leaky "s/leaky.$pid1.11.m11.heap" 2>/dev/null | awk 'NR == 1 { print $2 }')" \
	"$(browse series.html rows,inuse_space,functions | sed -n 's/^Total	//p')"
check "html: the ranking is --growth's, class for class" \
	"$(echo "$out" | awk '/^Functions/ { f = 1; next } f && $1 == "gain" { next } f && NF > 5 { print $NF "	" $4 "	" $1 }')" \
	"$(browse series.html growth,inuse_space)"
"$hpa" --growth --svg leaky $twelve > twelve.svg 2>/dev/null
for f in leak_path plateau_path churn_path; do
	check "--growth --svg and the page: $f's frame coloured by its class" \
		"$(fclass $f) $(sed -n "s/.*<title>$f&#10;[^<]*; $(fclass $f), grew[^<]*<\/title><rect [^>]*fill=\"\([^\"]*\)\".*/\1/p" twelve.svg | head -n 1)" \
		"$(fclass $f) $(browse series.html "fill,$f" | head -n 1)"
done

# --watch --pid against a server whose RSS grows outside its profile
# (frag_server.c: each fetch leaves 32 MiB of slabs that hold one live small
# object in 64), with --stats: RSS and the allocator's statistics beside
# each dump, and --growth over the folder says where the growth is.
$cc -O1 -g -fno-omit-frame-pointer -o frag_server "$src/frag_server.c" -ldl || exit 1
MALLOC_CONF="prof:true,lg_prof_sample:12" LD_PRELOAD="$je" ./frag_server fport.txt "$work/frag.heap" &
server=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -s fport.txt ] && break; sleep 0.2; done
furl=http://127.0.0.1:$(cat fport.txt)
timeout --foreground -k 20 --preserve-status -s INT 6.5 "$hpa" --watch "$furl/pprof/heap" --pid "$server" \
	--stats "$furl/stats" --interval 1 --threshold 16MB --outdir w > watch.txt 2>&1
kill "$server"
saved=$(ls w | grep -c '\.heap$')
check "--watch --pid: a dump kept at every check (RSS grew 32 MiB each)" "true" "$([ "$saved" -ge 3 ] && echo true)"
check "--watch --pid --stats: the allocator's statistics beside each dump" "$saved $saved" \
	"$(ls w | grep -c '\.heap\.stats$') $(grep -l '^Allocated: ' w/*.heap.stats | wc -l | tr -d ' ')"
out=$("$hpa" --growth --no-symbols w/*.heap 2>/dev/null)
check "--growth over the folder: the growth is outside the profile, fragmentation" "1" \
	"$(echo "$out" | grep -c '^RSS: +[0-9.]*MiB .*; the profile +[0-9.]*[KM]iB: the growth is outside the profile, in the allocator: mostly size-class and page waste (+[0-9.]*MiB); see --stats w/heap-[0-9-]*\.heap\.stats$')"
check "--growth over the folder: the allocator's parts" "1" \
	"$(echo "$out" | grep -c '^Allocator (its statistics beside the first and last dump): in use [-+0-9.]*[KM]*i*B, size-class and page waste +[0-9.]*MiB, free pages kept ')"
# The classes whose empty space grew, each with the site whose objects stayed in it.
out=$("$hpa" --growth frag_server w/*.heap 2>/dev/null)
check "--growth over the folder: the size classes whose empty space grew" "1" \
	"$(echo "$out" | grep -c '^Size classes whose empty space grew (the statistics beside the first and last dump):$')"
check "--growth over the folder: a grown class names its step's site, its objects staying" "ok" \
	"$(echo "$out" | grep '^  *[0-9]*-byte class: +[0-9.]*MiB ' | grep -c 'object < step[0-9]* < fragment .*: its objects stay)' |
		awk '{ print ($1 >= 2 ? "ok" : $1) }')"

# A pprof series (no numbers in the names: ordered by the times the files record).
i=0
for d in $(echo "$je_dumps" | LC_ALL=C sort); do
	i=$((i + 1))
	"$hpa" --proto -o "s$i.pb.gz" leaky "$d" 2>/dev/null
done
check "pprof series: the leak first" "1048576 100% leak leak_path" \
	"$(growth s1.pb.gz s2.pb.gz s3.pb.gz s4.pb.gz s5.pb.gz | first_row "Stacks")"
check "--growth needs two dumps" "2" "$("$hpa" --growth s1.pb.gz >/dev/null 2>&1; echo $?)"

finish
