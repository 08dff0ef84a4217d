#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=$PWD/.devcarry/lib WP_SOURCE_DIR=$PWD CUDA_MODULE_LOADING=EAGER
O=$OUT/o; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
timeout 120 .devcarry/sph/wp_gpu_tests > $O/sph_tests.log 2>&1; echo "sphere branch GPU tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $O/sph_tests.log
for r in 1 2; do
 for v in main sph; do
  b=.devcarry/wavepath; res=.devcarry/kernel_resources.txt; [ $v = sph ] && b=.devcarry/sph/wavepath && res=.devcarry/sph/kernel_resources.txt
  timeout 120 $b bench scenes/rtiow.json --backend gpu --repeat 5 --resources $res > $O/rtiow-$v-$r.txt 2>&1
  echo "rtiow $v run$r: $(grep -E '^  (wavefront|megakernel)  ' $O/rtiow-$v-$r.txt | tr -s ' ' | cut -c1-120 | tr '\n' '|')"
 done
done
for v in main sph; do
  b=.devcarry/wavepath; res=.devcarry/kernel_resources.txt; [ $v = sph ] && b=.devcarry/sph/wavepath && res=.devcarry/sph/kernel_resources.txt
  timeout 200 $b bench --backend gpu --repeat 3 --resources $res > $O/all-$v.txt 2>&1
  echo "== all $v"; awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0}' $O/all-$v.txt | cut -c1-140
done
for v in main sph; do b=.devcarry/wavepath; [ $v = sph ] && b=.devcarry/sph/wavepath
  for m in megakernel wavefront; do timeout 60 $b render scenes/rtiow.json --backend gpu --mode $m --spp 4 -o /tmp/$v-$m.pfm > /dev/null 2>&1; done; done
for m in megakernel wavefront; do cmp /tmp/main-$m.pfm /tmp/sph-$m.pfm && echo "rtiow $m image: same bytes"; done
tar czf $OUT/logs.tgz -C $O .
