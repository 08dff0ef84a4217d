#!/usr/bin/env bash
# Spatial splits on the 8-wide tree (profiling/LOG.md entry 12): the binary tree's leaf size under the collapse,
# with and without splits, on Sponza (wavefront and ray cast).   bash profiling/sbvh_wide.sh
set -u
O=${OUT:-/tmp/wp-out}
source "$(dirname "$0")/common.sh"
for cfg in "8 1 0" "8 1 1" "8 2 1" "8 4 1" "2 2 1"; do
  set -- $cfg
  echo "== width $1, binary leaves of $2, splits $3"
  WP_BVH_WIDTH=$1 WP_BVH_MAX_LEAF=$2 WP_BVH_SPLITS=$3 timeout 120 $B/wavepath bench scenes/sponza.json --backend gpu \
    --repeat 3 --modes wavefront --json "$O/sponza-w$1-l$2-s$3.json" > "$O/sponza-w$1-l$2-s$3.txt" 2>&1
  echo "rc=$?"; grep -E "^  wavefront  |ray cast only" "$O/sponza-w$1-l$2-s$3.txt"
done
