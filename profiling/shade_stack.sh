#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 23-24: shade issuing the primitive's info with its geometry
# (.devcarry/shade/), then also the while-while stack with its top cached in registers (.devcarry/); the benchmark
# set for both builds in one lease, GPU tests and memcheck on the second. Everything under $OUT/logs.tgz.
#   bash profiling/shade_stack.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
kern() { grep -E "^scenes|^    (extend|shade|shadow|drain|megakernel) " "$1"; }
echo "== GPU tests (shade + stack top)"
timeout 200 .devcarry/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
for v in shade stack; do
  B=.devcarry; [ $v = shade ] && B=.devcarry/shade
  echo "== bench, $v"
  timeout 240 $B/wavepath bench --backend gpu --repeat 3 --json "$O/bench-$v.json" > "$O/bench-$v.txt" 2>&1
  echo "rc=$?"; show "$O/bench-$v.txt"; kern "$O/bench-$v.txt"
done
echo "== memcheck (shade + stack top), Sponza and RTIOW, both schedules"
for sc in sponza rtiow; do
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 .devcarry/wavepath render scenes/$sc.json --backend gpu \
    --mode both --width 128 --height 96 --spp 2 -o /tmp/san.exr > "$O/memcheck-$sc.log" 2>&1
  echo "memcheck $sc rc=$?"; grep -E "ERROR SUMMARY" "$O/memcheck-$sc.log"
done
