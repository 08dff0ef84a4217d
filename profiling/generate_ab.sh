#!/usr/bin/env bash
# Device call for profiling/LOG.md entry 38: generate with a 32-bit index split and the pixel's column and row from
# its rank (.devcarry/) against entry 38's 52-byte paths with the old generate (.devcarry/prev): GPU tests, the
# benchmark set (median of 5) for both, and Nsight Compute on RTIOW's first generate launch for both (instructions,
# DRAM throughput). Everything under $OUT/logs.tgz.
#   bash profiling/generate_ab.sh
set -u
source "$(dirname "$0")/common.sh"
archive_outputs
run_gpu_tests
run_bench_defaults --repeat 5
run_bench_variant prev
for v in new prev; do
  bin=$B/wavepath; [ $v = prev ] && bin=$B/prev/wavepath
  timeout 100 ncu --kernel-name "regex:^generate" --launch-skip 0 --launch-count 1 --section SpeedOfLight \
    --metrics smsp__thread_inst_executed.sum,dram__bytes_write.sum,gpu__time_duration.sum \
    --csv --page details $bin render scenes/rtiow.json --backend gpu --mode wavefront --spp 4 \
    -o /tmp/ncu.exr > "$O/ncu-generate-$v.csv" 2> "$O/ncu-generate-$v.err"
  echo "ncu generate $v rc=$?"
  python3 - "$O/ncu-generate-$v.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; ix = {h: i for i, h in enumerate(hdr)}
for r in rows[1:]:
    print(f'{r[ix["ID"]]:>3} {r[ix["Metric Name"]][:44]:44} {r[ix["Metric Value"]]:>16} {r[ix["Metric Unit"]]}')
PY
done
