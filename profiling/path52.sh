#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 38: paths in 52-byte records (.devcarry/) against the 64-byte records of
# entry 37 (.devcarry/p64; otherwise the same code): GPU tests of the new build, the benchmark set (median of 5) for
# both, and compute-sanitizer's four tools over the seven scenes for the new build. Everything under $OUT/logs.tgz.
#   bash profiling/path52.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant p64
echo "== compute-sanitizer"
timeout 420 bash profiling/sanitize_gpu.sh $B/wavepath "$O/sanitize" > "$O/sanitize-console.txt" 2>&1
echo "sanitize rc=$?"; cat "$O/sanitize-console.txt"
