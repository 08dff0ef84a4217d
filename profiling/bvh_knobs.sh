#!/usr/bin/env bash
# BVH builder knobs against traversal speed (profiling/LOG.md): the ray-cast-only pass and the wavefront frame
# on Sponza and the dragon for several SAH bin counts and leaf sizes.   profiling/bvh_knobs.sh [wavepath]
set -u
cd "$(dirname "$0")/.."
WP=${1:-.devcarry/wavepath}
export CUDA_MODULE_LOADING=EAGER
for cfg in "16 4" "32 4" "64 4" "16 2" "32 2" "32 8" "16 1"; do
  set -- $cfg
  WP_BVH_BINS=$1 WP_BVH_MAX_LEAF=$2 timeout 100 "$WP" bench scenes/sponza.json scenes/dragon.json scenes/rtiow.json \
    --modes wavefront --backend gpu --repeat 3 --raycast-spp 8 2>&1 |
    awk -v b=$1 -v l=$2 '/^scenes/{s=$1} /^  wavefront  /{ms=$2} /ray cast only/{printf "bins %3s leaf %s %-22s wavefront %8s ms  %s\n", b, l, s, ms, $0}'
done
