#!/usr/bin/env bash
# Session-only device call 5 (2026-12-06): fz (the primitive tests with explicit fused multiply-adds, on top of fin)
# against fin: GPU tests, same rays, the benchmark set alternating; --drain 0's cost on fin for the record.
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER LD_LIBRARY_PATH="$PWD/.devcarry/lib"
D=.devcarry; O=$OUT
for v in fin fz; do mkdir -p /tmp/v/$v && tar xJf $D/$v.tar.xz -C /tmp/v/$v || echo "unpack $v failed"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
echo "== fz GPU tests"
timeout 200 /tmp/v/fz/wp_gpu_tests --gtest_filter='-Gpu.DenoiserOnTheCuda*' > $O/gpu_tests-fz.log 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]" $O/gpu_tests-fz.log | head -20
echo "== memcheck (fz)"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 /tmp/v/fz/wavepath render scenes/glossy-glass.json --backend gpu --mode both --width 128 --height 96 --spp 4 -o /tmp/san.exr > $O/memcheck-fz.log 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" $O/memcheck-fz.log
show() { awk '/^scenes/{s=$1; sub(".*/","",s); sub(".json:","",s)} /^  wavefront /{w=$2; x=$4} /^  megakernel /{printf "%s %s/%s  ", s, w, $2} END{print ""}' "$1"; }
for r in 1 2; do
  for v in fin fz; do
    timeout 100 /tmp/v/$v/wavepath bench --backend gpu --repeat 5 --no-raycast > $O/b-$v-r$r.txt 2>&1; echo -n "$v r$r rc=$? "; show $O/b-$v-r$r.txt
  done
done
echo "== fin --drain 0 (wavefront)"
timeout 100 /tmp/v/fin/wavepath bench --backend gpu --repeat 5 --no-raycast --modes wavefront --drain 0 > $O/b-fin-drain0.txt 2>&1; echo "rc=$?"
awk '/^scenes/{s=$1} /^  wavefront /{print s, $2}' $O/b-fin-drain0.txt
cd $O && tar czf logs5.tgz *.txt *.log && rm -f b-*.txt gpu_tests-*.log memcheck-*.log
