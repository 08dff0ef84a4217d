#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 37: the box padding of 6d6b1ae and the tidy of bc8b782 on the H200 (the
# binaries of bc8b782 in .devcarry/base), then two changes against them: camera paths in 8x4 pixel tiles
# (RenderParams::pixel_of_rank; .devcarry/tiles) and the path_segment function shared by the GPU's persistent path
# loop and finish_path (with the tiles: .devcarry/). GPU tests of the new build, the benchmark set (median of 5) for
# all three builds, and the extend kernel's SASS for the instruction count per node. Everything under $OUT/logs.tgz.
#   bash profiling/tiles_segment.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant base
run_bench_variant tiles
echo "== SASS"
cuobjdump -sass $B/wavepath > "$O/wavepath.sass" 2>&1; echo "rc=$?"; wc -l "$O/wavepath.sass"
