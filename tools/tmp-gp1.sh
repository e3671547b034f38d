#!/usr/bin/env bash
# Session 28 device call 1 (temporary): build, ctest -L gpu, sanitizers on the staged gather with pairs,
# A/B of blocks walking (tile, channel block) pairs (TG_STAGED_GATHER_PAIRS), bench (channels-last dw).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"; cat "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -L gpu -j6 --output-on-failure) > "$log" 2>&1; grep -E "tests passed|Failed|\*\*\*" "$log" | head -20
echo "tests $(( $(date +%s) - t0 )) s"
san="$out/sanitize.txt"; : > "$san"
for tool in memcheck racecheck synccheck; do
  for op in conv_fwd convnd_bwd_data; do
    r=$(timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/examples/$op 0 2 1 2 144 2 144 144 3 3 21 19 1 1 1 1 1 1 1 1 --layout nhwgc --dtype fp16 --backend gpu --repeat 1 --explain 2>&1); rc=$?
    echo "$tool $op rc=$rc $(echo "$r" | grep -o "ERROR SUMMARY.*" | head -1) $(echo "$r" | grep -o "pairs" | head -1) $(echo "$r" | grep -o "check [^:]*: [A-Za-z]*" | head -1)" >> "$san"
  done
done
cat "$san"
ab="$out/ab.txt"; : > "$ab"
for rep in 1 2 3; do
 for dt in fp16 bf16; do
  for op in conv_fwd convnd_bwd_data; do
   ex=build-gpu/examples/$op
   for c in "128 144 56 56 3 1 1" "128 144 56 56 5 2 2"; do
    set -- $c
    args="0 2 1 2 $2 $1 $2 $2 $5 $5 $3 $4 $6 $6 1 1 $7 $7 $7 $7 --layout nhwgc --dtype $dt --backend gpu --repeat 50"
    for pairs in 0 1; do
      r=$(TG_STAGED_GATHER_PAIRS=$pairs timeout 30 $ex $args --explain 2>&1)
      echo "rep$rep $dt $op $c pairs=$pairs | $(echo "$r" | grep "^Perf" | head -1 | sed 's/Perf: //; s/ ms.*//') | $(echo "$r" | grep -o "staged gather: .*" | head -1)" >> "$ab"
    done
   done
  done
 done
done
cut -c1-260 "$ab"
echo "ab $(( $(date +%s) - t0 )) s"
timeout 150 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --channels-last --only=convnd_bwd_data,conv_fwd --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
grep -h "^{" "$out/bench1.log" > "$out/bench.jsonl"
python3 -c "
import sys,json
for l in open('$out/bench.jsonl'):
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1"
echo "total $(( $(date +%s) - t0 )) s"
