#!/usr/bin/env bash
# CI, second half: the host code built by clang under AddressSanitizer and UBSan (no CUDA), then
#   - the loader, scene and image tests and the bad-input corpus (gtest and the command line),
#   - the libFuzzer target over the scene and mesh loaders, for a bounded time (WP_FUZZ_SECONDS, default 120),
#     seeded from the repository's scenes, meshes and the corpus;
#   - the libFuzzer target over the pbrt-v4 tokenizer and parser (WP_FUZZ_PBRT_SECONDS, default 60), seeded from
#     the .pbrt scenes and corpus cases.
# A sanitizer report, a crash or a fuzzer finding fails the run; the fuzzer leaves its crash-* input in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${WP_ASAN_BUILD:-build-asan}
mkdir -p "$B"
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DWAVEPATH_CUDA=OFF \
      -DWAVEPATH_FUZZ=ON > "$B/configure.log" 2>&1 || { cat "$B/configure.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" --target wp_tests wavepath wp_fuzz wp_fuzz_pbrt
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$B/wp_tests" --gtest_brief=1 \
  --gtest_filter='BadInput.*:SceneJson.*:Mesh*:Ply*:Gltf*:Tungsten*:Pbrt*:ImageIO.*:Textures.*:Environment.*:Bench.Ptxas*'
bash tests/run_bad_input.sh "$B/wavepath"
bash tests/fuzz/make_seeds.sh "$B/fuzz-seeds"
mkdir -p "$B/fuzz-corpus"
(cd "$B" && ./wp_fuzz -max_total_time="${WP_FUZZ_SECONDS:-120}" -timeout=10 -rss_limit_mb=4096 -max_len=200000 \
   -print_final_stats=1 fuzz-corpus fuzz-seeds 2>&1 | grep -v "^#[0-9]" | tail -25; exit "${PIPESTATUS[0]}")
bash tests/fuzz/make_seeds.sh "$B/fuzz-pbrt-seeds" pbrt
mkdir -p "$B/fuzz-pbrt-corpus"
(cd "$B" && ./wp_fuzz_pbrt -max_total_time="${WP_FUZZ_PBRT_SECONDS:-60}" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
   -print_final_stats=1 fuzz-pbrt-corpus fuzz-pbrt-seeds 2>&1 | grep -v "^#[0-9]" | tail -25; exit "${PIPESTATUS[0]}")
echo "ci_sanitize: passed"
