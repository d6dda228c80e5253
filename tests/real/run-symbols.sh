#!/bin/sh
# Symbolization on real programs built here and run under Debian's
# libjemalloc (lg_prof_sample:0, so counts are exact) and libtcmalloc:
#  - C: static inline helpers and recursion (names, inline frames, lines);
#  - C++: a template, an anonymous namespace, a lambda, operator new[];
#  - a shared library both linked and dlopen'd;
#  - a stripped binary whose debug file is found by build-id (--debug-dir)
#    and by .gnu_debuglink;
#  - a binary moved after the run; files found through PPROF_BINARY_PATH;
#  - non-PIE and lld-linked layouts, and the wrong binary detected.
# Where /usr/bin/jeprof exists, the top-10 flat functions and main's cum
# equal jeprof's, except where jeprof is wrong (named below).
#
#  - a zlib-compressed debug file, and the cache of its uncompressed copy;
#  - debuginfod: the client is not even loaded without --debuginfod; with
#    it, a stripped binary's debug file comes from a debuginfod server
#    (tests/helper/fake-server serving /buildid/ID/debuginfo).
#
# usage: run-symbols.sh HPA SOURCEDIR WORKDIR FAKE-SERVER   (CC, CXX from the environment)
set -u
hpa=$1 src=$2 work=$3 server=$4
cc=${CC:-cc} cxx=${CXX:-c++}
. "$(dirname "$0")/lib.sh"

need_jemalloc
need_tcmalloc
command -v "$cxx" >/dev/null || missing "a C++ compiler (apt-get install g++)"
command -v objcopy >/dev/null || missing "objcopy (apt-get install binutils)"
command -v ld.lld >/dev/null || missing "ld.lld (apt-get install lld)"

rm -rf "$work"
mkdir -p "$work/a" "$work/b" "$work/dbg" || exit 1
cd "$work" || exit 1

cflags="-O2 -g -fno-omit-frame-pointer"
build() { "$@" || { echo "FAIL: build: $*"; exit 1; }; }
build $cc $cflags -o a/inline_rec "$src/inline_rec.c"
build $cxx $cflags -o templates "$src/templates.cpp"
build $cc $cflags -fPIC -shared -o libshlib.so "$src/shlib.c"
build $cc $cflags -fPIC -shared -o plugin.so "$src/plugin.c"
build $cc $cflags -o use_libs "$src/use_libs.c" -L. -lshlib -Wl,-rpath,"$work" -ldl
# Stripped, debug info by build-id under dbg/.build-id/.
build $cc $cflags -o bid "$src/inline_rec.c"
objcopy --only-keep-debug bid bid.debug && strip --strip-all bid || exit 1
id=$(readelf -n bid | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || { echo "FAIL: no build-id in bid"; exit 1; }
mkdir -p "dbg/.build-id/$(echo "$id" | cut -c1-2)"
mv bid.debug "dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug"
# Stripped, no build-id, debug info through .gnu_debuglink next to it.
build $cc $cflags -Wl,--build-id=none -o link "$src/inline_rec.c"
objcopy --only-keep-debug link link.debug && strip --strip-all link &&
	objcopy --add-gnu-debuglink=link.debug link || exit 1

je_run() {   # je_run PREFIX CMD...
	p=$1; shift
	MALLOC_CONF="prof:true,prof_final:true,lg_prof_sample:0,prof_prefix:$work/$p" \
		LD_PRELOAD="$je" "$@" || { echo "FAIL: $* under jemalloc"; exit 1; }
	one "$work/$p.*.heap"
}
tc_run() {   # tc_run PREFIX CMD...
	p=$1; shift
	HEAPPROFILE="$work/$p" LD_PRELOAD="$tc" "$@" 2>/dev/null || { echo "FAIL: $* under tcmalloc"; exit 1; }
	one "$work/$p.*.heap"
}
line_of() { grep -n "@$1" "$src/inline_rec.c" | cut -d: -f1; }

# --- C: inline helpers and recursion ---------------------------------------
je_inl=$(je_run je-inl a/inline_rec) || exit 1
tc_inl=$(tc_run tc-inl a/inline_rec) || exit 1
s="$src/inline_rec.c"
for f in "$je_inl" "$tc_inl"; do
	n=$(basename "$f")
	check "$n make_buf (inline)" "819200 819200" "$(func_row inuse_space a/inline_rec "$f" "make_buf (inline)")"
	check "$n stash (inline)" "0 819200" "$(func_row inuse_space a/inline_rec "$f" "stash (inline)")"
	check "$n descend, 5 deep, once" "0 819200" "$(func_row inuse_space a/inline_rec "$f" descend)"
	check "$n main" "0 819200" "$(func_row inuse_space a/inline_rec "$f" main)"
	check "$n malloc line" "819200 819200" \
		"$(func_row inuse_space a/inline_rec "$f" "make_buf (inline) $s:$(line_of MALLOC)" --lines)"
	check "$n inline call site" "0 819200" \
		"$(func_row inuse_space a/inline_rec "$f" "stash (inline) $s:$(line_of STASH)" --lines)"
	check "$n caller line" "0 819200" \
		"$(func_row inuse_space a/inline_rec "$f" "descend $s:$(line_of DESCEND)" --lines)"
	check "$n recursion line" "0 819200" \
		"$(func_row inuse_space a/inline_rec "$f" "descend $s:$(line_of RECURSE)" --lines)"
	check "$n main line" "0 819200" \
		"$(func_row inuse_space a/inline_rec "$f" "main $s:$(line_of MAIN)" --lines)"
	check "$n file" "819200 819200" "$(func_row inuse_space a/inline_rec "$f" "$s" --files)"
done

# --list: per line flat and cum from the line table (an inlined callee's own
# line, its caller's call site), the source from the file, lines summing to
# each function's flat and cum (recursion noted, not summed).
for f in "$je_inl" "$tc_inl"; do
	n=$(basename "$f")
	out=$("$hpa" --list 'descend|stash|make_buf' --show_bytes a/inline_rec "$f" 2>/dev/null)
	check "$n --list rows" "R make_buf $s
S 819200 819200
L $(line_of MALLOC) 819200 819200
R descend $s
S 0 819200
N
L $(line_of DESCEND) . 819200
L $(line_of RECURSE) . 819200
R stash $s
S 0 819200
L $(line_of STASH) . 819200" "$(echo "$out" | list_rows)"
	check "$n --list source text" "1" \
		"$(echo "$out" | grep -c "^ *819200 *819200 *$(line_of MALLOC):	void \*p = malloc(n); /\* @MALLOC \*/\$")"
	check "$n --list from declaration to closing brace" "static inline void *make_buf(size_t n)|}" \
		"$(echo "$out" | sed -n '/^ROUTINE.* make_buf /,/^ROUTINE/p' | sed -n 's/^ *\. *\. *[0-9]*://p' | sed -n '1p;$p' | paste -sd'|')"
	check "$n --list: every function's lines sum to it" "" \
		"$("$hpa" --list . --show_bytes a/inline_rec "$f" 2>/dev/null | list_rows | list_sum_errors)"
	check "$n --list header is --text's row" "$(func_row inuse_space a/inline_rec "$f" main)" \
		"$("$hpa" --list '^main$' --show_bytes a/inline_rec "$f" 2>/dev/null | list_rows | awk '/^S/ { print $2 == "." ? 0 : $2, $3 }')"
done

# Sources moved after the build (built from a relative path, as make does):
# the recorded path is made absolute with the compilation folder, a missing
# file says where hpa looked, --trim-path and --source-path find it.
mkdir -p build/proj/src && cp "$src/inline_rec.c" build/proj/src/ &&
	(cd build/proj && $cc $cflags -o ../../moved src/inline_rec.c) || { echo "FAIL: build moved"; exit 1; }
je_mv=$(je_run je-mv ./moved) || exit 1
b="$work/build/proj/src/inline_rec.c"
mv build elsewhere
check "moved: the line's file is absolute" "819200 819200" \
	"$(func_row inuse_space moved "$je_mv" "make_buf (inline) $b:$(line_of MALLOC)" --lines)"
out=$("$hpa" --list make_buf --show_bytes moved "$je_mv" 2>&1)
check "moved: says where it looked" "1" "$(echo "$out" | grep -c "^  (source not found; looked for $b)\$")"
check "moved: the table without source" "1" "$(echo "$out" | grep -c "^ *819200 *819200 *$(line_of MALLOC):\$")"
check "moved: warning" "1" "$(echo "$out" | grep -c '^hpa: warning: 1 of 1 source files not found; --source-path DIR and --trim-path PREFIX')"
for opts in "--trim-path $work/build --source-path $work/elsewhere" "--source-path $work/elsewhere" \
	    "--trim-path $work/build/ --source-path elsewhere/proj/"; do
	out=$("$hpa" --list make_buf --show_bytes $opts moved "$je_mv" 2>&1)
	check "moved: $opts finds it" "1 1" \
		"$(echo "$out" | grep -c "^  (source read from .*elsewhere/proj/*/src/inline_rec.c)\$") $(echo "$out" | grep -c "^ *819200 *819200 *$(line_of MALLOC):	void \*p = malloc")"
done
check "moved: --trim-path alone, from the current folder" "1" \
	"$(cd elsewhere && "$hpa" --list make_buf --trim-path "$work/build" ../moved "$je_mv" 2>/dev/null | grep -c '^  (source read from proj/src/inline_rec.c)$')"

# --- C++ ------------------------------------------------------------------------
je_cpp=$(je_run je-cpp ./templates) || exit 1
tc_cpp=$(tc_run tc-cpp ./templates) || exit 1
for f in "$je_cpp" "$tc_cpp"; do
	n=$(basename "$f")
	check "$n anonymous namespace + new[]" "40960 40960" "$(func_row inuse_space templates "$f" ::make_blobs)"
	check "$n template" "163840 163840" "$(func_row inuse_space templates "$f" app::make_one)"
	check "$n lambda" "327680 327680" "$(func_row inuse_space templates "$f" "main::{lambda#1}::operator")"
	check "$n no operator new row" "" "$(func_row inuse_space templates "$f" "operator new[]")"
	# C++'s allocation wrappers are allocator frames: flat is the container's.
	# Two template instances are two rows: where the profile holds another
	# instance of _Vector_base::_M_allocate (tcmalloc allocates a vector<void*>
	# of its own), the row names its template arguments.
	vb="std::_Vector_base::_M_allocate"
	[ -n "$(func_row inuse_space templates "$f" "$vb (inline)")" ] ||
		vb="std::_Vector_base<long, std::allocator<long> >::_M_allocate"
	check "$n vector buffer on the vector" "131072 131072" \
		"$(func_row inuse_space templates "$f" "$vb (inline)")"
	check "$n map nodes on the map" "96000 96000" \
		"$(func_row inuse_space templates "$f" "std::_Rb_tree::_M_get_node (inline)")"
	check "$n no allocator-wrapper row" "0" \
		"$("$hpa" --text templates "$f" 2>/dev/null | grep -c 'allocator::allocate\|allocator_traits')"
	# --dot: GraphViz accepts it (C++ names: ::, {lambda#1}, <>), and its nodes' flat and
	# cum are --text's rows.
	if command -v dot >/dev/null; then
		"$hpa" --dot --show_bytes --nodefraction 0 templates "$f" 2>/dev/null > "$n.dot"
		check "$n dot -Tsvg accepts --dot" "ok" "$(dot -Tsvg "$n.dot" >/dev/null 2>&1 && echo ok)"
		check "$n --dot nodes are --text rows" \
			"$("$hpa" --text --show_bytes templates "$f" 2>/dev/null | awk 'NR > 1 && $4 != 0 { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; print n, $1, $4 }' | LC_ALL=C sort)" \
			"$(sed -n 's/^N[0-9]* \[label="\(.*\)\\n\([-0-9]*\) ([^)]*)\\nof \([-0-9]*\) .*/\1 \2 \3/p' "$n.dot" | sed 's/\\\(.\)/\1/g' | LC_ALL=C sort)"
	else
		missing "dot (apt-get install graphviz)"
	fi
	# Flame graph boxes say the short name; the tooltip (and search) keep the full one.
	"$hpa" --svg templates "$f" 2>/dev/null > "$n.svg"
	vb_html=$(printf '%s' "$vb" | sed 's/</\&lt;/g; s/>/\&gt;/g')
	check "$n flame label is the short name" "1" \
		"$(grep -c "<g [^>]*data-l=\"$vb_html (inline)\"><title>std::_Vector_base&lt;long, std::allocator&lt;long&gt; &gt;::_M_allocate(unsigned long) \[inline\]" "$n.svg")"
	check "$n --collapse --short-names" "1" \
		"$("$hpa" --collapse --short-names templates "$f" 2>/dev/null | grep -cF ";fill_numbers;std::vector::push_back[inline];std::vector::_M_realloc_insert;$vb[inline] 131072")"
	check "$n --collapse keeps full names" "1" \
		"$("$hpa" --collapse templates "$f" 2>/dev/null | grep -c ';fill_numbers();std::vector<long, std::allocator<long> >::push_back(long const&)\[inline\];.*std::_Vector_base<long, std::allocator<long> >::_M_allocate(unsigned long)\[inline\] 131072$')"
	check "$n --list app::make_one is --text's row" "$(func_row inuse_space templates "$f" app::make_one)" \
		"$("$hpa" --list 'app::make_one' --show_bytes templates "$f" 2>/dev/null | list_rows | awk '/^S/ { print $2 == "." ? 0 : $2, $3 }')"
	check "$n --list: every function's lines sum to it" "" \
		"$("$hpa" --list . --show_bytes templates "$f" 2>/dev/null | list_rows | list_sum_errors)"
	check "$n --keep-internal keeps them" "1" \
		"$("$hpa" --text --keep-internal templates "$f" 2>/dev/null | grep -c ' std::__new_allocator<long>::allocate (inline)$')"
done

# --- shared libraries, linked and dlopen'd ------------------------------------
je_lib=$(je_run je-libs ./use_libs "$work/plugin.so") || exit 1
tc_lib=$(tc_run tc-libs ./use_libs "$work/plugin.so") || exit 1
for f in "$je_lib" "$tc_lib"; do
	n=$(basename "$f")
	check "$n linked library" "98304 98304" "$(func_row inuse_space use_libs "$f" shlib_alloc)"
	check "$n dlopen'd library" "65536 65536" "$(func_row inuse_space use_libs "$f" plugin_alloc)"
done

# --- PPROF_BINARY_PATH: files not where they ran ----------------------------------
# The dump's maps name /gone/...: the files are found by base name in a
# folder of the list, or by their mapped path under one, as pprof does.
sed "s|$work/|/gone/|g" "$je_lib" > gone.heap
mkdir -p binpath root/gone
cp use_libs libshlib.so plugin.so binpath/ && cp use_libs libshlib.so plugin.so root/gone/
check "PPROF_BINARY_PATH unset: not found" "" "$(func_row inuse_space "" gone.heap shlib_alloc)"
check "PPROF_BINARY_PATH unset: the warning says where it looked" "1" \
	"$("$hpa" --text gone.heap 2>&1 >/dev/null | grep -c 'libshlib.so: .*cannot open /gone/libshlib.so')"
check "PPROF_BINARY_PATH: by base name, in the second folder" "98304 98304" \
	"$(PPROF_BINARY_PATH="$work/nothing:$work/binpath" func_row inuse_space "" gone.heap shlib_alloc)"
check "PPROF_BINARY_PATH: dlopen'd library" "65536 65536" \
	"$(PPROF_BINARY_PATH="$work/binpath" func_row inuse_space "" gone.heap plugin_alloc)"
check "PPROF_BINARY_PATH: by mapped path under a folder" "98304 98304" \
	"$(PPROF_BINARY_PATH="$work/root" func_row inuse_space "" gone.heap shlib_alloc)"
check "PPROF_BINARY_PATH: not there either, said" "1" \
	"$(PPROF_BINARY_PATH="$work/nothing" "$hpa" --text gone.heap 2>&1 >/dev/null | grep -c 'libshlib.so: .*not in PPROF_BINARY_PATH either')"
mkdir -p wrongpath && cp bid wrongpath/libshlib.so
check "PPROF_BINARY_PATH: a wrong file of that name is not used" "" \
	"$(PPROF_BINARY_PATH="$work/wrongpath" func_row inuse_space "" gone.heap shlib_alloc)"

# --- stripped binaries: build-id and debuglink --------------------------------
je_bid=$(je_run je-bid ./bid) || exit 1
check "build-id debug file via --debug-dir" "819200 819200" \
	"$(func_row inuse_space bid "$je_bid" "make_buf (inline)" "--debug-dir $work/dbg")"
check "stripped, no debug dir: no name" "" "$(func_row inuse_space bid "$je_bid" "make_buf (inline)")"
"$hpa" --text bid "$je_bid" >/dev/null 2>warn.txt
check "under 1% flat: one summary line, no line of its own (ld.so's trampoline frames)" "1 0" \
	"$(grep -c '^hpa: warning: [0-9]* modules\{0,1\} without symbols under 1% of inuse_space flat each (0.0% flat in all, at most [0-9.]*% cum): .*ld-linux' warn.txt) $(grep -c '^hpa: warning: ld-linux' warn.txt)"
# A relative --debug-dir is from the current folder (libdwfl alone takes it from the binary's).
mkdir -p sub
check "relative --debug-dir from the current folder" "819200 819200" \
	"$(cd sub && func_row inuse_space ../bid "$je_bid" "make_buf (inline)" "--debug-dir ../dbg")"
"$hpa" --text bid "$je_bid" >/dev/null 2>warn.txt
check "stripped, no debug dir: warning names the module, says stripped and the fixes" "1" \
	"$(grep -c '^hpa: warning: bid: [0-9]* addresses without symbols ([0-9.]*% of inuse_space flat, [0-9.]*% cum): bid is stripped; pass the unstripped file, its debug file with --debug-dir DIR (Debian: the -dbg or -dbgsym package puts it in /usr/lib/debug), or --debuginfod$' warn.txt)"
# debuginfod: libdw's own client (libcurl and ~30 libraries with it) is not
# loaded unless --debuginfod asks; then hpa asks the server by build-id.
loaded() { LD_DEBUG=files "$hpa" "$@" 2>&1 >/dev/null | grep -c 'file=libdebuginfod.so.1 .*generating link map'; }
check "libdebuginfod not loaded without --debuginfod" "0" \
	"$(DEBUGINFOD_URLS=http://127.0.0.1:9/ loaded --text bid "$je_bid")"
check "libdebuginfod loaded with --debuginfod" "1" \
	"$(DEBUGINFOD_URLS=http://127.0.0.1:9/ loaded --debuginfod --text bid "$je_bid")"
cp "dbg/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug" served.debug
rm -f di-port.txt
"$server" di-port.txt "/buildid/$id/debuginfo=$work/served.debug" >/dev/null 2>&1 &
di_pid=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do [ -s di-port.txt ] && break; sleep 0.2; done
export DEBUGINFOD_CACHE_PATH="$work/di-cache"
check "debug file from debuginfod (--debuginfod)" "819200 819200" \
	"$(DEBUGINFOD_URLS="http://127.0.0.1:$(cat di-port.txt)" func_row inuse_space bid "$je_bid" "make_buf (inline)" --debuginfod)"
rm -rf "$work/di-cache"
check "debuginfod server ignored without --debuginfod" "" \
	"$(DEBUGINFOD_URLS="http://127.0.0.1:$(cat di-port.txt)" func_row inuse_space bid "$je_bid" "make_buf (inline)")"
kill "$di_pid" 2>/dev/null
unset DEBUGINFOD_CACHE_PATH
# Compressed debug files (as Debian's -dbg packages ship them): the first run
# writes an uncompressed copy named by build-id to the cache, later runs use
# it (here, with the original gone); the names are the same as without it.
build $cc $cflags -o zbid "$src/inline_rec.c"
objcopy --only-keep-debug --compress-debug-sections=zlib zbid zbid.debug && strip --strip-all zbid || exit 1
zid=$(readelf -n zbid | awk '/Build ID/ { print $3 }')
mkdir -p "zdbg/.build-id/$(echo "$zid" | cut -c1-2)"
zfile="zdbg/.build-id/$(echo "$zid" | cut -c1-2)/$(echo "$zid" | cut -c3-).debug"
mv zbid.debug "$zfile"
compressed() {   # compressed FILE: how many .debug sections have the C flag
	readelf -SW "$1" 2>/dev/null | grep -E '^ *\[ *[0-9]+\] \.debug' |
		awk '$(NF - 3) ~ /C/ { n++ } END { print n + 0 }'
}
check "the debug file is compressed" "yes" "$([ "$(compressed "$zfile")" -gt 3 ] && echo yes)"
je_zbid=$(je_run je-zbid ./zbid) || exit 1
rm -rf zhome
nocache=$(HPA_CACHE_DIR=off "$hpa" --text --lines --debug-dir zdbg zbid "$je_zbid" 2>&1)
check "cache off: no copy" "0" "$(ls zhome 2>/dev/null | wc -l)"
check "compressed debug file: named" "819200 819200" \
	"$(unset HPA_CACHE_DIR XDG_CACHE_HOME; HOME=$work/zhome; func_row inuse_space zbid "$je_zbid" "make_buf (inline)" "--debug-dir zdbg")"
copy="zhome/.cache/hpa/debug/$zid.debug"   # the default place, its folders made
check "an uncompressed copy by build-id" "0" "$(compressed "$copy")"
check "the copy has the DWARF" "1" "$(readelf -S "$copy" 2>/dev/null | grep -c '\.debug_info')"
check "the copy inflates only what symbolization reads: .debug_loclists left empty" "NOBITS" \
	"$(readelf -SW "$copy" 2>/dev/null | awk '$2 == ".debug_loclists" { print $3 }')"
check "no temporary file left" "" "$(ls -A zhome/.cache/hpa/debug | grep '^\.')"
mv "$zfile" zbid.debug.away
check "the copy is used (original gone), same output" "$nocache" \
	"$(HPA_CACHE_DIR=$work/zhome/.cache/hpa "$hpa" --text --lines --debug-dir zdbg zbid "$je_zbid" 2>&1)"
head -c 1000 "$copy" > copy.cut && mv copy.cut "$copy"
mv zbid.debug.away "$zfile"
check "a broken copy is replaced, same output" "$nocache" \
	"$(HPA_CACHE_DIR=$work/zhome/.cache/hpa "$hpa" --text --lines --debug-dir zdbg zbid "$je_zbid" 2>&1)"
check "the replaced copy is whole" "0 1" "$(compressed "$copy") $(readelf -S "$copy" 2>/dev/null | grep -c '\.debug_info')"
touch zcache-file
check "an unusable cache folder changes nothing" "$nocache" \
	"$(HPA_CACHE_DIR=$work/zcache-file "$hpa" --text --lines --debug-dir zdbg zbid "$je_zbid" 2>&1)"
je_link=$(je_run je-link ./link) || exit 1
check "debuglink debug file" "819200 819200" "$(func_row inuse_space link "$je_link" "make_buf (inline)")"

# --- C++ and Rust names: Rust when rustc is installed ---------------------------
rustc=$(command -v rustc || ls "$HOME/.cargo/bin/rustc" 2>/dev/null || true)
if [ -n "$rustc" ]; then
	for m in legacy v0; do
		flag=""
		[ $m = v0 ] && flag="-C symbol-mangling-version=v0"
		build "$rustc" -C opt-level=1 -g -C force-frame-pointers=yes $flag -o rs-$m "$src/rs.rs"
		f=$(je_run je-rs-$m ./rs-$m) || exit 1
		check "rust $m: make_vec, alloc crate cut" "327680 327680" "$(func_row inuse_space rs-$m "$f" rs::make_vec)"
		check "rust $m: module path" "0 327680" "$(func_row inuse_space rs-$m "$f" rs::store::keep_many)"
		check "rust $m: main" "1536 329216" "$(func_row inuse_space rs-$m "$f" rs::main)"
		check "rust $m: vec! line" "327680 327680" \
			"$(func_row inuse_space rs-$m "$f" "rs::make_vec $src/rs.rs:$(grep -n 'vec!\[' "$src/rs.rs" | cut -d: -f1)" --lines)"
	done
	check "rust: legacy build really is legacy-mangled" "1" "$(nm rs-legacy | grep -c ' _ZN2rs5store9keep_many')"
	check "rust: v0 build really is v0-mangled" "1" "$(nm rs-v0 | grep -c ' _RNvNtCs[0-9A-Za-z_]*_2rs5store9keep_many$')"
else
	echo "note: rustc not found; Rust checks skipped"
fi

# --- --sysroot, compressed debug sections -----------------------------------------
mkdir -p "root$work/a" && cp a/inline_rec "root$work/a/inline_rec"
mv a/inline_rec a/inline_rec.away
check "--sysroot finds the mapped file under DIR" "819200 819200" \
	"$(func_row inuse_space "" "$je_inl" "make_buf (inline)" "--sysroot $work/root")"
mv a/inline_rec.away a/inline_rec
build $cc $cflags -gz=zlib -o gz "$src/inline_rec.c"
check "gz build has compressed debug sections" "yes" \
	"$(readelf -SW gz | awk '/\.debug_info/ && $0 ~ / [A-Z]*C[A-Z]* / { s = "yes" } END { print s }')"
je_gz=$(je_run je-gz ./gz) || exit 1
check "zlib-compressed DWARF" "819200 819200" \
	"$(func_row inuse_space gz "$je_gz" "make_buf (inline) $s:$(line_of MALLOC)" --lines)"

# --- layouts: non-PIE, lld (p_offset != p_vaddr) ------------------------------
build $cc $cflags -no-pie -o nopie "$src/inline_rec.c"
je_nopie=$(je_run je-nopie ./nopie) || exit 1
check "non-PIE executable" "819200 819200" "$(func_row inuse_space nopie "$je_nopie" "make_buf (inline)")"
# Dumps cut before their maps section: a fixed-address BINARY still names
# every frame; a PIE one is never mapped at 0 (its absolute addresses would
# read as offsets, "inline_rec+0x55d2..."): they stay unmapped, and say so.
sed '/^MAPPED_LIBRARIES:/,$d' "$je_nopie" > nopie-cut.heap
sed '/^MAPPED_LIBRARIES:/,$d' "$je_inl" > pie-cut.heap
check "cut before maps, non-PIE BINARY: names (cum: the allocator's frames stay unknown)" "819200" \
	"$(func_row inuse_space nopie nopie-cut.heap "make_buf (inline)" | cut -d' ' -f2)"
"$hpa" --text --show_bytes a/inline_rec pie-cut.heap >out.txt 2>warn.txt
check "cut before maps, PIE BINARY: no module+offset of an absolute address" 0 \
	"$(grep -c 'inline_rec+0x' out.txt)"
check "cut before maps, PIE BINARY: addresses unmapped" 1 \
	"$(awk 'NR > 1 && ($6 !~ /^0x[0-9a-f]+$/ || $7 != "(unmapped)") { bad = 1 } END { print (NR > 1 && !bad) }' out.txt)"
check "cut before maps, PIE BINARY: said" 1 \
	"$(grep -c 'no MAPPED_LIBRARIES section, and a/inline_rec is position-independent' warn.txt)"
build $cc $cflags -fuse-ld=lld -o lld "$src/inline_rec.c"
check "lld layout has a segment with p_offset != p_vaddr" "yes" \
	"$(readelf -lW lld | awk '$1 == "LOAD" && $2 != $3 { s = "yes" } END { print s }')"
je_lld=$(je_run je-lld ./lld) || exit 1
check "lld-linked executable" "819200 819200" "$(func_row inuse_space lld "$je_lld" "make_buf (inline)")"

# --- the wrong binary is detected, not used -------------------------------------
build $cc -O0 -g -o other "$src/inline_rec.c"
"$hpa" --text other "$je_inl" >/dev/null 2>warn.txt
check "a different build is detected" "1" \
	"$(grep -c '^hpa: warning: inline_rec: .*do not follow a call instruction: not the binary that ran' warn.txt)"
check "a different build gives no names" "" "$(func_row inuse_space other "$je_inl" "make_buf (inline)")"
check "a different build: the profile's own binary fits, and that is said" "1" \
	"$(grep -c "^hpa: warning: inline_rec: .*not the binary that ran.*; the profile's own $work/a/inline_rec is there and fits: give it as BINARY, or no BINARY" warn.txt)"
"$hpa" --text nopie "$je_inl" >/dev/null 2>warn.txt
check "a fixed-address binary for a PIE profile is detected" "1" \
	"$(grep -c '^hpa: warning: inline_rec: .*fixed-address executable linked at .*not the binary that ran' warn.txt)"

# --- a binary moved after the run ----------------------------------------------
mv a/inline_rec b/inline_rec
check "moved binary given as BINARY" "819200 819200" \
	"$(func_row inuse_space b/inline_rec "$je_inl" "make_buf (inline)")"
"$hpa" --text "$je_inl" >/dev/null 2>warn.txt
check "moved binary not given: says where it looked" "1" \
	"$(grep -c "^hpa: warning: inline_rec: .*cannot open $work/a/inline_rec" warn.txt)"

# --- jeprof agreement -------------------------------------------------------------
# Exceptions, where jeprof is wrong:
#  - libstdc++'s emergency-pool constructor (81920 B): jeprof names it after
#    the nearest preceding export (std::__throw_ios_failure@@GLIBCXX_3.4.26);
#    hpa reports it as unknown.  Both become LIBSTDCXX.
#  - the dynamic loader's own small allocations for dlopen (< 4 KiB): jeprof
#    looks up the unadjusted return address and takes nm's nearest symbol
#    (dl_open_worker_begin, _dl_map_object_from_fd) where DWARF says
#    _dlfo_mappings_segment_allocate (inline) and _dl_new_object.  Rows
#    under 4096 B are left out of the comparison.
#  - C++ under jemalloc: jeprof blames malloc_usable_size for every operator
#    new (the nearest export before the unexported newImpl in stripped
#    libjemalloc, FORMATS.md 7.3) and keeps clone suffixes
#    ("[clone .constprop.0]"); for templates only main's cum is compared.
if [ -x /usr/bin/jeprof ]; then
	top10() {   # top10 hpa|jeprof BINARY PROFILE
		if [ "$1" = jeprof ]; then
			/usr/bin/jeprof --text --show_bytes "$2" "$3" 2>/dev/null
		else
			"$hpa" --text --show_bytes "$2" "$3" 2>/dev/null
		fi | sed -n '2,11p' | awk '$1 >= 4096 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; print $1, name }' |
			sed 's/ std::__throw_ios_failure@@GLIBCXX_3.4.26$/ LIBSTDCXX/; s/ libstdc++[^ ]*+0x[0-9a-f]*$/ LIBSTDCXX/'
	}
	main_cum() {   # main_cum hpa|jeprof BINARY PROFILE
		if [ "$1" = jeprof ]; then
			/usr/bin/jeprof --text --show_bytes "$2" "$3" 2>/dev/null
		else
			"$hpa" --text --show_bytes "$2" "$3" 2>/dev/null
		fi | awk '$6 == "main" && NF == 6 { print $4 }'
	}
	mv b/inline_rec a/inline_rec
	for pair in "a/inline_rec $je_inl" "a/inline_rec $tc_inl" "use_libs $je_lib" "use_libs $tc_lib" \
		    "templates $je_cpp" "templates $tc_cpp"; do
		set -- $pair
		case $1 in templates) ;; *)
			check "$(basename "$2") top-10 flat equals jeprof's" "$(top10 jeprof "$1" "$2")" "$(top10 hpa "$1" "$2")" ;;
		esac
		check "$(basename "$2") main cum equals jeprof's" "$(main_cum jeprof "$1" "$2")" "$(main_cum hpa "$1" "$2")"
	done
elif [ "${HPA_REQUIRE_PEERS:-}" = 1 ]; then
	echo "FAIL: /usr/bin/jeprof not installed"
	fail=$((fail + 1))
fi

# --- many addresses in one module: shared by several workers ----------------
# 400 functions, each allocating from its own call site: a module with more
# than 128 addresses is split between workers on a machine with 2 or more
# processors.  The result is the same as on one processor (taskset), where
# nothing is split, and --timing says how many workers shared it.
{
	echo '#include <stdlib.h>'
	echo 'void *keep[400];'
	i=0
	while [ $i -lt 400 ]; do
		echo "__attribute__((noinline)) void f$i(void) { keep[$i] = malloc($((i + 1)) * 16); }"
		i=$((i + 1))
	done
	echo 'int main(void) {'
	i=0
	while [ $i -lt 400 ]; do echo "	f$i();"; i=$((i + 1)); done
	echo '	return 0; }'
} > many.c
build $cc $cflags -o many many.c
je_many=$(je_run je-many ./many) || exit 1
if command -v taskset >/dev/null && [ "$(nproc)" -gt 1 ]; then
	"$hpa" --text --lines --show_bytes many "$je_many" > many-n.txt 2>&1
	taskset -c 0 "$hpa" --text --lines --show_bytes many "$je_many" > many-1.txt 2>&1
	check "split module: same as on one processor" "" "$(cmp many-n.txt many-1.txt 2>&1)"
	check "split module: every function named" "400" "$(grep -c ' f[0-9]* .*/many\.c:[0-9]*$' many-n.txt)"
	check "split module: --timing names the workers" "1" \
		"$("$hpa" --timing --text many "$je_many" 2>&1 >/dev/null | grep -c 'symbolize many ([0-9]* addresses, [0-9]* workers)')"
fi

finish
