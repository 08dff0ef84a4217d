#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 34: Nsight Compute on a 4-spp wavefront render's first two extend launches
# (camera rays, then the first bounce) of Sponza and the dragon, with the persistent extend (default) and one thread
# per ray (--refill 0): thread instructions, SIMD efficiency, cycles per issued instruction. Everything under
# $OUT/logs.tgz.
#   bash profiling/ncu_extend.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
for sc in sponza dragon; do
  for r in 16 0; do
    timeout 120 ncu --kernel-name "regex:^extend" --launch-skip 0 --launch-count 2 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --metrics \
      smsp__thread_inst_executed.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio \
      --csv --page details $B/wavepath render scenes/$sc.json --backend gpu --mode wavefront --spp 4 \
      --refill $r -o /tmp/ncu.exr > "$O/ncu-$sc-refill$r.csv" 2> "$O/ncu-$sc-refill$r.err"
    echo "ncu $sc refill $r rc=$?"
    python3 - "$O/ncu-$sc-refill$r.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ix = {h: i for i, h in enumerate(hdr)}
for r in rows[1:]:
    n = r[ix["Metric Name"]]
    if n in ("Duration", "Warp Cycles Per Issued Instruction", "Achieved Occupancy", "smsp__thread_inst_executed.sum",
             "smsp__inst_executed.sum", "smsp__thread_inst_executed_per_inst_executed.ratio", "Compute (SM) Throughput"):
        print(f'{r[ix["ID"]]:>3} {r[ix["Kernel Name"]][:18]:18} {n[:50]:50} {r[ix["Metric Value"]]:>16} {r[ix["Metric Unit"]]}')
PY
  done
done
