#!/usr/bin/env bash
# CUDA compiler launcher (CMAKE_CUDA_COMPILER_LAUNCHER): runs the nvcc command given as arguments, shows its
# output as usual, and keeps ptxas's resource report (-Xptxas=-v: registers, spills, stack, shared memory per
# kernel) beside the object file as <object>.ptxas.txt, for the per-kernel resource report of `wavepath bench`.
obj=""
prev=""
for a in "$@"; do
  [ "$prev" = "-o" ] && obj="$a"
  prev="$a"
done
if [ -z "$obj" ]; then exec "$@"; fi
"$@" 2> "$obj.ptxas.txt"
rc=$?
grep -v "^ptxas info" "$obj.ptxas.txt" | grep -v "^    [0-9]* bytes stack frame" >&2
exit $rc
