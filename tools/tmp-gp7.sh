#!/usr/bin/env bash
# Session 27 device call 7 (temporary): the review mends on a GPU: build, the gather and staged tests, a path report.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && ctest -R "gather|staged|depthwise" -j4 --output-on-failure) > "$out/ctest.log" 2>&1; grep -E "tests passed|Failed|\*\*\*" "$out/ctest.log" | head -20
build-gpu/examples/conv_fwd 0 2 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16 --backend gpu --repeat 30 --explain 2>&1 | grep -E "^Perf|staged gather" | cut -c1-220
echo "total $(( $(date +%s) - t0 )) s"
