#!/usr/bin/env bash
# Levers of profiling/LOG.md entries 11-13: CUDA graphs per wavefront iteration (on by default; --no-graphs), SBVH
# spatial splits (WP_BVH_SPLITS=1, both tree widths), and __launch_bounds__ on shade and the megakernel (a second
# build in .devcarry/lb/). GPU tests first, then `wavepath bench`, JSON and logs under $OUT.
#   bash profiling/graphs_sbvh.sh
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
B=.devcarry
O=${OUT:-/tmp/wp-out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== GPU tests (default tree)"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure|graphs:" "$O/gpu_tests.log" | head -20
summ() { awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0} /ray cast only/{print s, $0}' "$1"; }
bench() {  # name, then environment assignments and bench flags
  local name=$1; shift
  echo "== bench $name: $*"
  env "$@" timeout 250 $B/wavepath bench --backend gpu --repeat 3 --json "$O/$name.json" > "$O/$name.txt" 2>&1
  echo "rc=$?"; summ "$O/$name.txt"
}
bench_flags() {  # name, binary, flags
  local name=$1 bin=$2; shift 2
  echo "== bench $name: $*"
  timeout 250 $bin bench --backend gpu --repeat 3 --json "$O/$name.json" "$@" > "$O/$name.txt" 2>&1
  echo "rc=$?"; summ "$O/$name.txt"
}
bench default WP_BVH_WIDTH=2
grep -E "^scenes|^    (generate|extend|shade|shadow|compact|compact_select|megakernel) " "$O/default.txt"
bench_flags nographs $B/wavepath --no-raycast --modes wavefront --no-graphs
bench_flags untimed-graphs $B/wavepath --no-raycast --modes wavefront --no-kernel-timing
bench_flags untimed-nographs $B/wavepath --no-raycast --modes wavefront --no-kernel-timing --no-graphs
bench sbvh-w2 WP_BVH_WIDTH=2 WP_BVH_SPLITS=1
bench sbvh-w8 WP_BVH_WIDTH=8 WP_BVH_SPLITS=1
if [ -x $B/lb/wavepath ]; then
  bench_flags launch-bounds $B/lb/wavepath --resources $B/lb/kernel_resources.txt --no-raycast
  grep -E "^scenes|^    (shade|megakernel) " "$O/launch-bounds.txt"
fi
echo "== memcheck, SBVH Sponza, both schedules"
WP_BVH_SPLITS=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/sponza.json --backend gpu \
  --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr 2>&1 | tail -2; echo "memcheck rc=${PIPESTATUS[0]}"
