#!/usr/bin/env bash
# Session check and launch-gap probe (profiling/LOG.md entries 10-11): GPU tests on the default tree, `wavepath bench`
# for both tree widths, the default tree untimed (frame events only) in the CUB and push schedules, memcheck on
# the sphere field, and, where Nsight Systems is installed, a GPU trace of one Cornell wavefront render summarised
# as busy time against idle gaps between GPU operations. JSON and logs under $OUT.   bash profiling/gaps.sh
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
B=.devcarry
O=${OUT:-/tmp/wp-out}
mkdir -p "$O"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "== GPU tests (default tree)"
timeout 200 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Failure" "$O/gpu_tests.log" | head -20
grep -E "regs|local" "$O/gpu_tests.log" | head -8
summ() { awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0} /ray cast only/{print s, $0}' "$1"; }
for w in 2 8; do
  echo "== bench, BVH width $w"
  WP_BVH_WIDTH=$w timeout 200 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-w$w.json" > "$O/bench-w$w.txt" 2>&1
  echo "rc=$?"; summ "$O/bench-w$w.txt"
done
grep -E "^  (generate|extend|shade|shadow|compact|megakernel) " "$O/bench-w2.txt" | head -40
echo "== bench, untimed (frame events only): CUB schedule, then push"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --no-raycast --modes wavefront --no-kernel-timing \
  --json "$O/untimed.json" > "$O/untimed.txt" 2>&1; echo "rc=$?"; summ "$O/untimed.txt"
timeout 200 $B/wavepath bench --backend gpu --repeat 3 --no-raycast --modes wavefront --no-kernel-timing --push-compaction \
  --json "$O/untimed-push.json" > "$O/untimed-push.txt" 2>&1; echo "rc=$?"; summ "$O/untimed-push.txt"
echo "== memcheck, sphere field, both schedules"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render scenes/rtiow.json --backend gpu \
  --mode both --width 160 --height 90 --spp 2 -o /tmp/san.exr 2>&1 | tail -2; echo "memcheck rc=${PIPESTATUS[0]}"
echo "== GPU trace"
NSYS=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
echo "nsys: ${NSYS:-none}"
if [ -n "$NSYS" ]; then
  for sc in cornell-box rtiow; do
    timeout 120 "$NSYS" profile -t cuda -o "$O/trace-$sc" --force-overwrite true $B/wavepath render scenes/$sc.json \
      --backend gpu --mode wavefront -o /tmp/t.exr > /dev/null 2>&1
    timeout 120 "$NSYS" stats -q --report cuda_gpu_trace --format csv -o "$O/trace-$sc" "$O/trace-$sc.nsys-rep" > /dev/null 2>&1
    python3 profiling/gpu_gaps.py "$O"/trace-$sc*cuda_gpu_trace*.csv
    rm -f "$O/trace-$sc.nsys-rep" "$O/trace-$sc.sqlite"
  done
fi
