#!/usr/bin/env bash
# Device call for profiling/LOG.md entries 29-30: the persistent drain (path regeneration, as the megakernel) and
# its threshold; the determinism checks of the GPU tests (push against select bit for bit). Everything under
# $OUT/logs.tgz.
#   bash profiling/drain_persistent.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
echo "== GPU tests"
timeout 240 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"; grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
grep -E "push variant|megakernel .* ms, wavefront|Failure|largest|Which is" "$O/gpu_tests.log" | head -30
for d in 65536 262144 1048576 2097152; do
  echo "== drain $d"
  timeout 150 $B/wavepath bench scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json \
    scenes/helmet.json --backend gpu --repeat 3 --modes wavefront --no-raycast --drain $d > "$O/bench-drain$d.txt" 2>&1
  echo "rc=$?"; show "$O/bench-drain$d.txt"; grep -E "^scenes|^    (drain) " "$O/bench-drain$d.txt"
done
