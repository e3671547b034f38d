#!/usr/bin/env bash
# On the GPU machine, after a build in build-gpu: Nsight Compute's full set (clocks left alone) on one
# kernel of each case, a case per line on stdin: NAME KERNEL_REGEX EXAMPLE ARGS... (without --backend
# and --repeat). Writes $OUT/NAME.txt (the details page and the SASS lines with the most stall samples)
# and prints each kernel's headline numbers; KEEP_REPORT=1 also keeps NAME.ncu-rep and NAME.source.csv.
#   tools/gpu-profile-cases.sh < cases.txt
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
while read -r name kernel ex args; do
  [ -z "$name" ] && continue
  case $name in \#*) continue;; esac
  rep=/tmp/prof-$name
  ncu --clock-control none -k "regex:$kernel" -c 1 --set full --import-source no -f -o "$rep" build-gpu/examples/$ex $args --backend gpu --repeat 1 > /dev/null 2>&1
  ncu -i "$rep.ncu-rep" --page details > "$out/$name.txt" 2>&1
  if [ "${KEEP_REPORT:-0}" = 1 ]; then
    cp "$rep.ncu-rep" "$out/$name.ncu-rep"
    ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$out/$name.source.csv" 2>&1
  fi
  echo "== $name: $ex $args" | tee -a "$out/summary.txt"
  grep -E "^  [a-z]|Duration|Registers Per|Executed Ipc Active|DRAM Throughput|L2 Hit Rate|Compute \(SM\) Throughput|Memory Throughput  .*%|Warp Cycles Per Issued" "$out/$name.txt" |
    sed 's/(T1.*//' | cut -c1-140 | tee -a "$out/summary.txt"
  # The SASS lines where the warps stalled most (the source page's per-instruction samples).
  ncu -i "$rep.ncu-rep" --page source --csv --print-source sass 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
at = next((i for i, r in enumerate(rows) if "Source" in r), None)
if at is None: sys.exit()
end = next((i for i in range(at + 1, len(rows)) if rows[i] and rows[i][0] == "Kernel Name"), len(rows))
h, rows = rows[at], [rows[at]] + rows[at + 1:end]  # the first kernel only
col = next((i for i, x in enumerate(h) if x.startswith("Warp Stall Sampling (All")), None)
src = next((i for i, x in enumerate(h) if x == "Source"), None)
if col is None or src is None: sys.exit()
val = lambda r: float(r[col] or 0) if r[col].replace(".", "", 1).isdigit() else 0.0
tot = sum(val(r) for r in rows[1:]) or 1
print("   top stall lines (share of samples):")
for r in sorted(rows[1:], key=val, reverse=True)[:25]: print(f"   {100*val(r)/tot:5.1f}%  {r[src][:110]}")
' >> "$out/$name.txt"
done
