#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 39: generate's divisions by multiply-high (FastDiv; .devcarry/) against the
# 32-bit divisions of entry 38 (.devcarry/prev), and the traversal kernels at 40 registers
# (-DWAVEPATH_TRAVERSAL_MIN_BLOCKS=12: 75% occupancy, ~30 B spills; .devcarry/lb12) against 48: GPU tests, the
# benchmark set (median of 5) for all three, Nsight Compute on RTIOW's first generate launch for the first two.
# Everything under $OUT/logs.tgz.
#   bash profiling/generate_lb.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant prev
run_bench_variant lb12
for v in new prev; do
  bin=$B/wavepath; [ $v = prev ] && bin=$B/prev/wavepath
  ncu_launches generate-$v $bin generate rtiow 1 smsp__thread_inst_executed.sum,dram__bytes_write.sum,gpu__time_duration.sum
done
