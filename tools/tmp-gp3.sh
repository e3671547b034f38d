#!/usr/bin/env bash
# Session 25 device call 3 (temporary): build, ctest -L gpu, block choice A/B, profile, final bench.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -R "staged|sliding" -j4 --output-on-failure) > "$log" 2>&1; grep -E "tests passed" "$log"
for env in "TG_STAGED_BLOCKS=1" "TG_STAGED_ROWS=1" "TG_STAGED_TIGHT=0" "TG_STAGED_SEGMENTS=0"; do
  echo "== $env" >> "$log"
  (cd build-gpu && env $env ctest -R "deterministic.staged" -E "staged_segments" -j4 --output-on-failure) >> "$log" 2>&1; echo "$env: $(grep -c Passed "$log") passed so far, $(grep -c '\*\*\*Failed' "$log") failed"
done
ex=build-gpu/examples/grouped_conv_bwd_weight
for tool in memcheck racecheck; do  # the 7-tap kernel (7x7 bf16, two blocks of channels)
  compute-sanitizer --tool $tool --error-exitcode 9 $ex 1 2 0 2 96 2 96 96 7 7 20 17 1 1 1 1 3 3 3 3 --layout nhwgc --dtype bf16 --backend gpu --explain > "$out/san-$tool.log" 2>&1
  echo "$tool rc $? $(grep -o 'units of [0-9] taps' "$out/san-$tool.log" | head -1) $(grep -E 'ERROR SUMMARY|check' "$out/san-$tool.log" | head -3 | tr '\n' ' ')"
done
echo "tests $(( $(date +%s) - t0 )) s"
ab="$out/ab.txt"; : > "$ab"
for c in "64 384 28 28 7 1 3" "64 768 14 14 7 1 3" "128 144 56 56 3 1 1" "128 144 56 56 5 2 2"; do
  set -- $c
  args="0 2 1 2 $2 $1 $2 $2 $5 $5 $3 $4 $6 $6 1 1 $7 $7 $7 $7 --layout nhwgc --dtype fp16 --backend gpu --repeat 30"
  for env in "TG_STAGED_TIGHT=0" "TG_STAGED_TIGHT=1" "TG_STAGED_TIGHT=0" "TG_STAGED_TIGHT=1"; do
    r=$(env $env $ex $args --explain 2>&1)
    echo "$c | $env | $(echo "$r" | grep "^Perf" | head -1) | $(echo "$r" | grep -o "staged sliding: .*" | head -1)" >> "$ab"
  done
done
cut -c1-230 "$ab"
echo "ab $(( $(date +%s) - t0 )) s"
timeout 150 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
grep -h "^{" "$out/bench1.log" | python3 -c "
import sys,json
for l in sys.stdin:
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1" "$out/b2"
echo "total $(( $(date +%s) - t0 )) s"
