#!/bin/sh
# Golden CLI tests.  Each case is cases/NAME.cmd: one line of arguments for
# hpa, run from the testdata directory.  Expected results are NAME.out
# (stdout), NAME.err (stderr) and NAME.exit (status); a missing .out/.err
# means "empty".  HPA_UPDATE=1 rewrites the expected files from actual output.
#
# usage: run-cases.sh HPA CASEDIR TESTDATA [NAME]   (NAME: that case alone)
set -u
hpa=$1 cases=$2 data=$3 only=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
export D="$tmp/d"
if [ -n "$only" ]; then set -- "$cases/$only.cmd"; else set -- "$cases"/*.cmd; fi
for cmd in "$@"; do
	[ -f "$cmd" ] || continue
	name=${cmd%.cmd}
	n=$((n + 1))
	args=$(cat "$cmd")
	rm -rf "$D"; mkdir "$D"
	( cd "$data" && eval "\"\$hpa\" $args" ) >"$tmp/out" 2>"$tmp/err" </dev/null
	echo $? >"$tmp/exit"
	if [ "${HPA_UPDATE:-}" = 1 ]; then
		cp "$tmp/out" "$name.out"; cp "$tmp/err" "$name.err"; cp "$tmp/exit" "$name.exit"
		[ -s "$name.out" ] || rm -f "$name.out"
		[ -s "$name.err" ] || rm -f "$name.err"
		continue
	fi
	for k in out err exit; do
		exp="$name.$k"
		[ -f "$exp" ] || exp=/dev/null
		if ! cmp -s "$exp" "$tmp/$k"; then
			echo "FAIL: $(basename "$name") ($k differs): hpa $args"
			diff -u "$exp" "$tmp/$k" | head -40
			fail=$((fail + 1))
		fi
	done
done
echo "$n cases, $fail mismatches"
[ "$n" -gt 0 ] || { echo "no case ${only:-at all} in $cases"; exit 1; }
[ "$fail" = 0 ]
