#!/usr/bin/env bash
# Session 29 device call 3 (temporary): maxpool's stored indices by lanes and groupnorm's unrolled
# coefficient loops: GPU checks (random problems, sanitizers), A/B (TG_GATHER_LANES), kernel times,
# bench of the memory-bound ops against PyTorch.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build build-gpu -j16 --target maxpool2d_bwd avgpool3d_bwd groupnorm_bwd > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && ctest -R "avgpool|lanes|maxpool|groupnorm" -L gpu -j6 --output-on-failure) > /tmp/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*|Test +#" /tmp/ctest.log | head -30
grep -E "^(ok|FAIL)" /tmp/ctest.log | grep -c "lanes" ; grep -E "FAIL" /tmp/ctest.log | head -5
ex=build-gpu/examples
for rep in 1 2 3; do for dt in fp16 fp32; do for c in "128 64 3 3 112 112 2 2 1 1 1 1" "64 256 2 2 56 56 2 2 1 1 0 0"; do for lanes in 0 1; do
  r=$(TG_GATHER_LANES=$lanes $ex/maxpool2d_bwd 0 0 1 $c --layout nchw --indices --dtype $dt --backend gpu --repeat 50 --explain 2>&1)
  echo "rep$rep $dt $c lanes=$lanes | $(echo "$r" | grep "^Perf" | sed 's/Perf: //; s/ ms.*//') | $(echo "$r" | grep -o "stored indices by rows by lanes")"
done; done; done; done
echo "ab $(( $(date +%s) - t0 )) s"
for lay in nchw nhwc; do
  timeout 150 ncu --section SpeedOfLight -c 14 $ex/groupnorm_bwd 0 0 1 8 64 64 32 320 --layout $lay --dtype fp16 --backend gpu --repeat 1 > /tmp/ncu-gn.txt 2>&1
  echo "== gn unet $lay fp16"; grep -E "^  [a-z_].*\(|Duration|DRAM Throughput" /tmp/ncu-gn.txt | sed 's/  */ /g' | sed -E 's/^ (void )?([a-z_]+)[<(].*\) \(([0-9, ]+)\)x.*/ \2 grid \3/' | paste - - - | cut -c1-150 | tail -4
done
timeout 150 ncu --section SpeedOfLight --section InstructionStats --section Occupancy -k regex:gather -c 1 $ex/maxpool2d_bwd 0 0 1 128 64 3 3 112 112 2 2 1 1 1 1 --layout nchw --dtype fp16 --backend gpu --indices --repeat 1 > /tmp/ncu-mp.txt 2>&1
grep -E "^  [a-z_].*\(|Duration|DRAM Throughput|L1/TEX Cache|Compute \(SM\)|Executed Instructions  |Registers Per|Achieved Occ" /tmp/ncu-mp.txt | sed 's/  */ /g' | cut -c1-120
timeout 240 tools/bench.sh build-gpu "$out/b1" --only=maxpool2d_bwd,avgpool3d_bwd,groupnorm_bwd --dtypes=fp16,fp32 > "$out/bench1.log" 2>&1
grep -h "^roofs" "$out/bench1.log"
grep -h "^{" "$out/bench1.log" > "$out/bench.jsonl"
python3 -c "
import json
for l in open('$out/bench.jsonl'):
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'), r['rel_err'])" | tee "$out/bench-summary.txt"
rm -rf "$out/b1"
echo "total $(( $(date +%s) - t0 )) s"
