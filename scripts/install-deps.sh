#!/usr/bin/env bash
# Installs the Debian 12 packages wavepath builds with. Idempotent. The CUDA 13 toolkit (nvcc, CCCL)
# is expected to be installed already (it is not a Debian package).
set -euo pipefail
pkgs=(cmake g++ make libglm-dev nlohmann-json3-dev libgtest-dev libstb-dev libtinyexr-dev
      libtinyobjloader-dev libcli11-dev libtinygltf-dev zlib1g-dev
      clang libclang-rt-14-dev clang-format-14 python3 python3-dev python3-jsonschema python3-pip)  # clang: the ASan/UBSan + libFuzzer build (scripts/ci_sanitize.sh)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
# Ray (PyPI `ray`, not a Debian package) for the render farm driver python/wavepath_farm.py and its tests
# (tests/test_farm.sh): pip into the system Python (Debian 12 marks it externally managed, hence the flag), for the
# user when not root. The versions the farm is tested with (RAY_SUPPORTED in python/wavepath_farm.py): from 2.52,
# whose token authentication the farm configures explicitly (RAY_AUTH_MODE, RAY_AUTH_TOKEN_PATH), up to 2.60; 2.61
# turns token authentication on for every cluster and is not tested. Skipped when a version in that range imports.
RAY_SPEC="ray>=2.52,<2.61"
ray_ok() {
  python3 -c 'import sys, ray; v = tuple(int(x) for x in ray.__version__.split(".")[:2]); sys.exit(0 if (2, 52) <= v < (2, 61) else 1)' \
    >/dev/null 2>&1
}
if ! ray_ok; then
  user=(); [ "$(id -u)" -ne 0 ] && user=(--user)
  python3 -m pip install -q "${user[@]}" --break-system-packages "$RAY_SPEC"
fi
ray_ok || { echo "install-deps: python3 cannot import $RAY_SPEC after installing it"; exit 1; }
# Intel Open Image Denoise 2.x for --denoise: PyPI's pyoidn wheel carries libOpenImageDenoise.so.2 with its CPU and
# CUDA devices (no C headers: host/image/denoise.cpp declares the functions it uses and loads the library at run
# time). --no-deps: only the libraries are used, not the Python bindings.
if ! python3 -c "import importlib.util, sys; sys.exit(0 if importlib.util.find_spec('pyoidn') else 1)" 2>/dev/null; then
  python3 -m pip install --quiet --no-deps pyoidn==2.5.1.0 ||
    python3 -m pip install --quiet --no-deps --break-system-packages pyoidn==2.5.1.0
fi
# The Python package (python/wavepath, docs/PYTHON.md): nanobind (its binding library, found by CMake through
# `nanobind.cmake_dir()`) and scikit-build-core (what `pip install .` builds with) from PyPI, NumPy (the images) and
# pytest (its tests, ctest python_module); python3-dev above gives the headers. Same as Ray: into the system Python,
# for the user when not root; skipped when every one of them imports in its range.
PY_SPECS=("nanobind>=2.4,<3" "scikit-build-core>=0.10,<0.13" "numpy>=1.24,<3" "pytest>=7,<10")
py_ok() {
  python3 - <<'PYEOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
def v(name):
    return tuple(int(x) for x in version(name).split(".")[:2])
import nanobind, scikit_build_core, numpy, pytest
sys.exit(0 if (2, 4) <= v("nanobind") < (3, 0) and (0, 10) <= v("scikit-build-core") < (0, 13)
         and (1, 24) <= v("numpy") < (3, 0) and (7, 0) <= v("pytest") < (10, 0) else 1)
PYEOF
}
if ! py_ok; then
  user=(); [ "$(id -u)" -ne 0 ] && user=(--user)
  python3 -m pip install -q "${user[@]}" --break-system-packages "${PY_SPECS[@]}"
fi
py_ok || { echo "install-deps: python3 cannot import ${PY_SPECS[*]} after installing them"; exit 1; }
echo "install-deps: all packages present"
