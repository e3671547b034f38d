#!/usr/bin/env bash
# (temporary: this session's device run 1)
set -uo pipefail
T0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > $OUT/cmake.log 2>&1
if ! cmake --build build-gpu -j16 > $OUT/build.log 2>&1; then grep -B5 -A20 "error" $OUT/build.log | head -80; exit 1; fi
echo "build $(( $(date +%s) - T0 )) s"
(cd build-gpu && ctest -R "staged|sliding" -j4 --output-on-failure > $OUT/ctest-staged.log 2>&1; tail -25 $OUT/ctest-staged.log)
echo "ctest staged $(( $(date +%s) - T0 )) s"
E=build-gpu/examples/grouped_conv_bwd_weight
for a in "2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1" "2 384 64 384 384 7 7 28 28 1 1 1 1 3 3 3 3" "2 144 128 144 144 5 5 56 56 2 2 1 1 2 2 2 2" "2 960 128 960 960 3 3 7 7 1 1 1 1 1 1 1 1"; do
  for s in 1 0; do
    echo "== staged=$s $a"
    TG_STAGED_SLIDING=$s $E 1 2 1 $a --layout nhwgc --dtype fp16 --backend gpu --explain --repeat 20 2>&1 | grep -E "Perf|gemm|error|FAIL|max|verif" | head -6
  done
done
echo "examples $(( $(date +%s) - T0 )) s"
cat > /tmp/kt.txt <<'CASES'
grouped_conv_bwd_weight 0 1 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16
grouped_conv_bwd_weight 0 1 1 2 384 64 384 384 7 7 28 28 1 1 1 1 3 3 3 3 --layout nhwgc --dtype fp16
CASES
tools/gpu-kernel-times.sh < /tmp/kt.txt > $OUT/kernel-times.txt 2>&1; cat $OUT/kernel-times.txt
echo "kernel times $(( $(date +%s) - T0 )) s"
for s in 0 1; do
  TG_STAGED_SLIDING=$s timeout 150 tools/bench.sh build-gpu $OUT/bench-staged$s --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --channels-last --dtypes=fp16 > $OUT/bench-staged$s.log 2>&1
  grep -E "ratio|dw " $OUT/bench-staged$s.log | tail -8
  echo "bench staged=$s $(( $(date +%s) - T0 )) s"
done
