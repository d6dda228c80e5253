#!/bin/sh
# Flame graphs on real dumps of sym/phases.c (two dumps and the final one,
# under libjemalloc at lg_prof_sample:0):
#  - xmllint accepts every SVG (including t-flame's hostile-name ones);
#  - geometry: the root spans the width and carries the Total, every frame
#    lies inside its parent, nothing is narrower than --minwidth;
#  - --outdir writes one graph per dump and one diff per adjacent pair;
#  - GreptimeDB's hand-off: --svg --collapse --outdir writes folded stacks
#    beside the graphs, and the folded files alone redraw the same boxes;
#  - in headless Chromium (when installed) the page's own script runs a
#    search and a zoom: the reported match share and the zoomed width are
#    checked, and a screenshot is saved.
#
# usage: run-svg.sh HPA SOURCEDIR UNITDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 src=$2 unit=$3 work=$4
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
command -v xmllint >/dev/null || missing "xmllint (apt-get install libxml2-utils)"

fresh_dir "$work"
$cc -O2 -g -fno-omit-frame-pointer -o phases "$src/phases.c" -ldl || exit 1
MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/ph" \
	LD_PRELOAD="$je" ./phases || { echo "FAIL: phases"; exit 1; }
d1=$(one "$work/ph.*.m0.heap") && d2=$(one "$work/ph.*.m1.heap") && d3=$(one "$work/ph.*.f.heap") || exit 1

svg() { "$hpa" --svg "$@" 2>/dev/null; }
svg phases "$d2" > one.svg
svg --base "$d1" phases "$d2" > diff.svg
svg --icicle --title 'A & B <c>' --subtitle "phases" phases "$d2" > icicle.svg
svg --minwidth 5 phases "$d2" > min5.svg
svg --minwidth 50% phases "$d2" > min50.svg
for f in one.svg diff.svg icicle.svg min5.svg min50.svg "$unit/flame-names.svg" "$unit/flame-empty.svg"; do
	check "xmllint $(basename "$f")" "ok" "$(xmllint --noout "$f" 2>&1 && echo ok)"
done

# Frames are written in depth-first order, one per line: each frame's
# parent is the last frame seen one level up.
geometry() {   # prints one line per violation
	awk -v minpx="${2:-0}" '
	/^<g data-x=/ {
		match($0, /data-x="[^"]*"/); x = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, /data-w="[^"]*"/); w = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, /data-d="[^"]*"/); d = substr($0, RSTART + 8, RLENGTH - 9) + 0
		match($0, / width="[^"]*"/); px = substr($0, RSTART + 8, RLENGTH - 9) + 0
		if (d == 0 && (x != 0 || w != 1)) print "root does not span the width"
		if (d > 0 && (x < X[d - 1] - 1e-7 || x + w > X[d - 1] + W[d - 1] + 1e-7)) print "outside its parent: " $0
		if (px < minpx - 0.005) print "narrower than " minpx ": " $0
		X[d] = x; W[d] = w; n++
	}
	END { if (!n) print "no frames" }' "$1"
}
check "geometry: one.svg" "" "$(geometry one.svg 0.1)"
check "geometry: diff.svg" "" "$(geometry diff.svg)"
check "geometry: icicle.svg" "" "$(geometry icicle.svg)"
check "geometry: --minwidth 5" "" "$(geometry min5.svg 5)"
check "geometry: --minwidth 50%" "" "$(geometry min50.svg 590)"
total=$("$hpa" --text --show_bytes phases "$d2" 2>/dev/null | awk 'NR == 1 { print $2 }')
check "root carries the Total" "1" "$(grep -c "data-d=\"0\"><title>all&#10;$total bytes" one.svg)"
check "root width is the inner width" "1" "$(grep -c 'data-d="0"><title>[^<]*</title><rect x="10.00" y="[0-9]*" width="1180.00"' one.svg)"
check "pruned frames are counted" "1" "$(grep -c '<text id="note".*[1-9][0-9]* narrower than the minimum width left out' min50.svg)"
check "title escaped" "1" "$(grep -c '<title>A &amp; B &lt;c&gt;</title>' icicle.svg)"
check "icicle: root on top" "yes" "$(awk '/data-d="0"/ { match($0, / y="[0-9]*"/); y0 = substr($0, RSTART + 4, RLENGTH - 5) + 0 }
	/data-d="1"/ && !y1 { match($0, / y="[0-9]*"/); y1 = substr($0, RSTART + 4, RLENGTH - 5) + 0 }
	END { print (y0 < y1 ? "yes" : "no") }' icicle.svg)"
check "diff: grew is red" "1" "$(grep -c '<title>grow_b&#10;0 → 327680 [^<]*(new)</title><rect [^>]*fill="rgb(250,' diff.svg)"
check "diff: shrank is blue and still drawn" "1" "$(grep 'title>temp_buf' diff.svg | grep -c 'fill="rgb([0-9]*,[0-9]*,250)')"
check "diff: legend" "1" "$(grep -c 'id="note"[^>]*>[^<]*legend: red grew, blue shrank' diff.svg)"
check "diff: the root coloured by its own change (grew)" "1" "$(grep -c '<title>all&#10;[^<]*</title><rect [^>]*fill="rgb(250,' diff.svg)"
check "objects: the unit once in a tooltip" "0" \
	"$("$hpa" --svg --inuse_objects phases "$d2" 2>/dev/null | grep -c 'objects (')"
check "deterministic" "$(md5sum < one.svg)" "$(svg phases "$d2" | md5sum)"

# --outdir: a flame graph per dump, a diff per adjacent pair.
"$hpa" --svg --outdir series phases "$d1" "$d2" "$d3" > wrote.txt 2>/dev/null
check "--outdir prints what it wrote" "series/$(basename "$d1").svg series/$(basename "$d2").svg series/$(basename "$d2").diff.svg series/$(basename "$d3").svg series/$(basename "$d3").diff.svg" \
	"$(tr '\n' ' ' < wrote.txt | sed 's/ $//')"
check "several dumps summed: said, with the ways to see them apart" "1" \
	"$("$hpa" --svg -o summed.svg phases "$d1" "$d2" 2>&1 | grep -c 'warning: 2 profiles summed into one flame graph; --growth .* --outdir')"
if command -v script >/dev/null; then
	script -qec "\"$hpa\" --svg phases \"$d1\"" /dev/null > tty.txt 2>&1
	check "--svg to a terminal refuses" "1" "$(grep -c 'refusing to write an SVG flame graph to a terminal' tty.txt)"
fi
check "--outdir titles name the dump" "1" \
	"$(grep -c "<title>Differential Flame Graph: $(basename "$d1") → $(basename "$d2") (phases), inuse_space [+-]" "series/$(basename "$d2").diff.svg")"
check "--outdir titles name the dump" "1" \
	"$(grep -c "<title>Flame Graph: $(basename "$d3") (phases), inuse_space " "series/$(basename "$d3").svg")"
check "--outdir files" "$(basename "$d1").svg $(basename "$d2").diff.svg $(basename "$d2").svg $(basename "$d3").diff.svg $(basename "$d3").svg" \
	"$(ls series | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
for f in series/*.svg; do
	check "xmllint $f" "ok" "$(xmllint --noout "$f" 2>&1 && echo ok)"
done
check "--outdir diff equals --base" "$(grep -c '<g data-x' diff.svg)" "$(grep -c '<g data-x' "series/$(basename "$d2").diff.svg")"

# GreptimeDB's hand-off: one command writes folded stacks and a graph per
# dump and per adjacent pair; the folded files alone redraw the same graphs.
boxes() { grep -o 'data-x="[^"]*" data-w="[^"]*" data-d="[^"]*"' "$1"; }
b1=$(basename "$d1") b2=$(basename "$d2") b3=$(basename "$d3")
"$hpa" --svg --collapse --outdir flow phases "$d1" "$d2" "$d3" > flow.txt 2>/dev/null
check "--svg --collapse --outdir: every file, in dump order" \
	"flow/$b1.svg flow/$b1.collapse flow/$b2.svg flow/$b2.collapse flow/$b2.diff.svg flow/$b2.diff.collapse flow/$b3.svg flow/$b3.collapse flow/$b3.diff.svg flow/$b3.diff.collapse" \
	"$(tr '\n' ' ' < flow.txt | sed 's/ $//')"
check "--outdir .collapse is --collapse of the dump" "$("$hpa" --collapse phases "$d2" 2>/dev/null | md5sum)" \
	"$(md5sum < "flow/$b2.collapse")"
check "--outdir .diff.collapse is --collapse --base" \
	"$("$hpa" --collapse --base "$d1" phases "$d2" 2>/dev/null | md5sum)" "$(md5sum < "flow/$b2.diff.collapse")"
for b in "$b1" "$b2" "$b3"; do
	"$hpa" --svg "flow/$b.collapse" > "redraw-$b.svg" 2>redraw.err
	check "a .collapse alone redraws $b.svg: same boxes" "$(boxes "flow/$b.svg" | md5sum)" \
		"$(boxes "redraw-$b.svg" | md5sum)"
	check "a .collapse needs no binary: no warning" "" "$(cat redraw.err)"
done
check "boxes were compared" "1" "$(test "$(boxes "redraw-$b3.svg" | wc -l)" -gt 10 && echo 1)"
"$hpa" --collapse --diff-columns --outdir flow2 phases "$d1" "$d2" > /dev/null 2>&1
check "--diff-columns in --outdir: before and after columns" "1" \
	"$(awk 'NF < 3 || $(NF) !~ /^-?[0-9]+$/ || $(NF - 1) !~ /^-?[0-9]+$/ { bad = 1 } END { print bad ? 0 : 1 }' "flow2/$b2.diff.collapse")"
"$hpa" --svg "flow2/$b2.diff.collapse" > redraw-diff.svg 2>/dev/null
check "a two-column .diff.collapse redraws the diff graph: same boxes" \
	"$(boxes "flow/$b2.diff.svg" | md5sum)" "$(boxes redraw-diff.svg | md5sum)"
check "it is differential" "1" "$(grep -c '<title>Differential Flame Graph' redraw-diff.svg)"
check "--svg --base of two .collapse files: same boxes as --base of the dumps" "$(boxes diff.svg | md5sum)" \
	"$("$hpa" --svg --base "flow/$b1.collapse" "flow/$b2.collapse" 2>/dev/null | boxes /dev/stdin | md5sum)"
check "folded stacks from standard input" "$(boxes "flow/$b2.svg" | md5sum)" \
	"$("$hpa" --svg - < "flow/$b2.collapse" 2>/dev/null | boxes /dev/stdin | md5sum)"
check "folded round trip: --collapse of --collapse" "$("$hpa" --collapse phases "$d2" 2>/dev/null | md5sum)" \
	"$("$hpa" --collapse phases "$d2" 2>/dev/null | "$hpa" --collapse - | md5sum)"
check "folded input: --text has the dump's rows" \
	"$("$hpa" --text --show_bytes phases "$d2" 2>/dev/null | head -n 6)" \
	"$("$hpa" --text --show_bytes "flow/$b2.collapse" 2>/dev/null | head -n 6)"
check "folded input: --traces" "1" "$("$hpa" --traces "flow/$b2.collapse" 2>/dev/null | grep -c '^Total: ')"
check "folded input: --html" "1" "$("$hpa" --html "flow/$b2.collapse" 2>/dev/null | grep -c '<script id="hpa-data"')"
# Names that would not sort in dump order get the dump's number first.
cp "$d1" 9.heap && cp "$d2" 10.heap
"$hpa" --collapse --outdir numbered phases 9.heap 10.heap > numbered.txt 2>/dev/null
check "--outdir names sort in dump order" "numbered/1-9.heap.collapse numbered/2-10.heap.collapse numbered/2-10.heap.diff.collapse" \
	"$(ls numbered/* | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"

# A real browser runs the page's own script.
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$chrome" ]; then
	zoom=$(grep '<g data-x' one.svg | grep -n '<title>grow_b&#10;' | head -n 1 | cut -d: -f1)
	zoom=$((zoom - 1))
	want=$("$hpa" --text --show_bytes phases "$d2" 2>/dev/null |
		awk 'NR == 1 { t = $2 } $6 ~ /^grow_/ { s += $1 } END { printf "%.1f", s * 100 / t }')
	flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking --disable-component-update --disable-sync --user-data-dir=$work/chrome"
	out=$($chrome $flags --dump-dom "file://$work/one.svg?search=grow_&zoom=$zoom" 2>/dev/null |
		sed -n 's/.*<text id="test-out"[^>]*>\([^<]*\)<.*/\1/p')
	check "browser: search share" "matched=$want" "$(echo "$out" | tr ';' '\n' | grep '^matched=')"
	check "browser: zoomed frame spans the width" "zoomed=grow_b x=10.0 width=1180.0" \
		"$(echo "$out" | tr ';' '\n' | grep -A2 '^zoomed=' | tr '\n' ' ' | sed 's/ $//')"
	# Geometry in the browser's own font: labels inside their frames, the longest
	# hover line on the canvas and clear of the footnote; the diff graph's legend.
	geo=$($chrome $flags --dump-dom "file://$work/one.svg?check" 2>/dev/null |
		sed -n 's/.*<text id="test-out"[^>]*>\([^<]*\)<.*/\1/p')
	check "browser: labels inside their frames, hover line clear" "overflow=0;hover_overlap=0;hover_inside=1;legend=0" "$geo"
	geo=$($chrome $flags --dump-dom "file://$work/diff.svg?check" 2>/dev/null |
		sed -n 's/.*<text id="test-out"[^>]*>\([^<]*\)<.*/\1/p')
	check "browser: diff graph, legend present" "overflow=0;hover_overlap=0;hover_inside=1;legend=1" "$geo"
	$chrome $flags --window-size=1200,300 --screenshot="$work/flame.png" "file://$work/one.svg?search=grow_" >/dev/null 2>&1
	check "browser: screenshot saved" "PNG" "$(head -c 4 "$work/flame.png" 2>/dev/null | tail -c 3)"
elif [ "${HPA_REQUIRE_PEERS:-}" = 1 ]; then
	echo "FAIL: chromium not installed"
	fail=$((fail + 1))
fi

finish
