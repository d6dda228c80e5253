#!/bin/sh
# Numbers that cannot lie: profiles with extreme sampling periods and
# counts (periods of 1, 2^32, 2^62 and 2^63 bytes; counts of 1 and
# 2^64 - 1; sizes of 1 byte and 2^64 - 1; a diff whose total is 0; folded
# values up to 2^63 - 1 and fractions), each through every output mode.
# No output or message ever says inf or nan, hpa exits 0 (or 1 with a
# message naming the file for what it refuses), and a --proto file reads
# back with the same Total as --text, and go tool pprof reads it with no
# value turned negative.
#
# usage: extremes.sh HPA
set -u
hpa=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 runs=0
cd "$tmp" || exit 1

n=0
for period in 1 4294967296 4611686018427387904 9223372036854775808; do
	for counts in "1: 1" "1: 18446744073709551615" "18446744073709551615: 1" \
		"18446744073709551615: 18446744073709551615" "3: 4096"; do
		n=$((n + 1))
		{
			echo "heap_v2/$period"
			echo "  t*: $counts [$counts]"
			echo "@ 0x400000 0x400100 0x400200"
			echo "  t*: $counts [$counts]"
			echo "  t0: $counts [$counts]"
			echo "@ 0x400300 0x400200"
			echo "  t*: 1: 1 [1: 1]"
		} > "je$n.heap"
		printf 'heap profile: %s [%s] @ heap_v2/%s\n%s [%s] @ 0x400000 0x400100\n' \
			"$counts" "$counts" "$period" "$counts" "$counts" > "tc$n.heap"
	done
done
printf 'main;serve 9223372036854775807\nmain;load 0.5\nmain;;x 1e3\nmain;y 9007199254740993\n' > big.collapse
printf 'main;serve 10 9223372036854775807\nmain;load 9223372036854775807 0\n' > bigdiff.collapse

bad_words() {   # nan, inf, -nan as words (not "info", "inline", "isNaN", "Infinity")
	grep -aEi '(^|[^a-z])-?(nan|inf)([^a-z]|$)' "$1" | head -3
}

run() {   # run WHAT ARGS...: hpa ARGS; 0 or 1 with a FILE:LINE message; no nan/inf
	what=$1
	shift
	runs=$((runs + 1))
	"$hpa" --no-symbols "$@" >out 2>err </dev/null
	rc=$?
	if [ "$rc" != 0 ] && { [ "$rc" != 1 ] || ! grep -q '^hpa: [^ ]*: ' err; }; then
		echo "FAIL: $what: exit $rc"; head -3 err; fail=$((fail + 1)); return
	fi
	for o in out err; do
		w=$(bad_words $o)
		[ -z "$w" ] || { echo "FAIL: $what: $o says: $w"; fail=$((fail + 1)); }
	done
}

modes="--text|--text --show_bytes|--text --alloc_objects|--text --cum|--collapse|--svg|--html|--peek .|--tree|--dot|--traces|--list .|--growth --csv|--threads"
for f in je*.heap tc*.heap big.collapse bigdiff.collapse; do
	old_ifs=$IFS IFS='|'
	for m in $modes; do
		IFS=$old_ifs
		case $m in
		--growth*) set -- $m "$f" "$f" ;;
		*) set -- $m "$f" ;;
		esac
		run "$m $f" "$@"
		IFS='|'
	done
	IFS=$old_ifs
	run "--base $f $f --text" --text --base "$f" "$f"
	run "--base $f $f --svg" --svg --base "$f" "$f"
	run "--base $f $f --html" --html --base "$f" "$f"
	# --proto: readable, and its totals are --text's
	if "$hpa" --no-symbols --proto "$f" >p.pb.gz 2>/dev/null; then
		for v in inuse_space alloc_objects; do
			a=$("$hpa" --no-symbols --text --show_bytes --$v "$f" 2>/dev/null | sed -n 1p)
			b=$("$hpa" --text --show_bytes --$v p.pb.gz 2>/dev/null | sed -n 1p)
			runs=$((runs + 1))
			# exact below 2^53; beyond it doubles count by twos, and sums may round
			same=$(echo "$a $b" | awk '{ x = $2; y = $5; d = x - y; if (d < 0) d = -d
				print (x == y || (x > 9007199254740992 && d <= x * 1e-12)) && $3 == $6 }')
			[ "$same" = 1 ] || { echo "FAIL: --proto $f --$v: '$a' read back as '$b'"; fail=$((fail + 1)); }
		done
		if command -v go >/dev/null; then
			runs=$((runs + 1))
			HOME=$tmp GOCACHE=$tmp/gocache GOTELEMETRY=off go tool pprof -raw p.pb.gz >raw 2>&1 ||
				{ echo "FAIL: go tool pprof cannot read --proto of $f"; head -3 raw; fail=$((fail + 1)); }
			grep -q -- '-[0-9]' raw && awk '/^Samples:/{s=1;next} /^Locations/{s=0} s' raw | grep -q -- ' -[0-9]' &&
				case $f in bigdiff*) ;; *) echo "FAIL: --proto of $f holds a negative value"; fail=$((fail + 1)) ;; esac
		fi
	fi
done
echo "$runs runs, $fail failures"
[ "$fail" = 0 ]
