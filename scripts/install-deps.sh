#!/usr/bin/env bash
# Installs the Debian 12 packages wavepath builds with. Idempotent. The CUDA 13 toolkit (nvcc, CCCL)
# is expected to be installed already (it is not a Debian package).
set -euo pipefail
pkgs=(cmake g++ make libglm-dev nlohmann-json3-dev libgtest-dev libstb-dev libtinyexr-dev
      libtinyobjloader-dev libcli11-dev libtinygltf-dev zlib1g-dev
      clang libclang-rt-14-dev clang-format-14 python3 python3-jsonschema python3-pip)  # clang: the ASan/UBSan + libFuzzer build (scripts/ci_sanitize.sh)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
# Ray (PyPI `ray`, not a Debian package) for the render farm driver python/wavepath_farm.py and its test
# (tests/test_farm.sh): pip into the system Python (Debian 12 marks it externally managed, hence the flag), for the
# user when not root. Skipped when python3 can import it already.
if ! python3 -c "import ray" >/dev/null 2>&1; then
  user=(); [ "$(id -u)" -ne 0 ] && user=(--user)
  python3 -m pip install -q "${user[@]}" --break-system-packages "ray>=2.9"
fi
python3 -c "import ray" || { echo "install-deps: python3 cannot import ray after installing it"; exit 1; }
echo "install-deps: all packages present"
