#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 32: the frame timed from the first launch (queue allocation outside it, as
# setup_ms), and the final figures of this session's defaults: GPU tests, the benchmark set in both modes with the
# ray-cast pass, --select-compaction for comparison, memcheck. Everything under $OUT/logs.tgz.
#   bash profiling/frame_start.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
python3 -c "
import json; d=json.load(open('$O/bench.json'))
for s in d['scenes']:
    for m in s['modes']: print(s['name'], m['mode'], 'render_ms', round(m['render_ms'],2), 'setup_ms', round(m['setup_ms'],2), 'drained', m['drained_paths'])
"
echo "== bench, --select-compaction"
timeout 200 $B/wavepath bench --backend gpu --repeat 5 --modes wavefront --select-compaction --no-raycast \
  --json "$O/bench-select.json" > "$O/bench-select.txt" 2>&1
echo "rc=$?"; show "$O/bench-select.txt"
for sc in rtiow dragon; do memcheck_render $sc --spp 4; done
