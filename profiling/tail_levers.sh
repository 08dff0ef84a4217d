#!/usr/bin/env bash
# One device call for profiling/LOG.md entries 14-17: GPU tests; the benchmark set on both tree widths with the
# defaults (tail drain on); the drain threshold, queue capacity and L2-persistence levers on the scenes they
# concern; the while-while binary traversal (second build in .devcarry/ww); memcheck over the drain.
#   bash profiling/tail_levers.sh        (binaries in .devcarry/, README "Measured"; JSON and logs under $OUT)
set -u
O=${OUT:-/tmp/wp-out}
source "$(dirname "$0")/common.sh"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== GPU tests (default tree)"
timeout 240 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|drained" "$O/gpu_tests.log" | head -24
for w in 8 2; do
  echo "== bench, BVH width $w (defaults: drain 65536)"
  WP_BVH_WIDTH=$w timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-w$w.json" > "$O/bench-w$w.txt" 2>&1
  echo "rc=$?"; show "$O/bench-w$w.txt"
done
grep -E "^  (extend|shade|shadow|generate|compact|drain|megakernel) " "$O/bench-w8.txt" | head -40
echo "== drain threshold (wavefront; default tree)"
for d in 0 16384 262144; do
  timeout 90 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/dragon.json --modes wavefront --no-raycast \
    --backend gpu --repeat 3 --drain $d --json "$O/drain-$d.json" > "$O/drain-$d.txt" 2>&1
  echo "drain $d rc=$?"; show "$O/drain-$d.txt"
done
echo "== queue capacity (wavefront; default tree, default drain)"
for c in 1048576 2097152; do
  timeout 90 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/dragon.json --modes wavefront --no-raycast \
    --backend gpu --repeat 3 --capacity $c --json "$O/cap-$c.json" > "$O/cap-$c.txt" 2>&1
  echo "capacity $c rc=$?"; show "$O/cap-$c.txt"
done
echo "== L2 persistence window over the nodes (default tree)"
timeout 120 $B/wavepath bench scenes/sponza.json scenes/dragon.json --backend gpu --repeat 3 --l2-persist \
  --json "$O/l2.json" > "$O/l2.txt" 2>&1; echo "rc=$?"; show "$O/l2.txt"
if [ -x $B/ww/wavepath ]; then
  echo "== while-while binary traversal (WP_BVH_WIDTH=2)"
  WP_BVH_WIDTH=2 timeout 200 $B/ww/wavepath bench --backend gpu --repeat 3 --json "$O/ww-w2.json" > "$O/ww-w2.txt" 2>&1
  echo "rc=$?"; show "$O/ww-w2.txt"
  grep -E "^  (extend|shadow|megakernel) " "$O/ww-w2.txt" | head -12
  echo "== GPU tests, while-while build, binary tree"
  WP_BVH_WIDTH=2 timeout 200 $B/ww/wp_gpu_tests > "$O/gpu_tests_ww.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests_ww.log" | head
fi
echo "== memcheck over the drain (wavefront, both trees)"
for w in 8 2; do
  WP_BVH_WIDTH=$w timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/cornell-box.json \
    --backend gpu --mode wavefront --width 96 --height 96 --spp 4 --capacity 8192 --stats -o /tmp/san.exr > "$O/memcheck-w$w.txt" 2>&1
  echo "memcheck width $w rc=$?"; grep -E "ERROR SUMMARY|drained" "$O/memcheck-w$w.txt"
done
echo "== ncu: RTIOW shade (why shade costs more than extend there)"
WP=$B/wavepath timeout 150 bash profiling/ncu_stage.sh scenes/rtiow.json shade 2 "$O/ncu" -- --spp 2 2>&1 | tail -24
