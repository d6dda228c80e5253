#!/bin/sh
# --html on real dumps: the bundled example (jemalloc) and alloc_paths under
# libjemalloc (prof_accum: all four value types) and libtcmalloc, opened in
# headless Chromium from a file:// URL with networking off:
#  - one file, no http(s) reference in any src, href or url(); the same
#    input gives the same bytes;
#  - the page reports no script error; through its ?test= hook, the top
#    table of every value type and granularity equals --text --show_bytes,
#    row for row, and a clicked function's callers and callees equal --peek;
#  - a screenshot of each tab is a non-blank PNG (size, colour count),
#    kept in WORKDIR as an artifact of the run.
#
# usage: run-html.sh HPA TOPDIR ALLOC_PATHS PNGSTAT WORKDIR
set -u
hpa=$1 top=$2 paths=$3 pngstat=$4 work=$5
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc
need_chromium
fresh_dir "$work"

cp "$paths" ./alloc_paths
MALLOC_CONF="prof:true,prof_final:true,prof_accum:true,lg_prof_sample:0,prof_prefix:$work/je" \
	LD_PRELOAD="$je" ./alloc_paths || { echo "FAIL: alloc_paths under jemalloc"; exit 1; }
HEAPPROFILE="$work/tc" LD_PRELOAD="$tc" ./alloc_paths 2>/dev/null || { echo "FAIL: alloc_paths under tcmalloc"; exit 1; }
jp=$(one "$work/je.*.f.heap") && tp=$(one "$work/tc.*.heap") || exit 1

# --text --show_bytes as the hook prints rows: "Total\tN", then "name\tflat\tcum".
text_rows() {
	"$hpa" --text --show_bytes "$@" 2>/dev/null | awk 'NR == 1 { print "Total\t" ($2 ~ /^\(t/ ? $3 : $2); next }
		{ n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n "\t" $1 "\t" $4 }'
}
# --peek --show_bytes of one function as "C\tcaller\tvalue", "N\tname", "E\tcallee\tvalue".
peek_rows() {
	"$hpa" --peek "$@" --show_bytes 2>/dev/null | awk -F'|' 'NF == 2 { n = split($1, v, " "); name = $2
		sub(/^ +/, "", name); sub(/[ \t]+$/, "", name)
		if (n == 5) { print "N\t" name; seen = 1 } else if (n == 2) print (seen ? "E" : "C") "\t" name "\t" v[1] }'
}

n=0
for case in "example:$top/testdata/example/demo:$top/testdata/example/demo.heap:cache_put" \
	    "je:alloc_paths:$jp:big_buffers" "tc:alloc_paths:$tp:main"; do
	IFS=: read -r name bin prof fn <<-EOF2
	$case
	EOF2
	n=$((n + 1))
	"$hpa" --html -o "$name.html" "$bin" "$prof" 2>/dev/null || { echo "FAIL: $name: hpa --html"; fail=$((fail + 1)); continue; }
	"$hpa" --html -o "$name.2.html" "$bin" "$prof" 2>/dev/null
	check "$name: the same bytes twice" "same" "$(cmp -s "$name.html" "$name.2.html" && echo same)"
	check "$name: no network reference" "0" \
		"$(grep -Eic "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//|url\\([[:space:]]*[\"']?[[:space:]]*(https?:)?//" "$name.html")"
	check "$name: no script error" "" "$(browse "$name.html" loaded | grep '^error')"
	types=$(grep -o '"name":"[a-z_]*","objects"' "$name.html" | sed 's/"name":"\([a-z_]*\)".*/\1/')
	spec=""
	for t in $types; do
		for g in functions lines files; do spec="$spec;rows,$t,$g"; done
	done
	out=$(browse "$name.html" "${spec#;}")
	k=0
	for t in $types; do
		for g in functions lines files; do
			check "$name: $t $g rows equal --text" "$(text_rows --"$t" --"$g" "$bin" "$prof")" \
				"$(echo "$out" | awk -v k=$k '/^Total\t/ { i++ } i == k + 1')"
			k=$((k + 1))
		done
	done
	check "$name: $fn's callers and callees equal --peek" "$(peek_rows "^$fn\$" "$bin" "$prof")" \
		"$(browse "$name.html" "peek,inuse_space,$fn")"
	tabs=$(browse "$name.html" tabs)
	check "$name: every tab drawn" "4" "$(echo "$tabs" | awk '$2 > 5' | wc -l)"
	for tab in summary top flame calls; do
		chrome_run --window-size=1200,800 --screenshot="$work/$name-$tab.png" \
			"file://$work/$name.html?test=tab,$tab,$fn" >/dev/null
		stat=$("$pngstat" "$work/$name-$tab.png" 2>&1)
		check "$name: $tab screenshot is not blank" "ok" \
			"$(echo "$stat" | awk -v s="$(wc -c < "$work/$name-$tab.png" 2>/dev/null || echo 0)" \
				'{ sub("colours=", "", $2); print ($2 + 0 >= 8 && s >= 4000) ? "ok" : $0 " bytes=" s }')"
	done
done

# --base: the rows are --text --base's (the difference); before and after columns.
d=$top/testdata/jemalloc
"$hpa" --html -o diff.html --no-symbols --base "$d/paths-lg10.heap" "$d/paths-lg0.heap" 2>/dev/null
check "diff: rows equal --text --base" "$(text_rows --no-symbols --base "$d/paths-lg10.heap" "$d/paths-lg0.heap")" \
	"$(browse diff.html rows,inuse_space,functions)"
check "diff: before and after columns" "1" "$(browse diff.html tabs | grep -c '^top')"
# Several dumps: a Series tab with one bar per dump and the --growth ranking.
"$hpa" --html -o series.html --no-symbols "$d/paths-lg0.heap" "$d/paths-lg10.heap" "$d/paths-lg19.heap" 2>/dev/null
check "series: the Top tab opens on the last dump, its rows --text of it alone" \
	"$(text_rows --no-symbols "$d/paths-lg19.heap")" "$(browse series.html rows,inuse_space,functions)"
check "series: the sum when picked, its rows --text of the sum" \
	"$(text_rows --no-symbols "$d/paths-lg0.heap" "$d/paths-lg10.heap" "$d/paths-lg19.heap")" \
	"$(browse series.html 'pick,-1;rows,inuse_space,functions')"
check "series: a dump picked, its rows --text of it" "$(text_rows --no-symbols "$d/paths-lg0.heap")" \
	"$(browse series.html 'pick,0;rows,inuse_space,functions')"
check "series: an adjacent pair picked, its rows --text --base of the two" \
	"$(text_rows --no-symbols --base "$d/paths-lg10.heap" "$d/paths-lg19.heap")" \
	"$(browse series.html 'pick,5;rows,inuse_space,functions')"
check "series: a pair's top total says which" "1" \
	"$(browse series.html 'pick,5;text,top,total' | grep -c '^Change from dump #2 to #3: ')"
check "series: tab drawn, the first --growth function ranked first" \
	"$("$hpa" --growth --no-symbols "$d/paths-lg0.heap" "$d/paths-lg10.heap" "$d/paths-lg19.heap" 2>/dev/null |
		sed -n '/^Functions/,$p' | awk 'NF > 3 && $NF ~ /\+0x/ { print $NF; exit }')" \
	"$(browse series.html text,series,growth | grep -o '[a-z.0-9]*+0x[0-9a-f]*' | head -n 1)"
check "series: the graphs open on the last dump, not the sum" "dump 2" "$(browse series.html dump | head -n 1 | tr '\t' ' ')"
check "series: the title says how many dumps and the last" "1" \
	"$(chrome_run --dump-dom "file://$work/series.html" | grep -c '<title>hpa: 3 dumps, the last .*paths-lg19.heap</title>')"
s="$top/testdata/series"
"$hpa" --html -o process.html --no-symbols "$s/app.4242.12.i12.heap" "$s/app.4242.2.i2.heap" "$s/app.4242.10.i10.heap" 2>/dev/null
check "series: the title names the process and the last dump in series order" "1" \
	"$(chrome_run --dump-dom "file://$work/process.html" | grep -c '<title>hpa: 3 dumps of process 4242, the last .*app.4242.12.i12.heap</title>')"
for f in srv+0x1234 srv+0x1400 srv+0x1100; do
	want=$("$hpa" --growth --svg --no-symbols "$s/app.4242.12.i12.heap" "$s/app.4242.2.i2.heap" "$s/app.4242.10.i10.heap" 2>/dev/null |
		sed -n "s/.*<title>$f&#10;.*fill=\"\([^\"]*\)\".*/\1/p")
	check "series: $f has a frame in --growth --svg" "1" "$(echo "$want" | grep -c '^rgb(')"
	check "series: $f's frame coloured by its class as --growth --svg colours it" "$want" \
		"$(browse process.html "fill,$(echo "$f" | sed 's/+/%2B/')" | head -n 1)"
done
check "series: the flame graph's legend says the classes" "1" \
	"$(browse process.html text,flame,legend | grep -c '^legend: red leak')"
check "series: the chart labels its dumps" "#1 #2 #3" \
	"$(browse series.html text,series,chart | grep -o '#[0-9]' | tr '\n' ' ' | sed 's/ $//')"
check "series: the growth ranking classifies, as --growth" \
	"$("$hpa" --growth --no-symbols "$d/paths-lg0.heap" "$d/paths-lg10.heap" "$d/paths-lg19.heap" 2>/dev/null |
		sed -n '/^Functions/,$p' | awk 'NF > 3 && $NF ~ /\+0x/ { print $4; exit }')" \
	"$(browse series.html text,series,growth | grep -o 'leak\|plateau\|churn\|shrink\|flat' | head -n 1)"
check "series: each dump's own total in the summary" "1" \
	"$(browse series.html text,summary,app | grep -c 'inuse_space per dump#1 ')"
# Threads: each thread's rows are --text --thread's.
"$hpa" --html -o threads.html --no-symbols "$d/threads-accum.heap" 2>/dev/null
i=0
for t in $("$hpa" --threads --no-symbols "$d/threads-accum.heap" 2>/dev/null | awk '$1 ~ /^t[0-9]+$/ { sub("t", "", $1); print $1 }'); do
	check "threads: t$t rows equal --text --thread $t" "$(text_rows --no-symbols --thread "$t" "$d/threads-accum.heap")" \
		"$(browse threads.html "rows,inuse_space,functions,$i")"
	i=$((i + 1))
done
check "threads: some thread checked" "ok" "$([ $i -gt 0 ] && echo ok)"
# --stats: the Memory tab holds the breakdown.
s=$top/testdata/stats
"$hpa" --html -o memory.html --stats "$s/je-stats.txt" --status "$s/je-status" --no-symbols "$s/je-prof.heap" 2>/dev/null
check "memory: the RSS breakdown's rows" "$("$hpa" --stats "$s/je-stats.txt" --status "$s/je-status" --csv --no-symbols "$s/je-prof.heap" 2>/dev/null |
	grep -c '^rss,')" "$(browse memory.html memory | grep -c '^rss	')"
check "memory: held by live allocations" "$("$hpa" --stats "$s/je-stats.txt" --status "$s/je-status" --csv --no-symbols "$s/je-prof.heap" 2>/dev/null |
	sed -n 's/^rss,0,"held by live allocations",,\([0-9]*\),.*/\1/p')" \
	"$(browse memory.html memory | awk -F'\t' '$1 == "rss" && $2 == "held by live allocations" { print $3 }')"
echo "screenshots: $work/*.png"
finish
