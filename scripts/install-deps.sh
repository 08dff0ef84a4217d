#!/usr/bin/env bash
# Installs the Debian 12 packages wavepath builds with. Idempotent. The CUDA 13 toolkit (nvcc, CCCL)
# is expected to be installed already (it is not a Debian package).
set -euo pipefail
pkgs=(cmake g++ make libglm-dev nlohmann-json3-dev libgtest-dev libstb-dev libtinyexr-dev
      libtinyobjloader-dev libcli11-dev libtinygltf-dev zlib1g-dev
      clang libclang-rt-14-dev clang-format-14 python3 python3-jsonschema)  # clang: the ASan/UBSan + libFuzzer build (scripts/ci_sanitize.sh)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
echo "install-deps: all packages present"
