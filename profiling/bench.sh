#!/usr/bin/env bash
# Benchmark (not a test): wavefront against megakernel on the H200, three scenes, per-kernel tables.
#   profiling/bench.sh [path/to/wavepath] [output dir]
# For each scene: --mode both (wavefront, then megakernel, with --stats tables, speed ratio and image
# difference), then the wavefront with shading sorted by material. Logs go to the output dir; the summary
# table (Msamples/s, Mrays/s, ms) is printed at the end.
set -u
cd "$(dirname "$0")/.."
WP=${1:-build/wavepath}
OUTD=${2:-${OUT:-/tmp}/bench}
IMG=${WP_BENCH_IMAGES:-/tmp/wp-bench-images}  # images apart from the logs (the device tool returns few files)
mkdir -p "$OUTD" "$IMG"
export CUDA_MODULE_LOADING=EAGER  # module load outside the timed region
run() {  # name, scene, extra args...
  local name=$1 scene=$2; shift 2
  "$WP" render "$scene" --backend gpu --mode both --stats -o "$IMG/$name.exr" "$@" > "$OUTD/$name.log" 2>&1
  "$WP" render "$scene" --backend gpu --mode wavefront --sort-materials --stats -o "$IMG/$name-sorted.exr" "$@" \
      > "$OUTD/$name-sorted.log" 2>&1
}
run cornell scenes/cornell-box.json --width 1024 --height 1024 --spp 64
run rtiow scenes/rtiow.json --width 1280 --height 720 --spp 30 --max-depth 50
run sponza scenes/sponza.json --width 768 --height 575 --spp 64
printf "%-8s %-18s %10s %12s %10s\n" scene mode "ms" "Msamples/s" "Mrays/s"
for n in cornell rtiow sponza; do
  for f in "$OUTD/$n.log" "$OUTD/$n-sorted.log"; do
    tag=$([ "$f" = "$OUTD/$n-sorted.log" ] && echo "+sorted" || echo "")
    grep -E "^  gpu (wavefront|megakernel) on" "$f" | sed -E 's/^  gpu ([a-z]+) on .*: ([0-9.]+) ms, ([0-9.]+) Msamples\/s, ([0-9.]+) Mrays\/s.*/\1 \2 \3 \4/' |
      while read -r mode ms ms2 mr; do printf "%-8s %-18s %10s %12s %10s\n" "$n" "$mode$tag" "$ms" "$ms2" "$mr"; done
  done
  grep -E "speed ratio|bit-identical" "$OUTD/$n.log" | sed "s/^/  $n: /"
done
