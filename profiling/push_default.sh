#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 27-29: compaction by push (CUB block scan in shade) as the default, ties
# to the lower primitive, the single-loop any-hit traversal made persistent for the shadow kernel. GPU tests, the
# benchmark set with the defaults, the same with --select-compaction, a sweep of --refill-shadow, sanitizers.
# Everything under $OUT/logs.tgz.
#   bash profiling/push_default.sh
# (As run for that entry. --refill-shadow and the persistent shadow kernels were removed after it, LOG entry 28,
# so today's binary rejects that option; the runs that used it fail and the rest go on.)
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 3
echo "== bench, --select-compaction"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --modes wavefront --select-compaction --no-raycast \
  --json "$O/bench-select.json" > "$O/bench-select.txt" 2>&1
echo "rc=$?"; show "$O/bench-select.txt"; grep -E "^scenes|^    (shade|compact_select|compact) " "$O/bench-select.txt"
for r in 8 16 32; do
  echo "== refill-shadow $r"
  timeout 120 $B/wavepath bench scenes/cornell-box.json scenes/sponza.json scenes/dragon.json scenes/helmet.json \
    --backend gpu --repeat 3 --modes wavefront --no-raycast --refill-shadow $r > "$O/bench-rs$r.txt" 2>&1
  echo "rc=$?"; show "$O/bench-rs$r.txt"; grep -E "^scenes|^    shadow " "$O/bench-rs$r.txt"
done
for sc in sponza rtiow; do memcheck_render $sc --spp 2 --refill-shadow 16; done
for tool in racecheck synccheck initcheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 $B/wavepath render scenes/cornell-box.json --backend gpu \
    --mode both --width 64 --height 64 --spp 2 --refill-shadow 16 -o /tmp/san.exr > "$O/$tool.log" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/$tool.log"
done
