#!/usr/bin/env bash
# (temporary: this session's device run 3)
set -uo pipefail
T0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > $OUT/cmake.log 2>&1
if ! cmake --build build-gpu -j16 > $OUT/build.log 2>&1; then grep -B5 -A20 "error" $OUT/build.log | head -80; exit 1; fi
echo "build $(( $(date +%s) - T0 )) s"
cd build-gpu
ctest -R "staged|sliding" -j4 --output-on-failure > $OUT/ctest-default.log 2>&1; echo "default: $(grep -E "tests passed" $OUT/ctest-default.log)"; grep -E "\*\*\*" $OUT/ctest-default.log
TG_STAGED_ROWS=2 ctest -R "staged" -j4 --output-on-failure > $OUT/ctest-rows2.log 2>&1; echo "rows2: $(grep -E "tests passed" $OUT/ctest-rows2.log)"; grep -E "\*\*\*" $OUT/ctest-rows2.log
TG_STAGED_BLOCKS=1 TG_STAGED_ROWS=2 ctest -R "staged" -j4 --output-on-failure > $OUT/ctest-blocks1-rows2.log 2>&1; echo "blocks1 rows2: $(grep -E "tests passed" $OUT/ctest-blocks1-rows2.log)"; grep -E "\*\*\*" $OUT/ctest-blocks1-rows2.log
cd ..
echo "ctest $(( $(date +%s) - T0 )) s"
E=build-gpu/examples/grouped_conv_bwd_weight
L=("2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1" "2 960 128 960 960 3 3 7 7 1 1 1 1 1 1 1 1" "2 144 128 144 144 5 5 56 56 2 2 1 1 2 2 2 2" "2 672 128 672 672 5 5 14 14 2 2 1 1 2 2 2 2" "2 384 64 384 384 7 7 28 28 1 1 1 1 3 3 3 3" "2 768 64 768 768 7 7 14 14 1 1 1 1 3 3 3 3")
s1=0; s2=0
for a in "${L[@]}"; do
  for r in 1 2; do
    line=$(TG_STAGED_ROWS=$r $E 1 2 1 $a --layout nhwgc --dtype fp16 --backend gpu --explain --repeat 30 2>&1 | grep -E "Perf|gemm path|check" | tr '\n' ' ')
    echo "== rows=$r $a: $(echo "$line" | cut -c1-360)"
    ms=$(echo "$line" | sed -n 's/.*Perf: \([0-9.]*\) ms.*/\1/p')
    if [ $r = 1 ]; then s1=$(python3 -c "print($s1+${ms:-9})"); else s2=$(python3 -c "print($s2+${ms:-9})"); fi
  done
done
best=1; python3 -c "import sys; sys.exit(0 if $s2 < $s1 else 1)" && best=2
echo "sum of times: rows=1 $s1 ms, rows=2 $s2 ms: bench with rows=$best"
echo "examples $(( $(date +%s) - T0 )) s"
TG_STAGED_ROWS=$best timeout 170 tools/bench.sh build-gpu $OUT/bench --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16,bf16 > $OUT/bench.log 2>&1
grep "^{" $OUT/bench.log > $OUT/bench.jsonl; grep "^| grouped" $OUT/bench.log
echo "bench $(( $(date +%s) - T0 )) s"
