#!/usr/bin/env bash
# Device call closing the session (LOG entry 41): the committed code with the 8M-path default queue. GPU tests,
# the benchmark set (median of 5, both schedules, ray casts), and a 16M-path queue as a probe (wavefront only).
# Everything under $OUT/logs.tgz.
#   bash profiling/session_final3.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
echo "== bench, --capacity 16777216"
timeout 200 $B/wavepath bench --backend gpu --repeat 5 --modes wavefront --no-raycast --capacity 16777216 \
  --json "$O/bench-cap16m.json" > "$O/bench-cap16m.txt" 2>&1
bench_report $? cap16m
