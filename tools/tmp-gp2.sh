#!/usr/bin/env bash
# temporary (session 23): build + ctest -L gpu + TMA-store A/B (kernel times, benchmark)
set -uo pipefail
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { grep -B2 -A12 "error" $OUT/build.log | head -60; exit 1; }
echo build $(( $(date +%s)-t0 ))
(cd build-gpu && timeout 150 ctest -L gpu -j4 --output-on-failure > $OUT/ctest-gpu.log 2>&1; echo ctest rc=$?; grep -E "tests passed|Failed|\*\*\*" $OUT/ctest-gpu.log | head -20)
echo ctest $(( $(date +%s)-t0 ))
F="--layout nhwgc --dtype fp16"
cat > /tmp/cases.txt <<C
conv_fwd 0 1 1 2 1 128 256 64 1 1 56 56 1 1 1 1 0 0 0 0 $F
convnd_bwd_data 0 1 1 2 1 128 64 256 1 1 56 56 1 1 1 1 0 0 0 0 $F
conv_fwd 0 1 1 2 1 128 64 256 1 1 56 56 1 1 1 1 0 0 0 0 $F
conv_fwd 0 1 1 2 1 128 64 64 3 3 56 56 1 1 1 1 1 1 1 1 $F
C
for s in 1 0; do TG_TMA_STORE=$s timeout 60 tools/gpu-kernel-times.sh < /tmp/cases.txt > $OUT/kt-store$s.txt 2>&1; done
build-gpu/examples/conv_fwd 1 1 0 2 1 128 256 64 1 1 56 56 1 1 1 1 0 0 0 0 $F --backend gpu --explain 2>&1 | tail -3
echo times $(( $(date +%s)-t0 ))
for s in 1 0; do TG_TMA_STORE=$s timeout 75 tools/bench.sh build-gpu $OUT/b$s --no-design --layers --only=conv_fwd,convnd_bwd_data,grouped_conv_bwd_weight --channels-last --dtypes=fp16 > $OUT/bench-store$s.log 2>&1; rm -rf $OUT/b$s; done
echo bench $(( $(date +%s)-t0 ))
