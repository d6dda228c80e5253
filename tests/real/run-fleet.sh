#!/bin/sh
# A fleet's profiles in ClickHouse: Debian's clickhouse-server started on
# 127.0.0.1 with a data folder of its own; dumps of sym/leaky.c under
# libjemalloc (lg_prof_sample:0: whole values) pushed under several host=
# and version= labels; then a query over them must be hpa's local merge of
# the same dumps (--text rows and Total, --collapse stacks), --base by label
# the local --base of the two groups, a second push changes nothing, a label
# with quotes and backslashes round-trips, --per-profile is the mean, several
# URLs are a series for --growth, every output works, and a server that is
# down, a wrong database, ClickHouse's error and a query that matches nothing
# each say so and exit non-zero.
#
# usage: run-fleet.sh HPA SOURCEDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 src=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

need_jemalloc
server=/usr/sbin/clickhouse-server
[ -x "$server" ] || missing "clickhouse-server (apt-get install clickhouse-server)"
command -v curl >/dev/null || missing "curl (apt-get install curl)"
fresh_dir "$work"
chpid=""
trap 'kill $chpid 2>/dev/null' EXIT

# The server: ports from this shell's pid, another pair if it does not come up.
start_server() {
	mkdir -p "$work/ch/data" "$work/ch/tmp" "$work/ch/user_files" "$work/ch/format_schemas"
	cat > "$work/ch/users.xml" <<EOF
<?xml version="1.0"?>
<yandex>
    <profiles><default></default></profiles>
    <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
    <quotas><default></default></quotas>
</yandex>
EOF
	cat > "$work/ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>$work/ch/server.log</log><errorlog>$work/ch/server.err.log</errorlog></logger>
    <http_port>$1</http_port>
    <tcp_port>$(($1 + 1))</tcp_port>
    <listen_host>127.0.0.1</listen_host>
    <path>$work/ch/data/</path>
    <tmp_path>$work/ch/tmp/</tmp_path>
    <user_files_path>$work/ch/user_files/</user_files_path>
    <format_schema_path>$work/ch/format_schemas/</format_schema_path>
    <users_config>$work/ch/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>1073741824</mark_cache_size>
</yandex>
EOF
	"$server" --config-file="$work/ch/config.xml" > "$work/ch/stdout" 2>&1 &
	chpid=$!
	for i in $(seq 1 60); do
		[ "$(curl -s "http://127.0.0.1:$1/ping" 2>/dev/null)" = "Ok." ] && return 0
		kill -0 "$chpid" 2>/dev/null || return 1
		sleep 0.5
	done
	kill "$chpid" 2>/dev/null
	return 1
}
port=""
for p in $((20000 + $$ % 20000)) $((21000 + $$ % 19000)) $((22000 + $$ % 18000)); do
	if start_server "$p"; then port=$p; break; fi
done
[ -n "$port" ] || { echo "FAIL: clickhouse-server did not start"; cat "$work/ch/stdout" "$work/ch/server.err.log" 2>/dev/null | tail -5; exit 1; }
sql() { curl -s "http://127.0.0.1:$port/" --data-binary "$1"; }
sql "CREATE DATABASE fleet"
ch="clickhouse+http://127.0.0.1:$port/fleet"

$cc -O2 -g -fno-omit-frame-pointer -o leaky "$src/leaky.c" -ldl || exit 1
MALLOC_CONF="prof:true,prof_final:false,lg_prof_sample:0,prof_prefix:$work/je" LD_PRELOAD="$je" ./leaky ||
	{ echo "FAIL: leaky under jemalloc"; exit 1; }
set -- $(ls je.*.heap | sort -t. -k3,3n)
[ $# = 5 ] || { echo "FAIL: leaky wrote $# dumps, not 5"; exit 1; }
d1=$1 d2=$2 d3=$3 d4=$4 d5=$5

# Push: two hosts on 1.1, one on 1.2.
"$hpa" --push "$ch" --label host=h1 --label version=1.1 leaky "$d1" "$d2" > push1.out 2>push1.err
check "push: exit 0" "0" "$?"
check "push: a line per profile" "2" "$(grep -c "^pushed je\.[0-9]*\.[0-9]\.m[0-9]\.heap: [0-9]* stacks as profile [0-9a-f]\{16\} into $ch$" push1.out)"
"$hpa" --push "$ch" --label host=h2 --label version=1.1 leaky "$d3" > /dev/null 2>&1
"$hpa" --push "$ch" --label host=h3 --label version=1.2 leaky "$d4" "$d5" > /dev/null 2>&1
check "push: 5 profiles in the table" "5" "$(sql 'SELECT uniqExact(profile_id) FROM fleet.hpa_samples')"
check "push: labels hpa knows, then the given ones" "['program','pid','producer','host','version']	['leaky','$(echo "$d1" | cut -d. -f2)','jemalloc','h1','1.1']" \
	"$(sql "SELECT label_keys, label_values FROM fleet.hpa_samples WHERE label_values[indexOf(label_keys, 'host')] = 'h1' LIMIT 1")"

# The query over all of them is the local merge of the same dumps.
local_text=$("$hpa" --text --show_bytes leaky "$d1" "$d2" "$d3" "$d4" "$d5" 2>/dev/null)
check "query: --text as the local merge, rows and Total" "$local_text" "$("$hpa" --text --show_bytes "$ch" 2>/dev/null)"
check "query: --collapse as the local merge" "$("$hpa" --collapse leaky "$d1" "$d2" "$d3" "$d4" "$d5" 2>/dev/null)" \
	"$("$hpa" --collapse "$ch" 2>/dev/null)"
check "query: a label selects (host h1 = its two dumps)" \
	"$("$hpa" --text --show_bytes leaky "$d1" "$d2" 2>/dev/null | head -n 1)" \
	"$("$hpa" --text --show_bytes "$ch?host=h1" 2>/dev/null | head -n 1)"
# --base by label: the local --base of the two groups (each group's merge as a folded file).
"$hpa" --collapse leaky "$d1" "$d2" "$d3" > v11.collapse 2>/dev/null
"$hpa" --collapse leaky "$d4" "$d5" > v12.collapse 2>/dev/null
check "query: --base by label is the local --base of the two groups" \
	"$("$hpa" --collapse --base v11.collapse v12.collapse 2>/dev/null)" \
	"$("$hpa" --collapse --base "$ch?version=1.1" "$ch?version=1.2" 2>/dev/null)"
# Pushed again: found, not inserted twice.
before=$("$hpa" --text --show_bytes "$ch" 2>/dev/null | head -n 1)
"$hpa" --push "$ch" --label host=h1 --label version=1.1 leaky "$d1" > again.out 2>again.err
check "push again: exit 0" "0" "$?"
check "push again: said" "1" "$(grep -c "^hpa: warning: $d1: already in $ch (profile [0-9a-f]*): not inserted again" again.err)"
check "push again: the totals do not change" "$before" "$("$hpa" --text --show_bytes "$ch" 2>/dev/null | head -n 1)"
# A label value with quotes and backslashes round-trips (percent-encoded in the URL).
"$hpa" --push "$ch" --label "note=it's a \\ \"test\"" leaky "$d5" > /dev/null 2>&1
check "a label with quotes and backslashes round-trips" "$("$hpa" --text --show_bytes leaky "$d5" 2>/dev/null | head -n 1)" \
	"$("$hpa" --text --show_bytes "$ch?note=it%27s%20a%20%5C%20%22test%22" 2>/dev/null | head -n 1)"
# --per-profile: the mean of the profiles matched.
sum=$("$hpa" --text --show_bytes leaky "$d4" "$d5" 2>/dev/null | awk 'NR == 1 { print $2 }')
check "--per-profile: the sum over the profiles matched" "Total: $((sum / 2)) B" \
	"$("$hpa" --text --show_bytes --per-profile "$ch?version=1.2" 2>/dev/null | head -n 1)"
# The time selects too (each dump's own time: its file's here).
check "until= a later time: every profile of the label" "$("$hpa" --text --show_bytes "$ch?host=h1" 2>/dev/null)" \
	"$("$hpa" --text --show_bytes "$ch?until=4102444800&host=h1" 2>/dev/null)"
check "since= a later time: nothing" "1" "$("$hpa" --text "$ch?since=2100-01-01%2000:00:00" 2>&1 | grep -c 'no profile in fleet.hpa_samples matches')"
# Several URLs are a series.
out=$("$hpa" --growth "$ch?host=h1" "$ch?host=h2" "$ch?host=h3" 2>/dev/null)
check "several URLs: a series for --growth" "1" "$(echo "$out" | grep -c '^Growth of inuse_space over 3 dumps')"
# Every output works on a query.
"$hpa" --svg "$ch" > q.svg 2>/dev/null
check "query: --svg" "ok" "$(xmllint --noout q.svg 2>&1 && echo ok)"
"$hpa" --html -o q.html "$ch" 2>/dev/null
check "query: --html" "1" "$(grep -c 'ClickHouse (hpa --push rows)' q.html)"
"$hpa" --proto -o q.pb.gz "$ch" 2>/dev/null
check "query: --proto read back: the query's Total and its leak_path row" \
	"$("$hpa" --text --show_bytes "$ch" 2>/dev/null | grep -e '^Total' -e ' leak_path$')" \
	"$("$hpa" --text --show_bytes q.pb.gz 2>/dev/null | grep -e '^Total' -e ' leak_path$')"
check "query: --peek" "1" "$("$hpa" --peek leak_path "$ch" 2>/dev/null | grep -c '| leak_path$')"

# What goes wrong says so, exit non-zero.
"$hpa" --text "clickhouse+http://hpa:s3cr3tpw@127.0.0.1:1/fleet" > down.out 2>down.err
check "server down: exit 1" "1" "$?"
check "server down: said" "1" "$(grep -c '^hpa: http://hpa:\*\*\*@127.0.0.1:1/: cannot connect' down.err)"
check "server down: the password never printed" "0" "$(cat down.err down.out | grep -c s3cr3tpw)"
"$hpa" --push "clickhouse+http://127.0.0.1:$port/nodb" leaky "$d1" > nodb.out 2>nodb.err
check "wrong database: exit 1" "1" "$?"
check "wrong database: ClickHouse's reason" "1" "$(grep -c "Database nodb doesn't exist" nodb.err)"
"$hpa" --text "$ch?where=no%20such%20column" > bad.out 2>bad.err
check "ClickHouse's error: exit 1" "1" "$?"
check "ClickHouse's error: its reason" "1" "$(grep -c 'HTTP 400.*Code: 62.*Syntax error' bad.err)"
"$hpa" --text "$ch?host=nobody" > none.out 2>none.err
check "nothing matched: exit 1" "1" "$?"
check "nothing matched: said" "1" "$(grep -c "^hpa: $ch?host=nobody: no profile in fleet.hpa_samples matches these parameters$" none.err)"
check "nothing matched: no output" "" "$(cat none.out)"
finish
