#!/bin/sh
# pprof protobuf, checked with the peers: hpa --proto on real dumps
# (alloc_paths under libjemalloc at lg_prof_sample:0 with prof_accum, and
# under libtcmalloc; sym/phases.c dumps for --base), then
#  - gzip -t and a strict protoc --decode accept the file;
#  - go tool pprof -raw gives hpa's four totals, -top the same top
#    functions with the same flat values, -traces the same stacks;
#  - --peek, --tree and --list give pprof -peek, -tree and -list's numbers;
#  - reading the file back gives hpa's text and collapsed output unchanged,
#    also as --base, and with a thread label;
#  - a dump with threads (alloc_threads under jemalloc) keeps them: thread
#    and thread_name labels whose values sum to hpa's Total, read back as
#    the same --threads table; the file's time is the dump's;
#  - a Function's file is its line's (sym/grammar.c's "#line" actions).
# Skipped (77) without go or protoc unless HPA_REQUIRE_PEERS=1.
#
# usage: run-pprof.sh HPA TOPDIR ALLOC_PATHS WORKDIR ALLOC_THREADS   (CC from the environment)
set -u
hpa=$1 top=$2 paths=$3 work=$4 threads=$5
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc
command -v go >/dev/null || missing "go (apt-get install golang-go)"
command -v protoc >/dev/null || missing "protoc (apt-get install protobuf-compiler)"

fresh_dir "$work"
export HOME="$work" GOFLAGS=-mod=mod GOTOOLCHAIN=local GOTELEMETRY=off
pprof() { go tool pprof "$@" 2>/dev/null; }

cp "$paths" ./alloc_paths
MALLOC_CONF="prof:true,prof_final:true,prof_accum:true,lg_prof_sample:0,prof_prefix:$work/je" \
	LD_PRELOAD="$je" ./alloc_paths || { echo "FAIL: alloc_paths under jemalloc"; exit 1; }
HEAPPROFILE="$work/tc" LD_PRELOAD="$tc" ./alloc_paths 2>/dev/null || { echo "FAIL: alloc_paths under tcmalloc"; exit 1; }
$cc -O2 -g -fno-omit-frame-pointer -o phases "$top/tests/real/sym/phases.c" -ldl || exit 1
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/ph" \
	LD_PRELOAD="$je" ./phases || { echo "FAIL: phases"; exit 1; }
$cc -O2 -g -fno-omit-frame-pointer -o grammar "$top/tests/real/sym/grammar.c" || exit 1
MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/gr" \
	LD_PRELOAD="$je" ./grammar || { echo "FAIL: grammar"; exit 1; }
jp=$(one "$work/je.*.f.heap") && tp=$(one "$work/tc.*.heap") &&
d1=$(one "$work/ph.*.m0.heap") && d2=$(one "$work/ph.*.m1.heap") || exit 1

text() { "$hpa" --text --show_bytes "$@" 2>/dev/null; }
column() {   # column N FILE.pb.gz: the sum of value column N of go tool pprof -raw
	pprof -raw "$2" | awk -v c="$1" '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && $1 ~ /^-?[0-9]+$/ { sub(":", "", $4); t += $c } END { printf "%.0f\n", t }'
}

# pprof -peek or hpa --peek as "N flat cum name" (a function) and "E value name" (a call) lines.
peek_rows() {
	awk -F'|' 'NF == 2 { n = split($1, v, " "); name = $2; sub(/^ +/, "", name); sub(/[ \t]+$/, "", name)
		for (i = 1; i <= n; i++) sub(/B$/, "", v[i])
		if (n == 2) print "E", v[1], name; else if (n == 5) print "N", v[1], v[4], name }'
}

for f in "$jp" "$tp"; do
	n=$(basename "$f")
	"$hpa" --proto -o "$n.pb.gz" alloc_paths "$f" 2>/dev/null || { echo "FAIL: hpa --proto $n"; fail=$((fail + 1)); continue; }
	check "$n gzip -t" "ok" "$(gzip -t "$n.pb.gz" && echo ok)"
	check "$n strict protoc --decode" "ok" \
		"$(zcat "$n.pb.gz" | protoc --decode=perftools.profiles.Profile --proto_path="$top/proto" profile.proto >/dev/null && echo ok)"
	c=1
	for v in alloc_objects alloc_space inuse_objects inuse_space; do
		check "$n $v: pprof -raw total equals hpa's" "$(text --"$v" alloc_paths "$f" | awk 'NR == 1 { print $2 }')" \
			"$(column $c "$n.pb.gz")"
		c=$((c + 1))
		unit=""
		case $v in *space) unit=-unit=B ;; esac
		check "$n $v: pprof -top equals hpa --text" \
			"$(text --"$v" alloc_paths "$f" | sed 1d | awk '$1 != 0 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; print $1, name }')" \
			"$(pprof -top -sample_index=$v $unit -nodefraction=0 -nodecount=1000 "$n.pb.gz" |
				sed '1,/flat%/d' | awk '$1 != "0" { f = $1; sub(/B$/, "", f); name = $6
					for (i = 7; i <= NF; i++) name = name " " $i; print f, name }')"
	done
	# Stacks through main with a nonzero value, as function names.
	check "$n pprof -traces equals hpa --traces" \
		"$("$hpa" --traces alloc_paths "$f" 2>/dev/null | awk '/^-----/ { if (s ~ /;main;/) print s; s = ""; h = 1; next }
			h { h = 0; next } NR > 1 { s = s ";" $1 } END { if (s ~ /;main;/) print s }' | LC_ALL=C sort)" \
		"$(pprof -traces -sample_index=inuse_space "$n.pb.gz" | awk '/^-----/ { if (s ~ /;main;/) print s; s = ""; t = 1; next }
			t && /^ *[0-9.]+[kMG]?B? / { s = $1 == "0" ? "zero" : ";" $2; next }
			t && NF >= 1 && s != "zero" { s = s ";" $1 } END { if (s ~ /;main;/) print s }' | LC_ALL=C sort)"
	check "$n function start line" "1" "$(pprof -raw "$n.pb.gz" | grep -c " alloc_here .*alloc_paths.c:[0-9]* s=$(grep -n 'static void \*alloc_here' "$top/tests/real/alloc_paths.c" | cut -d: -f1)$")"
	check "$n mapping with build-id" "1" "$(pprof -raw "$n.pb.gz" | sed -n '/^Mappings/,$p' | grep -c "alloc_paths.*$(readelf -n alloc_paths | awk '/Build ID/ { print $3 }')")"
	# --peek: the same callers, callees, flat and cum as go tool pprof -peek on the same file.
	for re in 'recurse|alloc_here' '^main$|churn' 'small_objects'; do
		check "$n --peek '$re' equals pprof -peek" \
			"$(pprof -peek "$re" -unit=B "$n.pb.gz" | peek_rows)" \
			"$("$hpa" --peek "$re" --show_bytes "$n.pb.gz" 2>/dev/null | peek_rows)"
	done
	# --list: the same lines with the same flat and cum as go tool pprof -list
	# (pprof orders functions by name, hpa by value: each routine is one line
	# here).  The sums are left out: pprof's are its lines' sums, which count
	# recursion twice; hpa's are --text's (checked in run-symbols.sh).
	for re in 'alloc_here|recurse' '^main$|churn|big_buffers' 'small_objects'; do
		check "$n --list '$re' equals pprof -list" \
			"$(pprof -list "$re" -unit=B "$n.pb.gz" | list_rows | grep -v '^[SN]' | awk '/^R/ && NR > 1 { print "" } { printf "%s|", $0 }' | LC_ALL=C sort)" \
			"$("$hpa" --list "$re" --show_bytes "$n.pb.gz" 2>/dev/null | list_rows | grep -v '^[SN]' | awk '/^R/ && NR > 1 { print "" } { printf "%s|", $0 }' | LC_ALL=C sort)"
	done
	# --tree: every function under main (pprof merges an inlined and a called
	# function of one name into one node, hpa keeps them apart as --text does).
	check "$n --tree equals pprof -tree" \
		"$(pprof -tree -unit=B -nodefraction=0 -edgefraction=0 -nodecount=1000 -focus='^main$' "$n.pb.gz" | peek_rows)" \
		"$("$hpa" --tree --show_bytes --focus '^main$' "$n.pb.gz" 2>/dev/null | peek_rows)"
	for mode in "--text --show_bytes" "--collapse" "--text --inuse_objects --lines" "--traces --alloc_space"; do
		check "$n round trip: $mode" "$("$hpa" $mode alloc_paths "$f" 2>/dev/null)" "$("$hpa" $mode "$n.pb.gz" 2>/dev/null)"
	done
done

# --base: negative values in the file, and a pprof file as the base.
"$hpa" --proto -o diff.pb.gz --base "$d1" phases "$d2" 2>/dev/null
check "diff: pprof -raw inuse_space" "819200" "$(column 4 diff.pb.gz)"
check "diff: negative values in the file (5 call sites of temp_buf)" "5" "$(pprof -raw diff.pb.gz | grep -c ' -32768:')"
check "diff read back" "Total: 819200 B" "$(text diff.pb.gz | head -n 1)"
"$hpa" --proto -o d1.pb.gz phases "$d1" 2>/dev/null
check "a pprof file as --base" "$(text --base "$d1" phases "$d2")" "$(text --base d1.pb.gz phases "$d2")"
# Every thread of a dump with threads, and the dump's time.
cp "$threads" ./alloc_threads
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/th" \
	LD_PRELOAD="$je" ./alloc_threads || { echo "FAIL: alloc_threads"; exit 1; }
th=$(one "$work/th.*.heap") || exit 1
"$hpa" --proto -o th.pb.gz alloc_threads "$th" 2>/dev/null
check "threads: thread labels" "3" "$(pprof -tags th.pb.gz | sed -n '/^ thread:/,/^$/p' | grep -c '): [0-9]')"
check "threads: thread_name labels" "2" "$(pprof -tags th.pb.gz | sed -n '/^ thread_name:/,/^$/p' | grep -c '): worker-')"
check "threads: pprof total equals hpa's" "$(text alloc_threads "$th" | awk 'NR == 1 { print $2 }')" "$(column 4 th.pb.gz)"
# Whole bytes per sample: a row may move by a byte (the Total does not).
check "threads: read back" "$("$hpa" --threads alloc_threads "$th" 2>/dev/null)" \
	"$("$hpa" --threads th.pb.gz 2>/dev/null)"
check "threads: text read back" "$(text alloc_threads "$th" | head -n 1)" "$(text th.pb.gz | head -n 1)"
check "time_nanos is the dump's mtime" "$(date -u -r "$th" '+%Y-%m-%d %H:%M:%S')" \
	"$(pprof -raw th.pb.gz | sed -n 's/^Time: \([0-9-]* [0-9:]*\).*/\1/p')"
check "time_nanos read back and kept" "$(pprof -raw th.pb.gz | sed -n 's/^Time: //p')" \
	"$("$hpa" --proto -o - th.pb.gz 2>/dev/null > th2.pb.gz; touch -d @0 th.pb.gz; "$hpa" --proto -o th3.pb.gz th.pb.gz 2>/dev/null; pprof -raw th3.pb.gz | sed -n 's/^Time: //p')"

# --thread: a thread label on every sample, read back as that thread.
"$hpa" --proto --thread 0 -o t0.pb.gz phases "$d2" 2>/dev/null
check "thread label" "1" "$(pprof -tags t0.pb.gz | grep -c 'thread')"
check "thread read back" "$(text --thread 0 phases "$d2" | head -n 1)" "$(text --thread 0 t0.pb.gz | head -n 1)"
check "self-contained: names without any file to read" "655360 655360" \
	"$(func_row inuse_space "" diff.pb.gz grow_a "--sysroot $work/nowhere")"

# A Function's file is its line's, from the line table, as --traces prints
# it: bison-style "#line" actions (sym/grammar.c) are grammar.y's lines, not
# grammar.c's; and no frame with a line number has no file.
gr=$(one "$work/gr.*.f.heap") || exit 1
"$hpa" --proto -o gr.pb.gz grammar "$gr" 2>/dev/null || { echo "FAIL: hpa --proto grammar"; fail=$((fail + 1)); }
pprof -raw gr.pb.gz > gr.raw
check "--proto: #line actions are grammar.y's, for go tool pprof" "grammar.y:12 grammar.y:20" \
	"$(awk '$4 == "reduce" { sub(".*/", "", $5); print $5 }' gr.raw | sort | tr '\n' ' ' | sed 's/ $//')"
check "--proto: --traces and go tool pprof agree on files" \
	"$("$hpa" --traces grammar "$gr" 2>/dev/null | awk '$1 == "reduce" { print $2 }' | sort)" \
	"$(awk '$4 == "reduce" { print $5 }' gr.raw | sort)"
check "--proto: every frame with a line has a file" "" \
	"$(awk '/^Locations/ { s = 1; next } /^Mappings/ { s = 0 } s && $0 ~ / :[1-9][0-9]* s=/' gr.raw)"
check "--proto read back: grammar.y lines" "2" \
	"$("$hpa" --text --lines gr.pb.gz 2>/dev/null | grep -c 'reduce .*grammar\.y:[12][02]$')"

finish
