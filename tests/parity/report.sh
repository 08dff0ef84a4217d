#!/usr/bin/env bash
# Prints the parity suite's table as Markdown (docs/PARITY.md "Current table"): every manifest scene rendered and
# compared, gap scenes included (PARITY_RUN_GAPS=1), with its status from the manifest.
# Usage: tests/parity/report.sh BUILD_DIR [NAME...]   (BUILD_DIR holds wavepath and wp_parity_compare)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "$1" && pwd)"; shift
want=" $* "
echo "| scene | size | spp | mean R | mean G | mean B | relMSE (4x4) | verdict | wavepath s | status |"
echo "|---|---|---|---|---|---|---|---|---|---|"
grep -v '^#' "$HERE/manifest.txt" | while read -r name scene size spp ref_spp tol status; do
    [[ -z "$name" ]] && continue
    if [[ -n "$*" && "$want" != *" $name "* ]]; then continue; fi
    out="$(PARITY_RUN_GAPS=1 bash "$HERE/run_parity.sh" "$name" "$build/wavepath" "$build/wp_parity_compare" "$HERE" \
        "$build/parity" 2>&1)"
    line="$(grep "mean ratio" <<< "$out")"
    secs="$(sed -n 's/^wavepath: .*, \([0-9.]*\) s$/\1/p' <<< "$out")"
    if [[ -z "$line" ]]; then
        echo "| $name | $size | $spp | | | | | ERROR | | $status |"
        continue
    fi
    read -r _ _ _ _ r _ g _ b _ rel verdict _ <<< "$line"
    echo "| $name | $size | $spp | $r | $g | $b | $rel | $verdict | $secs | $status |"
done
