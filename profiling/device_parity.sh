#!/usr/bin/env bash
# One device call, kept for the next GPU session: the GPU tests, old-vs-new images (when .devcarry/ holds
# wavepath.base, a build of the previous commit), the parity suite's feature scenes on the GPU in both schedules
# (PARITY_BACKEND/PARITY_MODE of tests/parity/run_parity.sh), memcheck and the bench of a coated pbrt-v4 scene
# (profiling/scenes/coated.pbrt: coated diffuse with a medium, two coated conductors, area and sky light).
# Carry .devcarry/ with wavepath, wp_gpu_tests, wp_parity_compare, kernel_resources.txt and lib/; run from the
# repository root: bash profiling/device_parity.sh
set -u
B=.devcarry
export LD_LIBRARY_PATH=$PWD/$B/lib WP_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
O=$OUT
nvidia-smi --query-gpu=name --format=csv,noheader
echo "== GPU tests"
timeout 200 $B/wp_gpu_tests --gtest_filter=-*Denoiser*:GpuDevices.* > $O/gpu_tests.log 2>&1; echo rc=$?
grep -E "^\[  (PASSED|FAILED)|FAILED \]|Layered" $O/gpu_tests.log | head -20
echo "== old vs new images (PFM, GPU, 16 spp)"
[ -x $B/wavepath.base ] && for sc in cornell-box rtiow glossy-glass; do for m in wavefront megakernel; do
  $B/wavepath.base render scenes/$sc.json --backend gpu --mode $m --spp 16 -o /tmp/a-$sc-$m.pfm >/dev/null 2>&1
  $B/wavepath render scenes/$sc.json --backend gpu --mode $m --spp 16 -o /tmp/b-$sc-$m.pfm >/dev/null 2>&1
  if cmp -s /tmp/a-$sc-$m.pfm /tmp/b-$sc-$m.pfm; then echo "same $sc $m"; else echo "DIFF $sc $m"; fi
done; done
echo "== parity feature scenes on the GPU"
mkdir -p /tmp/pw && tar -xJf tests/parity/published.tar.xz -C /tmp/pw
for m in megakernel wavefront; do
  pass=0; fail=0
  for n in $(awk '!/^#/ && NF && $7 == "check" && $2 !~ /^published/ {print $1}' tests/parity/manifest.txt); do
    r=$(PARITY_BACKEND=gpu PARITY_MODE=$m timeout 30 bash tests/parity/run_parity.sh $n $B/wavepath $B/wp_parity_compare tests/parity /tmp/pw 2>&1)
    if [ $? -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $m $n: $(echo "$r" | tail -2 | tr '\n' ' ')"; fi
    echo "$m $(echo "$r" | grep -E "relMSE" | tail -1)" >> $O/parity_gpu.txt
  done
  echo "parity $m: $pass passed, $fail failed"
done
echo "== memcheck (coated scene, both schedules)"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $B/wavepath render profiling/scenes/coated.pbrt --backend gpu --mode both --width 64 --height 48 --spp 2 -o /tmp/san.exr > $O/memcheck.log 2>&1; echo "memcheck rc=$?"; grep "ERROR SUMMARY" $O/memcheck.log
echo "== layered scene bench"
timeout 90 $B/wavepath bench --backend gpu --repeat 3 --no-raycast --resources $B/kernel_resources.txt profiling/scenes/coated.pbrt > $O/bench-coated.txt 2>&1; echo rc=$?
grep -vE "^warning" $O/bench-coated.txt | head -40
