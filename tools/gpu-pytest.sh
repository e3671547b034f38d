#!/usr/bin/env bash
# The PyTorch front end on an NVIDIA GPU machine (the one of tools/gpu-run.sh: CUDA 13 nvcc, CMake, ninja,
# PyTorch with CUDA for `python3`, no Debian packages; the header dependencies travel in .deps/, made by
# tools/gather-deps.sh). Builds the extension against that python3's torch with the NVIDIA targets
# (build-torch/), then:
#   1. the pytest suite on CUDA tensors (tests/python -m cuda: every op, module and ATen-signature function,
#      bad devices, the current stream, fake implementations and opcheck, torch.compile with aot_eager and
#      inductor, the training example);
#   2. the installed C++ package: cmake --install, a consumer project linking tilegrad::gpu, run on the GPU;
#   3. examples/train_cnn.py at its full size (300 steps), fp32 contiguous and bf16 channels-last: both loss
#      curves, the step times of PyTorch's backward and tilegrad's, PNG plots;
#   4. the suite on CPU tensors (the host backend) on this machine's torch.
# Logs and results go to $OUT (the device tool's output folder) or ./gpu-out: gpu-pytest.log (this script's
# output), build.log, pytest.log, train.log, train_fp32.png, train_bf16.png, train.json (7 files).
#   tools/gpu-pytest.sh [all|build|test]   (build: configure and build only; test: reuse build-torch/)
# Exit status 0 when every step passed; each step's verdict is printed either way.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in all|build|test) ;; *) echo "usage: $0 [all|build|test]" >&2; exit 2 ;; esac
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
exec > >(tee -a "$out/gpu-pytest.log") 2>&1
py=$(command -v "${TG_PYTHON:-python3}")
build=build-torch
t0=$(date +%s)
say() { echo "[gpu-pytest +$(( $(date +%s) - t0 ))s] $*"; }
fail() { say "FAIL: $*"; exit 1; }

say "device: $(nvidia-smi -L 2>&1 | head -1)"
"$py" -c "import sys, torch; print('python', sys.version.split()[0], '| torch', torch.__version__, '| CUDA', torch.version.cuda, '| GPU visible:', torch.cuda.is_available())" \
  || fail "$py cannot import torch"
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" || fail "PyTorch sees no GPU"
"$py" -c "import pytest" || fail "pytest is missing for $py"
command -v nvcc > /dev/null || fail "no nvcc on PATH"
say "nvcc: $(nvcc --version | tail -2 | head -1)"

if [ "$what" != test ]; then
  [ -d .deps/include/boost/hana ] || fail "no .deps/: run tools/install-deps.sh && tools/gather-deps.sh on the build machine and carry .deps along"
  say "configure ($build)"
  cmake -S . -B "$build" -G Ninja -DTG_DEPS_DIR="$PWD/.deps" -DTG_ENABLE_AMD=OFF -DCMAKE_CUDA_ARCHITECTURES=90a \
    -DTG_PYTHON="$py" -DTG_BUILD_TESTS=OFF -DTG_BUILD_EXAMPLES=OFF > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; fail "configure"; }
  grep "tilegrad:" "$out/build.log" || true
  grep -q "Python front end ON (CUDA tensors: ON)" "$out/build.log" || fail "the extension would be built without CUDA tensors (see the lines above)"
  say "build (the GPU instances with nvcc, then the extension)"
  cmake --build "$build" -j"$(nproc)" >> "$out/build.log" 2>&1 || { grep -E "error|Error|undefined" "$out/build.log" | head -40; fail "build"; }
  say "built"
fi
[ "$what" = build ] && { say "done (build only)"; exit 0; }
[ -f "$build/python/tilegrad/libtilegrad_torch.so" ] || fail "no $build/python/tilegrad/libtilegrad_torch.so: run '$0 build' first"

export PYTHONPATH="$PWD/$build/python" PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
"$py" -c "import tilegrad; print('tilegrad', tilegrad.__version__, 'GPU support:', tilegrad.built_with_cuda(), 'usable:', tilegrad.cuda_available())" \
  || fail "import tilegrad"
"$py" -c "import tilegrad, sys; sys.exit(0 if tilegrad.cuda_available() else 1)" || fail "tilegrad cannot run CUDA tensors"
status=0
verdicts=()
step() {  # step NAME COMMAND...: runs it, records PASS/FAIL
  local name=$1; shift
  say "$name"
  if "$@"; then verdicts+=("PASS  $name"); else verdicts+=("FAIL  $name"); status=1; fi
}

# 1. pytest on CUDA tensors (what this machine is for).
pytest_cuda() {  # fails too when a CUDA case skipped for want of a GPU
  "$py" -m pytest tests/python -m cuda -rs -q --durations=5 >> "$out/pytest.log" 2>&1 && ! grep -q "no GPU on this machine" "$out/pytest.log"
}
pytest_cpu() { "$py" -m pytest tests/python -m "not cuda" -rs -q >> "$out/pytest.log" 2>&1; }
echo "== pytest -m cuda" > "$out/pytest.log"
step "pytest on CUDA tensors (ops, modules, functions, fake/opcheck, torch.compile, training)" pytest_cuda
grep -E "passed|failed|error" "$out/pytest.log" | tail -3 || true
grep -E "^(FAILED|ERROR)" "$out/pytest.log" | head -20 || true
grep -E "test_compile" "$out/pytest.log" | head -5 || true

# 2. The installed package, consumed by a project that links tilegrad::gpu and runs on the GPU.
consume() {
  cmake -DBUILD="$PWD/$build" -DSOURCE="$PWD/tests/package/consumer" -DWORK=/tmp/tg-package -DGENERATOR=Ninja \
        -DCXX="${CXX:-$(command -v c++ || command -v g++)}" -DCUDA_ROOT="$(dirname "$(dirname "$(command -v nvcc)")")" -P tests/package/install_and_consume.cmake
}
step "install and consume the C++ package (tilegrad::gpu)" consume

# 3. The training example at full size.
train() {  # train DTYPE [--channels-last]
  local dt=$1; shift
  local dir=/tmp/tg-train-$dt
  rm -rf "$dir"
  "$py" examples/train_cnn.py --device cuda --dtype "$dt" --out "$dir" "$@" >> "$out/train.log" 2>&1
  local rc=$?
  cp "$dir/train_cnn.png" "$out/train_$dt.png" 2>/dev/null || true
  "$py" - "$dir/train_cnn.json" "$out/train.json" "$dt" <<'EOF' || true
import json, os, sys
src, dst, key = sys.argv[1:]
merged = json.load(open(dst)) if os.path.exists(dst) else {}
merged[key] = json.load(open(src))
json.dump(merged, open(dst, "w"))
EOF
  return $rc
}
: > "$out/train.log"
step "train_cnn.py fp32 (300 steps)" train fp32
step "train_cnn.py bf16 channels-last (300 steps)" train bf16 --channels-last
grep -E "^train_cnn:|^step time|^smoothed" "$out/train.log" || true

# 4. Last (CI runs it too, on Debian's torch 1.13): the suite on CPU tensors, on this machine's torch.
echo "== pytest -m 'not cuda'" >> "$out/pytest.log"
step "pytest on CPU tensors (host backend, this torch)" pytest_cpu
tail -1 "$out/pytest.log" || true

say "summary"
printf '  %s\n' "${verdicts[@]}"
say "status $status (logs in $out)"
exit $status
