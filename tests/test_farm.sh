#!/usr/bin/env bash
# The Ray render farm (python/wavepath_farm.py) on a local cluster this test starts and stops: a head node and a
# worker node on 127.0.0.1 (`ray start --block`, so that stopping their launchers stops exactly their processes).
# A batch of two scenes x 4 sample-range shards, one shard's worker killed (SIGKILL) on its first attempt and
# retried; each merged image must equal a single-process `wavepath render` of the scene bit for bit.
#   tests/test_farm.sh path/to/wavepath SOURCE_DIR BUILD_DIR
set -u
WP=$(realpath "$1") SRC=$(realpath "$2") BUILD=$(realpath "$3")
fail() { echo "FAIL farm: $*"; exit 1; }
python3 -c "import ray" 2>/dev/null \
  || fail "python3 cannot import ray: scripts/install-deps.sh installs it (python3 -m pip install ray)"
T=$BUILD/farm-test
rm -rf "$T" && mkdir -p "$T/out" && cd "$T" || exit 1
RT=$(mktemp -d /tmp/wpray.XXXXXX)  # Ray's sockets live here: the path must stay short
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GCS=$(port)
export RAY_USAGE_STATS_ENABLED=0
RAY=(python3 -m ray.scripts.scripts)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  # anything of this cluster still running (by its own temporary folder): stopped by id
  for p in $(pgrep -f "$RT" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$RT"
}
trap cleanup EXIT
"${RAY[@]}" start --head --block --node-ip-address=127.0.0.1 --port="$GCS" \
  --num-cpus=2 --num-gpus=0 --object-store-memory=100000000 --include-dashboard=false --disable-usage-stats \
  --temp-dir="$RT" > head.log 2>&1 &
pids+=($!)
ADDR=127.0.0.1:$GCS
for i in $(seq 60); do
  "${RAY[@]}" status --address="$ADDR" > status.log 2>&1 && break
  kill -0 "${pids[0]}" 2>/dev/null || fail "the head node did not start: $(tail -20 head.log)"
  sleep 1
done
"${RAY[@]}" start --block --address="$ADDR" --node-ip-address=127.0.0.1 --num-cpus=1 --num-gpus=0 \
  --object-store-memory=100000000 --disable-usage-stats > worker.log 2>&1 &
pids+=($!)
for i in $(seq 60); do
  python3 - "$ADDR" > nodes.log 2>&1 <<'PY' && break
import sys, ray
ray.init(address=sys.argv[1], log_to_driver=False)
n = sum(1 for x in ray.nodes() if x["Alive"])
print(n, "nodes")
sys.exit(0 if n >= 2 else 1)
PY
  kill -0 "${pids[1]}" 2>/dev/null || fail "the worker node did not start: $(tail -20 worker.log)"
  sleep 1
done
grep -q "^2 nodes" nodes.log || fail "the worker node did not join: $(cat nodes.log) $(tail -5 worker.log)"
echo "ok: a head and a worker node on $ADDR"

ARGS=(--width 24 --height 16 --seed 5)
python3 "$SRC/python/wavepath_farm.py" --address "$ADDR" --wavepath "$WP" --backend cpu --spp 8 --shards 4 \
  --inject-kill 2 --parts-dir parts -o 'out/{name}.pfm' "$SRC/scenes/cornell-box.json" "$SRC/scenes/rtiow.json" \
  -- "${ARGS[@]}" > farm.log 2>&1
rc=$?
[ $rc -eq 0 ] || fail "the farm exited $rc: $(cat farm.log)"
grep -q "failed (.*): retry 1 of 3" farm.log || fail "no killed and retried shard in: $(cat farm.log)"
[ "$(grep -c 'retry 1 of 3' farm.log)" -eq 2 ] || fail "want one retried shard per scene: $(cat farm.log)"
grep -q "shards \[####################\] 8/8, 2 retried" farm.log || fail "no complete progress bar: $(cat farm.log)"
[ "$(ls parts/*.wpfilm | wc -l)" -eq 8 ] || fail "want 8 parts: $(ls parts)"
for s in cornell-box rtiow; do
  grep -q "merged 4 parts of .*$s.json" farm.log || fail "$s not merged: $(cat farm.log)"
  "$WP" render "$SRC/scenes/$s.json" --backend cpu --spp 8 "${ARGS[@]}" -o ref-$s.pfm > /dev/null \
    || fail "single-process render of $s"
  cmp -s out/$s.pfm ref-$s.pfm || fail "$s: the farm's image differs from the single-process render"
done
echo "ok: 2 scenes x 4 shards on Ray, a killed shard retried, images bit-identical to single-process renders"
cleanup
trap - EXIT
sleep 1
left=$(pgrep -f "$RT" 2>/dev/null)
[ -z "$left" ] || fail "processes of the cluster left: $left"
echo "ok: the cluster stopped, nothing left"
