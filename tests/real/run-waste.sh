#!/bin/sh
# Fragmentation charged to code, against jemalloc's own answer:
# tests/real/stats/waste_truth.c (linked with Debian's libjemalloc) lays out
# known patterns, asks jemalloc for the slab of every pointer it keeps
# (experimental.utilization.batch_query) and writes the truth beside its
# heap profile and statistics; at lg_prof_sample 12 and 19, with the text
# and the JSON statistics, --stats --csv must give:
#  - per size class of the patterns: the empty bytes jemalloc's slabs hold,
#    exactly; the classes and the pad pages summing to the fragmentation row;
#  - the site alone in its class (scatter_long): charged all of it, exactly;
#    the two sites of one class (dense and sparse): charged the class between
#    them (each by its share of objects: the rule the man page says is wrong
#    here, and the bench measures);
#  - the large objects' pad pages within 5% of the truth at lg 12 (every
#    object sampled);
#  - held by live allocations less the profiler's own row within 5% of the
#    bytes the program holds.
# And the text has the class table, the ranking and its rule.
#
# usage: run-waste.sh HPA TOPDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 top=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
[ -e /usr/include/jemalloc/jemalloc.h ] || missing "jemalloc/jemalloc.h (apt-get install libjemalloc-dev)"
fresh_dir "$work"

$cc -O2 -g -fno-omit-frame-pointer -o waste_truth "$top/tests/real/stats/waste_truth.c" -ljemalloc ||
	{ echo "FAIL: build waste_truth"; exit 1; }

# csv_field FILE KIND NAME-PREFIX COLUMN: the column (1-based) of the first such row.
csv_field() {
	awk -F, -v k="$2" -v n="$3" -v c="$4" '$1 == k {
		name = $3; gsub(/^"|"$/, "", name)
		if (substr(name, 1, length(n)) == n) { print $c; exit } }' "$1"
}
truth() { awk -v k="$2" -v n="$3" '$1 == k && $2 == n { print $NF }' "$1"; }
within() {   # within PERCENT A B: "ok" when A is within PERCENT% of B
	awk -v p="$1" -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d
		print (b > 0 && d <= b * p / 100) ? "ok" : a " vs " b }'
}

for lg in 12 19; do
	mkdir "l$lg"
	MALLOC_CONF="prof:true,tcache:false,lg_prof_sample:$lg" ./waste_truth "l$lg" ||
		{ echo "FAIL: waste_truth at lg_prof_sample $lg"; exit 1; }
	t=l$lg/truth
	for s in stats.txt stats.json; do
		c=l$lg/$s.csv
		"$hpa" --stats "l$lg/$s" --csv waste_truth "l$lg/prof.heap" > "$c" 2>"l$lg/$s.err" ||
			{ echo "FAIL: hpa --stats --csv at lg $lg ($s)"; cat "l$lg/$s.err"; exit 1; }
		w="lg $lg, $s"
		check "$w: the CSV header" \
			"kind,level,name,size_class,bytes,allocator_bytes,regions,live_regions,utilization,objects,live_bytes,share,bytes_share,one_size,hint" \
			"$(head -n 1 "$c")"
		for size in 1536 2560 64; do
			check "$w: class $size's empty bytes are jemalloc's" "$(truth "$t" class "$size")" \
				"$(csv_field "$c" class "$size" 5)"
		done
		check "$w: the classes and the pad pages sum to the fragmentation row" \
			"$(csv_field "$c" rss "fragmentation: free space in used pages" 6)" \
			"$(awk -F, '$1 == "class" { s += $5 } END { printf "%.0f\n", s }' "$c")"
		check "$w: the site alone in its class is charged all of it" "$(truth "$t" site scatter_long)" \
			"$(csv_field "$c" site scatter_long 5)"
		check "$w: the site alone in its class: one size" "1" "$(csv_field "$c" site scatter_long 14)"
		check "$w: two sites of one class share it" "$(truth "$t" class 2560)" \
			"$(awk -F, '$1 == "site" && ($3 ~ /^"dense_obj/ || $3 ~ /^"sparse_obj/) { s += $5 }
				END { printf "%.0f\n", s }' "$c")"
		if [ "$lg" = 12 ]; then
			check "$w: the large objects' pad pages (within 5%)" "ok" \
				"$(within 5 "$(csv_field "$c" site large_obj 5)" "$(truth "$t" site large_obj)")"
		fi
		held=$(csv_field "$c" rss "held by live allocations" 6)
		prof=$(csv_field "$c" rss "the profiler's own" 6)
		check "$w: held by live allocations less the profiler's own is what the program holds (5%)" \
			"ok" "$(within 5 "$((held - prof))" "$(awk '$1 == "live" { print $2 }' "$t")")"
		check "$w: no warning but symbols'" "" "$(grep -v 'without symbols' "l$lg/$s.err")"
	done
done
# Without the profiler's row, lg 12's live bytes are far off: the row matters.
c=l12/stats.txt.csv
check "lg 12: the profiler's row is most of what jemalloc counts live" "ok" \
	"$(awk -F, '$1 == "rss" && $3 == "\"held by live allocations\"" { h = $6 }
		$1 == "rss" && $3 ~ /^"the profiler/ { p = $6 } END { print (p > h / 2) ? "ok" : p " of " h }' "$c")"

# The text: the class table with the pattern classes, and the ranking with its rule.
out=$("$hpa" --stats l12/stats.txt --show_bytes waste_truth l12/prof.heap 2>/dev/null)
check "text: the class table" "1" "$(echo "$out" | grep -c '^Empty space by size class (jemalloc bins, all arenas merged; sums to ')"
check "text: class 1536 names its one site" "1" \
	"$(echo "$out" | grep -c '^ *1536 .*  100\.0% scatter_long < make < main')"
check "text: the ranking's first is the scattered site" "1" \
	"$(echo "$out" | sed -n '/^Allocation sites charged with empty space:/{n;p;}' | grep -c '1536-byte class, 100\.0% of its objects: scatter_long')"
check "text: the rule is stated" "1" "$(echo "$out" | grep -c 'wrong where sites of one class fill slabs unevenly')"
check "text: the profiler's row" "1" "$(echo "$out" | grep -c "^  the profiler's own: sampled objects in large extents")"
# The flame graph of empty bytes: its total is the charged bytes.
"$hpa" --stats l12/stats.txt --svg waste_truth l12/prof.heap > waste.svg 2>/dev/null
check "svg: titled as empty bytes" "1" "$(grep -c '<title>Flame Graph: prof.heap (waste_truth), empty bytes charged to sites' waste.svg)"
check "svg: scatter_long's frame holds its charge" "1" \
	"$(grep -c "<title>scatter_long&#10;$(truth l12/truth site scatter_long) bytes" waste.svg)"
# The --html page's Memory tab in headless Chromium at 1280 px: every row of
# --stats --csv is on it with the same number, and nothing runs off the page.
need_chromium
"$hpa" --stats l12/stats.txt --show_bytes --html -o page.html waste_truth l12/prof.heap 2>/dev/null
"$hpa" --stats l12/stats.txt --show_bytes --csv waste_truth l12/prof.heap 2>/dev/null |
	awk 'function csv(line, f,   n, i, c, q, cur) {
		n = 0; cur = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 } else cur = cur c }
			else if (c == "\"") q = 1
			else if (c == ",") { f[++n] = cur; cur = "" }
			else cur = cur c
		}
		f[++n] = cur
		return n
	}
	NR > 1 && csv($0, f) && f[1] ~ /^(rss|total|class|site)$/ {
		t = f[5]; sub(/\..*/, "", t); print f[1] "\t" f[3] "\t" f[5] "\t" t }' | LC_ALL=C sort > csv.rows
chrome_run --window-size=1280,900 --dump-dom "file://$work/page.html?test=memory;overflow,memory" |
	sed -n '/<pre id="test-out">/,/<\/pre>/p' | sed 's/<pre id="test-out">//; s/<\/pre>.*//' |
	sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g' > page.out
grep -v '^overflow' page.out | LC_ALL=C sort > page.rows
check "html: the Memory tab has every row of --stats --csv, number for number" "" "$(diff csv.rows page.rows)"
check "html: as many rows as the CSV's (more than 20)" "ok" "$(awk 'END { print (NR > 20 ? "ok" : NR) }' page.rows)"
check "html: nothing runs off the page at 1280 px" "overflow	0" "$(grep '^overflow' page.out)"
finish
