#!/usr/bin/env bash
# The sanitizer lane alone: the host test binaries built with AddressSanitizer +
# UndefinedBehaviorSanitizer (CMake option TG_SANITIZE: no nvcc or HIP targets) in their own build
# folder, then ctest (arguments go to ctest, e.g. -L dsl). Any sanitizer report fails its test.
# tools/test.sh runs this after the main tests.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${TG_SANITIZE_BUILD_DIR:-${TG_BUILD_DIR:-build}-sanitize}
cmake -S . -B "$build" -G Ninja -DTG_SANITIZE=ON > /dev/null
cmake --build "$build" -j"$(nproc)"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
cd "$build"
ctest -j"$(nproc)" --output-on-failure "$@"
