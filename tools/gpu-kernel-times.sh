#!/usr/bin/env bash
# On the GPU machine, after a build in build-gpu: for each example command line (one per line on stdin,
# the example's name then its arguments, without --backend/--repeat), the call's time as the benchmark
# measures it (CUDA events around the whole call, median of --repeat 50) beside the sum of its kernels'
# own durations (Nsight Compute's gpu__time_duration, one call), per kernel. The gap between the two is
# host time and launch gaps: what a faster kernel cannot win back.
#   tools/gpu-kernel-times.sh < cases.txt
set -uo pipefail
cd "$(dirname "$0")/.."
while read -r ex args; do
  [ -z "$ex" ] && continue
  case $ex in \#*) continue;; esac
  exe=build-gpu/examples/$ex
  event=$("$exe" $args --backend gpu --repeat 50 | sed -n 's/.*Perf: \([0-9.e+-]*\) ms.*/\1/p' | tail -1)
  echo "== $ex $args"
  echo "   call (events, median of 50): ${event:-?} ms"
  # Every launch in order (the example runs the op more than once: its warm-up, then the timed call).
  ncu --clock-control none --csv --metrics gpu__time_duration.sum "$exe" $args --backend gpu --repeat 1 2>/dev/null |
    python3 -c '
import csv, sys
rows = [r for r in csv.reader(l for l in sys.stdin if l.startswith("\"")) if len(r) > 10]
if not rows: sys.exit("   (no kernels profiled)")
head, rows = rows[0], rows[1:]
k = head.index("Kernel Name"); v = head.index("Metric Value")
for r in rows: print(f"   {r[k].split(chr(40))[0][:90]:90s} {float(r[v].replace(chr(44), str()))/1e3:9.1f} us")
'
done
