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
    WP_BVH_OPTIMIZE=$v timeout 100 ncu --kernel-name "regex:^extend" --launch-skip 0 --launch-count 2 \
      --metrics smsp__thread_inst_executed.sum,gpu__time_duration.sum \
      --csv --page details $B/wavepath render scenes/$sc.json --backend gpu --mode wavefront --spp 4 \
      -o /tmp/ncu.exr > "$O/ncu-opt$v-$sc.csv" 2> "$O/ncu-opt$v-$sc.err"
    echo "ncu opt $v $sc rc=$?"; grep -E "thread_inst|duration" "$O/ncu-opt$v-$sc.csv" | awk -F'","' '{print $(NF-2), $NF}'
  done
done
