#!/usr/bin/env bash
# One call on the device machine: GPU tests, profiling/bench.sh (the benchmark set in both schedules, then the
# wavefront sorted and with DeviceSelect compaction), compute-sanitizer over every kernel, an Nsight Compute pass
# over both schedules and one profiling/ncu_stage.sh example, and the showcase renders. Everything under $OUT (one
# archive + images). Binaries as in common.sh: carry .devcarry/ with wavepath, wp_gpu_tests, kernel_resources.txt
# and lib/ (the shared libraries they load).
set -u
. "$(dirname "$0")/common.sh"
trap 'if [ -n "${OUT:-}" ]; then tar czf "$OUT/logs.tgz" -C "$O" .; cp "$O"/*.png "$O"/*.svg "$O"/*.json "$OUT"/ 2>/dev/null; fi' EXIT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
run_gpu_tests
bash profiling/bench.sh ${WP_BENCH_SCENES:-}
echo "== compute-sanitizer"
timeout 180 bash profiling/sanitize_gpu.sh "$WP" "$O/sanitize"; echo "sanitize rc=$?"
echo "== ncu (cornell 512x512 16 spp, both schedules)"
ncu --kernel-name regex:"^(megakernel|generate|extend|shade|shadow|compact)$" --launch-count 16 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  "$WP" render scenes/cornell-box.json --backend gpu --mode both --width 512 --height 512 --spp 16 -o /tmp/ncu.exr > "$O/ncu.log" 2>&1
ncu --kernel-name regex:"^megakernel$" --launch-count 2 \
  --metrics launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__thread_inst_executed_per_inst_executed.ratio,gpu__time_duration.sum \
  "$WP" render scenes/cornell-box.json --backend gpu --mode megakernel --width 512 --height 512 --spp 16 -o /tmp/ncu.exr >> "$O/ncu.log" 2>&1
python3 profiling/ncu_summary.py "$O/ncu.log"
echo "== ncu_stage.sh example: extend on sponza"
WP="$WP" bash profiling/ncu_stage.sh scenes/sponza.json extend 2 "$O/ncu" -- --spp 4 2>&1 | tail -14
echo "== showcase renders"
"$WP" render scenes/dragon.json --backend gpu --spp 256 -o "$O/dragon.png" 2>&1 | grep -v "^warning" | tail -1
[ -f scenes/helmet.json ] && "$WP" render scenes/helmet.json --backend gpu --spp 256 -o "$O/helmet.png" 2>&1 | grep -v "^warning" | tail -1
"$WP" render scenes/water-caustic/scene.json --backend gpu --spp 1024 --width 640 --height 360 -o "$O/water.png" 2>&1 | grep -v "^warning" | tail -1
