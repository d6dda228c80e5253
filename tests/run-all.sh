#!/bin/sh
# The whole test suite, as CI runs it: install what the build and the tests
# need (Debian 12, as root), then build and run ctest twice: a normal
# -Werror build, and an AddressSanitizer + UndefinedBehaviorSanitizer build;
# then a ThreadSanitizer build over the tests of the multi-threaded paths;
# then build the libFuzzer targets with clang and run each for
# HPA_FUZZ_SECONDS (default 30).
# Build trees: build-ci/, build-asan/, build-tsan/ and build-fuzz/ at the top of the checkout.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

pkgs="cmake gcc make pkg-config libelf-dev libdw-dev libprotobuf-c-dev
      protobuf-c-compiler zlib1g-dev libbz2-dev libiberty-dev libcurl4-openssl-dev libjson-c-dev ca-certificates openssl
      libdebuginfod1
      g++ lld libjemalloc2 libjemalloc-dev libgoogle-perftools4 perl binutils
      golang-go protobuf-compiler libxml2-utils chromium clang libclang-rt-14-dev time strace
      graphviz clickhouse-server curl"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

jobs=$(nproc 2>/dev/null || echo 2)
export HPA_REQUIRE_PEERS=1   # missing allocators or jeprof fail the run

cmake -S . -B build-ci -DHPA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-ci -j "$jobs"
ctest --test-dir build-ci --output-on-failure

cmake -S . -B build-asan -DHPA_WERROR=ON -DHPA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	ctest --test-dir build-asan --output-on-failure
# ThreadSanitizer over the tests of the multi-threaded paths: the thread
# toolkit itself (t-base), read-ahead and the storer (growth, processors),
# the symbolizer's crew and shares (symbols), gzip blocks, --traces and
# flame-graph stretches, the walks and --html's groups (processors, pprof).
cmake -S . -B build-tsan -DHPA_WERROR=ON -DHPA_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-tsan -j "$jobs"
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	ctest --test-dir build-tsan --output-on-failure \
	-R '^(cli/processors|real/symbols|real/growth|real/pprof|real/diffs|unit/t-base)$'
CC=clang cmake -S . -B build-fuzz -DHPA_WERROR=ON -DHPA_FUZZ=ON \
	-DHPA_FUZZ_SECONDS="${HPA_FUZZ_SECONDS:-30}"
cmake --build build-fuzz -j "$jobs"
ctest --test-dir build-fuzz --output-on-failure -j "$jobs"
echo "all tests passed (normal, ASan+UBSan and ThreadSanitizer builds, fuzz targets)"
