#!/usr/bin/env bash
# (temporary: this session's device run 2)
set -uo pipefail
T0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > $OUT/cmake.log 2>&1
if ! cmake --build build-gpu -j16 > $OUT/build.log 2>&1; then grep -B5 -A20 "error" $OUT/build.log | head -80; exit 1; fi
echo "build $(( $(date +%s) - T0 )) s"
(cd build-gpu && ctest -L gpu -j4 --output-on-failure > $OUT/ctest-gpu.log 2>&1; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-gpu.log | head -20)
(cd build-gpu && TG_STAGED_BLOCKS=2 ctest -R "staged" -j4 --output-on-failure > $OUT/ctest-staged-blocks2.log 2>&1; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-staged-blocks2.log | head)
echo "ctest $(( $(date +%s) - T0 )) s"
E=build-gpu/examples/grouped_conv_bwd_weight
L=("2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1" "2 960 128 960 960 3 3 7 7 1 1 1 1 1 1 1 1" "2 144 128 144 144 5 5 56 56 2 2 1 1 2 2 2 2" "2 672 128 672 672 5 5 14 14 2 2 1 1 2 2 2 2" "2 384 64 384 384 7 7 28 28 1 1 1 1 3 3 3 3" "2 768 64 768 768 7 7 14 14 1 1 1 1 3 3 3 3")
for a in "${L[@]}"; do
  for b in 1 2; do
    echo "== blocks=$b $a: $(TG_STAGED_BLOCKS=$b $E 1 2 1 $a --layout nhwgc --dtype fp16 --backend gpu --explain --repeat 30 2>&1 | grep -E "Perf|gemm path|check" | tr '\n' ' ' | cut -c1-330)"
  done
done
echo "examples $(( $(date +%s) - T0 )) s"
echo "mobilenet_staged staged_sliding grouped_conv_bwd_weight 0 1 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16" | tools/gpu-profile-cases.sh > /dev/null 2>&1
cat $OUT/summary.txt; grep -A26 "top stall" $OUT/mobilenet_staged.txt | head -28
grep -E "Bank Conflicts|Shared .*Wavefronts|Issue Slot|No Eligible|Active Warps Per|Eligible Warps|Theoretical Occ|Achieved Occ" $OUT/mobilenet_staged.txt | head -12
echo "profile $(( $(date +%s) - T0 )) s"
timeout 170 tools/bench.sh build-gpu $OUT/bench --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16,bf16 > $OUT/bench.log 2>&1
grep "^{" $OUT/bench.log > $OUT/bench.jsonl; grep "^| grouped" $OUT/bench.log
echo "bench $(( $(date +%s) - T0 )) s"
