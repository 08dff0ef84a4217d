#!/usr/bin/env bash
# Nsight Compute triage of one stage of one scene:
#   profiling/ncu_stage.sh SCENE STAGE [LAUNCHES] [OUTDIR] [-- extra wavepath render args]
# STAGE is a row of the per-kernel table: generate, extend, sort_materials, shade, shadow, compact_select, compact,
# drain, megakernel, diffuse_bounce (profiling/stages.sh maps each to its kernels and to the options that run it;
# diffuse_bounce runs in the bench's ray-cast pass). Profiles LAUNCHES launches (default 3), after skipping the first
# (cold caches) where a render has more than one, with the sections SpeedOfLight, LaunchStats, Occupancy,
# WarpStateStats, MemoryWorkloadAnalysis and InstructionStats; writes OUTDIR/<scene>-<stage>.ncu-rep and the same report as CSV
# (OUTDIR/<scene>-<stage>.csv), and prints the headline metrics.
# Build with -DWAVEPATH_PROFILE=ON for source-level (-lineinfo) views in the Nsight Compute GUI.
# Environment: WP (the wavepath binary; default as in common.sh: build/ with a CUDA build, else .devcarry/), NCU.
set -euo pipefail
if [ $# -lt 2 ]; then sed -n '2,11p' "$0"; exit 2; fi
scene=$(realpath "$1") stage=$2 launches=${3:-3} outdir=$(realpath -m "${4:-${OUT:-/tmp}/ncu}")
shift $(( $# < 4 ? $# : 4 ))
[ "${1:-}" = "--" ] && shift
[ -n "${WP:-}" ] && WP=$(realpath "$WP")
. "$(dirname "$0")/common.sh"
NCU=${NCU:-ncu}
skip=1
case "$stage" in drain | megakernel) skip=0 ;; esac  # one launch per render (the megakernel: per batch)
mkdir -p "$outdir"
name="$(basename "${scene%.*}")-$stage"
if [ "$stage" = diffuse_bounce ]; then
  run=("$WP" bench "$scene" --backend gpu --modes wavefront --repeat 1 --warmup 0 "$@")
else
  # shellcheck disable=SC2207
  run=("$WP" render "$scene" --backend gpu $(stage_render_args "$stage") -o "$outdir/$name.exr" "$@")
fi
"$NCU" --kernel-name "regex:^($(stage_kernel_regex "$stage"))\$" --launch-skip "$skip" --launch-count "$launches" \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \
  --section MemoryWorkloadAnalysis --section InstructionStats -f -o "$outdir/$name" "${run[@]}" > "$outdir/$name.log" 2>&1
"$NCU" --import "$outdir/$name.ncu-rep" --csv --page details > "$outdir/$name.csv"
echo "$outdir/$name.csv"
python3 - "$outdir/$name.csv" <<'PY'
import csv, sys
want = {"Duration", "Compute (SM) Throughput", "Memory Throughput", "Registers Per Thread", "Achieved Occupancy",
        "Theoretical Occupancy", "Warp Cycles Per Issued Instruction", "L1/TEX Hit Rate", "L2 Hit Rate", "DRAM Throughput",
        "Executed Instructions", "Issue Slots Busy", "Grid Size"}
rows = list(csv.DictReader(open(sys.argv[1])))
if not rows:
    sys.exit("ncu_stage.sh: no kernel profiled")
for r in rows:
    if r.get("Metric Name") in want:
        print(f'{r["ID"]:>3} {r["Kernel Name"][:16]:16} {r["Metric Name"]:36} {r["Metric Value"]:>12} {r["Metric Unit"]}')
PY
