#!/usr/bin/env bash
# The Ray render farm (python/wavepath_farm.py) on a local cluster this test starts and stops: a head node and a
# worker node on 127.0.0.1 (`ray start --block`, so that stopping their launchers stops exactly their processes).
# A batch of two scenes x 4 sample-range shards, one shard's worker killed (SIGKILL) on its first attempt and
# retried; each merged image must equal a single-process `wavepath render` of the scene bit for bit; a driver with
# a wrong token fails with Ray's own message, at once.
#   tests/test_farm.sh path/to/wavepath SOURCE_DIR BUILD_DIR [cluster|example]
# `example`: the README's example as written (`--address local`, no --wavepath: the binary found as build/wavepath
# beside python/), in a copy of the tree's layout; the local cluster must leave no process and touch no ~/.ray.
# Both run with a HOME of their own holding a stale ~/.ray/auth_token (what an earlier local Ray leaves behind): the
# clusters must not depend on it, as their configuration is explicit (RAY_AUTH_MODE, RAY_AUTH_TOKEN_PATH).
set -u
WP=$(realpath "$1") SRC=$(realpath "$2") BUILD=$(realpath "$3") MODE=${4:-cluster}
fail() { echo "FAIL farm $MODE: $*"; exit 1; }
python3 -c "import ray" 2>/dev/null \
  || fail "python3 cannot import ray: scripts/install-deps.sh installs it (python3 -m pip install ray)"
# the Ray versions the farm is tested with (scripts/install-deps.sh installs within them): outside, a warning only
PYTHONPATH=$SRC/python python3 -c 'import sys, ray, wavepath_farm as f; sys.exit(0 if f.ray_version_ok(ray.__version__) else 1)' \
  || echo "warning: Ray $(python3 -c 'import ray; print(ray.__version__)') is outside the tested versions"
T=$BUILD/farm-test-$MODE
rm -rf "$T" && mkdir -p "$T/out" && cd "$T" || exit 1
# a HOME of the test's own, with a stale token in it (the user's Python packages stay where they are)
export PYTHONUSERBASE=${PYTHONUSERBASE:-$(python3 -m site --user-base)}
mkdir -p "$T/home/.ray" && echo "stale-token-of-an-earlier-local-ray" > "$T/home/.ray/auth_token"
export HOME=$T/home
unset RAY_ADDRESS RAY_AUTH_TOKEN RAY_AUTH_MODE RAY_AUTH_TOKEN_PATH
export RAY_USAGE_STATS_ENABLED=0
RAY=(python3 -m ray.scripts.scripts)
# Ray's refusal of a token, in a log: the test stops at once with Ray's own line rather than retrying to its timeout
auth_refused() { grep -m1 -E "AuthenticationError|InvalidAuthToken|Unauthenticated" "$@" 2>/dev/null; }

if [ "$MODE" = example ]; then
  # the README's command, as written but for the sizes, from a tree laid out as the repository: python/, build/
  grep -q "^python3 python/wavepath_farm.py --address local " "$SRC/README.md" \
    || fail "README.md has no example starting 'python3 python/wavepath_farm.py --address local'"
  grep -A2 "^python3 python/wavepath_farm.py --address local " "$SRC/README.md" | grep -q -- "--wavepath" \
    && fail "the README's local example gives --wavepath: it must work without"
  mkdir -p tree/python tree/build && cp "$SRC/python/wavepath_farm.py" tree/python/ && ln -s "$WP" tree/build/wavepath \
    && ln -s "$SRC/scenes" tree/scenes && mkdir tree/out || exit 1
  PATH=$(echo "$PATH" | tr : '\n' | grep -v "^$(dirname "$WP")\$" | paste -sd:)  # not found through PATH
  ! command -v wavepath > /dev/null || echo "note: a wavepath on PATH ($(command -v wavepath)): build/wavepath comes first"
  (cd tree && python3 python/wavepath_farm.py --address local --spp 8 --shards 4 scenes/cornell-box.json \
     scenes/rtiow.json -o 'out/{name}.exr' -- --width 24 --height 16) > farm.log 2>&1
  rc=$?
  [ $rc -eq 0 ] || fail "the README's example exited $rc: $(cat farm.log)"
  grep -q "; $T/tree/build/wavepath\$" farm.log || fail "not the tree's build/wavepath: $(head -3 farm.log)"
  dir=$(sed -n 's/^local Ray cluster: \(.*\) (its own temporary folder and token)$/\1/p' farm.log)
  [ -n "$dir" ] || fail "no 'local Ray cluster: DIR' line in: $(cat farm.log)"
  for s in cornell-box rtiow; do
    grep -q "merged 4 parts of .*$s.json" farm.log || fail "$s not merged: $(cat farm.log)"
    [ -s tree/out/$s.exr ] || fail "no tree/out/$s.exr"
  done
  [ "$(cat home/.ray/auth_token)" = "stale-token-of-an-earlier-local-ray" ] && [ "$(ls -A home/.ray)" = auth_token ] \
    || fail "the local cluster changed ~/.ray: $(ls -la home/.ray)"
  [ ! -e "$dir" ] || fail "the local cluster's folder $dir is left"
  sleep 1
  left=$(pgrep -f "$dir" 2>/dev/null)
  [ -z "$left" ] || fail "processes of the local cluster left: $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"
  echo "ok: the README's farm example (--address local, no --wavepath) rendered and merged 2 scenes x 4 shards with" \
    "build/wavepath, in a cluster of its own (its folder and token), ignoring a stale ~/.ray/auth_token, leaving nothing"
  exit 0
fi

RT=$(mktemp -d /tmp/wpray.XXXXXX)  # Ray's sockets live here: the path must stay short
# explicit token authentication with a token of this cluster's own, for every node and driver of the test
python3 -c 'import secrets; print(secrets.token_hex(32))' > "$RT/auth_token" && chmod 600 "$RT/auth_token"
export RAY_AUTH_MODE=token RAY_AUTH_TOKEN_PATH=$RT/auth_token
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
GCS=$(port)
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
  why=$(auth_refused status.log head.log) && fail "Ray refused the test's token: $why"
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
  why=$(auth_refused nodes.log worker.log) && fail "Ray refused the test's token: $why"
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
# a driver with another token: refused, and the farm says so with Ray's own message (no retries to a timeout)
python3 -c 'import secrets; print(secrets.token_hex(32))' > wrong_token
RAY_AUTH_TOKEN_PATH=$T/wrong_token python3 "$SRC/python/wavepath_farm.py" --address "$ADDR" --wavepath "$WP" \
  --backend cpu --spp 2 -o 'out/wrong-{name}.pfm' "$SRC/scenes/cornell-box.json" > wrong.log 2>&1
rc=$?
[ $rc -eq 3 ] || fail "a driver with a wrong token exited $rc (want 3): $(cat wrong.log)"
grep -q "error: cannot connect to the Ray cluster at $ADDR" wrong.log || fail "no connection error in: $(cat wrong.log)"
auth_refused wrong.log > /dev/null || fail "Ray's authentication message is not in: $(cat wrong.log)"
grep -q "RAY_AUTH_TOKEN_PATH" wrong.log || fail "no hint about the token in: $(cat wrong.log)"
echo "ok: a driver with a wrong token exits 3 with Ray's message ($(auth_refused wrong.log | cut -c1-100))"
cleanup
trap - EXIT
sleep 1
left=$(pgrep -f "$RT" 2>/dev/null)
[ -z "$left" ] || fail "processes of the cluster left: $left"
echo "ok: the cluster stopped, nothing left"
