#!/bin/sh
# Hostile inputs: each gets a clear error (exit 1), or a warning and a
# correct partial answer (exit 0), within a time limit; never a crash or a
# hang.  Memory is checked against the documented bound (hpa(1), LIMITS)
# when GNU time exists and the build is not instrumented.
#
# usage: run-hostile.sh HPA TOPDIR WORKDIR   (CC from the environment)
set -u
hpa=$1 top=$2 work=$3
cc=${CC:-cc}
. "$(dirname "$0")/lib.sh"

fresh_dir "$work"
data=$top/testdata

run() {   # run EXPECTED_EXIT ARGS...: prints "exit=N" and the first stderr line
	timeout 60 "$hpa" "$@" >out.txt 2>err.txt
	echo "exit=$? $(head -n 1 err.txt)"
}
rss_ok() {   # rss_ok MAX_MB ARGS...: peak RSS within MAX_MB (or no measurement)
	max=$1
	shift
	if [ -x /usr/bin/time ] && [ -z "${ASAN_OPTIONS:-}" ]; then
		/usr/bin/time -f '%M' -o rss.txt timeout 60 "$hpa" "$@" >/dev/null 2>&1
		kb=$(tail -n 1 rss.txt)
		[ "$kb" -le $((max * 1024)) ] && echo ok || echo "peak RSS $kb KiB > $max MiB"
	else
		echo ok
	fi
}

# Numbers past 64 bits, NUL bytes, truncation: see the bad-* golden cases.
check "overflowing count" "exit=1 hpa: $data/bad/overflow.heap:3: number 99999999999999999999 does not fit in 64 bits" \
	"$(run --no-symbols "$data/bad/overflow.heap")"

# A stack of 100,000 frames.
awk 'BEGIN { printf "heap_v2/1\n@"; for (i = 1; i <= 100000; i++) printf " 0x%x", 4096 + i * 16; printf "\n  t*: 2: 128 [0: 0]\n" }' > deep.heap
check "100k-frame stack" "exit=0 hpa: warning: deep.heap: no MAPPED_LIBRARIES section; addresses cannot be attributed to modules" \
	"$(run --text --show_bytes deep.heap)"
check "100k-frame stack: Total and every frame" "Total: 128 B 100001" "$(head -n 1 out.txt) $(wc -l < out.txt | tr -d ' ')"
check "100k-frame stack: one folded line" "1" "$("$hpa" --collapse deep.heap 2>/dev/null | wc -l | tr -d ' ')"

# A stack of 400,000 distinct functions: every view stays O(frames log
# frames) (--peek . was quadratic: 47 s for 200k frames, ~190 s for these).
awk 'BEGIN { for (i = 0; i < 400000; i++) printf "%sf%d", i ? ";" : "", i; printf " 100\n" }' > deep.collapse
for m in "--peek ." --tree --text --dot --svg --html "--list f1" --proto --traces --collapse; do
	check "400k distinct frames: $m" "exit=0" "$(run $m deep.collapse | cut -d' ' -f1)"
done
check "400k distinct frames: --peek . has a section per function" "400000" "$("$hpa" --peek . --show_bytes deep.collapse 2>/dev/null | grep -c '^ *[0-9]* *[0-9.]*% *[0-9.]*% *100 100.0% *| f[0-9]*$')"

# Terminal escapes in a profile's names and maps paths (ESC ]0; retitles a
# terminal, ESC [2J clears it): every output and message shows them as \xNN,
# and no byte below 0x20 but tab and newline comes out.
sed -e 's|DB::Cache::put(std::string const&)|DB::\x1b]0;pwned\x07put|' \
	-e 's|/opt/srv/bin/server|/opt/srv/bin/ser\x1b[2Jver|' "$data/jemalloc/symbolized.heap" > esc.heap
check "escapes: shown as text" "DB::\\x1b]0;pwned\\x07put" \
	"$("$hpa" --text esc.heap 2>/dev/null | awk '$6 ~ /pwned/ { print $6 }')"
"$hpa" --proto -o esc.pb.gz esc.heap 2>/dev/null
for m in --text --traces --tree "--peek ." --collapse --svg --html --dot "--list ." --growth --threads; do
	check "escapes: no control byte from $m or its messages" "0" \
		"$("$hpa" $m esc.heap esc.heap 2>&1 | tr -d '\t\n' | LC_ALL=C grep -c '[[:cntrl:]]')"
done
check "escapes: none in --proto's strings" "0" \
	"$("$hpa" --text --traces esc.pb.gz 2>&1 | tr -d '\t\n' | LC_ALL=C grep -c '[[:cntrl:]]')"

# Memory follows the distinct stacks: the same 50,000 stacks written ten
# times (a concatenation, or a hostile file) take what they take once, and
# give ten times the totals.
for k in 1 10; do
	awk -v k=$k 'BEGIN { print "heap_v2/0"; for (r = 0; r < k; r++) { srand(3);
		for (i = 0; i < 50000; i++) { printf "@"; for (d = 0; d < 12; d++) printf " 0x%x", 4194304 + int(rand() * 50000) * 16
			printf "\n  t*: 1: 1024 [1: 1024]\n" } } }' > same-stacks-$k.heap
done
check "the same stacks ten times: ten times the total" "$(( $("$hpa" --no-symbols --text --show_bytes same-stacks-1.heap 2>/dev/null | awk 'NR == 1 { print $2 }') * 10 ))" \
	"$("$hpa" --no-symbols --text --show_bytes same-stacks-10.heap 2>/dev/null | awk 'NR == 1 { print $2 }')"
if [ -x /usr/bin/time ] && [ -z "${ASAN_OPTIONS:-}" ]; then
	/usr/bin/time -f '%M' -o rss1.txt "$hpa" --no-symbols --text same-stacks-1.heap >/dev/null 2>&1
	/usr/bin/time -f '%M' -o rss10.txt "$hpa" --no-symbols --text same-stacks-10.heap >/dev/null 2>&1
	check "the same stacks ten times: the memory of once (+25%)" "ok" \
		"$(awk -v a="$(tail -n 1 rss1.txt)" -v b="$(tail -n 1 rss10.txt)" 'BEGIN { print b <= a * 1.25 ? "ok" : "once " a " KiB, ten times " b " KiB" }')"
fi

# A 100 MB line: refused at 64 MiB, in bounded memory.
{ printf 'heap_v2/1\n@ 0x'; head -c 100000000 /dev/zero | tr '\0' '1'; printf '\n'; } > longline.heap
check "100 MB line" "exit=1 hpa: longline.heap:2: line longer than 64 MiB; not a heap profile" "$(run longline.heap)"
check "100 MB line: memory" "ok" "$(rss_ok 256 longline.heap)"

# A pprof bomb: 130 KB of gzip, 128 MiB of empty repeated samples that
# protobuf-c would unpack into 7 GiB.  Refused before decoding, within a
# 512 MiB address space (not under ASan, whose shadow memory needs more).
bomb() {   # bomb FIRST PAIR OUT: FIRST then 2^26 copies of the 2-byte PAIR, gzipped
	printf "$2" > pair && for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26; do
		cat pair pair > pair2 && mv pair2 pair; done
	{ printf "$1"; cat pair; } | gzip -c > "$3"
	rm -f pair
}
bomb '\062\000' '\022\000' bomb.pb.gz
bomb '' '\032\000' strings.pb.gz   # empty strings: 41 bytes each
limited() { if [ -z "${ASAN_OPTIONS:-}" ]; then (ulimit -v 524288 && "$@"); else "$@"; fi; }
check "pprof bomb of empty samples: refused before decoding, in 512 MiB" \
	"exit=1 hpa: bomb.pb.gz: pprof profile of 134217730 bytes would take 7168 MiB to decode, more than 16 times its size: refused (a profile of empty elements?)" \
	"$(limited timeout 60 "$hpa" --text bomb.pb.gz >/dev/null 2>err.txt; echo "exit=$? $(head -n 1 err.txt)")"
check "pprof bomb of empty strings: refused" "exit=1 1" \
	"$(limited timeout 60 "$hpa" --text strings.pb.gz >/dev/null 2>err.txt; echo "exit=$? $(grep -c 'would take 8192 MiB to decode' err.txt)")"
check "pprof bomb: memory" "ok" "$(rss_ok 256 bomb.pb.gz)"

# Binary garbage, /dev/zero, a directory, a FIFO, a symlink loop.
awk 'BEGIN { for (i = 0; i < 4096; i++) printf "%c", (i * 7919 + 13) % 256 }' > garbage.bin
check "binary garbage" "exit=1" "$(run garbage.bin | cut -d' ' -f1)"
check "binary garbage: a message naming the file" "1" "$(grep -c '^hpa: garbage.bin: ' err.txt)"
check "/dev/zero" "exit=1 hpa: /dev/zero: binary data; not a heap profile (expected text starting heap_v2/<period> or heap profile:, or pprof protobuf)" \
	"$(run /dev/zero)"
check "a directory" "exit=1 hpa: $data/bad: is a directory, not a profile" "$(run "$data/bad")"
mkfifo fifo
( cat "$data/gperf/tcmalloc.heap" > fifo & )
check "a FIFO streams" "exit=0" "$(run --no-symbols --show_bytes fifo | cut -d' ' -f1)"
check "a FIFO: the profile's Total" "Total: 24096000 B" "$(head -n 1 out.txt)"
ln -s loop1 loop2 && ln -s loop2 loop1
check "a symlink loop" "exit=1 hpa: loop1: Too many levels of symbolic links" "$(run loop1)"

# Corrupt ELF files: as BINARY, and as mapped libraries (under --sysroot).
head -c 3000 "$data/example/demo" > truncated-demo
check "truncated ELF as BINARY: warning, partial answer" \
	"exit=0 hpa: warning: demo: 9 addresses without symbols (99.7% of inuse_space flat, 99.7% cum): truncated-demo is truncated: 3000 bytes, its load segments need 5109" \
	"$(run --sysroot nowhere --show_bytes truncated-demo "$data/example/demo.heap")"
mkdir -p root/usr/lib/x86_64-linux-gnu
head -c 100000 /usr/lib/x86_64-linux-gnu/libc.so.6 > root/usr/lib/x86_64-linux-gnu/libc.so.6
printf 'not an ELF file at all\n' > root/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
mkfifo root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
check "corrupt mapped libraries: main program still named" "0 1048576" \
	"$(timeout 60 "$hpa" --text --show_bytes --sysroot root "$data/example/demo" "$data/example/demo.heap" 2>err.txt | awk '$6 == "main" { print $1 - 1048576, $1 }')"
check "corrupt mapped libraries: a warning each" "3" \
	"$(grep -c -e 'libc.so.6: .*truncated\|libc.so.6: .*not the' -e 'libstdc++.so.6.0.30: .*is not an ELF file' -e 'ld-linux-x86-64.so.2: .*is not a regular file' err.txt)"

# DWARF whose line table is garbage: names still come, lines where possible.
cat > prog.c <<'PROG'
#include <stdlib.h>
void *keep[100];
__attribute__((noinline)) void *grab(int i) { void *p = malloc(4096); keep[i] = p; return p; }
int main(void) { for (int i = 0; i < 100; i++) grab(i); return keep[5] == 0; }
PROG
$cc -O1 -g -o prog prog.c || exit 1
je=$(find_lib libjemalloc.so.2) || missing "libjemalloc.so.2"
MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/prog" LD_PRELOAD="$je" ./prog
p=$(one "$work/prog.*.heap") || exit 1
cp prog broken
set -- $(readelf -SW broken | awk '$2 == ".debug_line" { print $5, $6 }')
off=$((0x$1)) size=$((0x$2))
awk -v n="$size" 'BEGIN { for (i = 0; i < n; i++) printf "%c", (i * 131 + 7) % 256 }' |
	dd of=broken bs=1 seek="$off" conv=notrunc status=none
check "broken .debug_line: exit 0" "exit=0" "$(run --text --show_bytes broken "$p" | cut -d' ' -f1)"
check "broken .debug_line: grab still named" "409600" "$(awk '$6 == "grab" { print $1 }' out.txt)"
check "broken .debug_line: --lines still answers" "exit=0" "$(run --lines --show_bytes broken "$p" | cut -d' ' -f1)"

# Least authority: debuginfod stays off without --debuginfod.
check "DEBUGINFOD_URLS ignored" "exit=0" \
	"$(DEBUGINFOD_URLS=http://127.0.0.1:9/ run --text --show_bytes prog "$p" | cut -d' ' -f1)"

# A compressed-debug bomb: a .debug_macro of 128 MiB of zeros, zlib'ed to
# 128 KiB (1000 times).  libdw inflates every debug section of a file it
# opens: the binary's DWARF is left unread (names from its symbol table),
# and as a separate debug file it is not used, nor copied into the cache.
head -c 134217728 /dev/zero > zeros.bin
objcopy --add-section .debug_macro=zeros.bin --set-section-flags .debug_macro=readonly,debug prog big-macro &&
	objcopy --compress-debug-sections=zlib big-macro bombed && rm -f zeros.bin big-macro || exit 1
check "debug bomb in the binary: refused, named" \
	"exit=0 hpa: warning: bombed: section .debug_macro claims 128.0 MiB when inflated, 1029 times its 0.1 MiB (more than 64 times, or 4 GiB): a decompression bomb?; its DWARF is not read, names come from its symbol table" \
	"$(HPA_CACHE_DIR=off run --text --show_bytes bombed "$p")"
check "debug bomb in the binary: grab still named" "409600" "$(awk '$6 == "grab" { print $1 }' out.txt)"
check "debug bomb in the binary: memory" "ok" "$(HPA_CACHE_DIR=off rss_ok 48 --text bombed "$p")"
objcopy --only-keep-debug bombed bombed.debug && objcopy --strip-debug bombed stripped || exit 1
id=$(readelf -n stripped | awk '/Build ID/ { print $3 }')
mkdir -p debugdir/.build-id/$(echo "$id" | cut -c1-2) cache
cp bombed.debug "debugdir/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
check "debug bomb as a separate debug file: not used" "exit=0 1" \
	"$(HPA_CACHE_DIR=$work/cache run --text --show_bytes --debug-dir debugdir stripped "$p" | cut -d' ' -f1) $(grep -c "\.debug: section \.debug_macro claims 128\.0 MiB .*; that debug file is not used" err.txt)"
check "debug bomb as a separate debug file: never cached" "0" "$(ls cache/debug 2>/dev/null | grep -c "^$id")"
check "debug bomb as a separate debug file: memory" "ok" \
	"$(HPA_CACHE_DIR=$work/cache rss_ok 48 --text --debug-dir debugdir stripped "$p")"

# --list reads a source only under the binary's build folders, --source-path
# or the current folder, and only a text file: a profile naming /etc/passwd
# (or a binary) as a function's file gets the table, not the file.
mkdir -p elsewhere
check "--list: the source, from the binary's build folder" "1" \
	"$(cd elsewhere && "$hpa" --list grab ../prog "$p" 2>/dev/null | grep -c 'void \*p = malloc(4096)')"
"$hpa" --proto -o prog.pb.gz prog "$p" 2>/dev/null
src="$work/prog.c"   # in the profile's string table; each replacement has its length
pad=$(printf "%$((${#src} - 10))s" "" | tr ' ' '/')
src_re=$(printf '%s' "$src" | sed 's/[].[*^$\\]/\\&/g')
gunzip -c prog.pb.gz | LC_ALL=C sed "s|$src_re|/etc${pad}passwd|g" > passwd.pb
gunzip -c prog.pb.gz | LC_ALL=C sed "s|$src_re|$work///prog|g" > binary.pb
check "--list: a profile naming /etc/passwd" "exit=0 0 1" \
	"$(cd elsewhere && run --list grab ../passwd.pb | cut -d' ' -f1) $(grep -c 'root:\|daemon:\|bin:' elsewhere/out.txt) $(grep -c 'not read' elsewhere/err.txt)"
check "--list: /etc/passwd is read with --source-path /etc" "1" \
	"$(cd elsewhere && "$hpa" --list grab --source-path /etc ../passwd.pb 2>/dev/null | grep -c ':bin:x:2:2:')"
check "--list: a profile naming a binary file" "exit=0 0" \
	"$(run --list grab binary.pb | cut -d' ' -f1) $(grep -c 'ELF' out.txt)"

finish
