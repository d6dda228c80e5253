#!/bin/sh
# Run one libFuzzer target for a bounded time from a copy of its seeds.
# usage: run-fuzzer.sh TARGET TOPDIR WORKDIR SECONDS SEED...
set -u
target=$1 top=$2 work=$3 secs=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus" "$work/seeds" || exit 1
for s in "$@"; do
	if [ -d "$top/$s" ]; then cp "$top/$s"/* "$work/seeds/" 2>/dev/null; else cp "$top/$s" "$work/seeds/"; fi
done
# The pprof files the tests make are good seeds too, when there are any.
cd "$work" || exit 1
# -max_len covers the largest seed: libFuzzer cuts longer seeds, and a cut
# JSON or ELF file never reaches the code past its first 64 KiB.
max=65536
for f in seeds/*; do
	[ -f "$f" ] || continue
	n=$(wc -c < "$f")
	[ "$n" -gt "$max" ] && max=$n
done
echo "max_len $max"
"$target" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$max" \
	-print_final_stats=1 -artifact_prefix="$work/" corpus seeds > log.txt 2>&1
rc=$?
grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' log.txt
if [ $rc != 0 ]; then
	grep -E 'ERROR|SUMMARY|==[0-9]+==' log.txt | head -n 20
	ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null
	echo "FAIL: $(basename "$target") exit $rc"
	exit 1
fi
echo "$(basename "$target"): no crash, leak or timeout in $secs s"
