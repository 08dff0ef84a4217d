#!/usr/bin/env bash
# Second device call of the drain session (profiling/LOG.md entries 16-18): GPU tests on the committed defaults
# (binary tree, drain 65536) and on the 8-wide tree; the benchmark set on the defaults; queue capacities above
# the default; the while-while binary traversal (build in .devcarry/ww, -DWAVEPATH_WHILE_WHILE=ON) with its GPU
# tests. Everything under $OUT/logs.tgz.   bash profiling/session_check.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for w in 2 8; do
  echo "== GPU tests, WP_BVH_WIDTH=$w"
  WP_BVH_WIDTH=$w timeout 200 $B/wp_gpu_tests > "$O/gpu_tests-w$w.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|drained" "$O/gpu_tests-w$w.log" | head -12
done
echo "== bench, defaults"
timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
echo "rc=$?"; show "$O/bench.txt"
grep -E "^scenes|^    (generate|extend|shade|shadow|compact|compact_select|drain|megakernel) " "$O/bench.txt"
echo "== bench, 8-wide tree (byte-to-float without I2F)"
WP_BVH_WIDTH=8 timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-w8.json" > "$O/bench-w8.txt" 2>&1
echo "rc=$?"; show "$O/bench-w8.txt"
echo "== gather compaction (the previous default) against index compaction (wavefront)"
timeout 150 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json scenes/helmet.json \
  --modes wavefront --no-raycast --backend gpu --repeat 3 --gather-compaction --json "$O/gather.json" > "$O/gather.txt" 2>&1
echo "rc=$?"; show "$O/gather.txt"
grep -E "^scenes|^    (generate|compact_select|compact|compact_partition|drain) " "$O/gather.txt"
echo "== ncu: instructions per ray and SIMD efficiency of the ray-cast pass (Sponza, both trees)"
for w in 2 8; do
  WP_BVH_WIDTH=$w timeout 120 ncu --kernel-name regex:"^extend" --launch-count 2 \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
    $B/wavepath bench scenes/sponza.json --modes megakernel --spp 1 --warmup 0 --repeat 1 --backend gpu > "$O/ncu-raycast-w$w.txt" 2>&1
  echo "width $w rc=$?"; grep -E "extend|duration|inst_executed|warps_active|issue_active|registers" "$O/ncu-raycast-w$w.txt" | grep -v "^==PROF" | head -20
done
echo "== queue capacity above the default (wavefront)"
for c in 8388608; do
  timeout 120 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json \
    --modes wavefront --no-raycast --backend gpu --repeat 3 --capacity $c --json "$O/cap-$c.json" > "$O/cap-$c.txt" 2>&1
  echo "capacity $c rc=$?"; show "$O/cap-$c.txt"
done
if [ -x $B/ww/wavepath ]; then
  echo "== while-while binary traversal"
  timeout 240 $B/ww/wavepath bench --backend gpu --repeat 3 --json "$O/ww.json" > "$O/ww.txt" 2>&1
  echo "rc=$?"; show "$O/ww.txt"
  grep -E "^scenes|^    (extend|shadow|megakernel|drain) " "$O/ww.txt"
  echo "== GPU tests, while-while build"
  timeout 200 $B/ww/wp_gpu_tests > "$O/gpu_tests-ww.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure" "$O/gpu_tests-ww.log" | head
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/ww/wavepath render scenes/sponza.json --backend gpu \
    --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr > "$O/memcheck-ww.log" 2>&1
  echo "memcheck ww rc=$?"; grep -E "ERROR SUMMARY" "$O/memcheck-ww.log"
fi
