#!/usr/bin/env bash
# Copies the header-only dependencies and GoogleTest's sources from this machine's Debian packages
# into .deps/ (git-ignored), for machines without them (the GPU machine). Run tools/install-deps.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.deps
rm -rf "$out" && mkdir -p "$out/include/boost"
cp -r /usr/include/boost/hana /usr/include/boost/hana.hpp "$out/include/boost/"
cp -r /usr/include/range /usr/include/meta /usr/include/concepts /usr/include/std "$out/include/" 2>/dev/null || true
cp -r /usr/include/CLI /usr/include/fmt "$out/include/"
cp -r /usr/src/googletest "$out/googletest"
du -sh "$out"
