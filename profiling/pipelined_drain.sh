#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 32: the pipelined schedule (no host round trip per iteration) with the
# drain, against the synchronised default, both with push compaction and the persistent kernels. GPU tests, the
# benchmark set's wavefront both ways. Everything under $OUT/logs.tgz.
#   bash profiling/pipelined_drain.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
grep -E "pipelined with drain|Failure|Which is" "$O/gpu_tests.log" | head -20
for v in sync pipelined; do
  flag=""; [ $v = pipelined ] && flag=--pipelined
  echo "== bench wavefront $v"
  timeout 200 $B/wavepath bench --backend gpu --repeat 5 --modes wavefront --no-raycast $flag \
    --json "$O/bench-$v.json" > "$O/bench-$v.txt" 2>&1
  echo "rc=$?"; show "$O/bench-$v.txt"; grep -E "^scenes|^    (generate|extend|shade|shadow|drain|prepare) |per-kernel events" "$O/bench-$v.txt"
done
