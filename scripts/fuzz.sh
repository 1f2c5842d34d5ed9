#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) into build-fuzz/ and
# runs each for SECONDS (default 60) from seeds made by scripts/fuzz_seeds.sh plus the corpus the
# earlier runs grew in build-fuzz/corpus/. A crash, leak, sanitizer report, timeout (10 s a run) or
# out-of-memory (2 GiB) is written to build-fuzz/crashes/<target>/ and fails the script; turn it
# into a regression input (tests/fuzz/regressions/<garmentcode|body_obj|dxf>/) and fix it.
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(garmentcode_fuzzer body_obj_fuzzer dxf_fuzzer bvh_fuzzer)

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRYON_FUZZ=ON \
      -DTRYON_BUILD_TESTS=OFF -DTRYON_BUILD_BENCH=OFF > build-fuzz.log 2>&1 || { tail -n 40 build-fuzz.log; exit 1; }
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]}" >> build-fuzz.log 2>&1 || { tail -n 60 build-fuzz.log; exit 1; }
rm -rf build-fuzz/seeds
bash scripts/fuzz_seeds.sh build-fuzz/seeds

failed=()
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t" "build-fuzz/crashes/$t"
  max_len=65536 dict=fuzz/garmentcode.dict
  [ "$t" = body_obj_fuzzer ] && max_len=262144 dict=fuzz/obj.dict
  [ "$t" = dxf_fuzzer ] && max_len=800000 dict=fuzz/dxf.dict  # the shared CAD exports whole (up to 730 KB)
  [ "$t" = bvh_fuzzer ] && dict=fuzz/bvh.dict
  echo "fuzz: $t for $seconds s"
  if ! "build-fuzz/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -dict="$dict" \
       -print_final_stats=1 -artifact_prefix="build-fuzz/crashes/$t/" "build-fuzz/corpus/$t" "build-fuzz/seeds/$t" \
       > "build-fuzz/$t.log" 2>&1; then
    failed+=("$t")
    tail -n 40 "build-fuzz/$t.log"
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)' "build-fuzz/$t.log" | sed "s/^/$t /" || true
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in build-fuzz/crashes/)"
  exit 1
fi
echo "fuzz: ${targets[*]}: no findings in $seconds s each"
