#!/bin/sh
# The code's shape, as src/DESIGN.md draws it:
#  - every #include points down the layers
#      base < model < net < sym < read < xform < group < write < driver
#    (a header in include/hpa/ belongs to the layer that implements it);
#  - the command line (opts.h) is read by the driver alone;
#  - no public header includes pthread.h or stdatomic.h;
#  - no file of C over 900 lines, no function over 80 (signature to closing brace).
# Usage: structure.sh SOURCE_DIR.  Prints each breach; exit 1 if any.
set -u
top=${1:?usage: structure.sh SOURCE_DIR}
cd "$top" || exit 2

# The layer of a file, as a rank; "?" for a file no layer claims.
layer_of() {
	case $1 in
	src/base/*|include/hpa/compat.h|include/hpa/diag.h|include/hpa/hashmap.h|\
	include/hpa/strbuf.h|include/hpa/strtab.h|include/hpa/task.h|\
	include/hpa/tempfile.h|include/hpa/timing.h|include/hpa/xalloc.h)
		echo 0 base ;;
	src/model/*|include/hpa/profile.h|include/hpa/symbols.h|include/hpa/unsample.h)
		echo 1 model ;;
	src/net/*|include/hpa/fetch.h|include/hpa/clickhouse.h)
		echo 2 net ;;
	src/sym/*|include/hpa/symbolize.h)
		echo 3 sym ;;
	src/read/*|include/hpa/reader.h|include/hpa/remote.h|include/hpa/series.h|include/hpa/stats.h|\
	include/hpa/lineio.h|*/profile.pb-c.h)
		echo 4 read ;;
	src/xform/*|include/hpa/coverage.h|include/hpa/names.h|include/hpa/strip.h|include/hpa/view.h|include/hpa/waste.h)
		echo 5 xform ;;
	src/group/*|include/hpa/group.h|include/hpa/growth.h|include/hpa/diff.h)
		echo 6 group ;;
	src/write/*|include/hpa/report.h|include/hpa/output.h)
		echo 7 write ;;
	src/main.c|src/opts.c|src/optsview.c|src/push.c|src/run.c|src/watch.c|include/hpa/opts.h|include/hpa/push.h|include/hpa/run.h)
		echo 8 driver ;;
	*)
		echo "? ?" ;;
	esac
}

fail=0
files=$(find src include -name '*.[ch]' | LC_ALL=C sort)

for f in $files; do
	set -- $(layer_of "$f")
	rank=$1 name=$2
	if [ "$rank" = "?" ]; then
		echo "$f: in no layer"
		fail=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f"); do
		case $inc in
		hpa/*) target=include/$inc ;;
		*) target=$(dirname "$f")/$inc ;;
		esac
		set -- $(layer_of "$target")
		[ "$1" = "?" ] && { echo "$f: includes $inc, in no layer"; fail=1; continue; }
		if [ "$1" -gt "$rank" ]; then
			echo "$f ($name) includes $inc ($2): an include that points up"
			fail=1
		fi
	done
done

readers=$(grep -l '#include "hpa/opts.h"' $files | LC_ALL=C sort | tr '\n' ' ')
if [ "$readers" != "src/main.c src/opts.c src/optsview.c src/push.c src/run.c src/watch.c " ]; then
	echo "opts.h is included by $readers(the driver alone should: main.c opts.c optsview.c push.c run.c watch.c)"
	fail=1
fi

for h in include/hpa/*.h; do
	if grep -q '#include <\(pthread\|stdatomic\)\.h>' "$h"; then
		echo "$h: a public header with threading primitives"
		fail=1
	fi
done

for f in $(find src -name '*.c' | LC_ALL=C sort); do
	n=$(wc -l < "$f")
	[ "$n" -gt 900 ] && { echo "$f: $n lines (at most 900)"; fail=1; }
	# A function: a line "{" at column 0 after its signature, to "}" at column 0.
	awk -v f="$f" '
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { sig = $0; sigline = NR }
		/^\{/ { start = sigline ? sigline : NR; inside = 1 }
		/^\}/ && inside {
			n = NR - start + 1
			if (n > 80) {
				name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
				printf "%s: %s is %d lines (at most 80)\n", f, name, n
				bad = 1
			}
			inside = 0; sigline = 0
		}
		END { exit bad }' "$f" || fail=1
done

exit $fail
