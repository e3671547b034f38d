#!/usr/bin/env bash
# On the GPU machine: build the examples (no tests) and profile one kernel of one example run with
# Nsight Compute (clocks left alone), writing the details page, the per-instruction SASS stall samples
# and the kernel's SASS to $OUT (or ./gpu-out).
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
exe=build-gpu/examples/$example
"$exe" "$@" --backend gpu --repeat 20 | tail -3
ncu --clock-control none -k "regex:$kernel" -c 1 --set full --import-source no -f -o "$out/profile" "$exe" "$@" --backend gpu --repeat 1 \
  > "$out/ncu.log" 2>&1 || { tail -20 "$out/ncu.log"; }
ncu -i "$out/profile.ncu-rep" --page details > "$out/details.txt" 2>&1
ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass > "$out/source.csv" 2>&1
echo "profile: $(( $(date +%s) - t0 )) s"
