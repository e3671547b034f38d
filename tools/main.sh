#!/usr/bin/env bash
# The main job: install dependencies, build, run every example verified (on the GPU when there is
# one, else on the host backend) and print one summary table.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
build=${TG_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja > /dev/null
examples="maxpool2d_bwd avgpool3d_bwd convnd_bwd_data groupnorm_bwd grouped_conv_bwd_weight conv_fwd relayout"
cmake --build "$build" -j"$(nproc)" --target $examples
log=$(mktemp)
status=0
for ex in $examples; do
  echo "== $build/examples/$ex 1 2 1"
  if ! "$build/examples/$ex" 1 2 1 | tee -a "$log"; then status=1; fi
done
echo
printf '%-24s %-66s %-8s %-6s %-6s %s\n' op problem backend dtype check "time (ms)"
grep '^SUMMARY|' "$log" | awk -F'|' '{printf "%-24s %-66s %-8s %-6s %-6s %s\n", $2, $3, $4, $5, $6, $7}'
rm -f "$log"
exit $status
