#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 26-28: persistent extend/shadow kernels with lane refill, the persistent
# megakernel with path regeneration, frame times without per-kernel events. GPU tests, the benchmark set with the
# defaults, the same with one thread per ray (--refill 0 --refill-shadow 0), a sweep of the refill threshold on
# Sponza and the dragon, memcheck. Everything under $OUT/logs.tgz.
#   bash profiling/persistent.sh
# (As run for that entry. --refill-shadow and the persistent shadow kernels were removed after it, LOG entry 28,
# so today's binary rejects that option; the runs that used it fail and the rest go on.)
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 3
echo "== bench, one thread per ray (refill 0)"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --modes wavefront --refill 0 --refill-shadow 0 \
  --json "$O/bench-refill0.json" > "$O/bench-refill0.txt" 2>&1
echo "rc=$?"; show "$O/bench-refill0.txt"; grep -E "^scenes|^    (extend|shadow) " "$O/bench-refill0.txt"
echo "== bench, compaction by push (CUB block scan in shade)"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --modes wavefront --push-compaction --no-raycast \
  --json "$O/bench-push.json" > "$O/bench-push.txt" 2>&1
echo "rc=$?"; show "$O/bench-push.txt"; grep -E "^scenes|^    (generate|shade|compact|drain) " "$O/bench-push.txt"
for r in 4 8 24 32; do
  echo "== refill $r (extend and shadow)"
  timeout 120 $B/wavepath bench scenes/sponza.json scenes/dragon.json scenes/cornell-box.json --backend gpu --repeat 3 \
    --modes wavefront --refill $r --refill-shadow $r > "$O/bench-refill$r.txt" 2>&1
  echo "rc=$?"; show "$O/bench-refill$r.txt"; grep -E "^scenes|^    (extend|shadow) " "$O/bench-refill$r.txt"
done
for sc in sponza rtiow; do memcheck_render $sc --spp 2; done
timeout 100 compute-sanitizer --tool racecheck --error-exitcode 3 $B/wavepath render scenes/cornell-box.json --backend gpu \
  --mode both --width 64 --height 64 --spp 2 -o /tmp/san.exr > "$O/racecheck.log" 2>&1
echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/racecheck.log"
