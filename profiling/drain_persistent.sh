#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 29-30: the persistent drain (path regeneration, as the megakernel) and
# its threshold; the determinism checks of the GPU tests (push against select bit for bit). Everything under
# $OUT/logs.tgz.
#   bash profiling/drain_persistent.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
grep -E "push variant|megakernel .* ms, wavefront|Failure|largest|Which is" "$O/gpu_tests.log" | head -30
for d in 65536 262144 1048576 2097152; do
  echo "== drain $d"
  timeout 150 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json \
    scenes/helmet.json --backend gpu --repeat 3 --modes wavefront --no-raycast --drain $d > "$O/bench-drain$d.txt" 2>&1
  echo "rc=$?"; show "$O/bench-drain$d.txt"; grep -E "^scenes|^    (drain) " "$O/bench-drain$d.txt"
done
echo "== ncu: RTIOW shade and megakernel (instructions, SIMD efficiency, stalls)"
for k in shade megakernel; do
  mode=wavefront; [ $k = megakernel ] && mode=megakernel
  timeout 200 ncu --kernel-name "regex:^($k)\$" --launch-skip 1 --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section InstructionStats --metrics \
    smsp__thread_inst_executed.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio \
    --csv --page details $B/wavepath render scenes/rtiow.json --backend gpu --mode $mode --spp 4 -o /tmp/n.exr \
    > "$O/ncu-rtiow-$k.csv" 2> "$O/ncu-rtiow-$k.err"
  echo "ncu $k rc=$?"
  python3 - "$O/ncu-rtiow-$k.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ix = {h: i for i, h in enumerate(hdr)}
for r in rows[1:]:
    n = r[ix["Metric Name"]]
    if any(k in n for k in ("Duration", "Warp Cycles Per Issued", "Achieved Occupancy", "thread_inst_executed", "inst_executed.sum",
                            "Issue Slots Busy", "Compute (SM) Throughput", "Memory Throughput", "Stall", "Branch Instructions Ratio",
                            "Executed Ipc Active")):
        print(f'{r[ix["Kernel Name"]][:12]:12} {n[:60]:60} {r[ix["Metric Value"]]:>14} {r[ix["Metric Unit"]]}')
PY
done
