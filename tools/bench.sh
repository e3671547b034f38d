#!/usr/bin/env bash
# tilegrad vs PyTorch on the GPU machine: tools/bench.sh BUILD_DIR OUT_DIR [--quick]
set -euo pipefail
PYTHONUNBUFFERED=1 python3 "$(dirname "$0")/bench.py" "$@"
