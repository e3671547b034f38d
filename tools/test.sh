#!/usr/bin/env bash
# The tests: install dependencies, build everything this machine can build, run ctest (labels isa,
# example, gpu (which skips itself without a GPU), python, package); then the sanitizer lane
# (tools/test-sanitize.sh: the host unit tests, labels dsl, arch, ops and lowering, under ASan + UBSan
# in a second build folder; the main build leaves them to it, so they compile once, not twice).
# Arguments go to ctest in both. TG_SANITIZER_LANE=0 skips the lane and runs the host unit tests in
# the main build instead.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${TG_BUILD_DIR:-build}
lane=${TG_SANITIZER_LANE:-1}
cmake -S . -B "$build" -G Ninja -DTG_BUILD_HOST_TESTS=$([ "$lane" != 0 ] && echo OFF || echo ON) > /dev/null
cmake --build "$build" -j"$(nproc)"
(cd "$build" && ctest -j"$(nproc)" --output-on-failure "$@")
if [ "$lane" != 0 ]; then
  echo "== sanitizer lane (ASan + UBSan, host targets): ${build}-sanitize"
  TG_SANITIZE_BUILD_DIR="${build}-sanitize" tools/test-sanitize.sh "$@"
fi
