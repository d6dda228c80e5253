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
	check "$set: --svg leak frame deep red (grew every step)" "1" \
		"$(grep -c '<title>leak_path&#10;[^<]*grew in 100% of steps[^<]*</title><rect [^>]*fill="rgb(250,100,100)"' "$set-growth.svg")"
done

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
