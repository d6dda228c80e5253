#!/bin/sh
# Names by language, and Go's heap formats by Go's rules, on a real Go
# program (tests/real/go/heapgo.go), a Go program whose names share short
# names (tests/real/go/names) and a pprof file with JavaScript names:
#  - Go methods of two types keep their receivers ("main.(*treeNode).insert",
#    never "main..insert"), in the .pb.gz and in the legacy text form;
#  - the legacy text ("heap profile: ... @ heap/N") is unsampled as Go's
#    runtime and go tool pprof do (v2, R = N/2): four totals equal pprof's;
#  - it is symbolized from the Go binary's DWARF (no .debug_aranges);
#  - Node.js's "(anonymous)" and "(external)" stay names: --text sums to 100%.
# Skipped (77) without go or protoc unless HPA_REQUIRE_PEERS=1.
#
# usage: run-lang.sh HPA TOPDIR WORKDIR
set -u
hpa=$1 top=$2 work=$3
. "$(dirname "$0")/lib.sh"

command -v go >/dev/null || missing "go (apt-get install golang-go)"
command -v protoc >/dev/null || missing "protoc (apt-get install protobuf-compiler)"

fresh_dir "$work"
export HOME="$work" GOCACHE="$work/gocache" GOPATH="$work/gopath" GO111MODULE=off \
	GOTOOLCHAIN=local GOTELEMETRY=off
pprof() { go tool pprof "$@" 2>/dev/null; }

cp "$top/tests/real/go/heapgo.go" . &&
go build -o heapgo heapgo.go || { echo "FAIL: go build"; exit 1; }
./heapgo heap.pb.gz heap.txt || { echo "FAIL: heapgo"; exit 1; }
check "legacy header is heap/N" "heap/8192" "$(sed -n '1s/.*@ //p' heap.txt)"

names() {   # the function names of --text, one per line, sorted
	"$hpa" --text "$@" 2>/dev/null | awk 'NR > 1 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n }' | sort
}
for f in heap.pb.gz heap.txt; do
	bin=heapgo   # a bare name, as users type it
	n=$(names $bin $f)
	check "$f: (*treeNode).insert" 1 "$(printf '%s\n' "$n" | grep -c '^main\.(\*treeNode)\.insert')"
	check "$f: (*listNode).insert" 1 "$(printf '%s\n' "$n" | grep -c '^main\.(\*listNode)\.insert')"
	check "$f: no receiver dropped" 0 "$(printf '%s\n' "$n" | grep -c '\.\.')"
	check "$f: no empty name" 0 "$(printf '%s\n' "$n" | grep -c '^$')"
done

# Totals of the legacy text: go tool pprof's, exactly, for all four values.
# pprof reads the header's totals first: when the allocated ones equal the
# ones in use (a run whose dump saw nothing freed yet), it keeps two values,
# "objects" and "space", not four; the columns are found by their names.
column() {   # column NAME FILE: the sum of value NAME (inuse_space, ...) of go tool pprof -raw
	pprof -raw "$2" | awk -v want="$1" '
		/^Samples:/ { s = 1; getline; c = 0
			for (i = 1; i <= NF; i++) { n = $i; sub("/.*", "", n)
				if (n == want || (!c && n == substr(want, index(want, "_") + 1))) c = i }
			next }
		/^Locations/ { s = 0 }
		s && c && $1 ~ /^-?[0-9]+$/ { sub(":", "", $c); t += $c }
		END { if (c) printf "%.0f\n", t; else print "no column " want }'
}
total() { "$hpa" --text --show_bytes --"$1" ./heapgo heap.txt 2>/dev/null | sed -n '1s/Total: \([0-9-]*\).*/\1/p'; }
check "heap/N alloc_objects = pprof" "$(column alloc_objects heap.txt)" "$(total alloc_objects)"
check "heap/N alloc_space = pprof" "$(column alloc_space heap.txt)" "$(total alloc_space)"
check "heap/N inuse_objects = pprof" "$(column inuse_objects heap.txt)" "$(total inuse_objects)"
check "heap/N inuse_space = pprof" "$(column inuse_space heap.txt)" "$(total inuse_space)"
check "heap/N = the runtime's own .pb.gz" "$(column inuse_space heap.pb.gz)" "$(total inuse_space)"
# The same dump with only the records that freed nothing, its header
# totals made equal: pprof then keeps two values, and hpa's four totals
# still equal them (allocated = in use on every record).
awk 'NR == 1 { next }
	/^[0-9]+: [0-9]+ \[[0-9]+: [0-9]+\] @/ { v = $0; gsub(/[^0-9 ]/, " ", v); split(v, a, " ")
		keep = a[1] == a[3] && a[2] == a[4]; if (keep) { o += a[1]; b += a[2]; body = body $0 "\n" }; next }
	/^#\t/ { if (keep) body = body $0 "\n"; next }
	{ body = body $0 "\n" }
	END { printf "heap profile: %d: %d [%d: %d] @ heap/8192\n%s", o, b, o, b, body }' heap.txt > kept.txt
check "nothing freed: pprof keeps two values" "objects/count space/bytes" \
	"$(pprof -raw kept.txt | sed -n '/^Samples:/{n;p;q;}')"
for v in alloc_objects alloc_space inuse_objects inuse_space; do
	check "nothing freed: $v = pprof" "$(column $v kept.txt)" \
		"$("$hpa" --text --show_bytes --$v ./heapgo kept.txt 2>/dev/null | sed -n '1s/Total: \([0-9-]*\).*/\1/p')"
done
# jeprof's v1 rule would be ~12% low: make sure the test can tell.
v1=$(awk 'NR == 1 { gsub(/[^0-9 ]/, " "); print $2 }' heap.txt)
check "raw inuse bytes are below the estimate" 1 \
	"$(awk -v a="$v1" -v b="$(total inuse_space)" 'BEGIN { print (a < b) ? 1 : 0 }')"
# Symbolized from DWARF: file and line of the allocation.
check "heap/N lines from Go's DWARF" 1 \
	"$("$hpa" --text --lines ./heapgo heap.txt 2>/dev/null | grep -c 'main\.(\*treeNode)\.insert (inline) .*heapgo\.go:26$')"

# Go names that short names would merge, on a real Go heap profile
# (tests/real/go/names): a module at a major version keeps its package
# ("badger.(*DB).View", as go tool pprof shows it), and html/template's and
# text/template's "(*Template).Parse" stay two rows whose cum is pprof's.
mkdir -p "$GOPATH" && cp -R "$top/tests/real/go/names/src" "$GOPATH/" &&
(cd "$GOPATH/src/example.com/names" && go build -o "$work/names" .) &&
./names names.pb.gz || { echo "FAIL: go build/run names"; exit 1; }
n=$(names names.pb.gz)
check "names: major version dropped" 1 "$(printf '%s\n' "$n" | grep -c '^badger\.(\*DB)\.View$')"
check "names: no version as package" 0 "$(printf '%s\n' "$n" | grep -c '^v3\.')"
pprof_cum() {   # the cum bytes of go tool pprof's row named exactly $1
	pprof -top -unit=B -nodecount=100000 names.pb.gz | awk -v n="$1" '$6 == n { sub("B", "", $4); print $4 }'
}
for p in html text; do
	check "names: pprof has a $p/template.(*Template).Parse row" 1 \
		"$(pprof_cum "$p/template.(*Template).Parse" | grep -c '^[1-9][0-9]*$')"
	check "names: $p/template.(*Template).Parse row = pprof's cum" \
		"$(pprof_cum "$p/template.(*Template).Parse")" \
		"$(func_row inuse_space "" names.pb.gz "$p/template.(*Template).Parse" | cut -d' ' -f2)"
done

# A pprof file with Node.js names, written with protoc --encode.
cat > js.txtpb <<'PB'
sample_type { type: 1 unit: 2 }
sample { location_id: 1 location_id: 3 value: 750 }
sample { location_id: 2 location_id: 3 value: 200 }
sample { location_id: 4 value: 50 }
location { id: 1 line { function_id: 1 } }
location { id: 2 line { function_id: 2 } }
location { id: 3 line { function_id: 3 } }
location { id: 4 line { function_id: 4 } }
function { id: 1 name: 3 }
function { id: 2 name: 4 }
function { id: 3 name: 5 }
function { id: 4 name: 6 }
string_table: ""
string_table: "space"
string_table: "bytes"
string_table: "(anonymous)"
string_table: "(external)"
string_table: "Module._compile"
string_table: "processTicksAndRejections (node:internal/process/task_queues)"
PB
protoc --proto_path="$top/proto" --encode=perftools.profiles.Profile profile.proto < js.txtpb | gzip > js.pb.gz ||
	{ echo "FAIL: protoc --encode"; exit 1; }
out=$("$hpa" --text --show_bytes js.pb.gz 2>/dev/null)
check "js: Total" "Total: 1000 B" "$(printf '%s\n' "$out" | sed -n 1p)"
check "js: (anonymous) row" "750 75.0% 75.0%" "$(printf '%s\n' "$out" | awk '$6 == "(anonymous)" { print $1, $2, $3 }')"
check "js: (external) row" "200 20.0% 95.0%" "$(printf '%s\n' "$out" | awk '$6 == "(external)" { print $1, $2, $3 }')"
check "js: sum% reaches 100%" "100.0%" "$(printf '%s\n' "$out" | awk 'NR > 1 && $1 > 0 { s = $3 } END { print s }')"
check "js: a name with parentheses kept whole" 1 \
	"$(printf '%s\n' "$out" | grep -c ' processTicksAndRejections (node:internal/process/task_queues)$')"
check "js: folded names" "Module._compile;(anonymous) 750" \
	"$("$hpa" --collapse js.pb.gz 2>/dev/null | grep anonymous)"

# --dot escapes what DOT needs escaped: GraphViz accepts names with quotes,
# backslashes, braces and angle brackets.
cat > weird.txtpb <<'PB'
sample_type { type: 1 unit: 2 }
sample { location_id: 1 location_id: 2 value: 700 }
sample { location_id: 3 location_id: 2 value: 300 }
location { id: 1 line { function_id: 1 } }
location { id: 2 line { function_id: 2 } }
location { id: 3 line { function_id: 3 } }
function { id: 1 name: 3 }
function { id: 2 name: 4 }
function { id: 3 name: 5 }
string_table: ""
string_table: "space"
string_table: "bytes"
string_table: "say \"hi\" \\n {x} <T>"
string_table: "main::{lambda#1}::operator()"
string_table: "trailing backslash \\"
PB
protoc --proto_path="$top/proto" --encode=perftools.profiles.Profile profile.proto < weird.txtpb | gzip > weird.pb.gz ||
	{ echo "FAIL: protoc --encode weird names"; exit 1; }
if command -v dot >/dev/null; then
	"$hpa" --dot weird.pb.gz 2>/dev/null > weird.dot
	check "dot -Tsvg accepts quotes, backslashes, braces and <> in names" "ok" \
		"$(dot -Tsvg weird.dot >/dev/null 2>&1 && echo ok)"
	check "--dot keeps every node" "3" "$(grep -c '^N[0-9]* \[label=' weird.dot)"
	"$hpa" --dot js.pb.gz 2>/dev/null > js.dot
	check "dot -Tsvg accepts JS names" "ok" "$(dot -Tsvg js.dot >/dev/null 2>&1 && echo ok)"
else
	missing "dot (apt-get install graphviz)"
fi

finish
