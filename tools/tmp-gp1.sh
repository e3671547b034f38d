#!/usr/bin/env bash
# Session 29 device call 1 (temporary): the memory-bound ops (issue 17): bench against PyTorch, then Nsight
# Compute on their kernels (profile before changing anything).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"; cat "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=OFF > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 --target maxpool2d_bwd avgpool3d_bwd groupnorm_bwd > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 200 tools/bench.sh build-gpu "$out/b1" --only=maxpool2d_bwd,avgpool3d_bwd,groupnorm_bwd --dtypes=fp16,fp32 > "$out/bench1.log" 2>&1
grep -h "^roofs" "$out/bench1.log"
grep -h "^{" "$out/bench1.log" > "$out/bench.jsonl"
python3 -c "
import json
for l in open('$out/bench.jsonl'):
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1"
echo "bench $(( $(date +%s) - t0 )) s"
ex=build-gpu/examples
sec="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats"
prof() {  # name, kernel regex, count, command...
  local name=$1 k=$2 c=$3; shift 3
  timeout 120 ncu $sec -k "regex:$k" -c "$c" "$@" > "$out/ncu-$name.txt" 2>&1
  echo "== $name"; grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|Memory Throughput|Executed Ipc A|Achieved Occupancy|Registers Per|Executed Instructions  |Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Block Size|Grid Size" "$out/ncu-$name.txt" | sed 's/  */ /g' | head -40
}
prof mp-stem-nchw-fp16 gather 1 $ex/maxpool2d_bwd 0 0 1 128 64 3 3 112 112 2 2 1 1 1 1 --layout nchw --dtype fp16 --backend gpu --indices --repeat 1
prof mp-stem-nhwc-fp16 gather 1 $ex/maxpool2d_bwd 0 0 1 128 64 3 3 112 112 2 2 1 1 1 1 --layout nhwc --dtype fp16 --backend gpu --indices --repeat 1
prof mp-2x2-nchw-fp16 gather 1 $ex/maxpool2d_bwd 0 0 1 64 256 2 2 56 56 2 2 1 1 0 0 --layout nchw --dtype fp16 --backend gpu --indices --repeat 1
prof ap-3s1-ncdhw-fp16 mean 1 $ex/avgpool3d_bwd 0 0 1 8 128 3 3 3 16 32 32 1 1 1 1 1 1 1 1 1 1 1 1 --layout ncdhw --dtype fp16 --backend gpu --repeat 1
prof ap-3s1-ndhwc-fp16 mean 1 $ex/avgpool3d_bwd 0 0 1 8 128 3 3 3 16 32 32 1 1 1 1 1 1 1 1 1 1 1 1 --layout ndhwc --dtype fp16 --backend gpu --repeat 1
prof ap-2s2-ncdhw-fp16 mean 1 $ex/avgpool3d_bwd 0 0 1 16 64 2 2 2 16 56 56 2 2 2 1 1 1 0 0 0 0 0 0 --layout ncdhw --dtype fp16 --backend gpu --repeat 1
prof gn-unet-nchw-fp16 "row_|for_each" 5 $ex/groupnorm_bwd 0 0 1 8 64 64 32 320 --layout nchw --dtype fp16 --backend gpu --repeat 1
prof gn-unet-nhwc-fp16 "row_|for_each" 5 $ex/groupnorm_bwd 0 0 1 8 64 64 32 320 --layout nhwc --dtype fp16 --backend gpu --repeat 1
prof gn-n32-nchw-fp32 "row_|for_each" 5 $ex/groupnorm_bwd 0 0 1 32 56 56 32 256 --layout nchw --dtype fp32 --backend gpu --repeat 1
echo "total $(( $(date +%s) - t0 )) s"
