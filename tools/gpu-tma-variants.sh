#!/usr/bin/env bash
# On the GPU machine: the TMA GEMM's schedule overrides (lowering/gpu/tma_gemm/launch.hpp) side by
# side on the convolution cases, in one build: each line is one variant's time for one case.
#   tools/gpu-tma-variants.sh "name=ENV=VALUE ENV=VALUE" ...
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a > "$out/cmake.log" 2>&1 || exit 1
cmake --build build-gpu -j"$(nproc)" --target convnd_bwd_data grouped_conv_bwd_weight conv_fwd > "$out/build.log" 2>&1 || { grep -E "error" -A5 "$out/build.log" | head -40; exit 1; }
cases=("convnd_bwd_data 0 1 1 2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1"
       "convnd_bwd_data 0 1 1 2 1 64 64 64 3 3 56 56 1 1 1 1 1 1 1 1"
       "convnd_bwd_data 0 1 1 2 1 128 256 256 3 3 14 14 1 1 1 1 1 1 1 1"
       "grouped_conv_bwd_weight 0 1 1 2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1"
       "grouped_conv_bwd_weight 0 1 1 2 1 128 256 256 3 3 14 14 1 1 1 1 1 1 1 1"
       "conv_fwd 0 1 1 2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1")
for v in "$@"; do
  name=${v%%=*}; envs=${v#*=}
  for c in "${cases[@]}"; do
    set -- $c; ex=$1; shift
    t=$(env $envs timeout 20 build-gpu/examples/$ex "$@" --layout nhwgc --dtype fp16 --backend gpu --repeat 30 2>/dev/null | grep -o "Perf: [0-9.]* ms" | grep -o "[0-9.]*")
    printf '%-14s %-72s %s ms\n' "$name" "$ex $*" "${t:-FAIL}"
  done
done | tee "$out/variants.txt"
