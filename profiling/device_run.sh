#!/usr/bin/env bash
# One call on the device machine: GPU tests, the benchmark, per-kernel registers/stack, memcheck, and an
# Nsight Compute pass (occupancy, SIMT efficiency) over both schedules. Full logs under $OUT.
# Expects the binaries in .devcarry/ (built here with the README build; see README "Measured").
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD"
O=/tmp/wp-out  # everything here; $OUT gets one archive of the logs and the showcase image (few files come back)
mkdir -p "$O"
trap 'if [ -n "${OUT:-}" ]; then tar czf "$OUT/logs.tgz" -C "$O" .; cp "$O"/*.png "$OUT"/ 2>/dev/null; fi' EXIT
B=.devcarry
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
echo "== GPU tests"
$B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED \]|Failure|tile tests|identical|Msamples|channel" "$O/gpu_tests.log" | head -40
echo "== benchmark"
bash profiling/bench.sh $B/wavepath "$O/bench"
echo "== registers / stack per kernel (cuobjdump)"
cuobjdump --dump-resource-usage $B/wavepath 2>/dev/null | grep -A1 -E "Function _ZN2wp" |
  sed -nE 's/.*Function _ZN2wp([0-9]+)([a-z_]+).*/\2/p; s/.*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+) LOCAL:([0-9]+).*/  REG \1 STACK \2 SHARED \3 LOCAL \4/p' | paste - - | tee "$O/resources.txt"
echo "== memcheck (wavefront and megakernel, small render)"
compute-sanitizer --tool memcheck $B/wavepath render scenes/glossy-glass.json --backend gpu --mode both \
  --width 64 --height 64 --spp 4 -o /tmp/memcheck.exr > "$O/memcheck.log" 2>&1
tail -2 "$O/memcheck.log"
echo "== ncu (cornell 512x512 16 spp)"
ncu --kernel-name regex:"^(megakernel|generate|extend|shade|shadow|compact)$" --launch-count 14 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  $B/wavepath render scenes/cornell-box.json --backend gpu --mode both --width 512 --height 512 --spp 16 -o /tmp/ncu.exr > "$O/ncu.log" 2>&1
ncu --kernel-name regex:"^megakernel$" --launch-count 2 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  $B/wavepath render scenes/cornell-box.json --backend gpu --mode megakernel --width 512 --height 512 --spp 16 -o /tmp/ncu.exr >> "$O/ncu.log" 2>&1
python3 profiling/ncu_summary.py "$O/ncu.log"
echo "== showcase render"
$B/wavepath render scenes/materials.json --backend gpu --spp 1024 -o "$O/materials.png" 2>&1 | tail -1
