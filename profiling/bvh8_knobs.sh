#!/usr/bin/env bash
# 8-wide BVH builder knobs against the binary tree (profiling/LOG.md entry 9): wavefront frame and ray-cast pass
# (8 spp) per configuration, then Nsight Compute on Sponza's extend for both widths.   bash profiling/bvh8_knobs.sh
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
WP=${WP:-.devcarry/wavepath}
O=${OUT:-/tmp/wp-out}
mkdir -p "$O"
run() {  # label, then environment assignments
  local label=$1; shift
  env "$@" timeout 100 "$WP" bench scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json \
    --modes wavefront --backend gpu --repeat 3 --raycast-spp 8 2>&1 |
    awk -v c="$label" '/^scenes/{s=$1} /^  wavefront  /{ms=$2} /ray cast only/{printf "%-22s %-26s wf %8s ms  prim %s diff %s\n", c, s, ms, $12, $21}'
}
run "w2" WP_BVH_WIDTH=2
run "w8 sah pc0.3" WP_BVH_WIDTH=8
run "w8 greedy" WP_BVH_WIDTH=8 WP_BVH8_COLLAPSE=greedy
run "w8 sah leaf1" WP_BVH_WIDTH=8 WP_BVH_MAX_LEAF=1
run "w8 sah pc1.0" WP_BVH_WIDTH=8 WP_BVH8_PRIM_COST=1.0
run "w8 sah pc0.1" WP_BVH_WIDTH=8 WP_BVH8_PRIM_COST=0.1
for w in 2 8; do
  echo "== ncu extend sponza, width $w"
  WP_BVH_WIDTH=$w WP=$WP bash profiling/ncu_stage.sh scenes/sponza.json extend 2 "$O/ncu-w$w" -- --spp 4 2>&1 | tail -22
done
