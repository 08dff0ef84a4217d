#!/usr/bin/env bash
# End-of-session check of the committed defaults (profiling/LOG.md "Where the targets stand"): GPU tests, `wavepath
# bench` over the benchmark set for both tree widths, an ncu pass counting instructions per ray of the ray-cast
# pass, and compute-sanitizer memcheck on Sponza (spatial splits) and the sphere field in both schedules.
# Everything under $OUT/logs.tgz.   bash profiling/final_check.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== GPU tests (defaults)"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|graphs:|regs" "$O/gpu_tests.log" | head -24
for w in 2 8; do
  echo "== bench, BVH width $w"
  WP_BVH_WIDTH=$w timeout 250 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-w$w.json" > "$O/bench-w$w.txt" 2>&1
  echo "rc=$?"; show "$O/bench-w$w.txt"
done
grep -E "^scenes|^    (generate|extend|shade|shadow|compact|compact_select|drain|megakernel) " "$O/bench-w2.txt"
echo "== ncu: instructions per ray and SIMD efficiency of the ray-cast pass (Sponza, default tree)"
timeout 120 ncu --kernel-name regex:"^extend" --launch-count 2 \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
  $B/wavepath bench scenes/sponza.json --modes megakernel --spp 1 --warmup 0 --repeat 1 --backend gpu > "$O/ncu-raycast.txt" 2>&1
echo "rc=$?"; grep -E "extend|duration|inst_executed|warps_active|issue_active" "$O/ncu-raycast.txt" | grep -v "^==PROF" | head -14
for sc in sponza rtiow; do
  for w in 2 8; do
    echo "== memcheck $sc, width $w, both schedules"
    WP_BVH_WIDTH=$w timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/$sc.json \
      --backend gpu --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr > "$O/memcheck-$sc-$w.log" 2>&1
    echo "memcheck rc=$?"; grep -E "^=========" "$O/memcheck-$sc-$w.log" | head -12
  done
done
