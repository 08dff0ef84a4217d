#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 40: the binary tree optimised after the build by reinsertion
# (WP_BVH_OPTIMIZE=50, BVHBuildOptions::optimize_batches) against the tree as built, same binary: GPU tests with
# the optimisation on, the benchmark set (median of 5) both ways, and Nsight Compute's thread instructions of the
# first two extend launches of Sponza and the dragon both ways. Everything under $OUT/logs.tgz.
#   bash profiling/bvh_optimize.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests_env opt WP_BVH_OPTIMIZE=50
run_bench_defaults --repeat 5
run_bench_env opt WP_BVH_OPTIMIZE=50
for v in 0 50; do
  for sc in sponza dragon; do
    WP_BVH_OPTIMIZE=$v ncu_launches opt$v-$sc $B/wavepath extend $sc 2 smsp__thread_inst_executed.sum,gpu__time_duration.sum
  done
done
