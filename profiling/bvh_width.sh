#!/usr/bin/env bash
# BVH width lever (profiling/LOG.md entry 9): GPU tests on the default tree, then `wavepath bench`
# over the benchmark set in both schedules for the binary tree (WP_BVH_WIDTH=2) and the 8-wide compressed one,
# and compute-sanitizer memcheck on the wide traversal. JSON under $OUT.   bash profiling/bvh_width.sh
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
B=.devcarry
O=${OUT:-/tmp/wp-out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== GPU tests (default tree, WP_BVH_WIDTH=${WP_BVH_WIDTH:-default})"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure" "$O/gpu_tests.log" | head -20
for w in 2 8; do
  echo "== bench, BVH width $w"
  WP_BVH_WIDTH=$w timeout 200 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-w$w.json" > "$O/bench-w$w.txt" 2>&1
  echo "rc=$?"
  awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0} /ray cast only/{print s, $0}' "$O/bench-w$w.txt"
done
grep -E "^  (extend|shadow|megakernel|raycast)" "$O/bench-w8.txt" | head -20
echo "== memcheck, 8-wide traversal"
WP_BVH_WIDTH=8 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/sponza.json --backend gpu \
  --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr 2>&1 | tail -3; echo "memcheck rc=${PIPESTATUS[0]}"
