#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 21-22: the benchmark set after moving the per-kernel event reads off the
# iteration's critical path (timed and untimed); BVH leaf sizes under the while-while traversal (WP_BVH_MAX_LEAF);
# Nsight Compute stall reasons of RTIOW's shade and Sponza's extend and shadow. Everything under $OUT/logs.tgz.
#   bash profiling/gaps_leaves.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
sum_kernels() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for sc in d["scenes"]:
    for m in sc["modes"]:
        if m["mode"] != "wavefront": continue
        ks = sum(k["ms"] for k in m["kernels"])
        print(f'{sc["name"]:12} frame {m["render_ms"]:8.2f} ms, kernels {ks:8.2f} ms, gaps {m["render_ms"] - ks:6.2f} ms over {m.get("iterations", 0)} iterations')
PY
}
echo "== GPU tests"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
echo "== bench, defaults"
timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
echo "rc=$?"; show "$O/bench.txt"; sum_kernels "$O/bench.json"
echo "== bench, frame events only (wavefront)"
timeout 120 $B/wavepath bench --backend gpu --repeat 3 --modes wavefront --no-raycast --no-kernel-timing \
  --json "$O/untimed.json" > "$O/untimed.txt" 2>&1; echo "rc=$?"; show "$O/untimed.txt"
for leaf in 1 2 4 8; do
  echo "== WP_BVH_MAX_LEAF=$leaf"
  WP_BVH_MAX_LEAF=$leaf timeout 200 $B/wavepath bench --backend gpu --repeat 3 --json "$O/leaf$leaf.json" > "$O/leaf$leaf.txt" 2>&1
  echo "rc=$?"; show "$O/leaf$leaf.txt"
done
echo "== ncu stall reasons"
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__thread_inst_executed_per_inst_executed.ratio,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active'
timeout 150 ncu --kernel-name regex:"^shade$" --launch-skip 2 --launch-count 1 --metrics "$M" $B/wavepath render scenes/rtiow.json \
  --backend gpu --mode wavefront --spp 4 -o /tmp/r.exr > "$O/ncu-rtiow-shade.txt" 2>&1; echo "rc=$?"
timeout 150 ncu --kernel-name regex:"^(extend|shadow)$" --launch-skip 2 --launch-count 2 --metrics "$M" $B/wavepath render scenes/sponza.json \
  --backend gpu --mode wavefront --spp 4 -o /tmp/s.exr > "$O/ncu-sponza.txt" 2>&1; echo "rc=$?"
for f in "$O/ncu-rtiow-shade.txt" "$O/ncu-sponza.txt"; do
  python3 - "$f" <<'PY'
import re, sys
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"\s+(?:void )?(\w+)(?:<\d>)?\(", line)
    if m and "Context" in line: cur = m.group(1); print("--", cur); continue
    m = re.match(r"\s+(\S+)\s+(\S*)\s+([\d,.]+)\s*$", line)
    if cur and m:
        name, val = m.group(1), float(m.group(3).replace(",", ""))
        if "stalled" in name:
            if val >= 0.5: print(f'   {name.replace("smsp__average_warps_issue_stalled_", "stall ").replace("_per_issue_active.ratio", ""):40} {val:8.2f}')
        else: print(f'   {name:60} {val:,.2f}')
PY
done
