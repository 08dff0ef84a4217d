# Shared preamble of the maintained profiling scripts (sourced, not run): the repository root as the working folder,
# the environment the binaries need, the stage names (stages.sh), the binaries' folder B, the wavepath binary WP, the
# output folder O, and helpers. B is build/ when it holds a CUDA build, else .devcarry/ (the folder carried to the
# device machine: the binaries, kernel_resources.txt and the shared libraries they load). WP, B and O may be set
# before sourcing. archive_outputs tars O into $OUT/logs.tgz on exit (the device tool returns few files).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. profiling/stages.sh
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
if [ -z "${B:-}" ]; then B=build; [ -x build/wp_gpu_tests ] || B=.devcarry; fi
WP=${WP:-$B/wavepath}
[ -d "$B/lib" ] && export LD_LIBRARY_PATH="$PWD/$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
O=${O:-/tmp/wp-out}
mkdir -p "$O"
# The mode lines and the ray-cast line of a `wavepath bench` report, each prefixed with its scene.
show() { awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0} /ray cast only/{print s, $0}' "$1"; }
archive_outputs() { trap 'if [ -n "${OUT:-}" ]; then tar czf "$OUT/logs.tgz" -C "$O" .; fi' EXIT; }
# The GPU tests into $O/gpu_tests.log, their summary printed.
run_gpu_tests() {
  echo "== GPU tests"
  timeout 240 $B/wp_gpu_tests > "$O/gpu_tests.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests.log" | head
}
# The benchmark set with the defaults, both modes (extra bench arguments, e.g. --repeat 5, appended) into
# $O/bench.{txt,json,svg}; the mode lines and the kernel rows printed.
run_bench_defaults() {
  echo "== bench, defaults"
  timeout 240 "$WP" bench --backend gpu "$@" --json "$O/bench.json" --plot "$O/bench.svg" > "$O/bench.txt" 2>&1
  echo "rc=$?"; show "$O/bench.txt"
  grep -E "^scenes|^    (generate|extend|shade|shadow|compact_select|compact|drain|megakernel) |per-kernel events" "$O/bench.txt"
}
# compute-sanitizer memcheck of a small render of scenes/SCENE.json in both modes (extra render arguments appended)
# into $O/memcheck-SCENE.log; its error summary printed.
memcheck_render() {
  local sc=$1; shift
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 "$WP" render scenes/$sc.json --backend gpu \
    --mode both --width 128 --height 96 "$@" -o /tmp/san.exr > "$O/memcheck-$sc.log" 2>&1
  echo "memcheck $sc rc=$?"; grep -E "ERROR SUMMARY" "$O/memcheck-$sc.log"
}
# The benchmark set (median of 5) into $O/bench-NAME.{txt,json}, its mode lines and kernel rows printed:
#   run_bench_variant NAME            the binaries in $B/NAME, with their own ptxas report;
#   run_bench_env NAME VAR=VALUE...   the default binary with those environment variables.
bench_report() {
  echo "rc=$1"; show "$O/bench-$2.txt"
  grep -E "^scenes|^    (generate|extend|shade|shadow|drain|megakernel) " "$O/bench-$2.txt"
}
run_bench_variant() {
  echo "== bench, $1"
  timeout 200 $B/$1/wavepath bench --backend gpu --repeat 5 --resources $B/$1/kernel_resources.txt \
    --json "$O/bench-$1.json" > "$O/bench-$1.txt" 2>&1
  bench_report $? "$1"
}
run_bench_env() {
  local v=$1; shift
  echo "== bench, $*"
  env "$@" timeout 200 "$WP" bench --backend gpu --repeat 5 --json "$O/bench-$v.json" > "$O/bench-$v.txt" 2>&1
  bench_report $? "$v"
}
# The GPU tests with environment variables into $O/gpu_tests-NAME.log: run_gpu_tests_env NAME VAR=VALUE...
run_gpu_tests_env() {
  local v=$1; shift
  echo "== GPU tests, $*"
  env "$@" timeout 240 $B/wp_gpu_tests > "$O/gpu_tests-$v.log" 2>&1; echo "rc=$?"
  grep -E "^\[  (PASSED|FAILED)|FAILED \]" "$O/gpu_tests-$v.log" | head
}
# Nsight Compute's METRICS (comma-separated) over the first COUNT launches of the kernels named ^KERNEL in a 4-spp
# wavefront render of scenes/SCENE.json by the binary BIN, into $O/ncu-NAME.csv; a line per launch and metric printed.
# Extra ncu options may follow; environment assignments may precede the call.
#   ncu_launches NAME BIN KERNEL SCENE COUNT METRICS [ncu options...]
ncu_launches() {
  local name=$1 bin=$2 kernel=$3 sc=$4 count=$5 metrics=$6; shift 6
  timeout 100 ncu --kernel-name "regex:^$kernel" --launch-skip 0 --launch-count "$count" "$@" --metrics "$metrics" \
    --csv --page details "$bin" render "scenes/$sc.json" --backend gpu --mode wavefront --spp 4 \
    -o /tmp/ncu.exr > "$O/ncu-$name.csv" 2> "$O/ncu-$name.err"
  echo "ncu $name rc=$?"
  python3 - "$O/ncu-$name.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if rows:
    ix = {h: i for i, h in enumerate(rows[0])}
    for r in rows[1:]:
        print(f'{r[ix["ID"]]:>3} {r[ix["Kernel Name"]][:18]:18} {r[ix["Metric Name"]][:40]:40} {r[ix["Metric Value"]]:>16} {r[ix["Metric Unit"]]}')
PY
}
