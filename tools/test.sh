#!/usr/bin/env bash
# The tests: install dependencies, build everything this machine can build, run ctest (all labels:
# dsl, arch, ops, isa, and gpu, which skips itself without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${TG_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja > /dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest -j"$(nproc)" --output-on-failure "$@"
