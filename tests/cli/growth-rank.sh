#!/bin/sh
# --growth's tables rank only the rows they show (a heap picks the best of
# 10k+ series, src/group/growth.c): their names, in order, are the first
# rows of --csv, which ranks every series.  On two generated dumps of 11-12k
# stacks each (many of them tied) and their 7 allocating functions.
#
# usage: growth-rank.sh HPA
set -u
hpa=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
awk -v seed=1 -v n=12000 -f "$here/gen-tree.awk" >"$tmp/g1.heap" &&
	awk -v seed=2 -v n=11000 -f "$here/gen-tree.awk" >"$tmp/g2.heap" || exit 1
fail=0

# table_names KIND ARGS...: the names of the stack (or function) table, in order
table_names() {
	kind=$1
	shift
	"$hpa" --no-symbols --growth "$@" "$tmp/g1.heap" "$tmp/g2.heap" 2>/dev/null |
		awk -v kind="$kind" '/^Stacks / { t = "stack"; getline; next } /^Functions / { t = "function"; getline; next }
			/^$/ || /^\(/ { t = ""; next } t == kind { sub(/^.*%( +[^ ]+)+  /, ""); print }'
}

# csv_names KIND N ARGS...: the first N names of that kind in --csv
csv_names() {
	kind=$1 n=$2
	shift 2
	"$hpa" --no-symbols --growth --csv "$@" "$tmp/g1.heap" "$tmp/g2.heap" 2>/dev/null |
		awk -F'"' -v kind="$kind" -v n="$n" '$1 == kind "," && c < n { print $2; c++ }'
}

for kind in stack function; do
	for rows in 20 50; do
		table_names "$kind" --nodecount "$rows" >"$tmp/table"
		csv_names "$kind" "$rows" >"$tmp/csv"
		got=$(wc -l <"$tmp/table")
		if [ "$got" -eq 0 ] || ! cmp -s "$tmp/table" "$tmp/csv"; then
			echo "FAIL: $kind table of $rows rows ($got read) is not --csv's first rows"
			diff "$tmp/table" "$tmp/csv" | head -10
			fail=$((fail + 1))
		fi
	done
done
[ "$fail" = 0 ] && echo "tables agree with --csv"
[ "$fail" = 0 ]
