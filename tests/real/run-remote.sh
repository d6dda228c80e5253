#!/bin/sh
# Profiles from a server: tests/helper/fake-server on 127.0.0.1 serves real
# profiles at the brpc/gperftools, GreptimeDB and TiKV paths, answers
# /pprof/symbol, and has endpoints that fail, stall and return garbage or
# hostile HTTP; it is also the proxy of the proxy test.  HTTPS: openssl
# s_server with a CA and certificates made here.  Then --watch against a
# series that grows, and against a local PID.  All on 127.0.0.1.
#
# usage: run-remote.sh HPA FAKE_SERVER TOPDIR WORKDIR
set -u
hpa=$1 server=$2 top=$3 work=$4
. "$(dirname "$0")/lib.sh"
fresh_dir "$work"
data=$top/testdata
pids=""
trap 'kill $pids 2>/dev/null; pkill -P $$ 2>/dev/null' EXIT
# No proxy from the environment for 127.0.0.1; the proxy test sets its own.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
export TMPDIR="$work"

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
	/tc/pprof/heap="$data/gperf/tcmalloc.heap" /broken/pprof/heap="$data/gperf/tcmalloc.heap" \
	/memory="$data/stats/tc-stats.txt" /je/memory="$data/stats/je-stats.json"
url=http://127.0.0.1:$port
text() { timeout 30 "$hpa" --text --show_bytes "$@" 2>err.txt; }

# --stats from brpc's /memory page (tcmalloc text, jemalloc JSON): as from the file.
for s in memory:tc-stats.txt je/memory:je-stats.json; do
	check "--stats $url/${s%%:*}" \
		"$("$hpa" --stats "$data/stats/${s#*:}" --status "$data/stats/je-status" 2>&1 | sed 1d)" \
		"$(timeout 30 "$hpa" --stats "$url/${s%%:*}" --status "$data/stats/je-status" 2>&1 | sed 1d)"
	check "--stats $url/${s%%:*}: the breakdown" "1" \
		"$(timeout 30 "$hpa" --stats "$url/${s%%:*}" --status "$data/stats/je-status" 2>/dev/null | grep -c '^held by live allocations ')"
done
check "brpc/gperftools GET /pprof/heap" "$(text --no-symbols "$data/jemalloc/paths-lg0.heap" | head -n 1)" \
	"$(text --no-symbols "$url/pprof/heap" | head -n 1)"
check "GreptimeDB POST /debug/prof/mem" "$(text --no-symbols "$data/example/demo.heap" | head -n 1)" \
	"$(text --no-symbols "$url/debug/prof/mem" | head -n 1)"
check "TiKV GET /debug/pprof/heap (a pprof body)" "Total: 25626804 B" \
	"$(text --sysroot nowhere "$url/debug/pprof/heap" | head -n 1)"
check "--list of a profile from a server: no source read, even from the current folder" "0 1" \
	"$(n=$(cd "$data/example" && timeout 30 "$hpa" --list main "$url/debug/pprof/heap" 2>"$work/err.txt" | grep -c 'char \*config = load_config'); echo "$n $(grep -c 'from a server: sources are read only under --source-path' "$work/err.txt")")"
check "--list of a profile from a server, with --source-path" "1" \
	"$(cd "$data/example" && timeout 30 "$hpa" --list main --source-path . "$url/debug/pprof/heap" 2>/dev/null | grep -c 'char \*config = load_config')"
check "--endpoint greptime on the root URL" "$(text --no-symbols "$data/example/demo.heap" | head -n 1)" \
	"$(text --no-symbols --endpoint greptime "$url/" | head -n 1)"
check "a URL as --base" "Total: 0 B" "$(text --no-symbols --base "$url/pprof/heap" "$data/jemalloc/paths-lg0.heap" | head -n 1)"
# The program's own file is not here: names come from the server's /pprof/symbol.
out=$(text --sysroot nowhere "$url/tc/pprof/heap")
check "names from /pprof/symbol" "20000000 sym_55eeab62d174" "$(echo "$out" | sed -n 2p | awk '{ print $1, $6 }')"
check "no unnamed frame of the program left" "0" "$(echo "$out" | grep -c ' a+0x[0-9a-f]*$')"
out=$(text --sysroot nowhere "$url/broken/pprof/heap"; echo "exit=$?")
check "a failed /pprof/symbol is a warning" "exit=0" "$(echo "$out" | tail -n 1)"
check "a failed /pprof/symbol: the warning" "hpa: warning: $url/broken/pprof/symbol: HTTP 500 Internal Server Error" \
	"$(head -n 1 err.txt)"
check "a failed /pprof/symbol: the report" "$(text --no-symbols "$data/gperf/tcmalloc.heap" | head -n 1)" \
	"$(echo "$out" | head -n 1)"

# Through libcurl: redirects, headers, proxies from the environment.
jtotal=$(text --no-symbols "$data/jemalloc/paths-lg0.heap" | head -n 1)
check "a redirect is followed" "$jtotal" "$(text --no-symbols "$url/redirect" | head -n 1)"
check "--header: a bearer token" "$jtotal" \
	"$(text --no-symbols --header 'Authorization: Bearer good-token' "$url/auth/pprof/heap" | head -n 1)"
check "--header: without the token" "exit=1 hpa: $url/auth/pprof/heap: HTTP 401 Unauthorized" \
	"$(text --no-symbols "$url/auth/pprof/heap" >/dev/null; echo "exit=$? $(cat err.txt)")"
check "--header: a wrong token is not echoed" "exit=1 hpa: $url/auth/pprof/heap: HTTP 401 Unauthorized" \
	"$(text --no-symbols --header 'Authorization: Bearer bad-token-77' "$url/auth/pprof/heap" >/dev/null; echo "exit=$? $(cat err.txt)")"
check "http_proxy from the environment" "$jtotal" \
	"$(http_proxy=$url text --no-symbols http://profiles.invalid/pprof/heap | head -n 1)"
check "no_proxy from the environment" "exit=1" \
	"$(http_proxy=$url no_proxy=profiles.invalid text --no-symbols http://profiles.invalid/pprof/heap >/dev/null; echo "exit=$?")"
secret="http://admin:pw-s3cret@127.0.0.1:$port/auth/pprof/heap?access_token=tok-s3cret&gc=1"
check "a password and a token in the URL are not shown" \
	"exit=1 hpa: http://admin:***@127.0.0.1:$port/auth/pprof/heap?access_token=***&gc=1: HTTP 401 Unauthorized" \
	"$(text --no-symbols "$secret" >/dev/null; echo "exit=$? $(cat err.txt)")"
check "URL values other than a profile endpoint's are not shown" \
	"exit=1 hpa: $url/auth/pprof/heap?jwt=***&code=***&access_code=***&bearer=***&seconds=30&debug=1: HTTP 401 Unauthorized" \
	"$(text --no-symbols "$url/auth/pprof/heap?jwt=j-s3cret&code=c-s3cret&access_code=a-s3cret&bearer=b-s3cret&seconds=30&debug=1" >/dev/null; echo "exit=$? $(cat err.txt)")"
mkdir fromurl
timeout 30 "$hpa" --svg --no-symbols --outdir fromurl "$url/pprof/heap?jwt=j-s3cret&code=c-s3cret" >/dev/null 2>&1
check "--outdir: file names from a URL keep its host and path, never its query" \
	"127.0.0.1:${url##*:}_pprof_heap.svg" "$(ls fromurl)"
check "--outdir: no secret in the graph" "0" "$(cat fromurl/* | grep -c 's3cret')"

# Redirects: --header values and URL credentials go only to the host and
# port the user named; from https only https is followed.
FAKE_LOG=$PWD/other.log start other.txt /pprof/heap="$data/jemalloc/paths-lg0.heap"
other=$port
port=${url##*:}
check "a redirect to another port: followed" "$jtotal" \
	"$(text --no-symbols --header 'X-Api-Key: k-s3cret' --header 'PRIVATE-TOKEN: p-s3cret' \
		"http://admin:pw-s3cret@127.0.0.1:$port/goto?http://127.0.0.1:$other/pprof/heap" | head -n 1)"
check "a redirect to another port: the request arrived there" "1" "$(grep -c '^GET /pprof/heap ' other.log)"
check "a redirect to another port: no --header value, no credential sent there" "0 0 0" \
	"$(grep -c 'X-Api-Key\|PRIVATE-TOKEN' other.log) $(grep -c '^Authorization' other.log) $(grep -c s3cret other.log)"
: > other.log
check "a redirect on the same host and port keeps --header" "$jtotal" \
	"$(text --no-symbols --header 'X-Api-Key: k-s3cret' "http://127.0.0.1:$other/goto?/pprof/heap" | head -n 1)"
check "a redirect on the same host and port: --header sent both times" "2" "$(grep -c '^X-Api-Key: k-s3cret' other.log)"
check "a dead proxy is named as the proxy" \
	"exit=1 hpa: http://profiles.invalid/pprof/heap: cannot connect to the proxy 127.0.0.1:1: Connection refused" \
	"$(http_proxy=http://127.0.0.1:1 text --no-symbols http://profiles.invalid/pprof/heap >/dev/null; echo "exit=$? $(cat err.txt)")"

# A hostile or broken server: one clear line, exit 1, no crash (ASan too).
hostile() {   # hostile PATH EXPECTED-MESSAGE
	timeout 60 "$hpa" --timeout 3 --no-symbols "$url/$1" >/dev/null 2>err.txt
	check "hostile /$1" "exit=$? lines=1 $2" "exit=1 lines=$(wc -l < err.txt | tr -d ' ') $(cat err.txt)"
}
hostile chunked-bad "hpa: $url/chunked-bad: the answer ended early (transfer closed with outstanding read data remaining)"
hostile short "hpa: $url/short: the answer ended early (transfer closed with 999990 bytes remaining to read)"
hostile huge-length "hpa: $url/huge-length: answer larger than 2048 MiB"
hostile stall-mid "hpa: $url/stall-mid: no complete answer within 3 s"
hostile loop "hpa: $url/loop: more than 5 redirects"
timeout 120 "$hpa" --no-symbols "$url/huge" >/dev/null 2>err.txt
check "hostile /huge (2 GiB + 1 MiB, no length)" "exit=1 hpa: $url/huge: answer larger than 2048 MiB" \
	"exit=$? $(cat err.txt)"
check "no temporary file left behind" "" "$(ls -d hpa-http-* 2>/dev/null)"

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

# HTTPS: a CA, server certificates (one for 127.0.0.1, one for another
# name), a client certificate, and a CA that signed none of them.
command -v openssl >/dev/null || missing "openssl (apt-get install openssl)"
mkdir tls www www/pprof
cp "$data/jemalloc/paths-lg0.heap" www/pprof/heap
mkca() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
		-subj "/CN=hpa test $1" -keyout "tls/$1.key" -out "tls/$1.pem" 2>>tls/log
}
mkcert() {   # mkcert NAME SUBJECT-ALT-NAMES (signed by tls/ca)
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
		-keyout "tls/$1.key" -out "tls/$1.csr" 2>>tls/log &&
	printf 'subjectAltName=%s\n' "$2" > "tls/$1.ext" &&
	openssl x509 -req -in "tls/$1.csr" -CA tls/ca.pem -CAkey tls/ca.key -CAcreateserial \
		-days 3650 -extfile "tls/$1.ext" -out "tls/$1.pem" 2>>tls/log
}
mkca ca && mkca otherca && mkcert server "IP:127.0.0.1,DNS:localhost" &&
	mkcert wrongname "DNS:wrong.example" && mkcert client "DNS:hpa-client" &&
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=stranger" \
		-keyout tls/stranger.key -out tls/stranger.csr 2>>tls/log &&
	openssl x509 -req -in tls/stranger.csr -CA tls/otherca.pem -CAkey tls/otherca.key \
		-CAcreateserial -days 3650 -out tls/stranger.pem 2>>tls/log ||
	{ cat tls/log; check "openssl made the certificates" 0 1; }
tls_server() {   # tls_server CERT [OPTIONS...]: openssl s_server serving www/; sets tport
	name=$1; shift
	(cd www && exec openssl s_server -accept 127.0.0.1:0 -cert "../tls/$name.pem" \
		-key "../tls/$name.key" -WWW -http_server_binmode "$@") > "tls/$name$#.out" 2>&1 &
	pids="$pids $!"
	tport=""
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		tport=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "tls/$name$#.out")
		[ -n "$tport" ] && break
		sleep 0.2
	done
}
tls_server server; plain=$tport
tls_server wrongname; wrong=$tport
tls_server otherca; selfsigned=$tport
tls_server server -Verify 1 -verifyCAfile ../tls/ca.pem -verify_return_error; mutual=$tport
tls() { timeout 30 "$hpa" --text --show_bytes --no-symbols "$@" 2>err.txt; }
tls_fail() { tls "$@" >/dev/null; echo "exit=$? $(cat err.txt)"; }   # exit status and message
check "https: the same Total as the file" "$jtotal" \
	"$(tls --cacert tls/ca.pem "https://127.0.0.1:$plain/pprof/heap" | head -n 1)"
check "https: by host name" "$jtotal" \
	"$(tls --cacert tls/ca.pem "https://localhost:$plain/pprof/heap" | head -n 1)"
check "https: pprof's -tls_ca" "$jtotal" \
	"$(tls -tls_ca tls/ca.pem "https://127.0.0.1:$plain/pprof/heap" | head -n 1)"
check "https: a CA the system does not know" \
	"exit=1 hpa: https://127.0.0.1:$plain/pprof/heap: TLS: the server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate); name its CA with --cacert FILE" \
	"$(tls_fail "https://127.0.0.1:$plain/pprof/heap")"
check "https: the wrong CA" \
	"exit=1 hpa: https://127.0.0.1:$plain/pprof/heap: TLS: the server's certificate is not trusted (SSL certificate problem: unable to get local issuer certificate)" \
	"$(tls_fail --cacert tls/otherca.pem "https://127.0.0.1:$plain/pprof/heap")"
check "https: a certificate for another host name" \
	"exit=1 hpa: https://127.0.0.1:$wrong/pprof/heap: TLS: the server's certificate is not for this host (SSL: no alternative certificate subject name matches target host name '127.0.0.1')" \
	"$(tls_fail --cacert tls/ca.pem "https://127.0.0.1:$wrong/pprof/heap")"
check "https: a self-signed certificate" \
	"exit=1 hpa: https://127.0.0.1:$selfsigned/pprof/heap: TLS: the server's certificate is not trusted (SSL certificate problem: self-signed certificate)" \
	"$(tls_fail --cacert tls/ca.pem "https://127.0.0.1:$selfsigned/pprof/heap")"
check "https: --insecure skips the check, and says so" "hpa: warning: --insecure: the server's certificate is not verified $jtotal" \
	"$(out=$(tls --insecure "https://127.0.0.1:$wrong/pprof/heap" | head -n 1); echo "$(cat err.txt) $out")"
check "mutual TLS: the client certificate" "$jtotal" \
	"$(tls --cacert tls/ca.pem --cert tls/client.pem --key tls/client.key "https://127.0.0.1:$mutual/pprof/heap" | head -n 1)"
check "mutual TLS: pprof's -tls_cert and -tls_key" "$jtotal" \
	"$(tls -tls_ca tls/ca.pem -tls_cert tls/client.pem -tls_key tls/client.key "https://127.0.0.1:$mutual/pprof/heap" | head -n 1)"
out=$(tls --cacert tls/ca.pem "https://127.0.0.1:$mutual/pprof/heap" >/dev/null; echo "exit=$? lines=$(wc -l < err.txt | tr -d ' ')")
check "mutual TLS: without a client certificate" "exit=1 lines=1" "$out"
check "mutual TLS: without a client certificate, says what to give" "1" \
	"$(grep -c "^hpa: https://127.0.0.1:$mutual/pprof/heap: TLS: the server wants a client certificate (.*certificate required.*); give it with --cert FILE --key FILE\$" err.txt)"
out=$(tls --cacert tls/ca.pem --cert tls/stranger.pem --key tls/stranger.key "https://127.0.0.1:$mutual/pprof/heap" >/dev/null; echo "exit=$? lines=$(wc -l < err.txt | tr -d ' ')")
check "mutual TLS: a client certificate the server does not trust" "exit=1 lines=1" "$out"
check "mutual TLS: a client certificate the server does not trust, says so" "1" \
	"$(grep -c "^hpa: https://127.0.0.1:$mutual/pprof/heap: TLS: the server refused the client certificate tls/stranger.pem (.*unknown ca.*)\$" err.txt)"
# An https server that redirects to http: not followed, nothing sent in clear text.
mkdir www2
printf 'HTTP/1.0 302 Found\r\nLocation: http://127.0.0.1:%s/pprof/heap\r\nContent-Length: 0\r\n\r\n' "$other" > www2/down
(cd www2 && exec openssl s_server -accept 127.0.0.1:0 -cert ../tls/server.pem -key ../tls/server.key -HTTP) > tls/down.out 2>&1 &
pids="$pids $!"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	down=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' tls/down.out)
	[ -n "$down" ] && break
	sleep 0.2
done
: > other.log
check "https redirected to http: refused" \
	"exit=1 hpa: https://127.0.0.1:$down/down: redirected from https:// to http://127.0.0.1:$other/pprof/heap; not followed: the request would go in clear text" \
	"$(tls_fail --cacert tls/ca.pem --header 'X-Api-Key: k-s3cret' "https://127.0.0.1:$down/down")"
check "https redirected to http: nothing sent there" "0" "$(grep -c . other.log)"
check "mutual TLS: a key that does not match" \
	"exit=1 hpa: https://127.0.0.1:$mutual/pprof/heap: TLS: cannot use the client certificate tls/server.pem (unable to set private key file: 'tls/client.key' type PEM)" \
	"$(tls_fail --cacert tls/ca.pem --cert tls/server.pem --key tls/client.key "https://127.0.0.1:$mutual/pprof/heap")"

# --watch: 1, 1, 6, 6, 16 MiB in use (16 again after): saves at the first, third and fifth check.
# Five checks take four intervals and five fetches: 7.5 s leaves room on a loaded machine.
mk() { printf 'heap_v2/1\n@ 0x1\n  t*: 1: %s [0: 0]\n' "$1" > "$2"; }
mk 1048576 g1.heap; mk 6291456 g3.heap; mk 16777216 g5.heap
start port3.txt GROW="$work/g1.heap,$work/g1.heap,$work/g3.heap,$work/g3.heap,$work/g5.heap"
timeout --foreground -k 20 --preserve-status -s INT 7.5 "$hpa" --watch "http://127.0.0.1:$port/grow" --interval 1 --threshold 4MB --outdir saved > watch.txt 2>&1
check "--watch stops cleanly on Ctrl-C" "0" "$?"
check "--watch: one line per check, a summary" "stopped after" "$(tail -n 1 watch.txt | cut -d' ' -f1,2)"
check "--watch: saved when grown past the threshold" "3" "$(ls saved | grep -vc '\.record$')"
check "--watch: a record beside each dump" "3" "$(ls saved | grep -c '\.heap\.record$')"
check "--watch: the record's in-use total" "in_use_bytes 16777216" \
	"$(grep in_use_bytes "saved/$(ls saved | grep '\.record$' | tail -n 1)")"
check "--watch: the saved profiles read back" "Total: 16777216 B" \
	"$(text --no-symbols "saved/$(ls saved | grep -v '\.record$' | tail -n 1)" | head -n 1)"
check "--watch: check lines" "3" "$(grep -c '; saved saved/heap-' watch.txt)"
check "--watch: sizes as people read them (--unit auto)" "1" \
	"$(grep -c 'check 5: in use 16.0MiB (+10.0MiB since the last saved); saved' watch.txt)"
# A password and a token in the URL: in no line printed, in no file name.
timeout --foreground -k 20 --preserve-status -s INT 2.5 "$hpa" --watch "http://admin:pw-s3cret@127.0.0.1:$port/grow?token=tok-s3cret" \
	--interval 1 --threshold 4MB --outdir secret > secret.txt 2>&1
check "--watch with secrets in the URL: saves" "1" "$(ls secret | grep -vc '\.record$')"
check "--watch with secrets in the URL: never shown or saved" "0" \
	"$( (cat secret.txt; ls secret; cat secret/*.record) | grep -c 's3cret')"
kill "$last_pid"
sleep 0.3
timeout --foreground -k 20 --preserve-status -s INT 2.5 "$hpa" --watch "http://admin:pw-s3cret@127.0.0.1:$port/grow?token=tok-s3cret" \
	--interval 1 --outdir secret > secret.txt 2>&1
check "--watch, server gone: says so" "true" "$([ "$(grep -c 'fetch failed' secret.txt)" -ge 1 ] && echo true)"
check "--watch, server gone: secrets never shown" "0" "$(grep -c 's3cret' secret.txt)"
check "--watch, server gone: the URL is shown redacted" "$(grep -c '^hpa: ' secret.txt)" \
	"$(grep -c "^hpa: http://admin:\*\*\*@127.0.0.1:$port/grow?token=\*\*\*: cannot connect" secret.txt)"
# Ctrl-C during a fetch from a stalled server ends it at once, not after --timeout.
timeout --foreground -k 5 --preserve-status -s INT 1.5 "$hpa" --watch "$url/stall" --timeout 60 --interval 1 \
	--outdir stalled > stalled.txt 2>&1
check "--watch: Ctrl-C during a stalled fetch" "0 stopped after 1 checks" "$? $(tail -n 1 stalled.txt)"
sleep 30 >/dev/null 2>&1 &
sleeper=$!
pids="$pids $sleeper"
timeout --foreground -k 20 --preserve-status -s INT 2.5 "$hpa" --watch "$url/pprof/heap" --pid "$sleeper" --interval 1 --threshold 1MB --outdir rss > rss.txt 2>&1
check "--watch --pid: decides on RSS, saves the first" "1" "$(ls rss | grep -vc '\.record$')"
check "--watch --pid: the record has the process and its RSS" "pid $sleeper rss_bytes" \
	"$(cat rss/*.record | awk '$1 == "pid" { p = $2 } $1 == "rss_bytes" && $2 > 0 { r = 1 } END { print "pid", p, r ? "rss_bytes" : "" }')"
check "--watch --pid: RSS lines" "1" "$(grep -c 'check 1: RSS ' rss.txt)"
# A watcher killed mid-save (SIGKILL) leaves only a hidden temporary file; the next run removes it.
mkdir -p restarted
printf 'heap_v2/524288\n@ 0x1\n' > restarted/.hpa-Ab12Cd
timeout --foreground -k 20 --preserve-status -s INT 1.5 "$hpa" --watch "$url/pprof/heap" --interval 5 --outdir restarted > restarted.txt 2>&1
check "--watch: an earlier run's partial save removed, the new dump saved" "heap-" \
	"$(ls -A restarted | grep -v '\.record$' | cut -c1-5 | tr -d '\n')"
check "--watch: the removal said" "1" "$(grep -c '^hpa: warning: restarted/.hpa-Ab12Cd: removed, a partial save of an earlier run' restarted.txt)"

finish
