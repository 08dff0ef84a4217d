#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 35: the shadow kernel's block size (WP_SHADOW_BLOCK, kernels/shadow.cu)
# 128 (kStageBlock), 64, 32, 256 on the scenes with shadow rays. Everything under $OUT/logs.tgz.
#   bash profiling/shadow_block.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
for b in 128 64 32 256; do
  echo "== shadow block $b"
  WP_SHADOW_BLOCK=$b timeout 100 $B/wavepath bench scenes/cornell-box.json scenes/sponza.json scenes/dragon.json scenes/helmet.json \
    --backend gpu --repeat 5 --modes wavefront --no-raycast > "$O/bench-shadow$b.txt" 2>&1
  echo "rc=$?"; show "$O/bench-shadow$b.txt"; grep -E "^scenes|^    shadow " "$O/bench-shadow$b.txt"
done
