#!/usr/bin/env bash
# Issue 7's levers, each measured by `wavepath bench` on the benchmark set in one device call (profiling/LOG.md):
#   profiling/levers.sh [bin dir, default .devcarry] [out dir]
# Variants: the default build's schedules and options, and builds with other compile flags in bin/<variant>/
# (lb: __launch_bounds__ for extend/shadow, -DWAVEPATH_TRAVERSAL_MIN_BLOCKS=12; fm: -DWAVEPATH_FAST_MATH=ON).
set -u
cd "$(dirname "$0")/.."
B=${1:-.devcarry}
O=${2:-${OUT:-/tmp}/levers}
mkdir -p "$O"
export CUDA_MODULE_LOADING=EAGER
run() {  # label binary args...
  local label=$1 bin=$2; shift 2
  [ -x "$bin" ] || { echo "$label: no $bin"; return; }
  timeout 200 "$bin" bench --backend gpu --repeat 3 --json "$O/$label.json" "$@" > "$O/$label.txt" 2>&1
  echo "$label rc=$?"
}
run default        $B/wavepath
run pipelined      $B/wavepath --modes wavefront --pipelined --no-raycast
run untimed        $B/wavepath --modes wavefront,megakernel --no-kernel-timing --no-raycast
run push           $B/wavepath --modes wavefront --push-compaction --no-raycast
run sorted         $B/wavepath --modes wavefront --sort-materials --no-raycast
run sorted-push    $B/wavepath --modes wavefront --sort-materials --push-compaction --no-raycast
run lb             $B/lb/wavepath --modes wavefront
run fm             $B/fm/wavepath
python3 - "$O" <<'PY'
import json, os, sys
d = sys.argv[1]
rows = []
for label in ["default", "pipelined", "untimed", "push", "sorted", "sorted-push", "lb", "fm"]:
    p = os.path.join(d, label + ".json")
    if not os.path.exists(p): continue
    j = json.load(open(p))
    for s in j["scenes"]:
        for m in s["modes"]:
            ks = {k["kernel"]: k for k in m["kernels"]}
            q = sum(ks[k]["percent_of_frame"] for k in ("generate", "compact_select", "compact", "prepare") if k in ks)
            ext = ks.get("extend", {})
            rc = s.get("raycast", {})
            rows.append((label, s["name"], m["mode"], m["render_ms"], m["msamples_per_s"], m["mrays_per_s"], q,
                         ext.get("registers", "-"), rc.get("primary_grays_per_s", 0), rc.get("diffuse_grays_per_s", 0)))
print("%-12s %-12s %-10s %9s %11s %9s %7s %5s %8s %8s" % ("variant", "scene", "mode", "ms", "Msamples/s", "Mrays/s",
      "queue%", "regs", "prim G/s", "diff G/s"))
for r in rows:
    print("%-12s %-12s %-10s %9.2f %11.1f %9.1f %7.1f %5s %8.2f %8.2f" % r)
PY
