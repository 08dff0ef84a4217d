#!/usr/bin/env bash
# Session-only device call 3 (2026-12-06). Binaries: base (main before the streaming queue records), cs (main now:
# wavepath + wp_gpu_tests), planar (cs + the GPU film in three planes), n1/n2 (cs-less prototype of issue 23: the
# shade stage one __noinline__ function shared by shade and drain; n2 with ptxas --fmad=false on shade.cu).
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER LD_LIBRARY_PATH="$PWD/.devcarry/lib"
D=.devcarry; O=$OUT
for v in cs planar n1 n2; do mkdir -p /tmp/v/$v && tar xJf $D/$v.tar.xz -C /tmp/v/$v || echo "unpack $v failed"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
bin() { case $1 in base) echo $D/wavepath;; *) echo /tmp/v/$1/wavepath;; esac; }
echo "== same images: base, cs, planar (rtiow 4 spp, cornell 16 spp, glossy-glass 8 spp, both modes)"
for v in base cs planar; do
  for sc in rtiow:4 cornell-box:16 glossy-glass:8; do
    timeout 60 $(bin $v) render scenes/${sc%%:*}.json --backend gpu --mode both --spp ${sc#*:} -o /tmp/img-$v-${sc%%:*}.exr > /dev/null 2>&1 || echo "render $v $sc failed"
  done
done
for v in cs planar; do for f in /tmp/img-base-*.exr; do g=${f/img-base/img-$v}; cmp -s $f $g && echo "same $(basename $g)" || echo "DIFFER $(basename $g)"; done; done
echo "== cs GPU tests"
timeout 200 /tmp/v/cs/wp_gpu_tests --gtest_filter='-Gpu.DenoiserOnTheCuda*' > $O/gpu_tests-cs.log 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]" $O/gpu_tests-cs.log | head -20
for v in n1 n2; do
  echo "== $v GPU tests (bit-identity set)"
  timeout 150 /tmp/v/$v/wp_gpu_tests --gtest_filter='Gpu.DrainMatches*:Gpu.PersistentTraversal*:GpuShards.*:GpuDevices.*:Gpu.Specialised*:Gpu.Cornell*:Gpu.Furnace*' > $O/gpu_tests-$v.log 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]|differ" $O/gpu_tests-$v.log | head -30
done
echo "== bench cs, full set with the ray cast (README table)"
timeout 200 /tmp/v/cs/wavepath bench --backend gpu --repeat 5 --resources /tmp/v/cs/kernel_resources.txt --json $O/bench.json --plot $O/bench.svg > $O/bench.txt 2>&1; echo "rc=$?"
grep -E "^scenes|^  (wavefront|megakernel) |ray cast" $O/bench.txt
show() { awk '/^scenes/{s=$1; sub("scenes/","",s); sub(".json:","",s)} /^  wavefront /{w=$2} /^  megakernel /{printf "%s %s/%s  ", s, w, $2} END{print ""}' "$1"; }
for r in 1 2; do
  for v in base cs planar n1 n2; do
    timeout 100 $(bin $v) bench --backend gpu --repeat 5 --no-raycast > $O/b-$v-r$r.txt 2>&1; echo -n "$v r$r rc=$? "; show $O/b-$v-r$r.txt
  done
done
cd $O && tar czf logs3.tgz *.txt *.log && rm -f b-*.txt gpu_tests-*.log
