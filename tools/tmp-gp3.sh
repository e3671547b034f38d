#!/usr/bin/env bash
# Session 27 device call 3 (temporary): build, gather tests, A/B of blocks per SM x TMA stages on the six depthwise layers.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -R "gather" -j4 --output-on-failure) > "$log" 2>&1; grep -E "tests passed|Failed|\*\*\*" "$log" | head -20
(cd build-gpu && TG_STAGED_GATHER_STAGES=4 ctest -R "deterministic.gather" -j4 --output-on-failure) >> "$log" 2>&1; grep -E "tests passed" "$log" | tail -1
echo "tests $(( $(date +%s) - t0 )) s"
ab="$out/ab.txt"; : > "$ab"
for op in conv_fwd convnd_bwd_data; do
  ex=build-gpu/examples/$op
  for c in "128 144 56 56 3 1 1" "128 960 7 7 3 1 1" "128 144 56 56 5 2 2" "128 672 14 14 5 2 2" "64 384 28 28 7 1 3" "64 768 14 14 7 1 3"; do
    set -- $c
    args="0 2 1 2 $2 $1 $2 $2 $5 $5 $3 $4 $6 $6 1 1 $7 $7 $7 $7 --layout nhwgc --dtype fp16 --backend gpu --repeat 30"
    line="$op $c |"
    for cfg in "1 2" "1 3" "1 4" "2 2" "2 3"; do
      set -- $cfg
      r=$(TG_STAGED_GATHER_BLOCKS=$1 TG_STAGED_GATHER_STAGES=$2 timeout 30 $ex $args --explain 2>&1)
      line="$line b$1s$2 $(echo "$r" | grep "^Perf" | head -1 | sed 's/Perf: //; s/ ms.*//') ($(echo "$r" | grep -o "tiles of [0-9x]*" | head -1 | sed 's/tiles of //'))"
    done
    echo "$line" >> "$ab"
    [ $(( $(date +%s) - t0 )) -gt 570 ] && break 2
  done
done
cat "$ab"
echo "total $(( $(date +%s) - t0 )) s"
