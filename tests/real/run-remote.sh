#!/bin/sh
# Profiles from a server: tests/helper/fake-server on 127.0.0.1 serves real
# profiles at the brpc/gperftools, GreptimeDB and TiKV paths, answers
# /pprof/symbol, and has endpoints that fail, stall and return garbage.
# Then --watch against a series that grows, and against a local PID.
#
# usage: run-remote.sh HPA FAKE_SERVER TOPDIR WORKDIR
set -u
hpa=$1 server=$2 top=$3 work=$4
. "$(dirname "$0")/lib.sh"
fresh_dir "$work"
data=$top/testdata
pids=""
trap 'kill $pids 2>/dev/null; pkill -P $$ 2>/dev/null' EXIT

start() {   # start PORTFILE ROUTE...: a server in the background; sets port
	pf=$1
	"$server" "$@" >/dev/null 2>&1 &
	last_pid=$!
	pids="$pids $last_pid"
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -s "$pf" ] && break; sleep 0.2; done
	port=$(cat "$pf")
}
start port.txt /pprof/heap="$data/jemalloc/paths-lg0.heap" \
	/debug/prof/mem="$data/example/demo.heap" /debug/pprof/heap="$data/pprof/demo.pb.gz" \
	/tc/pprof/heap="$data/gperf/tcmalloc.heap"
url=http://127.0.0.1:$port
text() { timeout 30 "$hpa" --text --show_bytes "$@" 2>err.txt; }

check "brpc/gperftools GET /pprof/heap" "$(text --no-symbols "$data/jemalloc/paths-lg0.heap" | head -n 1)" \
	"$(text --no-symbols "$url/pprof/heap" | head -n 1)"
check "GreptimeDB POST /debug/prof/mem" "$(text --no-symbols "$data/example/demo.heap" | head -n 1)" \
	"$(text --no-symbols "$url/debug/prof/mem" | head -n 1)"
check "TiKV GET /debug/pprof/heap (a pprof body)" "Total: 25626804 B" \
	"$(text --sysroot nowhere "$url/debug/pprof/heap" | head -n 1)"
check "--endpoint greptime on the root URL" "$(text --no-symbols "$data/example/demo.heap" | head -n 1)" \
	"$(text --no-symbols --endpoint greptime "$url/" | head -n 1)"
check "a URL as --base" "Total: 0 B" "$(text --no-symbols --base "$url/pprof/heap" "$data/jemalloc/paths-lg0.heap" | head -n 1)"
# The program's own file is not here: names come from the server's /pprof/symbol.
out=$(text --sysroot nowhere "$url/tc/pprof/heap")
check "names from /pprof/symbol" "20000000 sym_55eeab62d174" "$(echo "$out" | sed -n 2p | awk '{ print $1, $6 }')"
check "no unnamed frame of the program left" "0" "$(echo "$out" | grep -c '(a)$')"

# Failures: clear errors, exit 1, bounded time.
start port2.txt
closed=$port
port=${url##*:}
kill "$last_pid"
sleep 0.3
check "connection refused" "exit=1 hpa: http://127.0.0.1:$closed/pprof/heap: cannot connect to 127.0.0.1:$closed: Connection refused" \
	"$(timeout 30 "$hpa" --text "http://127.0.0.1:$closed/pprof/heap" >/dev/null 2>err.txt; echo "exit=$? $(head -n 1 err.txt)")"
check "HTTP error" "exit=1 hpa: $url/fail: HTTP 500 Internal Server Error" \
	"$(timeout 30 "$hpa" --text "$url/fail" >/dev/null 2>err.txt; echo "exit=$? $(head -n 1 err.txt)")"
check "a stalled server" "exit=1 hpa: $url/stall: no complete answer within 1 s" \
	"$(timeout 30 "$hpa" --timeout 1 --text "$url/stall" >/dev/null 2>err.txt; echo "exit=$? $(head -n 1 err.txt)")"
check "a garbage body" "exit=1" "$(timeout 30 "$hpa" --text "$url/garbage" >/dev/null 2>err.txt; echo "exit=$?")"
check "a garbage body: says it is not a profile" "1" "$(grep -c "^hpa: $url/garbage: binary data; not a heap profile" err.txt)"
check "https" "exit=1 hpa: https://127.0.0.1/pprof/heap: https is not supported (hpa has no TLS); use http:// or a saved profile" \
	"$(timeout 30 "$hpa" --text https://127.0.0.1/pprof/heap >/dev/null 2>err.txt; echo "exit=$? $(head -n 1 err.txt)")"

# --watch: 1, 1, 6, 6, 16 MiB in use: saves at the first, third and fifth check.
mk() { printf 'heap_v2/1\n@ 0x1\n  t*: 1: %s [0: 0]\n' "$1" > "$2"; }
mk 1048576 g1.heap; mk 6291456 g3.heap; mk 16777216 g5.heap
start port3.txt GROW="$work/g1.heap,$work/g1.heap,$work/g3.heap,$work/g3.heap,$work/g5.heap"
timeout --preserve-status -s INT 5.5 "$hpa" --watch "http://127.0.0.1:$port/grow" --interval 1 --threshold 4MB --outdir saved > watch.txt 2>&1
check "--watch stops cleanly on Ctrl-C" "0" "$?"
check "--watch: one line per check, a summary" "stopped after" "$(tail -n 1 watch.txt | cut -d' ' -f1,2)"
check "--watch: saved when grown past the threshold" "3" "$(ls saved | wc -l | tr -d ' ')"
check "--watch: the saved profiles read back" "Total: 16777216 B" "$(text --no-symbols "saved/$(ls saved | tail -n 1)" | head -n 1)"
check "--watch: check lines" "3" "$(grep -c '; saved saved/heap-' watch.txt)"
sleep 30 >/dev/null 2>&1 &
sleeper=$!
pids="$pids $sleeper"
timeout --preserve-status -s INT 2.5 "$hpa" --watch "$url/pprof/heap" --pid "$sleeper" --interval 1 --threshold 1MB --outdir rss > rss.txt 2>&1
check "--watch --pid: decides on RSS, saves the first" "1" "$(ls rss | wc -l | tr -d ' ')"
check "--watch --pid: RSS lines" "1" "$(grep -c 'check 1: RSS ' rss.txt)"

finish
