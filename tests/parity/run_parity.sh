#!/usr/bin/env bash
# One parity-suite test (docs/PARITY.md): renders manifest scene NAME with wavepath's CPU backend and compares it
# with pbrt-v4's committed reference ref/NAME.exr (wp_parity_compare: mean ratios per channel, relMSE after a 4x4
# box downsample). A "gap: <feature>" scene prints the feature and exits 77, which ctest reports as SKIPPED;
# PARITY_RUN_GAPS=1 renders and checks it anyway. PARITY_BACKEND (cpu) and PARITY_MODE (megakernel) choose the
# renderer (the GPU machine runs the suite with gpu and both schedules: .devcarry's script, docs/PARITY.md).
#
# Usage: run_parity.sh NAME WAVEPATH COMPARE PARITY_SRC_DIR WORK_DIR
set -uo pipefail
name="$1" wavepath="$2" compare="$3" src="$4" work="$5"
line="$(awk -v n="$name" '$1 == n' "$src/manifest.txt")"
[[ -n "$line" ]] || { echo "no manifest line for '$name'" >&2; exit 2; }
read -r _ scene size spp ref_spp tol status <<< "$line"
w=${size%x*} h=${size#*x}
if [[ "$status" == gap* && "${PARITY_RUN_GAPS:-0}" != 1 ]]; then
    echo "SKIPPED $name: $status"
    exit 77
fi
if [[ "$scene" == published/* ]]; then
    # the published scenes live in an archive; CMake extracts it at configure time, this is the fallback
    if [[ ! -f "$work/$scene" ]]; then
        mkdir -p "$work"
        tar -xJf "$src/published.tar.xz" -C "$work" || exit 2
    fi
    file="$work/$scene"
else
    file="$src/$scene"
fi
mkdir -p "$work/out"
out="$work/out/$name.exr"
rm -f "$out"
t0=$(date +%s.%N)
"$wavepath" render "$file" --backend "${PARITY_BACKEND:-cpu}" --mode "${PARITY_MODE:-megakernel}" --spp "$spp" --width "$w" --height "$h" -o "$out" \
    > "$work/out/$name.log" 2>&1
rc=$?
t1=$(date +%s.%N)
grep -E "warning|error" "$work/out/$name.log" | head -20
if [[ $rc -ne 0 ]]; then
    echo "wavepath failed (exit $rc):"; tail -5 "$work/out/$name.log"; exit 1
fi
awk -v s="$size" -v n="$spp" -v a="$t0" -v b="$t1" 'BEGIN { printf "wavepath: %s, %s spp, %.1f s\n", s, n, b - a }'
"$compare" "$name" "$src/ref/$name.exr" "$out" --mean-tol "$tol" --relmse-tol 0.01 --block 4
rc=$?
[[ "$status" == gap* ]] && echo "(a gap scene, run because PARITY_RUN_GAPS=1: $status)"
exit $rc
