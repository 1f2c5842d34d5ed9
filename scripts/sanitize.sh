#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer (TRYON_SANITIZE=ON,
# cmake/sanitizers.cmake) into build-asan/, then ctest. Any sanitizer report fails the test that
# triggered it (UBSan does not recover; ASan aborts). Run by .ci/run after scripts/test.sh.
# usage: scripts/sanitize.sh [ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
# -O1: the usual sanitizer trade-off (fast enough to run drapes, frames still readable); -g1 for
# line numbers in the reports at a fraction of full debug information's compile time.
# No Python module here: an instrumented extension needs the ASan runtime preloaded into an
# uninstrumented python3 (it aborts otherwise); the module is tested in the normal build.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
      -DTRYON_SANITIZE=ON -DTRYON_BUILD_BENCH=OFF -DTRYON_BUILD_PYTHON=OFF > build-asan.log 2>&1 || { tail -n 40 build-asan.log; exit 1; }
cmake --build build-asan -j"$(nproc)" >> build-asan.log 2>&1 || { tail -n 60 build-asan.log; exit 1; }
t1=$(date +%s)
echo "sanitize: built build-asan in $((t1 - t0)) s"
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
cd build-asan
status=0
ctest --output-on-failure -j"$(nproc)" --timeout 1800 "$@" || status=$?
echo "sanitize: ctest took $(($(date +%s) - t1)) s"
exit $status
