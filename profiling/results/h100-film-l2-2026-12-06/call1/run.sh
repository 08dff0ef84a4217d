#!/usr/bin/env bash
# Session-only device call 1 (2026-12-06): main's GPU tests and benchmark set (README table), the e23 variant's
# bit-identity tests and its benchmark, the film ceiling (nofilm) on RTIOW.
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER LD_LIBRARY_PATH="$PWD/.devcarry/lib"
D=.devcarry; O=$OUT
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
echo "== main GPU tests"
timeout 200 $D/wp_gpu_tests --gtest_filter='-Gpu.DenoiserOnTheCuda*' > $O/gpu_tests-main.log 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]" $O/gpu_tests-main.log | head -20
echo "== e23 GPU tests (bit-identity set)"
timeout 150 $D/e23/wp_gpu_tests --gtest_filter='Gpu.DrainMatches*:Gpu.PersistentTraversal*:GpuShards.*:GpuDevices.*:Gpu.Specialised*:Gpu.Cornell*' > $O/gpu_tests-e23.log 2>&1; echo "rc=$?"
E23RC=$(tail -c 0 /dev/null; grep -c "FAILED \]" $O/gpu_tests-e23.log)
grep -E "^\[  (PASSED|FAILED)|FAILED \]|differ|Expected|Which is|actual" $O/gpu_tests-e23.log | head -40
echo "== bench main, full set (README table)"
timeout 200 $D/wavepath bench --backend gpu --repeat 5 --resources $D/kernel_resources.txt --json $O/bench.json --plot $O/bench.svg > $O/bench.txt 2>&1; echo "rc=$?"
grep -E "^scenes|^  (wavefront|megakernel) |ray cast" $O/bench.txt
show() { grep -E "^scenes|^  (wavefront|megakernel) " "$1"; }
for r in 1 2; do
  [ "$E23RC" = 0 ] || { echo "e23 failed its tests: no A/B"; break; }
  for v in e23 main; do
    B=$D; [ $v = main ] || B=$D/$v
    timeout 150 $B/wavepath bench --backend gpu --repeat 5 --no-raycast > $O/ab-$v-r$r.txt 2>&1; echo "ab $v r$r rc=$?"; show $O/ab-$v-r$r.txt
  done
done
for r in 1 2; do
  for v in nofilm main; do
    B=$D; [ $v = main ] || B=$D/$v
    timeout 60 $B/wavepath bench scenes/rtiow.json --backend gpu --repeat 5 --no-raycast > $O/rt-$v-r$r.txt 2>&1; echo "rt $v r$r rc=$?"; show $O/rt-$v-r$r.txt
  done
done
cd $O && tar czf logs.tgz *.txt *.log && rm -f ab-*.txt rt-*.txt gpu_tests-*.log
