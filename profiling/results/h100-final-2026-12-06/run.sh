#!/usr/bin/env bash
# Session-only device call 4 (2026-12-06): the final code (fin: wavepath + wp_gpu_tests) against the previous main
# (base = .devcarry/wavepath, f120b7a): same images (PFM, both modes), GPU tests, memcheck, the benchmark set (README
# table), L2 figures of RTIOW's shade; then ceilings of the RTIOW megakernel: cheap random numbers (rng), every
# sphere in float (f32), no lens, every material Lambertian.
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER LD_LIBRARY_PATH="$PWD/.devcarry/lib"
D=.devcarry; O=$OUT
for v in fin rng f32; do mkdir -p /tmp/v/$v && tar xJf $D/$v.tar.xz -C /tmp/v/$v || echo "unpack $v failed"; done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv,noheader
bin() { case $1 in base) echo $D/wavepath;; *) echo /tmp/v/$1/wavepath;; esac; }
echo "== same images, base against fin (PFM, both modes)"
for v in base fin; do
  for sc in rtiow:4 cornell-box:16 glossy-glass:8 helmet:4 dragon:2; do
    timeout 60 $(bin $v) render scenes/${sc%%:*}.json --backend gpu --mode both --spp ${sc#*:} -o /tmp/img-$v-${sc%%:*}.pfm > /dev/null 2>&1 || echo "render $v $sc failed"
  done
done
n=0; for f in /tmp/img-base-*.pfm; do g=${f/img-base/img-fin}; n=$((n+1)); cmp -s $f $g && echo "same $(basename $g)" || echo "DIFFER $(basename $g)"; done; echo "$n images compared"
echo "== fin GPU tests"
timeout 200 /tmp/v/fin/wp_gpu_tests --gtest_filter='-Gpu.DenoiserOnTheCuda*' > $O/gpu_tests.log 2>&1; echo "rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED \]" $O/gpu_tests.log | head -20
echo "== memcheck (fin)"
for sc in rtiow cornell-box; do
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 /tmp/v/fin/wavepath render scenes/$sc.json --backend gpu --mode both --width 128 --height 96 --spp 4 -o /tmp/san.exr > $O/memcheck-$sc.log 2>&1; echo "memcheck $sc rc=$?"; grep -E "ERROR SUMMARY" $O/memcheck-$sc.log
done
echo "== bench fin, full set with the ray cast (README table)"
timeout 200 /tmp/v/fin/wavepath bench --backend gpu --repeat 5 --resources /tmp/v/fin/kernel_resources.txt --json $O/bench.json --plot $O/bench.svg > $O/bench.txt 2>&1; echo "rc=$?"
grep -E "^scenes|^  (wavefront|megakernel) |ray cast" $O/bench.txt
echo "== ncu: RTIOW shade, base and fin (launches 3-4)"
for v in base fin; do
  timeout 120 ncu --kernel-name regex:"^shade" --launch-skip 2 --launch-count 2 --csv --page details \
    --metrics gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_red_lookup_hit.sum \
    $(bin $v) render scenes/rtiow.json --backend gpu --mode wavefront -o /tmp/ncu.exr > $O/ncu-$v.csv 2> $O/ncu-$v.err; echo "ncu $v rc=$?"
  python3 - $O/ncu-$v.csv <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if rows:
    ix = {h: i for i, h in enumerate(rows[0])}
    for r in rows[1:]:
        print(f'{r[ix["ID"]]:>3} {r[ix["Metric Name"]][:40]:40} {r[ix["Metric Value"]]:>16} {r[ix["Metric Unit"]]}')
PY
done
show() { awk '/^scenes/{s=$1; sub(".*/","",s); sub(".json:","",s)} /^  wavefront /{w=$2; wr=$5} /^  megakernel /{printf "%s wf %s mk %s ext-Mrays/s %s/%s  ", s, w, $2, wr, $5} END{print ""}' "$1"; }
echo "== RTIOW ceilings"
for r in 1 2; do
  for v in fin rng f32 nolens lambert; do
    case $v in nolens|lambert) b=$(bin fin); sc=$D/rtiow-$v.json;; *) b=$(bin $v); sc=scenes/rtiow.json;; esac
    timeout 60 $b bench $sc --backend gpu --repeat 5 --no-raycast > $O/c-$v-r$r.txt 2>&1; echo -n "$v r$r rc=$? "; show $O/c-$v-r$r.txt
  done
done
cd $O && tar czf logs4.tgz *.txt *.log *.csv && rm -f c-*.txt gpu_tests.log memcheck-*.log ncu-*.csv ncu-*.err
