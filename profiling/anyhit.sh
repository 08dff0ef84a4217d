#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 25: any-hit (shadow) rays back on the single-loop traversal while closest
# hits keep the while-while one. GPU tests, the benchmark set, memcheck. Everything under $OUT/logs.tgz.
#   bash profiling/anyhit.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
echo "== GPU tests"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
echo "== bench"
timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
echo "rc=$?"; show "$O/bench.txt"; grep -E "^scenes|^    (generate|extend|shade|shadow|compact_select|compact|drain|megakernel) " "$O/bench.txt"
for sc in sponza rtiow; do
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/$sc.json --backend gpu \
    --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr > "$O/memcheck-$sc.log" 2>&1
  echo "memcheck $sc rc=$?"; grep -E "ERROR SUMMARY" "$O/memcheck-$sc.log"
done
