#!/usr/bin/env bash
# compute-sanitizer over every kernel (both schedules, the CUB calls, the ray-cast pass) for the benchmark
# scenes at low resolution: memcheck (out-of-bounds and misaligned accesses, leaks), racecheck (shared-memory
# hazards: CUB's sort and select), synccheck and initcheck (reads of uninitialised device memory).
#   profiling/sanitize_gpu.sh [path/to/wavepath] [log dir]     (the binary by default: WP of common.sh)
# Prints one line per tool and scene with its error summary; exit code 1 if any tool reports an error.
set -u
[ $# -ge 1 ] && WP=$(realpath "$1")
. "$(dirname "$0")/common.sh"
LOG=${2:-${OUT:-/tmp}/sanitize}
mkdir -p "$LOG"
fail=0
for scene in scenes/cornell-box.json scenes/rtiow.json scenes/sponza.json scenes/dragon.json scenes/helmet.json \
             scenes/materials.json scenes/water-caustic/scene.json; do
  [ -f "$scene" ] || continue
  name=$(basename "$(dirname "$scene")")-$(basename "${scene%.json}")
  for tool in memcheck racecheck synccheck initcheck; do
    extra=""
    [ "$tool" = memcheck ] && extra="--leak-check full"
    compute-sanitizer --tool $tool $extra --error-exitcode 99 \
      "$WP" render "$scene" --backend gpu --mode both --width 48 --height 32 --spp 2 --sort-materials \
      -o "/tmp/sanitize-$name.exr" > "$LOG/$name-$tool.log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOG/$name-$tool.log" | tail -1)
    printf "%-24s %-10s rc=%-3s %s\n" "$name" "$tool" "$rc" "${summary:-no summary (see log)}"
    if [ $rc -ne 0 ]; then fail=1; fi
  done
done
# the ray-cast-only pass and the bench's occupancy queries
compute-sanitizer --tool memcheck --error-exitcode 99 "$WP" bench scenes/cornell-box.json --backend gpu --width 64 \
  --height 64 --spp 2 --repeat 1 --warmup 0 > "$LOG/bench-memcheck.log" 2>&1
rc=$?; printf "%-24s %-10s rc=%-3s %s\n" bench-raycast memcheck $rc "$(grep "ERROR SUMMARY" "$LOG/bench-memcheck.log" | tail -1)"
[ $rc -ne 0 ] && fail=1
exit $fail
