#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 29-31: shade with one inlined stage body for both compactions, depth
# histograms per block in shared memory (and --no-queue-stats to see what they cost), persistent drain at 262144.
# GPU tests, the benchmark set with the defaults, the wavefront without queue statistics, memcheck. Everything
# under $OUT/logs.tgz.
#   bash profiling/hist_shared.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
grep -E "push variant .* differ|Failure|Which is" "$O/gpu_tests.log" | head -20
run_bench_defaults --repeat 3
echo "== bench, --no-queue-stats"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --modes wavefront --no-queue-stats --no-raycast \
  --json "$O/bench-nostats.json" > "$O/bench-nostats.txt" 2>&1
echo "rc=$?"; show "$O/bench-nostats.txt"; grep -E "^scenes|^    (shade|drain) " "$O/bench-nostats.txt"
for sc in sponza cornell-box; do memcheck_render $sc --spp 4; done
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $B/wavepath render scenes/cornell-box.json --backend gpu \
  --mode both --width 64 --height 64 --spp 4 -o /tmp/san.exr > "$O/racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY" "$O/racecheck.log"
