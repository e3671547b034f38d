#!/usr/bin/env bash
# Session 27 device call 5 (temporary): build, ctest -L gpu, bench of the depthwise layers channels-last (forward, backward data).
set -uo pipefail
out=${OUT:-$PWD/gpu-out}; mkdir -p "$out"
t0=$(date +%s)
nvidia-smi -L > "$out/device.txt"
cmake -S . -B build-gpu -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a -DTG_BUILD_TORCH=OFF -DTG_BUILD_TESTS=ON > "$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 130 ctest -L gpu -j6 --output-on-failure) > "$out/ctest-gpu.log" 2>&1; grep -E "tests passed|Failed|\*\*\*|Timeout" "$out/ctest-gpu.log" | head -20
echo "tests $(( $(date +%s) - t0 )) s"
timeout 150 tools/bench.sh build-gpu "$out/b1" --no-design --grouped --channels-last --only=convnd_bwd_data,conv_fwd --match=dw --dtypes=fp16,bf16 > "$out/bench1.log" 2>&1
grep -h "^{" "$out/bench1.log" > "$out/bench.jsonl"
python3 -c "
import sys,json
for l in open('$out/bench.jsonl'):
  r=json.loads(l); print(r['op'][:14], r['case'][:36], r['dtype'], r['layout'], r['tilegrad_ms'], r['torch_ms'], r['ratio'], r.get('pct_bw'))" | tee "$out/bench-summary.txt"
rm -rf "$out/b1"
echo "total $(( $(date +%s) - t0 )) s"
