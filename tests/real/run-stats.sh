#!/bin/sh
# --stats on real allocators: tests/real/stats/frag.c (64 MiB of 64-byte
# objects, 7 of every 8 freed; 64 MiB mapped and touched by the program)
# under Debian's libjemalloc (lg_prof_sample:12) and libtcmalloc, each
# dumping its profile, its statistics and its /proc files at one moment:
#  - the breakdown's rows sum exactly to VmRSS (or the RSS given), each
#    group's parts to the group, none negative; with text, JSON, status
#    alone, smaps, smaps_rollup, --rss and --pid (a live process);
#  - jemalloc: fragmentation is active - allocated (within 1%); resident
#    (an upper bound: untouched pages) is bounded by the kernel's figure and
#    said so; with smaps >= 90% of the program's 64 MiB mapping is outside
#    the allocator; the 64-byte site ranks first for empty slab space, its
#    bin 12.5% used;
#  - tcmalloc: the page heap, cache and metadata rows are the MALLOC: lines;
#  - statistics of another process, or cut short, are said so.
#
# usage: run-stats.sh HPA TOPDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 top=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc
fresh_dir "$work"
pids=""
trap 'kill $pids 2>/dev/null' EXIT

$cc -O2 -g -fno-omit-frame-pointer -o frag "$top/tests/real/stats/frag.c" -ldl || { echo "FAIL: build frag"; exit 1; }
mkdir je tc jw
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:12" LD_PRELOAD="$je" ./frag je ||
	{ echo "FAIL: frag under jemalloc"; exit 1; }
HEAPPROFILE="$work/tc/prof" LD_PRELOAD="$tc" ./frag tc 2>/dev/null || { echo "FAIL: frag under tcmalloc"; exit 1; }

kb() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' "$2"; }
# The breakdown's rows as "LEVEL BYTES LABEL" (with --show_bytes), the total as "T BYTES".
rows() {
	awk '/^RSS / { on = 1; next } on && /^total / { print "T", $2; exit }
	     on && /^[a-z.]/ { n = split($0, w, "  +"); print 0, w[2] + 0, w[1]; next }
	     on && /^  [^ ]/ { n = split(substr($0, 3), w, "  +"); print 1, w[2] + 0, w[1] }'
}
# "ok" when level-0 rows sum to the total and to $1, each group's parts to
# the group and no row is negative; else what is wrong.
sums() {
	awk -v want="$1" '$1 == "T" { t = $2; next }
		$2 < 0 { print "negative:", $0 }
		$1 == 0 { if (g != "" && parts && p != gv) print "parts of", g, "sum to", p, "not", gv
			  g = $3; gv = $2; p = parts = 0; s += $2; next }
		$1 == 1 { p += $2; parts++ }
		END { if (g != "" && parts && p != gv) print "parts of", g, "sum to", p, "not", gv
		      if (s != t || t != want) print "rows sum to", s, "total", t, "want", want
		      else print "ok" }'
}
row() { awk -v l="$1" '{ lab = $3; for (i = 4; i <= NF; i++) lab = lab " " $i } lab == l { print $2 }'; }

rss=$(kb VmRSS je/status)
active=$(sed -n 's/^Allocated: [0-9]*, active: \([0-9]*\),.*/\1/p' je/stats.txt)
allocated=$(sed -n 's/^Allocated: \([0-9]*\),.*/\1/p' je/stats.txt)
for s in stats.txt stats.json; do
	out=$("$hpa" --stats "je/$s" --status je/status --smaps je/smaps --show_bytes frag je/prof.heap 2>err)
	r=$(echo "$out" | rows)
	check "je $s: rows sum to VmRSS" "ok" "$(echo "$r" | sums "$rss")"
	frag=$(echo "$r" | row "fragmentation: free space in used pages")
	if [ "$s" = stats.txt ]; then
		check "je $s: fragmentation is active - allocated" "$((active - allocated))" "$frag"
	else   # the JSON is another instant: within 1%
		check "je $s: fragmentation within 1% of the text's active - allocated" "ok" \
			"$(awk -v a="$frag" -v b="$((active - allocated))" 'BEGIN { d = a - b; if (d < 0) d = -d; print d <= b / 100 ? "ok" : a " vs " b }')"
	fi
	check "je $s: resident above the kernel's figure is said" "1" "$(echo "$out" | grep -c '^Note: jemalloc counts .* as resident, .* more than the Rss of its mappings')"
	check "je $s: the program's 64 MiB mapping is outside (>= 90%)" "ok" \
		"$(echo "$r" | row "the program's own anonymous mappings (mmap)" | awk '{ print ($1 >= 0.9 * 67108864 ? "ok" : $1) }')"
	check "je $s: the 64-byte site ranks first, all of its class" "1" \
		"$(echo "$out" | sed -n '/^Allocation sites charged with empty space/{n;p;}' | grep -c ' 64-byte class, 100\.0% of its objects: small_object < make_small < main')"
	check "je $s: the 64-byte class 12.5% used" "1" \
		"$(echo "$out" | sed -n '/^Empty space by size class/,/^$/p' | grep -c '^ *64 .* 12\.[45]% ')"
	check "je $s: seen by the profile is --text's Total" \
		"$("$hpa" --text --show_bytes frag je/prof.heap 2>/dev/null | awk 'NR == 1 { print $2 }')" \
		"$(echo "$r" | row "seen by the profile")"
	check "je $s: no warning" "" "$(grep -v 'without symbols' err)"
done
# Fewer kernel figures: still exact sums, never negative.
check "je status alone" "ok" "$("$hpa" --stats je/stats.txt --status je/status --show_bytes 2>/dev/null | rows | sums "$rss")"
check "je smaps alone" "ok" "$("$hpa" --stats je/stats.txt --smaps je/smaps --show_bytes 2>/dev/null | rows |
	sums "$(awk '$1 == "Rss:" { s += $2 } END { print s * 1024 }' je/smaps)")"
check "je smaps_rollup" "ok" "$("$hpa" --stats je/stats.json --smaps je/smaps_rollup --show_bytes 2>/dev/null | rows |
	sums "$(kb Rss je/smaps_rollup)")"
check "je --rss" "ok" "$("$hpa" --stats je/stats.txt --rss 500MB --show_bytes 2>/dev/null | rows | sums 524288000)"
check "je no RSS: the allocator's resident" "ok" "$("$hpa" --stats je/stats.txt --show_bytes 2>/dev/null | rows |
	sums "$(sed -n 's/^Allocated: .* resident: \([0-9]*\),.*/\1/p' je/stats.txt)")"

# A live process: --pid reads its status and smaps.
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:12" LD_PRELOAD="$je" ./frag jw wait &
pids="$pids $!"
for i in $(seq 1 100); do [ -e jw/ready ] && break; sleep 0.1; done
out=$("$hpa" --stats jw/stats.txt --pid $! --show_bytes frag jw/prof.heap 2>&1)
check "--pid: rows sum to its RSS" "ok" "$(echo "$out" | rows | sums "$(echo "$out" | sed -n 's/^RSS .* = \([0-9]*\) B (VmRSS from status).*/\1/p')")"
check "--pid: smaps read (the program's mapping found)" "1" "$(echo "$out" | grep -c "^  the program's own anonymous mappings")"
kill $! 2>/dev/null

# tcmalloc: the rows are the MALLOC: lines.
m() { sed -n "s/^MALLOC: [+=]* *\([0-9]*\) .*$1.*/\1/p" tc/stats.txt; }
out=$("$hpa" --stats tc/stats.txt --status tc/status --smaps tc/smaps --show_bytes frag tc/prof.0001.heap 2>/dev/null)
r=$(echo "$out" | rows)
check "tc: rows sum to VmRSS" "ok" "$(echo "$r" | sums "$(kb VmRSS tc/status)")"
check "tc: page heap row" "$(m 'page heap freelist')" "$(echo "$r" | row "free pages in the page heap")"
check "tc: central and transfer row" "$(($(m 'central cache freelist') + $(m 'transfer cache freelist')))" \
	"$(echo "$r" | row "free objects in central and transfer caches")"
check "tc: thread caches row" "$(m 'thread cache freelists')" "$(echo "$r" | row "free objects in thread caches")"
check "tc: metadata row" "$(m 'malloc metadata')" "$(echo "$r" | row "metadata")"
check "tc: live row" "$(m 'in use by application')" "$(echo "$r" | row "held by live allocations")"
check "tc: not bounded" "0" "$(echo "$out" | grep -c '^Note:')"
# gperftools' heap profiler's records: a row of their own, 32 bytes per live object at least, and the most said.
objs=$(sed -n 's/^heap profile: *\([0-9]*\):.*/\1/p' tc/prof.0001.heap)
check "tc: the heap profiler's records, 32 bytes a live object or more" "ok" \
	"$(echo "$r" | row "the heap profiler's own records (gperftools)" | awk -v o="$objs" '{ print ($1 >= 32 * o && o > 0 ? "ok" : $1 " for " o) }')"
check "tc: the most the records can be" "1" "$(echo "$out" | grep -c '^      at most [0-9.]* MiB, if it still keeps the records of all [0-9]* allocations')"
# Its size classes: GetStats' free objects times their size, summing to the cache rows with the rest.
csv=$("$hpa" --stats tc/stats.txt --csv frag tc/prof.0001.heap 2>/dev/null)
check "tc: class 64 holds GetStats' free objects" \
	"$(($(sed -n 's/^class *[0-9]* \[ *64 bytes \] : *\([0-9]*\) objs.*/\1/p' tc/stats.txt) * 64))" \
	"$(echo "$csv" | awk -F, '$1 == "class" && $3 == "\"64\"" { print $5 }')"
check "tc: the classes sum to the free objects in caches" \
	"$(($(m 'central cache freelist') + $(m 'transfer cache freelist') + $(m 'thread cache freelists')))" \
	"$(echo "$csv" | awk -F, '$1 == "class" { s += $5 } END { printf "%.0f\n", s }')"
check "tc: the 64-byte site charged with its class" "1" \
	"$(echo "$csv" | grep -c '^site,,"small_object < make_small < main[^"]*",64,')"
check "tc status alone" "ok" "$("$hpa" --stats tc/stats.txt --status tc/status --show_bytes 2>/dev/null | rows | sums "$(kb VmRSS tc/status)")"

# Statistics of another process, or another setting.
sed 's/^Allocated: [0-9]*,/Allocated: 1000000,/' je/stats.txt > small.txt
check "another process: allocated below the profile" "1" \
	"$("$hpa" --stats small.txt --status je/status frag je/prof.heap 2>&1 >/dev/null | grep -c "^hpa: warning: small.txt: the profile holds .* more than the .* the allocator has live")"
sed 's/^  opt.lg_prof_sample: 12/  opt.lg_prof_sample: 19/' je/stats.txt > lg19.txt
check "another process: lg_prof_sample differs" "1" \
	"$("$hpa" --stats lg19.txt frag je/prof.heap 2>&1 >/dev/null | grep -c "^hpa: warning: lg19.txt: the profile samples every 4096 bytes, the statistics say lg_prof_sample 19")"
check "another allocator" "1" \
	"$("$hpa" --stats tc/stats.txt frag je/prof.heap 2>&1 >/dev/null | grep -c "tcmalloc statistics with a jemalloc heap profile")"
# Cut short: an error naming the file and line, exit 1, no output.
head -c 20000 je/stats.txt > cut.txt
"$hpa" --stats cut.txt frag je/prof.heap > cut.out 2> cut.err
check "cut text: exit 1" "1" "$?"
check "cut text: FILE:LINE" "1" "$(grep -c '^hpa: cut.txt:[0-9]*: jemalloc statistics cut short' cut.err)"
check "cut text: no output" "" "$(cat cut.out)"
head -c 50000 je/stats.json > cut.json
check "cut JSON" "1" "$("$hpa" --stats cut.json 2>&1 | grep -c '^hpa: cut.json:1: JSON statistics cut short')"
grep -v 'Virtual address space' tc/stats.txt > tccut.txt
check "cut tcmalloc" "1" "$("$hpa" --stats tccut.txt 2>&1 | grep -c "^hpa: tccut.txt:[0-9]*: tcmalloc statistics cut short: no 'MALLOC: ... Virtual address space used' line")"
finish
