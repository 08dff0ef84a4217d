#!/usr/bin/env bash
# Device call closing the session of LOG entries 37-40: the committed code. GPU tests (default and with the tree
# optimisation WP_BVH_OPTIMIZE=50), the benchmark set (median of 5) both ways, compute-sanitizer's four tools over
# the seven scenes. Everything under $OUT/logs.tgz.
#   bash profiling/session_final2.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_gpu_tests_env opt WP_BVH_OPTIMIZE=50
run_bench_defaults --repeat 5
run_bench_env opt WP_BVH_OPTIMIZE=50
echo "== compute-sanitizer"
timeout 400 bash profiling/sanitize_gpu.sh $B/wavepath "$O/sanitize" > "$O/sanitize-console.txt" 2>&1
echo "sanitize rc=$?"; cat "$O/sanitize-console.txt"
