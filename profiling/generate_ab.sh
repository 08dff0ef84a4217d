#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 38: generate with a 32-bit index split and the pixel's column and row from
# its rank (.devcarry/) against entry 38's 52-byte paths with the old generate (.devcarry/prev): GPU tests, the
# benchmark set (median of 5) for both, and Nsight Compute on RTIOW's first generate launch for both (instructions,
# DRAM throughput). Everything under $OUT/logs.tgz.
#   bash profiling/generate_ab.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant prev
for v in new prev; do
  bin=$B/wavepath; [ $v = prev ] && bin=$B/prev/wavepath
  ncu_launches generate-$v $bin generate rtiow 1 \
    smsp__thread_inst_executed.sum,dram__bytes_write.sum,gpu__time_duration.sum --section SpeedOfLight
done
