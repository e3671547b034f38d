#!/usr/bin/env bash
# Session 29 device call 2 (temporary): avgpool's box sum by lanes: GPU checks, A/B (TG_BOX_LANES), its
# profile; the maxpool and groupnorm profiles (compact).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build build-gpu -j16 --target maxpool2d_bwd avgpool3d_bwd groupnorm_bwd > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && ctest -R "avgpool|box_lanes|maxpool|groupnorm" -L gpu -j6 --output-on-failure) > /tmp/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*|Test +#" /tmp/ctest.log | head -30
ex=build-gpu/examples
for rep in 1 2 3; do for dt in fp16 fp32; do for lay in ncdhw; do for ex_pad in "" --exclude-pad; do for lanes in 0 1; do
  r=$(TG_BOX_LANES=$lanes $ex/avgpool3d_bwd 0 0 1 8 128 3 3 3 16 32 32 1 1 1 1 1 1 1 1 1 1 1 1 --layout $lay --dtype $dt --backend gpu --repeat 50 --explain $ex_pad 2>&1)
  echo "rep$rep $dt $lay $ex_pad lanes=$lanes | $(echo "$r" | grep "^Perf" | sed 's/Perf: //; s/ ms.*//') | $(echo "$r" | grep -o "box sum of dy, [a-z ]*")"
done; done; done; done; done
echo "ab $(( $(date +%s) - t0 )) s"
sec="--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis --section InstructionStats"
prof() {  # name, kernel regex, count, command...
  local name=$1 k=$2 c=$3; shift 3
  timeout 150 ncu $sec -k "regex:$k" -c "$c" "$@" > /tmp/ncu-$name.txt 2>&1
  echo "== $name"; grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|L1/TEX Cache Throughput|Compute \(SM\) Th|Achieved Occupancy|Registers Per|Executed Instructions  |Warp Cycles Per Issued|L1/TEX Hit|L2 Hit|Grid Size|Stall|stalled" /tmp/ncu-$name.txt | sed 's/  */ /g' | cut -c1-160 | head -60
}
prof ap-lanes-fp16 mean 1 $ex/avgpool3d_bwd 0 0 1 8 128 3 3 3 16 32 32 1 1 1 1 1 1 1 1 1 1 1 1 --layout ncdhw --dtype fp16 --backend gpu --repeat 1
prof ap-3s1-ndhwc-fp16 mean 1 $ex/avgpool3d_bwd 0 0 1 8 128 3 3 3 16 32 32 1 1 1 1 1 1 1 1 1 1 1 1 --layout ndhwc --dtype fp16 --backend gpu --repeat 1
prof mp-stem-nchw-fp16 gather 1 $ex/maxpool2d_bwd 0 0 1 128 64 3 3 112 112 2 2 1 1 1 1 --layout nchw --dtype fp16 --backend gpu --indices --repeat 1
prof mp-stem-nhwc-fp16 gather 1 $ex/maxpool2d_bwd 0 0 1 128 64 3 3 112 112 2 2 1 1 1 1 --layout nhwc --dtype fp16 --backend gpu --indices --repeat 1
# groupnorm: every kernel of the run (forward statistics first), names and durations only
for lay in nchw nhwc; do
  timeout 150 ncu --section SpeedOfLight -c 14 $ex/groupnorm_bwd 0 0 1 8 64 64 32 320 --layout $lay --dtype fp16 --backend gpu --repeat 1 > /tmp/ncu-gn.txt 2>&1
  echo "== gn unet $lay fp16"; grep -E "^  [a-z_].*\(|Duration|DRAM Throughput" /tmp/ncu-gn.txt | sed 's/  */ /g' | sed -E 's/^ (void )?([a-z_]+)[<(].*\) \(([0-9, ]+)\)x.*/ \2 grid \3/' | paste - - - | cut -c1-150
done
cp /tmp/ncu-ap-lanes-fp16.txt /tmp/ncu-mp-stem-nchw-fp16.txt "$out/"
echo "total $(( $(date +%s) - t0 )) s"
