#!/usr/bin/env bash
# Session 27 device call 6 (temporary): build, gather tests (2, 3 and 4 stages), the six layers' kernel times, bench (channels-last).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -R "gather" -j4 --output-on-failure) > "$log" 2>&1; grep -E "tests passed|Failed|\*\*\*" "$log" | head -20
for st in 3 4; do (cd build-gpu && TG_STAGED_GATHER_STAGES=$st ctest -R "deterministic.gather" -j4 --output-on-failure) >> "$log" 2>&1; grep -E "tests passed" "$log" | tail -1; done
echo "tests $(( $(date +%s) - t0 )) s"
ab="$out/ab.txt"; : > "$ab"
for op in conv_fwd convnd_bwd_data; do
  ex=build-gpu/examples/$op
  for c in "128 144 56 56 3 1 1" "128 960 7 7 3 1 1" "128 144 56 56 5 2 2" "128 672 14 14 5 2 2" "64 384 28 28 7 1 3" "64 768 14 14 7 1 3"; do
    set -- $c
    args="0 2 1 2 $2 $1 $2 $2 $5 $5 $3 $4 $6 $6 1 1 $7 $7 $7 $7 --layout nhwgc --dtype fp16 --backend gpu --repeat 30"
    r=$(timeout 30 $ex $args --explain 2>&1)
    echo "$op $c | $(echo "$r" | grep "^Perf" | head -1 | sed 's/Perf: //; s/ ms.*//') | $(echo "$r" | grep -o "staged gather: .*" | head -1)" >> "$ab"
  done
done
cut -c1-200 "$ab"
echo "ab $(( $(date +%s) - t0 )) s"
timeout 150 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --channels-last --only=convnd_bwd_data,conv_fwd --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
grep -h "^{" "$out/bench1.log" > "$out/bench.jsonl"
python3 -c "
import sys,json
for l in open('$out/bench.jsonl'):
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1"
echo "total $(( $(date +%s) - t0 )) s"
