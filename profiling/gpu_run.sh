#!/usr/bin/env bash
# One call on the device machine: GPU tests (with timings printed), resources, a memcheck pass.
# Expects the binaries in .devcarry/ (built here with nvcc -arch=sm_90; see README).
set -u
cd "$(dirname "$0")/.."
export WP_SOURCE_DIR="$PWD"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
./.devcarry/wp_gpu_tests 2>&1 | tee "${OUT:-/tmp}/gpu_tests.log"
cuobjdump --dump-resource-usage ./.devcarry/wp_gpu_tests 2>&1 | grep -E 'Function|REG' | head -20
compute-sanitizer --tool memcheck ./.devcarry/wp_gpu_tests --gtest_filter='Gpu.WhiteFurnace*' 2>&1 | tail -4
