#!/usr/bin/env bash
# On the GPU machine: A/B trials of compiler flags (nvcc's: register limits, ptxas options) in one call;
# the cp.async pipeline's schedule knobs are fields of gemm.hpp's table and gemm_policy.hpp's policies
# (a variant of those is a patch), the TMA pipeline's run-time ones tools/gpu-tma-variants.sh times.
# Each variant is built in its own folder (examples only, all variants at once), its examples are
# verified on the GPU on their default problems, then each timing case runs with each variant in turn
# (the example's own CUDA-event median of 50). Prints one table; logs go to $OUT or ./gpu-out.
#   tools/gpu-variants.sh "name=FLAGS" ["name=FLAGS" ...]
#   e.g. tools/gpu-variants.sh "default=" "regs128=-maxrregcount=128"
# CASES (optional) replaces the timing cases, CHECKS the verified runs (default problem sizes unless
# given): lines of "example args...". TARGETS: the examples to build.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
targets=${TARGETS:-"convnd_bwd_data grouped_conv_bwd_weight"}
seed="2 1 128 256 128 3 3 71 71 2 2 1 1 1 1 1 1"
default_cases="convnd_bwd_data $seed --layout nhwgc --dtype fp16
convnd_bwd_data 2 1 64 64 64 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16
convnd_bwd_data 3 1 4 64 64 3 3 3 16 56 56 1 1 1 1 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16
convnd_bwd_data $seed --layout nchw --dtype fp16
grouped_conv_bwd_weight $seed --layout nhwgc --dtype fp16
grouped_conv_bwd_weight $seed --layout nchw --dtype fp16"
cases=${CASES:-$default_cases}
default_checks=""
for ex in $targets; do
  for run in "--layout nhwgc --dtype fp16" "--layout nhwgc --dtype bf16" "--layout nchw --dtype fp16" "--layout nhwgc --dtype fp32"; do
    default_checks+="$ex $run"$'\n'
  done
done
checks=${CHECKS:-$default_checks}
names=()
t0=$(date +%s)
jobs_each=$(( $(nproc) / $# > 1 ? $(nproc) / $# : 1 ))
for v in "$@"; do
  name=${v%%=*}; flags=${v#*=}; names+=("$name")
  ( cmake -S . -B "build-$name" -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a \
      -DTG_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS="$flags" > "$out/cmake-$name.log" 2>&1 &&
    cmake --build "build-$name" -j"$jobs_each" --target $targets > "$out/build-$name.log" 2>&1 ) &
done
wait
echo "build: $(( $(date +%s) - t0 )) s"
status=0
for name in "${names[@]}"; do
  if [ ! -x "build-$name/examples/${targets%% *}" ]; then
    echo "BUILD FAILED $name"; grep -E "error" "$out/build-$name.log" | head -20; status=1; continue
  fi
  while IFS= read -r c; do
    [ -z "$c" ] && continue
    set -- $c
    ex=$1; shift
    if ! "build-$name/examples/$ex" 1 2 0 "$@" --backend gpu >> "$out/verify-$name.log" 2>&1; then echo "FAIL $name $ex $*"; status=1; fi
  done <<< "$checks"
done
printf "%-100s" "case"; for name in "${names[@]}"; do printf " %10s" "$name"; done; echo
while IFS= read -r c; do
  [ -z "$c" ] && continue
  set -- $c
  ex=$1; shift
  printf "%-100s" "$ex $*"
  for name in "${names[@]}"; do
    ms=$("build-$name/examples/$ex" 0 2 1 "$@" --backend gpu --repeat 50 2>&1 | sed -n 's/.*Perf: \([0-9.e+-]*\) ms.*/\1/p')
    printf " %10s" "${ms:-err}"
  done
  echo
done <<< "$cases"
echo "total: $(( $(date +%s) - t0 )) s, status $status"
exit $status
