#!/usr/bin/env bash
# Session 27 device call 2 (temporary): build, gather tests, profiles of the MobileNetV2 C144 gathers.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -R "gather" -j4 --output-on-failure) > "$log" 2>&1; grep -E "tests passed|Failed|\*\*\*" "$log" | head -20
echo "tests $(( $(date +%s) - t0 )) s"
printf '%s\n' \
 "mnv2_fwd staged_gather conv_fwd 0 2 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16" \
 "mnv2_bwd staged_gather convnd_bwd_data 0 2 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16" \
 | tools/gpu-profile-cases.sh
echo "total $(( $(date +%s) - t0 )) s"
