#!/usr/bin/env bash
# The tests: install dependencies, build everything this machine can build, run ctest (all labels:
# dsl, arch, ops, isa, and gpu, which skips itself without a GPU); then the sanitizer lane
# (tools/test-sanitize.sh: the host tests under ASan + UBSan in a second build folder).
# Arguments go to ctest in both. TG_SANITIZER_LANE=0 skips the lane.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${TG_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja > /dev/null
cmake --build "$build" -j"$(nproc)"
(cd "$build" && ctest -j"$(nproc)" --output-on-failure "$@")
if [ "${TG_SANITIZER_LANE:-1}" != 0 ]; then
  echo "== sanitizer lane (ASan + UBSan, host targets): ${build}-sanitize"
  TG_SANITIZE_BUILD_DIR="${build}-sanitize" tools/test-sanitize.sh "$@"
fi
