# Shared by run-real.sh and run-symbols.sh (sourced; POSIX sh).
# Callers set: hpa (the binary under test).

fail=0 checks=0

# Exit 77 (skipped), or 1 under HPA_REQUIRE_PEERS=1 (the CI).
missing() {
	echo "missing: $1"
	[ "${HPA_REQUIRE_PEERS:-}" = 1 ] && exit 1
	exit 77
}

find_lib() {
	for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

# Set je / tc to Debian's allocator libraries, or skip (missing).
need_jemalloc() {
	je=$(find_lib libjemalloc.so.2) || missing "libjemalloc.so.2 (apt-get install libjemalloc2)"
}
need_tcmalloc() {
	tc=$(find_lib libtcmalloc.so.4) || missing "libtcmalloc.so.4 (apt-get install libgoogle-perftools4)"
}

# Start in an empty WORKDIR.
fresh_dir() {
	rm -rf "$1"
	mkdir -p "$1" || exit 1
	cd "$1" || exit 1
}

check() {   # check WHAT EXPECTED ACTUAL
	checks=$((checks + 1))
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1"
		echo "  expected: $2"
		echo "  actual:   $3"
		fail=$((fail + 1))
	fi
}

# "flat cum" of the row named exactly NAME (BINARY may be ""):
#   func_row VALUE BINARY PROFILE NAME [OPTIONS]
func_row() {
	"$hpa" --text --show_bytes --"$1" ${5:-} ${2:+"$2"} "$3" 2>/dev/null |
		awk -v n="$4" '{ name = $6; for (i = 7; i <= NF; i++) name = name " " $i }
			       name == n { print $1, $4 }'
}

one() {   # the single file matching a glob, or fail
	set -- $1
	[ $# = 1 ] && [ -f "$1" ] || { echo "FAIL: expected one profile, got: $*" >&2; return 1; }
	echo "$1"
}

finish() {
	echo "$checks checks, $fail failed"
	[ "$fail" = 0 ]
}
