#!/usr/bin/env bash
# Regenerates the parity suite's pbrt-v4 references: tests/parity/ref/NAME.exr for every manifest line (or the
# NAMEs given), each rendered by pbrt-v4 on the CPU at the manifest's ref_spp:
#   nice -n 10 $PBRT --nthreads $THREADS --spp REF_SPP --outfile ref/NAME.exr SCENE
# Feature scenes (scenes/*.pbrt) carry their resolution in their Film line. A published scene is rendered from a
# copy beside the original (so its relative paths hold) in which only the Film's xresolution/yresolution are changed
# to the manifest's WxH. Each command is appended to ref/COMMANDS.txt with its date, wall time and pbrt's version.
#
# Usage: tests/parity/make_references.sh [NAME...]
#   PBRT=path (default ../shared/pbrt-v4/tool/pbrt beside the repository: pbrt-v4 master 5f7a6068, see that folder's README.md)
#   THREADS=n (default 2)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PBRT="${PBRT:-$HERE/../../../shared/pbrt-v4/tool/pbrt}"
THREADS="${THREADS:-2}"
PBRT_VERSION="pbrt-v4 master 5f7a6068 (prebuilt, ../shared/pbrt-v4/tool/README.md)"
mkdir -p "$HERE/ref"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
tar -xJf "$HERE/published.tar.xz" -C "$WORK"

want=" $* "
while read -r name scene size spp ref_spp tol status; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    if [[ $# -gt 0 && "$want" != *" $name "* ]]; then continue; fi
    w=${size%x*} h=${size#*x}
    if [[ "$scene" == published/* ]]; then
        src="$WORK/$scene"
        file="$(dirname "$src")/$name.parity.pbrt"
        # only the Film resolution changes (pbrt has no resolution flag)
        sed -E "s/(\"integer xresolution\"[[:space:]]*)\[?[[:space:]]*[0-9]+[[:space:]]*\]?/\1[ $w ]/;
                s/(\"integer yresolution\"[[:space:]]*)\[?[[:space:]]*[0-9]+[[:space:]]*\]?/\1[ $h ]/" "$src" > "$file"
        shown="$scene with Film xresolution $w yresolution $h"
    else
        file="$HERE/$scene"
        grep -q "\"integer xresolution\" $w \"integer yresolution\" $h" "$file" ||
            { echo "$name: $scene's Film is not $size" >&2; exit 1; }
        shown="$scene"
    fi
    cmd=(nice -n 10 "$PBRT" --nthreads "$THREADS" --spp "$ref_spp" --outfile "$HERE/ref/$name.exr" "$file")
    echo "== $name: pbrt --spp $ref_spp, $size"
    t0=$(date +%s)
    (cd "$(dirname "$file")" && "${cmd[@]}") > "$WORK/$name.log" 2>&1 || { tail -5 "$WORK/$name.log"; exit 1; }
    t1=$(date +%s)
    grep -i "warning" "$WORK/$name.log" | grep -v "Output filename supplied" | sed "s/^/   /" || true
    printf '%s  %-28s pbrt --nthreads %s --spp %s --outfile ref/%s.exr %s  # %ss wall, %s\n' "$(date -u +%F)" "$name" \
        "$THREADS" "$ref_spp" "$name" "$shown" "$((t1 - t0))" "$PBRT_VERSION" >> "$HERE/ref/COMMANDS.txt"
    echo "   $((t1 - t0)) s"
done < "$HERE/manifest.txt"
