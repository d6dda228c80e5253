#!/bin/bash
# Speed and memory of hpa against jeprof on one large real profile.
#
#   bench/run.sh [HPA] [RUNS]     (HPA_BENCH_REPEAT: runs of hpa per figure, median;
#                                  HPA_BENCH_PAIRS: pairs per ratio to --text, median)
#
# Generates a synthetic C program (bench/gen.c: 4000 functions in 40 files,
# deep call paths chosen by a seed, always-inlined helpers, -O2 -g), runs it
# under Debian's libjemalloc with lg_prof_sample:0 so every allocation is
# recorded (RUNS seeds, default 200000: about 180k distinct stacks), then
# times `--text --show_bytes BINARY PROFILE` for hpa and for /usr/bin/jeprof
# and prints wall time, ratio, hpa's peak RSS and the unique addresses hpa
# symbolizes per second (time with symbols minus time with --no-symbols);
# then --svg and --html with their load time in Chromium; then a table of
# every output mode (text, collapse, svg, proto, html, base, growth) on a
# small, a medium and a large profile with the ratio to --text and jeprof's;
# --growth over 20 large dumps against 20 times one dump's parse, and over
# 200 dumps of 50k stacks against their parses and memory.  Last, a
# C++ binary with about 200 MB of DWARF (bench/gen_cxx.c), profiled with a
# few and with many stacks, against jeprof.  Between the two: a dump with
# 60k threads' lines, read with --text and --threads; the error of --stats'
# fragmentation charged to sites, per pattern; a ClickHouse push and query.
# Needs: gcc, g++, libjemalloc2, libjemalloc-dev (jeprof), GNU time (package time).
# Nothing here runs in ctest: timings are printed, never asserted.
set -eu
export LC_ALL=C   # the clock and awk read decimal points
here=$(cd "$(dirname "$0")" && pwd)
hpa=${1:-$here/../build/hpa}
runs=${2:-200000}
work=${HPA_BENCH_DIR:-/tmp/hpa-bench}
je=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
[ -x "$hpa" ] || { echo "no hpa at $hpa (build first)"; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time: apt-get install time"; exit 1; }
[ -e "$je" ] || { echo "needs $je: apt-get install libjemalloc2"; exit 1; }

mkdir -p "$work"
cd "$work"
if [ ! -x syn ] || [ "$here/gen.c" -nt syn ]; then
	echo "generating and building the synthetic program in $work ..."
	gcc -O2 -o gen "$here/gen.c"
	rm -f syn_*.c
	./gen . 40 100
	gcc -O2 -g -fno-omit-frame-pointer -o syn main.c syn_*.c
fi
rm -f prof.*.heap
MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prof" \
	LD_PRELOAD="$je" ./syn "$runs"
prof=$(ls prof.*.heap)
stacks=$(grep -c '^@' "$prof")
addrs=$(grep '^@' "$prof" | tr ' ' '\n' | grep '^0x' | sort -u | wc -l)
echo "profile: $prof, $(du -m "$prof" | cut -f1) MB, $stacks stacks, $addrs unique addresses"

measure() {   # measure CMD... -> "seconds kbytes"
	/usr/bin/time -f '%e %M' -o time.txt "$@" >out.txt 2>err.txt
	cat time.txt
}
# hpa's runs take a second or less, and one run on a shared machine can be
# off by half: the median of HPA_BENCH_REPEAT runs (default 5), each timed
# by bash's clock to the microsecond (GNU time says hundredths, too coarse
# for the 25 ms goal of a small profile), and the peak RSS of one more run
# under GNU time.  jeprof's take a minute: one run each.
median() {   # median CMD... -> "seconds kbytes"
	local n=${HPA_BENCH_REPEAT:-5} i t0 t1 kb
	: > times.txt
	for ((i = 0; i < n; i++)); do
		t0=$EPOCHREALTIME
		"$@" >out.txt 2>err.txt
		t1=$EPOCHREALTIME
		echo "$t0 $t1" | awk '{ printf "%.4f\n", $2 - $1 }' >> times.txt
	done
	set -- $(measure "$@"); kb=$2
	sort -n times.txt | awk -v n="$n" -v kb="$kb" '{ s[NR] = $1 }
		END { printf "%s %d\n", s[int((n + 1) / 2)], kb }'
}
set -- $(median "$hpa" --text --show_bytes ./syn "$prof"); hpa_s=$1 hpa_kb=$2
set -- $(median "$hpa" --no-symbols --text --show_bytes ./syn "$prof"); nosym_s=$1
if [ -x /usr/bin/jeprof ]; then
	set -- $(measure /usr/bin/jeprof --text --show_bytes ./syn "$prof"); je_s=$1 je_kb=$2
else
	je_s=""
fi

echo "hpa --text:    ${hpa_s} s, peak RSS $((hpa_kb / 1024)) MiB"
echo "hpa --no-symbols: ${nosym_s} s (reading and report only)"
awk -v a="$addrs" -v t="$hpa_s" -v n="$nosym_s" 'BEGIN {
	d = t - n
	if (d < 0.01)   # within the noise of two single runs
		printf "symbolization: %d unique addresses, too fast to tell from the noise of the runs (--timing says)\n", a
	else
		printf "symbolization: %d unique addresses in %.2f s = %.0f addresses/s\n", a, d, a / d }'
set -- $(median "$hpa" --svg ./syn "$prof"); svg_s=$1 svg_kb=$2
cp out.txt flame.svg
echo "hpa --svg:     ${svg_s} s, peak RSS $((svg_kb / 1024)) MiB, $(du -k flame.svg | cut -f1) KiB, $(grep -c '<g data-x' flame.svg) frames"
chrome=$(command -v chromium || true)
if [ -n "$chrome" ]; then
	flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$work/chrome"
	echo '<svg xmlns="http://www.w3.org/2000/svg"/>' > empty.svg
	set -- $(measure $chrome $flags --dump-dom "file://$work/empty.svg"); empty_s=$1
	set -- $(measure $chrome $flags --dump-dom "file://$work/flame.svg?search=f1&zoom=5"); load_s=$1
	echo "chromium: flame.svg loaded, searched and zoomed in ${load_s} s (an empty SVG: ${empty_s} s)"
fi
set -- $(median "$hpa" --html ./syn "$prof"); html_s=$1 html_kb=$2
cp out.txt report.html
echo "hpa --html:    ${html_s} s, peak RSS $((html_kb / 1024)) MiB, $(du -k report.html | cut -f1) KiB"
if [ -n "$chrome" ]; then
	echo '<!DOCTYPE html><title>empty</title>' > empty.html
	set -- $(measure $chrome $flags --dump-dom "file://$work/empty.html"); empty_s=$1
	set -- $(measure $chrome $flags --dump-dom "file://$work/report.html?test=tabs"); load_s=$1
	ms=$($chrome $flags --dump-dom "file://$work/report.html?test=loaded" 2>/dev/null | sed -n 's/.*loaded\t*\([0-9]*\).*/\1/p' | head -n 1)
	echo "chromium: report.html loaded and every tab drawn in ${load_s} s (an empty page: ${empty_s} s; the page's script done ${ms} ms after navigation)"
fi
if [ -n "$je_s" ]; then
	echo "jeprof --text: ${je_s} s, peak RSS $((je_kb / 1024)) MiB"
	awk -v j="$je_s" -v h="$hpa_s" 'BEGIN { printf "ratio: hpa is %.0fx faster than jeprof\n", j / h }'
else
	echo "jeprof: not installed (apt-get install libjemalloc-dev)"
fi

# The table: every output mode on three profile sizes (small, medium, large:
# RUNS/600, RUNS/25 and RUNS seeds of the same program), hpa's wall time,
# peak RSS and the ratio to its own --text, jeprof's --text where it runs.
# --base and --growth read two dumps of the size: the profile and one of
# 9/10 of its seeds, dumped by the same run (prof.dump), as a server's
# dumps are.
# The ratio to --text is paired: each run of the mode next to a run of
# --text, the median of their ratios (a shared machine's speed drifts
# between one median and the next, far less within a pair).  One pair in
# a few lands on a moment when something else runs: on the development
# machine one pair of --html on 180k stacks ranged 1.14-1.93, and of 45
# pairs in a row, the median of 5 consecutive ones 1.37-1.62, of 15
# 1.40-1.52.  So the median is of HPA_BENCH_PAIRS pairs (default 15, at
# least HPA_BENCH_REPEAT).
# The pair's order alternates, so that what the first run leaves the
# second (a warm page cache, memory the kernel has just freed) favours
# neither.  The middle half of the pairs' ratios (first to third quartile)
# is printed beside the median: how far one run of the table from the
# next may differ.
pair_ratio() {   # pair_ratio TEXT_PROFILE CMD... -> "MEDIAN Q1 Q3" of CMD's time / --text's
	local n=${HPA_BENCH_PAIRS:-15} i t0 t1 t2 p=$1
	shift
	[ "$n" -ge "${HPA_BENCH_REPEAT:-5}" ] || n=${HPA_BENCH_REPEAT:-5}
	: > ratios.txt
	for ((i = 0; i < n; i++)); do
		if ((i % 2 == 0)); then
			t0=$EPOCHREALTIME
			"$hpa" --text ./syn "$p" >out.txt 2>err.txt
			t1=$EPOCHREALTIME
			"$@" >out.txt 2>err.txt
			t2=$EPOCHREALTIME
			echo "$t0 $t1 $t2" | awk '{ printf "%.4f\n", ($3 - $2) / ($2 - $1) }' >> ratios.txt
		else
			t0=$EPOCHREALTIME
			"$@" >out.txt 2>err.txt
			t1=$EPOCHREALTIME
			"$hpa" --text ./syn "$p" >out.txt 2>err.txt
			t2=$EPOCHREALTIME
			echo "$t0 $t1 $t2" | awk '{ printf "%.4f\n", ($2 - $1) / ($3 - $2) }' >> ratios.txt
		fi
	done
	sort -n ratios.txt | awk -v n="$n" '{ s[NR] = $1 }
		END { printf "%.2f %.2f %.2f", s[int((n + 1) / 2)], s[int((n + 3) / 4)], s[int((3 * n + 1) / 4)] }'
}
echo
echo "size     stacks  mode        hpa s  peak MiB  x text  (middle half)  jeprof s  jeprof/hpa"
for class in small:$((runs / 600)) medium:$((runs / 25)) large:$runs; do
	name=${class%%:*} n=${class#*:}
	rm -f prof.*.heap
	MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prof" LD_PRELOAD="$je" \
		./syn "$n" $((n * 9 / 10))
	mv prof.*.f.heap "$name.heap"
	mv prof.*.m*.heap "$name.0.heap"
	st=$(grep -c '^@' "$name.heap")
	for mode in text collapse svg proto html base growth; do
		case $mode in
		base) set -- --text --base "$name.0.heap" ./syn "$name.heap" ;;
		growth) set -- --growth ./syn "$name.0.heap" "$name.heap" ;;
		*) set -- --"$mode" ./syn "$name.heap" ;;
		esac
		r="1.00 1.00 1.00"
		[ "$mode" = text ] || r=$(pair_ratio "$name.heap" "$hpa" "$@")
		set -- $(median "$hpa" "$@"); s=$1 kb=$2
		js="" jr=""
		if [ "$mode" = text ] && [ -x /usr/bin/jeprof ]; then
			set -- $(measure /usr/bin/jeprof --text --show_bytes ./syn "$name.heap"); js=$1
			jr=$(awk -v j="$js" -v h="$s" 'BEGIN { printf "%.0f", j / (h > 0 ? h : 0.01) }')
		fi
		awk -v c="$name" -v n="$st" -v m="$mode" -v s="$s" -v kb="$kb" -v r="$r" -v js="$js" -v jr="$jr" \
			'BEGIN { split(r, q, " "); mid = m == "text" ? "" : sprintf("%.2f-%.2f", q[2], q[3])
				printf "%-7s %7d  %-9s %7.3f %9d %7.2f  %-13s %9s %11s\n", c, n, m, s, kb / 1024, q[1], mid, js, jr }'
	done
done

# --growth over 20 large dumps, as a server dumps while its memory grows:
# one run dumping after RUNS*(100-N+1)/100 ... RUNS seeds (N = 20).  The goal:
# at most N times one dump's parse time (the last dump's --no-symbols --text)
# plus one symbolization (its --text minus that).
echo
n20=${HPA_BENCH_GROWTH_DUMPS:-20}
echo "growth over $n20 large dumps (generating them ...)"
rm -f g20.*.heap prof.*.heap
set --
for ((k = 1; k < n20; k++)); do
	set -- "$@" $((runs * (100 - n20 + k) / 100))
done
MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prof" \
	LD_PRELOAD="$je" ./syn "$runs" "$@"
k=1
for f in $(ls prof.*.heap | sort -t. -k3,3n); do   # prof.PID.SEQ.mN.heap, then .f.heap: in order
	mv "$f" "g20.$(printf %02d "$k").heap"
	k=$((k + 1))
done
last=$(ls g20.*.heap | tail -n 1)
set -- $(median "$hpa" --no-symbols --text ./syn "$last"); p1=$1
set -- $(median "$hpa" --text ./syn "$last"); t1=$1
set -- $(median "$hpa" --growth ./syn g20.*.heap); gs=$1 gkb=$2
awk -v n="$n20" -v p="$p1" -v t="$t1" -v g="$gs" -v kb="$gkb" 'BEGIN {
	b = n * p + (t > p ? t - p : 0)   # symbolization: within the noise, 0
	printf "one dump: parse %.3f s, with symbols %.3f s; --growth over %d: %.2f s, peak RSS %d MiB; goal %d x parse + symbolization = %.2f s: %.2f of it\n", p, t, n, g, kb / 1024, n, b, g / b }'

# --growth over a long series (issue 51's scale): HPA_BENCH_SERIES_DUMPS
# (default 200) dumps of about 50k stacks each, made from one dump of
# 54000 seeds: in dump k, one stack in ten holds k times its bytes (leaks),
# one in ten 1 + k % 3 times (churns), the rest as they are.  The goals:
# time at most 1.2 x (the sum of each dump's parse, --no-symbols --text,
# one run each, plus one symbolization), peak RSS at most 3 x that of
# --text of the largest dump alone.
ns=${HPA_BENCH_SERIES_DUMPS:-200}
echo
if [ ! -e "series/s.$(printf %03d "$ns").heap" ] || [ syn -nt series/base.heap ]; then
	echo "growth over $ns dumps of about 50k stacks (generating them: $((ns * 17 / 1000)) GB or so ...)"
	rm -rf series prof.*.heap
	mkdir series
	MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prof" LD_PRELOAD="$je" ./syn 54000
	mv prof.*.heap series/base.heap
	for ((k = 1; k <= ns; k++)); do
		awk -v k="$k" '/^@/ { i++; print; next }
			/^  t\*:/ && i { f = i % 10 == 0 ? k : i % 10 == 1 ? 1 + k % 3 : 1
				split($0, a, /[:\[\] ]+/)
				printf "  t*: %d: %d [%d: %d]\n", a[3] * f, a[4] * f, a[5] * f, a[6] * f; next }
			/^  t[0-9]/ && i { next }
			{ print }' series/base.heap > "series/s.$(printf %03d "$k").heap"
	done
else
	echo "growth over $ns dumps of about 50k stacks"
fi
sum=0
for f in series/s.*.heap; do
	set -- $(measure "$hpa" --no-symbols --text ./syn "$f"); sum=$(awk -v a="$sum" -v b="$1" 'BEGIN { print a + b }')
done
largest=$(ls -S series/s.*.heap | head -n 1)
set -- $(median "$hpa" --no-symbols --text ./syn "$largest"); p1=$1
set -- $(median "$hpa" --text ./syn "$largest"); t1=$1 one_kb=$2
set -- $(measure "$hpa" --growth ./syn series/s.*.heap); gs=$1 gkb=$2
awk -v n="$ns" -v st="$(grep -c '^@' "$largest")" -v sum="$sum" -v p="$p1" -v t="$t1" -v g="$gs" -v kb="$gkb" -v one="$one_kb" 'BEGIN {
	b = sum + (t > p ? t - p : 0)
	printf "%d dumps of %d stacks: parses %.2f s in all, symbolization %.2f s; --growth %.2f s = %.2f x their sum (goal 1.2)\n", n, st, sum, (t > p ? t - p : 0), g, g / b
	printf "peak RSS: --growth %d MiB, --text of the largest dump alone %d MiB: %.1f x (goal 3)\n", kb / 1024, one / 1024, kb / one }'

# Many threads: the large dump with 60k threads' "tN:" lines spread over its
# records (as a server with a thread per connection writes them), read with
# --text and --threads, against the same dump without them.  Reading and
# --threads must stay linear in the lines (a thread's lookup, one pass).
awk 'BEGIN { srand(7) } /^@/ { print; at = 1; next }
	at && /^  t\*:/ { print; for (k = 0; k < 3; k++) printf "  t%d: 1: 1 [1: 1]\n", int(rand() * 60000); at = 0; next }
	/^  t[0-9]/ { next } { print }' "$last" > threads60k.heap
set -- $(median "$hpa" --no-symbols --text ./syn "$last"); a=$1
set -- $(median "$hpa" --no-symbols --text ./syn threads60k.heap); b=$1
set -- $(median "$hpa" --no-symbols --threads ./syn threads60k.heap); c=$1 ckb=$2
echo "many threads ($(grep -c '^  t[0-9]' threads60k.heap) thread lines of $(sed -n 's/^  t\([0-9]*\):.*/\1/p' threads60k.heap | sort -u | wc -l) threads): --text $b s (without them $a s), --threads $c s, peak RSS $((ckb / 1024)) MiB"

# Fragmentation charged to sites (--stats), against jemalloc's own answer:
# tests/real/stats/waste_truth.c lays out known patterns and writes, from
# experimental.utilization.batch_query, each site's true share of empty slab
# bytes; the error of hpa's estimate per pattern, at lg_prof_sample 12 and 19.
# The sites of one class share it by object count: exact for a class one
# site fills (scatter_long), wrong for two densities in one class
# (dense_obj, sparse_obj: the man page says so).
if [ -e /usr/include/jemalloc/jemalloc.h ]; then
	echo
	echo "fragmentation charged to sites: hpa's estimate against jemalloc's slabs"
	gcc -O2 -g -fno-omit-frame-pointer -o waste_truth "$here/../tests/real/stats/waste_truth.c" -ljemalloc
	printf "%-4s %-14s %14s %14s %9s\n" lg site truth hpa error
	for lg in 12 19; do
		rm -rf "waste$lg" && mkdir "waste$lg"
		MALLOC_CONF="prof:true,tcache:false,lg_prof_sample:$lg" ./waste_truth "waste$lg"
		"$hpa" --stats "waste$lg/stats.txt" --csv ./waste_truth "waste$lg/prof.heap" > "waste$lg/csv" 2>/dev/null
		awk -F, -v lg="$lg" 'FNR == NR { if ($0 ~ /^site /) { split($0, w, " "); truth[w[2]] = w[4] } next }
			$1 == "site" { n = $3; gsub(/^"| <.*$/, "", n); if (n in truth) est[n] = $5 }
			END { for (n in truth) { e = truth[n] > 0 ? 100 * (est[n] - truth[n]) / truth[n] : 0
				printf "%-4s %-14s %14.0f %14.0f %8.1f%%\n", lg, n, truth[n], est[n], e } }' \
			"waste$lg/truth" "waste$lg/csv" | sort -k2
	done
fi

# A fleet (--push, a clickhouse+http:// PROFILE): Debian's clickhouse-server
# started here on 127.0.0.1 with a data folder in $work/ch; the time to
# push the large profile, and to query 100 pushed profiles (the 200-dump
# series' first 100, 50k stacks each) back as one --text.
if [ -x /usr/sbin/clickhouse-server ] && command -v curl >/dev/null; then
	echo
	echo "a fleet in ClickHouse"
	rm -rf ch && mkdir -p ch/data ch/tmp ch/user_files ch/format_schemas
	chport=${HPA_BENCH_CH_PORT:-28123}
	printf '<?xml version="1.0"?><yandex><profiles><default></default></profiles><users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users><quotas><default></default></quotas></yandex>\n' > ch/users.xml
	printf '<?xml version="1.0"?><yandex><logger><level>warning</level><log>%s/ch/log</log><errorlog>%s/ch/err</errorlog></logger><http_port>%s</http_port><tcp_port>%s</tcp_port><listen_host>127.0.0.1</listen_host><path>%s/ch/data/</path><tmp_path>%s/ch/tmp/</tmp_path><user_files_path>%s/ch/user_files/</user_files_path><format_schema_path>%s/ch/format_schemas/</format_schema_path><users_config>%s/ch/users.xml</users_config><default_profile>default</default_profile><default_database>default</default_database><mark_cache_size>1073741824</mark_cache_size></yandex>\n' \
		"$work" "$work" "$chport" "$((chport + 1))" "$work" "$work" "$work" "$work" "$work" > ch/config.xml
	/usr/sbin/clickhouse-server --config-file="$work/ch/config.xml" > ch/stdout 2>&1 &
	chpid=$!
	for i in $(seq 1 60); do [ "$(curl -s "http://127.0.0.1:$chport/ping")" = "Ok." ] && break; sleep 0.5; done
	curl -s "http://127.0.0.1:$chport/" --data-binary "CREATE DATABASE bench" > /dev/null
	ch="clickhouse+http://127.0.0.1:$chport/bench"
	set -- $(measure "$hpa" --push "$ch" --label run=large ./syn "$prof"); ps=$1 pkb=$2
	i=0
	for f in series/s.*.heap; do
		i=$((i + 1)); [ "$i" -le 100 ] || break
		"$hpa" --push "$ch" --label run=many --label n="$i" ./syn "$f" > /dev/null 2>push.err ||
			{ echo "push of $f failed:"; cat push.err; }
	done
	set -- $(median "$hpa" --text "$ch?run=many"); qs=$1 qkb=$2
	echo "push of $stacks stacks: $ps s, peak RSS $((pkb / 1024)) MiB; --text over 100 pushed profiles of 50k stacks: $qs s, peak RSS $((qkb / 1024)) MiB"
	kill "$chpid"
fi

# A big C++ binary: bench/gen_cxx.c writes 100 files of templates over the
# standard containers, built with g++ -O2 -g into a binary with about
# 200 MB of DWARF (the shape of a large C++ database server), profiled
# with a few seeds and with many (thousands of stacks).  What hpa
# reads must follow the profile's addresses, not the size of the DWARF.
if command -v g++ >/dev/null; then
	cxfiles=${HPA_BENCH_CXX_FILES:-100}
	if [ ! -x cxx ] || [ "$here/gen_cxx.c" -nt cxx ]; then
		echo
		echo "generating and building the C++ program ($cxfiles files; several minutes, once) ..."
		gcc -O2 -o gen_cxx "$here/gen_cxx.c"
		rm -f cx_*.cc cx_*.o
		./gen_cxx . "$cxfiles"
		ls cx_*.cc | xargs -P "$(nproc)" -I{} sh -c 'g++ -O2 -g -c "$1" -o "${1%.cc}.o"' sh {}
		g++ -O2 -g -o cxx cx_*.o
	fi
	dwarf=$(size -A cxx | awk '/^\.debug/ { s += $2 } END { printf "%.0f", s / 1048576 }')
	echo
	echo "C++ binary: $(du -m cxx | cut -f1) MB, $dwarf MiB of DWARF"
	echo "size     stacks  addrs   hpa s  peak MiB  jeprof s  jeprof/hpa"
	for class in few:${HPA_BENCH_CXX_FEW:-3} many:${HPA_BENCH_CXX_MANY:-20000}; do
		name=${class%%:*} n=${class#*:}
		rm -f prof.*.heap
		MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prof" LD_PRELOAD="$je" ./cxx "$n"
		mv prof.*.heap "cxx-$name.heap"
		st=$(grep -c '^@' "cxx-$name.heap")
		ad=$(grep '^@' "cxx-$name.heap" | tr ' ' '\n' | grep '^0x' | sort -u | wc -l)
		set -- $(median "$hpa" --text --show_bytes ./cxx "cxx-$name.heap"); s=$1 kb=$2
		js="" jr=""
		if [ -x /usr/bin/jeprof ]; then
			set -- $(measure /usr/bin/jeprof --text --show_bytes ./cxx "cxx-$name.heap"); js=$1
			jr=$(awk -v j="$js" -v h="$s" 'BEGIN { printf "%.0f", j / (h > 0 ? h : 0.01) }')
		fi
		awk -v c="$name" -v n="$st" -v a="$ad" -v s="$s" -v kb="$kb" -v js="$js" -v jr="$jr" \
			'BEGIN { printf "%-7s %7d %6d %7.3f %9d %9s %11s\n", c, n, a, s, kb / 1024, js, jr }'
	done
fi
