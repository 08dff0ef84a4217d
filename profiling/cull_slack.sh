#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 29: closest-hit culling with a slack (kCullSlack, kernels/bvh.h) so that
# the hit does not depend on the order leaves are visited in; the single-loop persistent shadow kernel removed. GPU
# tests (push against select bit for bit, reruns), the benchmark set. Everything under $OUT/logs.tgz.
#   bash profiling/cull_slack.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
echo "== GPU tests"
timeout 240 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
grep -E "push variant|megakernel .* ms, wavefront" "$O/gpu_tests.log"
echo "== bench, defaults"
timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
echo "rc=$?"; show "$O/bench.txt"; grep -E "^scenes|^    (generate|extend|shade|shadow|drain|megakernel) " "$O/bench.txt"
