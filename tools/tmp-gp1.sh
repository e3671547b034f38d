#!/usr/bin/env bash
# Session 25 device call 1 (temporary): build, staged tests under every schedule setting, A/B bench.
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
log="$out/ctest.log"
(cd build-gpu && ctest -R "staged|sliding" -j4 --output-on-failure) > "$log" 2>&1; tail -4 "$log"
for env in "TG_STAGED_BLOCKS=1" "TG_STAGED_ROWS=1" "TG_STAGED_TIGHT=0" "TG_STAGED_SEGMENTS=0" "TG_STAGED_BLOCKS=1 TG_STAGED_ROWS=1"; do
  echo "== $env" >> "$log"
  (cd build-gpu && env $env ctest -R "deterministic.staged" -j4 --output-on-failure) >> "$log" 2>&1; echo "$env: $(tail -3 "$log" | grep -o '[0-9]*% tests passed.*')"
done
echo "tests $(( $(date +%s) - t0 )) s"
ex=build-gpu/examples/grouped_conv_bwd_weight
cases=("128 144 144 56 56 3 1 1" "128 960 960 7 7 3 1 1" "128 144 144 56 56 5 2 2" "128 672 672 14 14 5 2 2" "64 384 384 28 28 7 1 3" "64 768 768 14 14 7 1 3")
ab="$out/ab.txt"; : > "$ab"
for c in "${cases[@]}"; do
  set -- $c
  args="0 2 1 2 $2 $1 $2 $2 $6 $6 $4 $5 $7 $7 1 1 $8 $8 $8 $8 --layout nhwgc --dtype fp16 --backend gpu --repeat 30"
  for env in "TG_STAGED_TIGHT=0 TG_STAGED_SEGMENTS=0" "TG_STAGED_TIGHT=1 TG_STAGED_SEGMENTS=0" "TG_STAGED_TIGHT=0 TG_STAGED_SEGMENTS=1" "TG_STAGED_TIGHT=1" "TG_STAGED_TIGHT=1 TG_STAGED_BLOCKS=1" "TG_STAGED_TIGHT=1 TG_STAGED_ROWS=1"; do
    r=$(env $env $ex $args --explain 2>&1)
    echo "$c | $env | $(echo "$r" | grep -iE "^Perf|median" | head -1) | $(echo "$r" | grep -o "staged sliding: .*" | head -1)" >> "$ab"
  done
done
cat "$ab" | cut -c1-250
echo "ab $(( $(date +%s) - t0 )) s"
TG_STAGED_TIGHT=0 TG_STAGED_SEGMENTS=0 timeout 120 tools/bench.sh build-gpu "$out/b0" --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16 --channels-last > "$out/bench0.log" 2>&1
timeout 200 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --only=grouped_conv_bwd_weight --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
grep "^{" "$out/bench0.log" "$out/bench1.log" | python3 -c "
import sys,json
for l in sys.stdin:
  f,j=l.split(':',1); r=json.loads(j); print(f.split('/')[-1], r['case'][:40], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
echo "total $(( $(date +%s) - t0 )) s"
