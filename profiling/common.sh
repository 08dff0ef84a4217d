# Shared preamble of the device scripts (sourced, not run): the repository root as the working folder, the
# environment the binaries need, the binaries' folder B (.devcarry/, README "Measured"), the output folder O, and
# helpers. A script that sets O before sourcing keeps its own; archive_outputs tars O into $OUT/logs.tgz on exit
# (the device tool returns a limited number of files).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export WP_SOURCE_DIR="$PWD" CUDA_MODULE_LOADING=EAGER
B=${B:-.devcarry}
O=${O:-/tmp/wp-out}
mkdir -p "$O"
# The mode lines and the ray-cast line of a `wavepath bench` report, each prefixed with its scene.
show() { awk '/^scenes/{s=$1} /^  (wavefront|megakernel)  /{print s, $0} /ray cast only/{print s, $0}' "$1"; }
archive_outputs() { trap 'if [ -n "${OUT:-}" ]; then tar czf "$OUT/logs.tgz" -C "$O" .; fi' EXIT; }
