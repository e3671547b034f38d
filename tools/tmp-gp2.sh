#!/usr/bin/env bash
# Session 25 device call 2 (temporary): build, ctest -L gpu, block choice A/B, profile, final bench.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && ctest -L gpu -j4 --output-on-failure) > "$out/ctest.log" 2>&1; grep -E "tests passed|\*\*\*Failed|Not Run" "$out/ctest.log" | head
echo "tests $(( $(date +%s) - t0 )) s"
ex=build-gpu/examples/grouped_conv_bwd_weight
ab="$out/ab.txt"; : > "$ab"
for c in "128 144 56 56 3 1 1" "64 384 28 28 7 1 3" "128 960 7 7 3 1 1"; do
  set -- $c
  args="0 2 1 2 $2 $1 $2 $2 $5 $5 $3 $4 $6 $6 1 1 $7 $7 $7 $7 --layout nhwgc --dtype fp16 --backend gpu --repeat 30"
  for env in "TG_STAGED_BLOCKS=2" "TG_STAGED_BLOCKS=1" "TG_STAGED_ROWS=1" "TG_STAGED_TIGHT=0 TG_STAGED_SEGMENTS=0" "TG_STAGED_SLIDING=1"; do
    r=$(env $env $ex $args --explain 2>&1)
    echo "$c | $env | $(echo "$r" | grep "^Perf" | head -1) | $(echo "$r" | grep -o "staged sliding: .*" | head -1)" >> "$ab"
  done
done
cut -c1-230 "$ab"
echo "dw_bwd_weight_mnv2 staged_sliding grouped_conv_bwd_weight 0 1 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16" | timeout 120 tools/gpu-profile-cases.sh > /dev/null 2>&1
echo "dw_bwd_data_mnv2 gemm_depthwise convnd_bwd_data 0 1 1 2 144 128 144 144 3 3 56 56 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16" | OUT=$out/p2 timeout 100 tools/gpu-profile-cases.sh > /dev/null 2>&1
cat "$out/p2/summary.txt" >> "$out/summary.txt" 2>/dev/null; cp "$out/p2/dw_bwd_data_mnv2.txt" "$out/" 2>/dev/null; rm -rf "$out/p2"
cat "$out/summary.txt"
echo "profile $(( $(date +%s) - t0 )) s"
timeout 150 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
timeout 100 tools/bench.sh build-gpu "$out/b2" --no-design --grouped --only=convnd_bwd_data,conv_fwd --match=dw --dtypes=fp16,bf16 --channels-last > "$out/bench2.log" 2>&1
grep -h "^{" "$out/bench1.log" "$out/bench2.log" | python3 -c "
import sys,json
for l in sys.stdin:
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1" "$out/b2"
echo "total $(( $(date +%s) - t0 )) s"
