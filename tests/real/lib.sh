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

# Set chrome to a headless browser, or skip (missing).
need_chromium() {
	chrome=$(command -v chromium || command -v chromium-browser) || missing "chromium (apt-get install chromium)"
}
# The browser, headless, with networking off; its profile in the work folder ($work).
chrome_run() {
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions "--host-resolver-rules=MAP * ~NOTFOUND" --proxy-server=127.0.0.1:9 \
		--user-data-dir="$work/chrome" "$@" 2>/dev/null
}
# browse FILE TEST: an --html page's #test-out after ?test=TEST (FILE in $work).
browse() {
	chrome_run --dump-dom "file://$work/$1?test=$2" |
		sed -n '/<pre id="test-out">/,/<\/pre>/p' | sed 's/<pre id="test-out">//; s/<\/pre>.*//' |
		sed 's/&lt;/</g; s/&gt;/>/g; s/&quot;/"/g; s/&amp;/\&/g'
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

# hpa --list or pprof -list as "R name file" (a routine), "S flat cum" (its
# sums), "N" (hpa's note that its lines' cum add up to more: recursion) and
# "L line flat cum" (a line with a value) rows, units cut.
list_rows() {
	awk '/^ROUTINE/ { n = $3; for (i = 4; i < NF - 1; i++) n = n " " $i; print "R", n, $NF; next }
		/ \(flat, cum\)/ { f = $1; c = $2; sub(/B$/, "", f); sub(/B$/, "", c); print "S", f, c; next }
		/lines. cum add up to more/ { print "N"; next }
		/^ *[^ ]+ +[^ ]+ +[0-9?]+:/ { f = $1; c = $2; if (f == "." && c == ".") next
			sub(/B$/, "", f); sub(/B$/, "", c); l = $3; sub(/:.*/, "", l); print "L", l, f, c }'
}

# From list_rows: each routine whose lines do not sum to its header, "NAME flat"
# or "NAME cum" (cum not asked where hpa notes recursion).  Empty when all do.
list_sum_errors() {
	awk 'function v(x) { return x == "." ? 0 : x }
		function done() { if (r != "" && fl != sf) print r, "flat"; if (r != "" && cu != sc && !rec) print r, "cum" }
		/^R / { done(); r = $2; fl = cu = rec = 0; next }
		/^S / { sf = v($2); sc = v($3); next }
		/^N/ { rec = 1; next }
		/^L / { fl += v($3); cu += v($4) }
		END { done() }'
}
