#!/usr/bin/env bash
# Nsight Compute triage of one stage of one scene:
#   profiling/ncu_stage.sh SCENE STAGE [LAUNCHES] [OUTDIR] [-- extra wavepath render args]
# STAGE is a kernel name: generate, extend, shade, shadow, compact, megakernel, diffuse_bounce (or any regex).
# Profiles LAUNCHES launches (default 3) after skipping the first (cold caches) with the sections SpeedOfLight,
# LaunchStats, Occupancy, WarpStateStats and MemoryWorkloadAnalysis; writes OUTDIR/<scene>-<stage>.ncu-rep and
# the same report as CSV (OUTDIR/<scene>-<stage>.csv), and prints the headline metrics.
# Build with -DWAVEPATH_PROFILE=ON for source-level (-lineinfo) views in the Nsight Compute GUI.
# Environment: WP (the wavepath binary; default build/wavepath, else .devcarry/wavepath), NCU (default ncu).
set -euo pipefail
if [ $# -lt 2 ]; then sed -n '2,9p' "$0"; exit 2; fi
scene=$1 stage=$2 launches=${3:-3} outdir=${4:-${OUT:-/tmp}/ncu}
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
WP=${WP:-build/wavepath}
[ -x "$WP" ] || WP=.devcarry/wavepath
NCU=${NCU:-ncu}
mode=wavefront
case "$stage" in megakernel) mode=megakernel ;; esac
mkdir -p "$outdir"
name="$(basename "${scene%.*}")-$stage"
"$NCU" --kernel-name "regex:^($stage)\$" --launch-skip 1 --launch-count "$launches" \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis -f -o "$outdir/$name" \
  "$WP" render "$scene" --backend gpu --mode "$mode" -o "$outdir/$name.exr" "$@" > "$outdir/$name.log" 2>&1
"$NCU" --import "$outdir/$name.ncu-rep" --csv --page details > "$outdir/$name.csv"
echo "$outdir/$name.csv"
python3 - "$outdir/$name.csv" <<'PY'
import csv, sys
want = {"Duration", "Compute (SM) Throughput", "Memory Throughput", "Registers Per Thread", "Achieved Occupancy",
        "Theoretical Occupancy", "Warp Cycles Per Issued Instruction", "L1/TEX Hit Rate", "L2 Hit Rate", "DRAM Throughput"}
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r.get("Metric Name") in want:
        print(f'{r["ID"]:>3} {r["Kernel Name"][:16]:16} {r["Metric Name"]:36} {r["Metric Value"]:>12} {r["Metric Unit"]}')
PY
