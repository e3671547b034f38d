#!/usr/bin/env bash
# On an NVIDIA GPU machine (no Debian packages there): build with the dependencies carried in .deps/
# (tools/gather-deps.sh), verify every example on the GPU for fp32/fp16/bf16, run `ctest -L gpu`,
# then the benchmark against PyTorch. Logs go to $OUT (the device tool's output folder) or ./gpu-out.
#   tools/gpu-run.sh [all|check|bench]
set -uo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
nvidia-smi -L | tee "$out/device.txt"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a \
  -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=$([ "$what" = bench ] && echo OFF || echo ON) > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" > "$out/build.log" 2>&1 || { grep -E "error|Error" "$out/build.log" | head -40; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
status=0
if [ "$what" != bench ]; then
  summary="$out/examples.txt"; : > "$summary"
  for dt in fp32 fp16 bf16; do
    for run in "maxpool2d_bwd --layout nchw" "maxpool2d_bwd --layout nhwc --indices" "avgpool3d_bwd --layout ncdhw" \
               "avgpool3d_bwd --layout ndhwc --exclude-pad" "convnd_bwd_data --layout nhwgc" "convnd_bwd_data --layout nchw" \
               "groupnorm_bwd --layout nchw" "groupnorm_bwd --layout nhwc" "grouped_conv_bwd_weight --layout gnhwc" \
               "grouped_conv_bwd_weight --layout nchw --k-splits 4" "conv_fwd --layout nhwgc" "conv_fwd --layout gnhwc --G 4" \
               "relayout --from nchw --to nhwc" "relayout --from ndhwc --to ncdhw 2 32 8 16 24" "relayout --to-dtype bf16 --from nhwc --to nchw 3 19 5 7"; do
      set -- $run
      ex=$1; shift
      if ! build-gpu/examples/$ex 1 2 0 --backend gpu --dtype $dt "$@" >> "$out/examples.log" 2>&1; then status=1; echo "FAIL $ex $dt $*"; fi
    done
  done
  grep SUMMARY "$out/examples.log" | awk -F'|' '{printf "%-24s %-60s %-5s %-5s %s\n", $2, $3, $4, $5, $6}' | tee "$summary"
  (cd build-gpu && ctest -L gpu --output-on-failure -j4 > "$out/ctest-gpu.log" 2>&1) || status=1
  tail -25 "$out/ctest-gpu.log"
fi
if [ "$what" != check ] && [ -x tools/bench.sh ]; then
  tools/bench.sh build-gpu "$out" ${BENCH_ARGS:-} || status=1
fi
echo "total: $(( $(date +%s) - t0 )) s, status $status"
exit $status
