#!/usr/bin/env bash
# One call on the device machine: GPU tests, `wavepath bench` over the benchmark scene set in both schedules
# (JSON + SVG), compute-sanitizer over every kernel, an Nsight Compute pass over both schedules and one
# profiling/ncu_stage.sh example, and the showcase render. Everything under $OUT (one archive + images).
# Expects the binaries, kernel_resources.txt and the shared libraries in .devcarry/ (README "Measured").
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD"
O=/tmp/wp-out
mkdir -p "$O"
trap 'if [ -n "${OUT:-}" ]; then tar czf "$OUT/logs.tgz" -C "$O" .; cp "$O"/*.png "$O"/*.svg "$O"/*.json "$OUT"/ 2>/dev/null; fi' EXIT
B=.devcarry
export CUDA_MODULE_LOADING=EAGER
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
echo "== GPU tests"
$B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|OK \]|FAILED \]|Failure|tests|identical|Grays|channel|fit in" "$O/gpu_tests.log" | head -40
echo "== bench (benchmark scene set, both schedules)"
timeout 240 $B/wavepath bench ${WP_BENCH_SCENES:-} --backend gpu --repeat 3 --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
echo "rc=$?"; grep -vE "^warning" "$O/bench.txt" | head -150
echo "== bench, sorted shading"
timeout 60 $B/wavepath bench scenes/cornell-box.json scenes/sponza.json scenes/dragon.json --modes wavefront --sort-materials \
  --no-raycast --backend gpu --repeat 3 --json "$O/bench-sorted.json" 2>&1 | grep -E "^  wavefront  |^scenes"
echo "== bench, compaction by push (and with sorting)"
timeout 60 $B/wavepath bench --modes wavefront --push-compaction --no-raycast --backend gpu --repeat 3 \
  --json "$O/bench-push.json" 2>&1 | grep -E "^  wavefront  |^scenes"
timeout 60 $B/wavepath bench --modes wavefront --push-compaction --sort-materials --no-raycast --backend gpu \
  --repeat 3 --json "$O/bench-push-sorted.json" 2>&1 | grep -E "^  wavefront  |^scenes"
echo "== compute-sanitizer"
timeout 180 bash profiling/sanitize_gpu.sh $B/wavepath "$O/sanitize"; echo "sanitize rc=$?"
echo "== ncu (cornell 512x512 16 spp, both schedules)"
ncu --kernel-name regex:"^(megakernel|generate|extend|shade|shadow|compact)$" --launch-count 16 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  $B/wavepath render scenes/cornell-box.json --backend gpu --mode both --width 512 --height 512 --spp 16 -o /tmp/ncu.exr > "$O/ncu.log" 2>&1
ncu --kernel-name regex:"^megakernel$" --launch-count 2 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  $B/wavepath render scenes/cornell-box.json --backend gpu --mode megakernel --width 512 --height 512 --spp 16 -o /tmp/ncu.exr >> "$O/ncu.log" 2>&1
python3 profiling/ncu_summary.py "$O/ncu.log"
echo "== ncu_stage.sh example: extend on sponza"
WP=$B/wavepath bash profiling/ncu_stage.sh scenes/sponza.json extend 2 "$O/ncu" -- --spp 4 2>&1 | tail -14
echo "== showcase renders"
$B/wavepath render scenes/dragon.json --backend gpu --spp 256 -o "$O/dragon.png" 2>&1 | grep -v "^warning" | tail -1
[ -f scenes/helmet.json ] && $B/wavepath render scenes/helmet.json --backend gpu --spp 256 -o "$O/helmet.png" 2>&1 | grep -v "^warning" | tail -1
$B/wavepath render scenes/water-caustic/scene.json --backend gpu --spp 1024 --width 640 --height 360 -o "$O/water.png" 2>&1 | grep -v "^warning" | tail -1
