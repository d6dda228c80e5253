#!/bin/sh
# Base diffs, collapsed stacks, filters and views on real dumps of
# sym/phases.c (two dumps in one run; see its comment for what changes
# between them), under Debian's libjemalloc (lg_prof_sample:0, prof_accum,
# two separate runs) and libtcmalloc:
#  - the diff equals what the program allocated between the dumps, within
#    one run and across two runs (ASLR: frames are matched by symbol);
#  - every collapsed output parses back to the text report's Total;
#  - where /usr/bin/jeprof exists, --base totals equal jeprof's and
#    collapsed values per stack equal jeprof's --collapsed.
#
# usage: run-diffs.sh HPA SOURCEDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 src=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc

fresh_dir "$work"
$cc -O2 -g -fno-omit-frame-pointer -o phases "$src/phases.c" -ldl || { echo "FAIL: build"; exit 1; }
for run in A B; do
	MALLOC_CONF="prof:true,prof_final:false,prof_accum:true,lg_prof_sample:0,prof_prefix:$work/je$run" \
		LD_PRELOAD="$je" ./phases || { echo "FAIL: phases under jemalloc"; exit 1; }
done
HEAPPROFILE="$work/tc" LD_PRELOAD="$tc" ./phases 2>/dev/null || { echo "FAIL: phases under tcmalloc"; exit 1; }
a1=$(one "$work/jeA.*.m0.heap") && a2=$(one "$work/jeA.*.m1.heap") &&
b1=$(one "$work/jeB.*.m0.heap") && b2=$(one "$work/jeB.*.m1.heap") &&
t1=$(one "$work/tc.0001.heap") && t2=$(one "$work/tc.0002.heap") || exit 1

text() { "$hpa" --text --show_bytes "$@" 2>/dev/null; }
total() { text "$@" | head -n 1; }
row() { func_row "$@"; }   # row VALUE BINARY PROFILE NAME [OPTIONS]

# --- the diff is what was allocated in between ------------------------------------
for pair in "$a1 $a2" "$t1 $t2" "$a1 $b2"; do
	set -- $pair
	n="$(basename "$1") -> $(basename "$2")"
	check "$n Total" "Total: 819200 B" "$(total --base "$1" phases "$2")"
	check "$n objects" "Total: 25 objects" "$(total --inuse_objects --base="$1" phases "$2")"
	check "$n grow_a" "655360 655360" "$(row inuse_space phases "$2" grow_a "--base $1")"
	check "$n grow_b" "327680 327680" "$(row inuse_space phases "$2" grow_b "--base $1")"
	check "$n temp_buf" "-163840 -163840" "$(row inuse_space phases "$2" temp_buf "--base $1")"
	check "$n --drop_negative keeps grow_a" "655360 655360" "$(row inuse_space phases "$2" grow_a "--base $1 --drop_negative")"
	check "$n --drop_negative drops temp_buf" "" "$(row inuse_space phases "$2" temp_buf "--base $1 --drop_negative")"
	check "$n --normalize" "Total: 0 B" "$(total --normalize --base "$1" phases "$2")"
done
check "--drop_negative Total" "Total: 983040 B" "$(total --drop_negative --base "$a1" phases "$a2")"
mapa=$(awk '/phases$/ { print $1; exit }' "$a2") mapb=$(awk '/phases$/ { print $1; exit }' "$b2")
if [ "$mapa" = "$mapb" ]; then
	echo "note: both runs loaded phases at $mapa (no ASLR here); the cross-run diff is weaker"
fi
check "same program, two runs: nothing changed" "Total: 0 B" "$(total --base "$a2" phases "$b2")"
# Every frame of one run meets its own in the other, unnamed ones too (by
# module and file offset): no row is left.
check "two runs: every frame matched, no row left" "" "$(text --base "$a2" phases "$b2" | sed 1d)"

# Another build of the same program (functions aligned to 256 B: the same
# functions and lines at other offsets): the base's frames are re-keyed by
# symbol, so even --addresses shows one row per call site with the
# difference, not the base and the profile side by side.
$cc -O2 -g -fno-omit-frame-pointer -falign-functions=256 -o phases2 "$src/phases.c" -ldl ||
	{ echo "FAIL: build phases2"; exit 1; }
MALLOC_CONF="prof:true,prof_final:false,prof_accum:true,lg_prof_sample:0,prof_prefix:$work/jeP" \
	LD_PRELOAD="$je" ./phases2 || { echo "FAIL: phases2 under jemalloc"; exit 1; }
p2=$(one "$work/jeP.*.m1.heap") || exit 1
[ "$(nm phases | grep ' grow_a' | cut -d' ' -f1)" != "$(nm phases2 | grep ' grow_a' | cut -d' ' -f1)" ] ||
	echo "note: grow_a has one address in both builds; the check is weaker"
byaddr=$(text --addresses --base "$a1" "$p2")
check "another build: Total" "Total: 819200 B" "$(echo "$byaddr" | head -n 1)"
check "another build, --addresses: grow_a once, with the difference" "655360 655360" \
	"$(echo "$byaddr" | awk '$7 == "grow_a" { print $1, $4 }')"
check "another build, --addresses: temp_buf once, with the difference" "-163840 -163840" \
	"$(echo "$byaddr" | awk '$7 == "temp_buf" { print $1, $4 }')"
check "another build, --addresses: no unnamed frame of phases" "" "$(echo "$byaddr" | grep 'phases[0-9]*+0x')"

# Each module is opened once, however many inputs map it (strace counts the
# opens of the mapped libc; hpa's own loading of libc is the same in both).
if command -v strace >/dev/null 2>&1; then
	opens() { strace -f -e trace=openat -o opens.txt "$hpa" --text "$@" >/dev/null 2>&1; grep -c '/usr/lib/x86_64-linux-gnu/libc.so.6"' opens.txt; }
	check "a module is opened as often for three dumps of two runs as for one dump" \
		"$(opens phases "$a2")" "$(opens phases "$a1" "$b2" "$a2")"
	check "... and for --base of another run" "$(opens phases "$a2")" "$(opens --base "$b2" phases "$a2")"
elif [ "${HPA_REQUIRE_PEERS:-}" = 1 ]; then
	echo "FAIL: strace not installed"
	fail=$((fail + 1))
fi

# --- frames without names, across runs (ASLR) ----------------------------------------
# libstripped.so keeps only .dynsym: its static helpers have no name.  Two
# runs allocate 3 and 5 blocks; the diff is the 2 blocks, on the same
# unnamed frames, not both stacks whole.
$cc -O1 -g -fPIC -shared -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o libstripped.so "$src/stripped_lib.c" && strip --strip-all libstripped.so &&
	$cc -O1 -g -o use_stripped "$src/use_stripped.c" -L. -lstripped -Wl,-rpath,"$work" ||
	{ echo "FAIL: build use_stripped"; exit 1; }
for n in 3 5; do
	MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/st$n" \
		LD_PRELOAD="$je" ./use_stripped $n || { echo "FAIL: use_stripped under jemalloc"; exit 1; }
done
s3=$(one "$work/st3.*.f.heap") && s5=$(one "$work/st5.*.f.heap") || exit 1
[ "$(awk '/libstripped.so$/ { print $1; exit }' "$s3")" = "$(awk '/libstripped.so$/ { print $1; exit }' "$s5")" ] &&
	echo "note: both runs loaded libstripped.so at one address (no ASLR here); the check is weaker"
sdiff=$(text --base "$s3" use_stripped "$s5")
check "stripped library, two runs: the diff is the 2 new blocks" "Total: 65536 B" "$(echo "$sdiff" | head -n 1)"
check "stripped library: its unnamed frames are MODULE+0xOFFSET, matched" "2" \
	"$(echo "$sdiff" | awk '$1 == 65536 || $4 == 65536' | grep -c ' libstripped.so+0x[0-9a-f]*$')"
check "stripped library: no negative row (nothing left unmatched)" "" "$(echo "$sdiff" | sed 1d | awk '$1 < 0 || $4 < 0')"
check "stripped library: one folded stack in the diff" "1" \
	"$("$hpa" --collapse --base "$s3" use_stripped "$s5" 2>/dev/null | grep -c 'libstripped.so+0x.* 65536$')"
sum=$(text use_stripped "$s3" "$s5" "$s3")
check "stripped library, three runs summed: one row per unnamed frame" "2" \
	"$(echo "$sum" | grep -c ' libstripped.so+0x[0-9a-f]*$')"
check "stripped library, three runs summed: all 11 blocks on them" "360448 360448" \
	"$(echo "$sum" | grep ' libstripped.so+0x[0-9a-f]*$' | awk '{ print $4 }' | tr '\n' ' ' | sed 's/ $//')"

# --- collapsed stacks -----------------------------------------------------------------
collapse() { "$hpa" --collapse "$@" 2>/dev/null; }
leaf() {   # leaf FUNCTION: the line of the stack ending in FUNCTION
	grep ";$1 "
}
check "collapse grow_a" "_start;__libc_start_main_impl;__libc_start_call_main;main;grow_a 1310720" \
	"$(collapse phases "$a2" | leaf grow_a)"
check "collapse diff, one column" "_start;__libc_start_main_impl;__libc_start_call_main;main;temp_buf -163840" \
	"$(collapse --base "$a1" phases "$a2" | leaf temp_buf)"
check "collapse diff, two columns (shrunk)" "_start;__libc_start_main_impl;__libc_start_call_main;main;temp_buf 163840 0" \
	"$(collapse --diff-columns --base "$a1" phases "$a2" | leaf temp_buf)"
check "collapse diff, two columns (new)" "_start;__libc_start_main_impl;__libc_start_call_main;main;grow_b 0 327680" \
	"$(collapse --diff-columns --base "$a1" phases "$a2" | leaf grow_b)"
check "collapse diff, two columns (grew)" "_start;__libc_start_main_impl;__libc_start_call_main;main;grow_a 655360 1310720" \
	"$(collapse --diff-columns --base "$b1" phases "$a2" | leaf grow_a)"
check "collapse is sorted" "" "$(collapse phases "$a2" | LC_ALL=C sort -c 2>&1)"

# Every collapsed output parses back to the Total of the text report.
sum_lines() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }
for f in "$a1" "$a2" "$t1" "$t2"; do
	for v in inuse_space inuse_objects alloc_space alloc_objects; do
		want=$(total --"$v" phases "$f" | awk '{ print $2 }')
		check "$(basename "$f") $v collapsed sums to Total" "$want" "$(collapse --"$v" phases "$f" | sum_lines)"
	done
	check "$(basename "$f") collapsed lines are well formed" "" \
		"$(collapse phases "$f" | grep -v '^[^;]\{1,\}\(;[^;]\{1,\}\)* -\{0,1\}[0-9]\{1,\}$')"
done
check "collapsed diff sums to Total" "819200" "$(collapse --base "$a1" phases "$a2" | sum_lines)"
# --drop_negative drops exactly the stacks --collapse prints negative (one
# grouping engine, one key): the rest is unchanged, and --text's Total is
# their sum.
for pair in "$a1 $a2" "$b2 $a1" "$t2 $t1"; do
	set -- $pair
	n="$(basename "$1") -> $(basename "$2") --drop_negative"
	kept=$(collapse --base "$1" phases "$2" | awk '$NF >= 0')
	check "$n: the non-negative stacks, unchanged" "$kept" "$(collapse --drop_negative --base "$1" phases "$2")"
	check "$n: --text Total is their sum" "Total: $(echo "$kept" | sum_lines) B" \
		"$(total --drop_negative --base "$1" phases "$2")"
done

# --- filters and views --------------------------------------------------------------------
check "--focus: Total of the focused stacks" "Total: 327680 B" "$(total --focus 'grow_b' phases "$a2")"
check "--ignore: the rest" "Total: 81920 B" "$(total --ignore 'main' phases "$a2")"
check "--hide: frame gone, value stays" "" "$(row inuse_space phases "$a2" main --hide=^main$)"
check "--hide: Total unchanged" "$(total phases "$a2")" "$(total --hide '^main$' phases "$a2")"
check "--show: only matching frames" "1310720 1310720" "$(row inuse_space phases "$a2" grow_a "--show grow_")"
check "--show: others hidden" "" "$(row inuse_space phases "$a2" main "--show grow_")"
check "--focus on a file:line" "Total: 1310720 B" \
	"$(total --focus "phases.c:$(grep -n 'void \*p = malloc(n);' "$src/phases.c" | head -n 1 | cut -d: -f1)\$" phases "$a2")"
check "--nodecount 2" "3" "$(text --nodecount 2 phases "$a2" | sed 1d | wc -l | tr -d ' ')"
check "--nodecount 2 says what it dropped" "1" "$(text --nodecount 2 phases "$a2" | grep -c '^Dropped [0-9]* of [0-9]* rows')"
check "--nodefraction" "grow_a" "$(text --nodefraction 0.5 phases "$a2" | sed -n 2p | awk '{ print $6 }')"
traces() { "$hpa" --traces --show_bytes "$@" 2>/dev/null; }
# grow_a is called from two loops (two lines of main): two traces of 655360 B.
check "--traces: largest first" "655360 B" "$(traces phases "$a2" | sed -n 3p | cut -d' ' -f1,2)"
check "--traces: leaf first" "      grow_a $src/phases.c:$(grep -n 'void \*p = malloc(n);' "$src/phases.c" | head -n 1 | cut -d: -f1)" \
	"$(traces phases "$a2" | sed -n 4p)"
check "--threads: t0 holds everything" "t0 $(total phases "$a2" | awk '{ print $2 }') 100.0% -" \
	"$("$hpa" --threads --show_bytes phases "$a2" 2>/dev/null | sed -n 3p | awk '{ print $1, $2, $3, $4 }')"
check "--thread 0 equals the whole profile" "$(total phases "$a2" | sed 's/Total:/Total (t0):/')" "$(total --thread 0 phases "$a2")"

# --- jeprof ------------------------------------------------------------------------------
if [ -x /usr/bin/jeprof ]; then
	for pair in "$a1 $a2" "$t1 $t2"; do
		set -- $pair
		want=$(/usr/bin/jeprof --text --show_bytes --base="$1" phases "$2" 2>/dev/null | head -n 1)
		check "$(basename "$2") --base Total equals jeprof's" "$want" "$(total --base "$1" phases "$2")"
		# jeprof's --collapsed: the program's allocation stacks, nm address
		# tags removed, lines of one name stack summed (jeprof writes one
		# line per address-level stack, zeros included).  Exception where
		# jeprof is noisy: it keeps compiler clone suffixes from nm
		# (grow_a.constprop.0.isra.0); hpa drops them.
		norm() {
			sed 's/<[0-9a-f]\{16\}>//g; s/\.\(constprop\|isra\|part\|cold\)\(\.[0-9][0-9]*\)*//g' | grep ';main;\(grow_a\|grow_b\|temp_buf\) ' |
				awk '{ v = $NF; $NF = ""; s[$0] += v } END { for (k in s) if (s[k]) print k s[k] }' |
				LC_ALL=C sort
		}
		check "$(basename "$2") collapsed equals jeprof's" \
			"$(/usr/bin/jeprof --collapsed phases "$2" 2>/dev/null | norm)" "$(collapse phases "$2" | norm)"
		check "$(basename "$2") collapsed --base equals jeprof's" \
			"$(/usr/bin/jeprof --collapsed --base="$1" phases "$2" 2>/dev/null | norm)" \
			"$(collapse --base "$1" phases "$2" | norm)"
	done
elif [ "${HPA_REQUIRE_PEERS:-}" = 1 ]; then
	echo "FAIL: /usr/bin/jeprof not installed"
	fail=$((fail + 1))
fi

finish
