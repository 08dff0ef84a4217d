#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 37: the conservative slab test (exit distances widened by kSlabWiden, box
# padding 2 ulps instead of 16) with the hit flags of node_children (.devcarry/) against the padding of 6d6b1ae
# (16 ulps, no widening; otherwise the same code: tiles, path_segment; .devcarry/pad16). GPU tests of the new build,
# the benchmark set (median of 5) for both, and Nsight Compute's thread instructions of the first two extend launches
# (camera rays, first bounce) of a 4-spp render of Sponza and the dragon for both. Everything under $OUT/logs.tgz.
#   bash profiling/slab_ab.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant pad16
for v in new pad16; do
  bin=$B/wavepath; [ $v = pad16 ] && bin=$B/pad16/wavepath
  for sc in sponza dragon; do
    ncu_launches $v-$sc $bin extend $sc 2 smsp__thread_inst_executed.sum,smsp__inst_executed.sum,gpu__time_duration.sum
  done
done
