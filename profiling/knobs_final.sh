#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 41: two options measured earlier, again on this session's code (the
# wavefront only, median of 5): shading in material order (--sort-materials; entry 1 rejected it on the first
# wavefront) and an 8M-path queue (--capacity 8388608; entry 16 kept 4M), against the defaults in the same run.
#   bash profiling/knobs_final.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
for v in default sort cap8m; do
  extra=""; [ $v = sort ] && extra="--sort-materials"; [ $v = cap8m ] && extra="--capacity 8388608"
  echo "== bench, $v"
  timeout 200 $B/wavepath bench --backend gpu --repeat 5 --modes wavefront --no-raycast $extra \
    --json "$O/bench-$v.json" > "$O/bench-$v.txt" 2>&1
  bench_report $? "$v"
  grep -E "sort_materials" "$O/bench-$v.txt"
done
