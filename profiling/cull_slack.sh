#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 29: closest-hit culling with a slack (kCullSlack, kernels/bvh.h) so that
# the hit does not depend on the order leaves are visited in; the single-loop persistent shadow kernel removed. GPU
# tests (push against select bit for bit, reruns), the benchmark set. Everything under $OUT/logs.tgz.
#   bash profiling/cull_slack.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
grep -E "push variant|megakernel .* ms, wavefront" "$O/gpu_tests.log"
run_bench_defaults --repeat 3
