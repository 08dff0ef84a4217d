#!/usr/bin/env bash
# Seed inputs for wp_fuzz (tests/fuzz/fuzz_loaders.cpp): each file is one byte naming the loader, then the
# content of a small real input from the repository.   tests/fuzz/make_seeds.sh OUTDIR [pbrt]
# With "pbrt": seeds for wp_fuzz_pbrt (tests/fuzz/fuzz_pbrt_tokenizer.cpp), the .pbrt files as they are.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$1
mkdir -p "$out"
i=0
if [ "${2:-}" = pbrt ]; then
  for f in scenes/*.pbrt tests/bad_input/*.pbrt; do i=$((i + 1)); cp "$f" "$out/seed-$i"; done
  echo "make_seeds: $i pbrt seeds in $out"
  exit 0
fi
seed() {  # kind file
  [ -f "$2" ] || return 0
  [ "$(stat -c %s "$2")" -le 200000 ] || return 0
  i=$((i + 1))
  { printf "\\x$(printf %02x "$1")"; cat "$2"; } > "$out/seed-$i"
}
for f in scenes/*.json tests/bad_input/*.json scenes/cornell-box/scene.json tests/data/tungsten/*.json; do seed 0 "$f"; done
for f in tests/bad_input/data/*.obj tests/data/*.obj scenes/*/*.obj; do seed 1 "$f"; done
for f in tests/bad_input/data/*.ply tests/data/ply/*.ply; do seed 2 "$f"; done
for f in scenes/gltf/*/glTF/*.gltf tests/data/gltf/*.gltf; do seed 3 "$f"; done
for f in tests/data/gltf/*.glb; do seed 4 "$f"; done
for f in tests/data/tungsten/*.wo3 scenes/water-caustic/front.wo3; do seed 5 "$f"; done
for f in scenes/*.pbrt tests/bad_input/*.pbrt; do seed 6 "$f"; done
echo "make_seeds: $i seeds in $out"
