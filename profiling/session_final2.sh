#!/usr/bin/env bash
# Device call closing the session of LOG entries 37-40: the committed code. GPU tests (default and with the tree
# optimisation WP_BVH_OPTIMIZE=50), the benchmark set (median of 5) both ways, compute-sanitizer's four tools over
# the seven scenes. Everything under $OUT/logs.tgz.
#   bash profiling/session_final2.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
echo "== GPU tests, WP_BVH_OPTIMIZE=50"
WP_BVH_OPTIMIZE=50 timeout 240 $B/wp_gpu_tests > "$O/gpu_tests-opt.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests-opt.log" | head
run_bench_defaults --repeat 5
echo "== bench, WP_BVH_OPTIMIZE=50"
WP_BVH_OPTIMIZE=50 timeout 200 $B/wavepath bench --backend gpu --repeat 5 --json "$O/bench-opt.json" > "$O/bench-opt.txt" 2>&1
echo "rc=$?"; show "$O/bench-opt.txt"
echo "== compute-sanitizer"
timeout 400 bash profiling/sanitize_gpu.sh $B/wavepath "$O/sanitize" > "$O/sanitize-console.txt" 2>&1
echo "sanitize rc=$?"; cat "$O/sanitize-console.txt"
