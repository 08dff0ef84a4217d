#!/usr/bin/env bash
# Benchmark (not a test) on the GPU: `wavepath bench` over the benchmark scene set in both schedules with the
# defaults (docs/BENCHMARKS.md), then the wavefront's two alternatives a wavefront-vs-megakernel study compares:
# shading sorted by material and CUB DeviceSelect compaction.
#   profiling/bench.sh [extra wavepath bench arguments, e.g. --repeat 5 or scenes]
# Reports into $O (default /tmp/wp-out): bench.{txt,json,svg}, bench-sorted.*, bench-select.*; prints the mode lines
# (ms per frame, Msamples/s, Mrays/s) and the per-kernel rows. WP (the binary) and B as in common.sh.
set -u
. "$(dirname "$0")/common.sh"
run_bench_defaults --repeat 5 "$@"
for v in sorted:--sort-materials select:--select-compaction; do
  name=${v%%:*} opt=${v#*:}
  echo "== bench, wavefront $opt"
  timeout 240 "$WP" bench --backend gpu --modes wavefront --no-raycast --repeat 5 "$opt" "$@" \
    --json "$O/bench-$name.json" > "$O/bench-$name.txt" 2>&1
  bench_report $? "$name"
done
