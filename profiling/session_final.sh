#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 33: the committed code after the ww_round refactor (one while-while round
# shared by traverse_ww and the persistent extend): GPU tests, the benchmark set (both modes, ray casts, median of
# 5), shade with __launch_bounds__(128, 8) (.devcarry/lb, -DWAVEPATH_SHADE_MIN_BLOCKS=8) against the default,
# compute-sanitizer (memcheck, racecheck, synccheck, initcheck) over the seven scenes. Everything under
# $OUT/logs.tgz.
#   bash profiling/session_final.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
echo "== bench, shade __launch_bounds__(128, 8)"
timeout 200 $B/lb/wavepath bench --backend gpu --repeat 5 --modes wavefront --no-raycast \
  --resources $B/lb/kernel_resources.txt > "$O/bench-shade-lb.txt" 2>&1
echo "rc=$?"; show "$O/bench-shade-lb.txt"; grep -E "^scenes|^    shade " "$O/bench-shade-lb.txt"
echo "== compute-sanitizer"
timeout 400 bash profiling/sanitize_gpu.sh $B/wavepath "$O/sanitize" > "$O/sanitize-console.txt" 2>&1
echo "sanitize rc=$?"; cat "$O/sanitize-console.txt"
