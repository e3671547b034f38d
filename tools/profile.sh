#!/usr/bin/env bash
# On the GPU machine: build one example (no tests) and profile one kernel of one run of it with
# Nsight Compute (tools/gpu-profile-cases.sh: clocks left alone), writing the details page with the
# hottest SASS lines (profile.txt), the report (profile.ncu-rep) and every SASS line's samples
# (profile.source.csv) to $OUT (or ./gpu-out).
#   tools/profile.sh KERNEL_REGEX EXAMPLE ARGS...
#   e.g. tools/profile.sh gemm_kernel convnd_bwd_data 0 1 1 2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1 --layout nhwgc --dtype fp16
set -uo pipefail
cd "$(dirname "$0")/.."
kernel=$1; example=$2; shift 2
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TESTS=OFF \
  > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target "$example" > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
"build-gpu/examples/$example" "$@" --backend gpu --repeat 20 | tail -3
echo "profile $kernel $example $*" | KEEP_REPORT=1 tools/gpu-profile-cases.sh
echo "profile: $(( $(date +%s) - t0 )) s"
