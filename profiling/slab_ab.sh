#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 37: the conservative slab test (exit distances widened by kSlabWiden, box
# padding 2 ulps instead of 16) with the hit flags of node_children (.devcarry/) against the padding of 6d6b1ae
# (16 ulps, no widening; otherwise the same code: tiles, path_segment; .devcarry/pad16). GPU tests of the new build,
# the benchmark set (median of 5) for both, and Nsight Compute's thread instructions of the first two extend launches
# (camera rays, first bounce) of a 4-spp render of Sponza and the dragon for both. Everything under $OUT/logs.tgz.
#   bash profiling/slab_ab.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant pad16
for v in new pad16; do
  bin=$B/wavepath; [ $v = pad16 ] && bin=$B/pad16/wavepath
  for sc in sponza dragon; do
    timeout 100 ncu --kernel-name "regex:^extend" --launch-skip 0 --launch-count 2 \
      --metrics smsp__thread_inst_executed.sum,smsp__inst_executed.sum,gpu__time_duration.sum \
      --csv --page details $bin render scenes/$sc.json --backend gpu --mode wavefront --spp 4 \
      -o /tmp/ncu.exr > "$O/ncu-$v-$sc.csv" 2> "$O/ncu-$v-$sc.err"
    echo "ncu $v $sc rc=$?"
    python3 - "$O/ncu-$v-$sc.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ix = {h: i for i, h in enumerate(hdr)}
for r in rows[1:]:
    print(f'{r[ix["ID"]]:>3} {r[ix["Kernel Name"]][:18]:18} {r[ix["Metric Name"]][:40]:40} {r[ix["Metric Value"]]:>16} {r[ix["Metric Unit"]]}')
PY
  done
done
