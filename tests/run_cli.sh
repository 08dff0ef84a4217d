#!/usr/bin/env bash
# The command line end to end, one case per behaviour (each a CTest of its own, cli_<case>):
#   tests/run_cli.sh CASE path/to/wavepath SOURCE_DIR BUILD_DIR
# Every case works in a fresh folder under BUILD_DIR/cli-tests/CASE (the current folder of the commands) and
# prints what it checked; it exits 1 on the first failed check. CMakeLists.txt reads the case labels below (a line
# `name)` at the start of a line) as the list of tests, so a new case is a new label here and nothing else; a label
# followed by `# serial` is a test that runs alone (it signals a render in flight). (Not a `bash -c` string in CMake:
# CMake cuts one at its semicolons, and it would run only its first command.)
set -u
CASE=$1 WP=$(realpath "$2") SRC=$(realpath "$3") BUILD=$(realpath "$4")
S=$SRC/scenes
T=$BUILD/cli-tests/$CASE
rm -rf "$T" && mkdir -p "$T" && cd "$T" || exit 1
FAST=(--backend cpu --width 16 --height 16 --spp 2)
fail() { echo "FAIL $CASE: $*"; exit 1; }
ok() { echo "ok: $*"; }
# run NAME CMD...: runs CMD, stdout+stderr in NAME.log, exit code in $rc, seconds in $secs
run() {
  local name=$1
  shift
  local t0 t1
  last=$name.log
  t0=$(date +%s.%N)
  "$@" > "$name.log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk "BEGIN {print $t1 - $t0}")
}
has() { grep -qF -- "$2" "$1.log" || fail "$1: no '$2' in: $(cat "$1.log")"; }
hasnt() { ! grep -qF -- "$2" "$1.log" || fail "$1: '$2' in: $(cat "$1.log")"; }
want_rc() { [ "$rc" -eq "$2" ] || fail "$1: exit code $rc (want $2): $(cat "$last" 2>/dev/null)"; }
faster() { awk "BEGIN {exit !($secs < $2)}" || fail "$1: took $secs s (want under $2 s)"; }
# wait_for LOG PATTERN PID: until LOG has a line matching PATTERN while PID runs (a render under way, whatever this
# machine's load: no guessed time); fails if PID ends first
wait_for() {
  for _ in $(seq 1 1500); do
    grep -q -- "$2" "$1" && return 0
    kill -0 "$3" 2> /dev/null || { sleep 0.2; grep -q -- "$2" "$1" && return 0; fail "$1: ended before '$2': $(cat "$1")"; }
    sleep 0.2
  done
  fail "$1: no '$2' in 5 minutes: $(cat "$1")"
}
# stopped_within NAME MS: the render of NAME.log stopped within MS ms of the signal, by its own clock (the paths in
# flight finished and the image divided; the image's write after it is not counted)
stopped_within() {
  stop_ms=$(sed -n 's/.*the render stopped \([0-9.]*\) ms after the signal.*/\1/p' "$1.log")
  [ -n "$stop_ms" ] || fail "$1: no 'the render stopped ... ms after the signal' in: $(cat "$1.log")"
  awk "BEGIN {exit !($stop_ms < $2)}" || fail "$1: the render stopped $stop_ms ms after the signal (want under $2 ms)"
}

case "$CASE" in
outputs_checked_first)
  # a render that would take hours: every bad output fails before any work (exit 2, the path named): the exit itself
  # says nothing was rendered, and no estimate line that the probe was not run either (no time bound: a loaded
  # machine can take seconds just to start the program)
  SLOW=("$S/cornell-box.json" --backend cpu --width 512 --height 512 --spp 100000)
  mkdir outdir
  for o in /nonexistent/dir/x.exr x.jpg outdir noext; do
    run out timeout 120 "$WP" render "${SLOW[@]}" -o "$o"
    want_rc "render -o $o" 2
    has out "$o"
    hasnt out "estimate"
  done
  chmod 555 outdir
  if ! touch outdir/w 2>/dev/null; then  # (root writes anywhere: the check is skipped then)
    run ro timeout 120 "$WP" render "${SLOW[@]}" -o outdir/x.exr
    want_rc "render -o read-only folder" 2
    has ro "cannot write in folder 'outdir'"
  fi
  chmod 755 outdir
  rm -f outdir/w
  run bj timeout 120 "$WP" bench "$S/cornell-box.json" --backend cpu --spp 100000 --json /nonexistent/b.json
  want_rc "bench --json" 2
  has bj "/nonexistent/b.json"
  run bp timeout 120 "$WP" bench "$S/cornell-box.json" --backend cpu --spp 100000 --plot plot.png
  want_rc "bench --plot" 2
  has bp "plot.png"
  has bp "(supported: .svg)"
  [ -z "$(ls -A outdir)" ] && [ ! -e x.jpg ] || fail "files left: $(ls -A . outdir)"
  ls -A | grep -q wavepath-probe && fail "a probe file was left"
  ok "bad outputs of render and bench: exit 2 before any work, naming the path"
  ;;
batch)
  echo '{"camera": {"position": [0, 0, 5]}, "objects": []}' > broken.json
  # a bad scene among good ones: both errors reported together, before any render
  run b1 "$WP" render "$S/cornell-box.json" broken.json "$S/rtiow.json" missing.json "${FAST[@]}"
  want_rc "batch with bad scenes" 1
  has b1 "error: broken.json: /camera/target: missing"
  has b1 "error: missing.json: cannot open scene file"
  has b1 "2 of 4 scenes failed to load: nothing rendered"
  ls ./*.exr > /dev/null 2>&1 && fail "a scene was rendered although another failed to load"
  # --keep-going renders the rest; --output-dir; a summary table; exit code 1 since one failed
  mkdir out
  run b2 "$WP" render "$S/cornell-box.json" broken.json "$S/rtiow.json" "${FAST[@]}" --keep-going --output-dir out
  want_rc "--keep-going" 1
  [ -s out/cornell-box.exr ] && [ -s out/rtiow.exr ] || fail "--keep-going --output-dir: $(ls out)"
  grep -Eq "^broken.json +scene error" b2.log || fail "no summary row for broken.json: $(cat b2.log)"
  grep -Eq "^$S/rtiow.json +ok .*out/rtiow.exr" b2.log || fail "no summary row for rtiow: $(cat b2.log)"
  has b2 "2 of 3 scenes rendered"
  # -o patterns; the defaults in the current folder, not beside the scene; exit 0 when all succeed
  run b3 "$WP" render "$S/cornell-box.json" "$S/rtiow.json" "${FAST[@]}" -o 'pat/{name}-x.png'
  want_rc "-o pattern into a missing folder" 2
  has b3 "folder 'pat' does not exist"
  mkdir pat
  run b4 "$WP" render "$S/cornell-box.json" "$S/rtiow.json" "${FAST[@]}" -o 'pat/{dir}-{name}.png'
  want_rc "-o pattern" 0
  [ -s pat/scenes-cornell-box.png ] && [ -s pat/scenes-rtiow.png ] || fail "-o pattern: $(ls pat)"
  cp "$S/cornell-box.json" elsewhere.json && mkdir sub && mv elsewhere.json sub/
  run b5 "$WP" render sub/elsewhere.json "$S/cornell-box.json" "${FAST[@]}"
  want_rc "defaults" 0
  [ -s elsewhere.exr ] && [ -s cornell-box.exr ] && [ ! -e sub/elsewhere.exr ] || fail "defaults: $(ls . sub)"
  [ ! -e "$S/cornell-box.exr" ] || fail "an output beside the scene: $S/cornell-box.exr"
  run b6 "$WP" render "$S/cornell-box.json" "$S/rtiow.json" "${FAST[@]}" -o one.exr
  want_rc "-o one file for two scenes" 2
  has b6 "-o 'one.exr' names one file for 2 scenes"
  run b7 "$WP" render "$S/cornell-box.json" "$S/cornell-box/scene.json" "$S/water-caustic/scene.json" "${FAST[@]}" \
    --output-dir out
  want_rc "two scenes, one output" 2
  has b7 "would write it"
  ok "batches: loaded first, errors together, --keep-going, --output-dir, patterns, defaults here, summary"
  ;;
mode_both)
  run m "$WP" render "$S/cornell-box.json" "${FAST[@]}" --mode both -o pair.pfm
  want_rc "--mode both" 0
  [ -s pair.wavefront.pfm ] && [ -s pair.megakernel.pfm ] && [ -s pair.compare.json ] || fail "outputs: $(ls)"
  [ ! -e pair.pfm ] || fail "pair.pfm written besides the two"
  python3 - <<'EOF' || fail "pair.compare.json: $(cat pair.compare.json)"
import json
c = json.load(open("pair.compare.json"))
assert c["images"] == {"wavefront": "pair.wavefront.pfm", "megakernel": "pair.megakernel.pfm"}, c["images"]
assert c["identical_pixels"] == 1.0, c["identical_pixels"]  # the CPU schedules agree bit for bit
assert c["render_ms"]["wavefront"] > 0 and c["render_ms"]["megakernel"] > 0
assert c["speed_ratio_megakernel_over_wavefront"] > 0
EOF
  cmp -s pair.wavefront.pfm pair.megakernel.pfm || fail "the CPU schedules' images differ"
  ok "--mode both: NAME.wavefront.pfm, NAME.megakernel.pfm and NAME.compare.json"
  ;;
interrupt_prompt) # serial
  # SIGINT / SIGTERM are answered by the renderer at once: it takes no new chunk of paths, finishes those in flight
  # and returns the image so far, an exact prefix of the samples, saying how long after the signal it stopped. That
  # is the renderer's own part, bounded here, generously (10 s; tens of ms unloaded, under a second beside stress-ng
  # --cpu 4 on 2 cores: the wavefront's last paths run through many short parallel loops, each waiting for its
  # threads to be scheduled). The chunk-level stop itself is counted, not timed, in
  # RenderCpu.CancelStopsMidPassAndKeepsAnExactPrefix. Writing the 25 MB image after it is the disk's and is not
  # bounded. The signal comes once the render is under way (its estimate line: a render of days), not after a guess.
  "$WP" render "$S/cornell-box.json" --backend cpu --width 2048 --height 1024 --spp 100000 -o big.pfm > int.log 2>&1 &
  p=$!
  last=int.log
  wait_for int.log "^estimate:" $p
  sleep 2  # (some samples first: 256 paths are a millisecond's work)
  kill -INT $p
  wait $p
  rc=$?
  want_rc int 130
  stopped_within int 10000
  int_ms=$stop_ms
  python3 - <<'EOF' || fail "sidecar: $(cat big.pfm.json)"
import json
m = json.load(open("big.pfm.json"))
n, np = int(m["samples"]), 2048 * 1024
assert m["interrupted"] == "true" and 0 < n < np * 100000 and n % 256 == 0, m  # whole chunks of 256 paths
assert abs(float(m["spp"]) - n / np) < 1e-5 * max(1.0, float(m["spp"])), m  # exactly the samples taken
EOF
  [ "$(stat -c %s big.pfm)" -gt 25000000 ] || fail "big.pfm: $(stat -c %s big.pfm) bytes"
  rm -f big.pfm big.pfm.wpfilm
  "$WP" render "$S/cornell-box.json" --backend cpu --width 1024 --height 1024 --spp 100000 --mode wavefront -o w.png \
    > term.log 2>&1 &
  p=$!
  last=term.log
  wait_for term.log "^estimate:" $p
  sleep 2
  kill -TERM $p
  wait $p
  rc=$?
  want_rc term 143
  stopped_within term 10000
  [ -s w.png ] && grep -q '"interrupted":"true"' w.png.json || fail "w.png: $(ls) $(cat w.png.json)"
  rm -f w.png.wpfilm
  ok "SIGINT (megakernel: stopped $int_ms ms after it) and SIGTERM (wavefront: $stop_ms ms) answered by the renderer at once, the image kept with its exact sample count"
  ;;
interrupt_writes_image)
  # (a render of days: the signal once it is under way, after its estimate line)
  "$WP" render "$S/cornell-box.json" --backend cpu --width 64 --height 64 --spp 16777216 -o int.png > int.log 2>&1 &
  p=$!
  last=int.log
  wait_for int.log "^estimate:" $p
  kill -INT $p
  wait $p
  rc=$?
  want_rc int 130
  [ -s int.png ] || fail "no int.png"
  grep -q '"interrupted":"true"' int.png.json || fail "int.png.json: $(cat int.png.json)"
  has int "interrupted (signal 2): int.png holds"
  # the command that continues it, with the output given (not a placeholder) and the backend it ran on
  has int "resume: wavepath render $S/cornell-box.json --backend cpu --resume int.png.wpfilm -o int.png"
  ok "SIGINT: exit code 130, the PNG so far and its sidecar, the command that resumes it"
  ;;
strict_imports)
  python3 - <<'EOF'
import json
base = {"bsdfs": [{"name": "white", "type": "lambert", "albdo": 0.5}],
        "primitives": [{"type": "quad", "bsdf": "white", "transform": {"scale": [4, 1, 4]}},
                       {"type": "sphere", "bsdf": "white", "emission": 1,
                        "transform": {"position": [0, 2, 0], "scale": 0.5}}],
        "camera": {"resolution": 16, "fov": 60, "reconstruction_filter": "box",
                   "transform": {"position": [0, 1, 4], "look_at": [0, 0, 0], "up": [0, 1, 0]}},
        "integrator": {"type": "path_tracer", "max_bounces": 4}, "renderer": {"sp": 1}}
json.dump(base, open("typo.json", "w"))
base["primitives"].append({"type": "teapot", "bsdf": "white"})
json.dump(base, open("teapot.json", "w"))
EOF
  run s1 "$WP" render typo.json --backend cpu -o s1.pfm
  want_rc "misspelled keys" 0
  has s1 "warning: typo.json: /bsdfs/0/albdo: unknown bsdf key 'albdo' (did you mean 'albedo'?)"
  has s1 "warning: typo.json: /renderer/sp: unknown renderer key 'sp' (did you mean 'spp'?)"
  run s2 "$WP" render typo.json --backend cpu -o s2.pfm --strict
  want_rc "misspelled keys with --strict" 1
  has s2 "error: typo.json: /renderer/sp: unknown renderer key 'sp' (did you mean 'spp'?) (an error with --strict)"
  [ ! -e s2.pfm ] || fail "--strict rendered"
  run s3 "$WP" render teapot.json --backend cpu -o s3.pfm
  want_rc "a type outside Tungsten's" 1
  has s3 "error: teapot.json: /primitives/2/type: unknown primitive type 'teapot'"
  printf '#usda 1.0\n' > scene.usda
  run s4 "$WP" render scene.usda --backend cpu -o s4.pfm
  want_rc ".usda" 1
  has s4 "error: scene.usda: unsupported scene format '.usda' (supported: .json, .gltf, .glb, .pbrt)"
  hasnt s4 "JSON syntax error"
  printf 'LookAt 0 0 5 0 0 0 0 1 0\nCamera "perspective"\nWorldBegin\nLightSource "goniometric"\nShape "sphere"\n' > scene.pbrt
  run s5 "$WP" render scene.pbrt --backend cpu --width 8 --height 8 --spp 1 -o s5.pfm --strict
  want_rc "a pbrt-v4 warning with --strict" 1
  has s5 "error: scene.pbrt:4:"
  ok "Tungsten: unknown keys warn with the nearest key, --strict makes them errors, unknown types are errors; an unknown format named; pbrt-v4 warnings strict"
  ;;
exit_codes)
  run v "$WP" --version
  want_rc --version 0
  has v "wavepath "
  has v "CUDA architectures: "
  has v "GPU: "
  grep -Eq "^wavepath [0-9]+\.[0-9]+\.[0-9]+ \(([0-9a-f]{7,}|unknown)\)" v.log || fail "--version: $(cat v.log)"
  run u1 "$WP" render "$S/cornell-box.json" --no-such-option
  want_rc "unknown option" 2
  run u2 "$WP" render "$S/cornell-box.json" --spp 0
  want_rc "--spp 0" 2
  has u2 "--spp: 0 is out of range (1 to 16777216)"
  [ "$(head -1 u2.log | wc -c)" -lt 100 ] || fail "--spp 0: a long message: $(head -1 u2.log)"
  run u3 "$WP" render "$S/cornell-box.json" --width 1e999
  want_rc "--width 1e999" 2
  has u3 "is not a whole number (1 to 32768)"
  run u4 "$WP" render "$S/cornell-box.json" --mode sideways
  want_rc "--mode sideways" 2
  run u5 "$WP"
  want_rc "no subcommand" 2
  run u6 "$WP" bench "$S/cornell-box.json" --modes wavefront,sideways
  want_rc "--modes sideways" 2
  run i1 "$WP" render missing.json --backend cpu
  want_rc "missing scene" 1
  run h "$WP" render --help
  want_rc "--help" 0
  if grep -q "GPU: none found" v.log; then
    run g "$WP" render "$S/cornell-box.json" --backend gpu -o g.pfm
    want_rc "--backend gpu without a GPU" 3
  fi
  run w "$WP" render "$S/cornell-box.json" "${FAST[@]}" --refill 8 -o w.pfm
  want_rc "--refill on the CPU" 0
  has w "warning: 1 option does nothing in this render (cpu megakernel) and is ignored: --refill"
  has w "  --refill: GPU backend only; this runs on the cpu"
  run bc "$WP" bench "$S/cornell-box.json" --backend cpu --width 16 --height 16 --spp 1 --repeat 1 --warmup 0 \
    --no-kernel-timing
  want_rc "bench on the CPU" 0
  has bc "warning: 1 option does nothing in this bench (cpu, --modes wavefront,megakernel) and is ignored: --no-kernel-timing"
  has bc "wavepath bench: cpu ("
  has bc "Mrays/s; diffuse bounce"
  for word in "cpu on cpu" "Grays/s" "device MB" "regs" "occ"; do hasnt bc "$word"; done
  ok "exit codes 0/1/2/3, ranges in human size, --version, GPU-only flags warned about, CPU bench in CPU words"
  ;;
estimate) # serial
  # 64x64 at 2^24 spp: 6.9e10 samples, days on a CPU: an estimate first, with the size; Ctrl-C stops it
  "$WP" render "$S/cornell-box.json" --backend cpu --width 64 --height 64 --spp 16777216 -o e.pfm > est.log 2>&1 &
  p=$!
  last=est.log
  wait_for est.log "^estimate:" $p
  kill -INT $p
  wait $p
  rc=$?
  want_rc est 130
  has est "estimate: $S/cornell-box.json is 64x64 at 16777216 spp (6.87e+10 samples), about "
  grep -Eq "about [0-9.]+ (hours|days)" est.log || fail "no duration in: $(cat est.log)"
  has est "Ctrl-C stops it"
  run small "$WP" render "$S/cornell-box.json" "${FAST[@]}" -o s.pfm
  hasnt small "estimate"
  ok "a render of days starts with its estimate and size; a small one without"
  ;;
install)
  P=$T/prefix
  run inst cmake --install "$BUILD" --prefix "$P"
  want_rc "cmake --install" 0
  [ -x "$P/bin/wavepath" ] || fail "no $P/bin/wavepath"
  for f in share/wavepath/scene.schema.json share/wavepath/scenes/cornell-box.json share/wavepath/scenes/sponza.json \
    share/wavepath/scenes/sponza/sponza.obj share/wavepath/scenes/helmet.json share/wavepath/scenes/dragon.json; do
    [ -s "$P/$f" ] || fail "not installed: $f"
  done
  cd / || exit 1
  run "$T/bench" "$P/bin/wavepath" bench --backend cpu --width 8 --height 8 --spp 1 --max-depth 2 --repeat 1 \
    --warmup 0 --no-raycast --modes megakernel
  cd "$T" || exit 1
  want_rc "installed bench without scenes" 0
  for s in cornell-box rtiow sponza dragon helmet; do has bench "$P/bin/../share/wavepath/scenes/$s.json"; done
  ok "cmake --install: binary, scenes and schema; bench without scenes finds the installed set from /"
  ;;
metadata)
  run md "$WP" render "$S/cornell-box.json" "${FAST[@]}" --seed 7 -o meta.exr
  want_rc render 0
  for key in render_ms wall_s backend device schedule version command; do
    grep -aq "wavepath:$key" meta.exr || fail "no wavepath:$key in meta.exr"
  done
  grep -aqF -- "render $S/cornell-box.json --backend cpu --width 16 --height 16 --spp 2 --seed 7 -o meta.exr" meta.exr \
    || fail "the command line is not in meta.exr"
  grep -aq "wavepath [0-9.]* (" meta.exr || fail "no version in meta.exr"
  grep -aq "2 threads\|[0-9]* threads" meta.exr || fail "no device in meta.exr"
  ok "the EXR records render time, backend, device, schedule, version and command line"
  ;;
shards_merge)
  # Shards of sample ranges merged equal the single render bit for bit, in both schedules (and mixed)
  R=("$S/cornell-box.json" --backend cpu --width 20 --height 14 --spp 8 --seed 3)
  for m in megakernel wavefront; do
    run full_$m "$WP" render "${R[@]}" --mode $m -o full_$m.pfm
    want_rc "full $m render" 0
    run a_$m "$WP" render "${R[@]}" --mode $m --samples 0:3 -o a_$m.wpfilm
    want_rc "--samples 0:3" 0
    run b_$m "$WP" render "${R[@]}" --mode $m --samples 3:5 -o b_$m.wpfilm
    want_rc "--samples 3:5" 0
    head -c 9 a_$m.wpfilm | grep -q "WPFILM 1" || fail "a_$m.wpfilm is not a film"
    grep -aq '"samples":"samples 3:5"' b_$m.wpfilm || fail "b_$m.wpfilm does not record its range"
    run merge_$m "$WP" merge b_$m.wpfilm a_$m.wpfilm -o merged_$m.pfm
    want_rc "merge $m" 0
    has merge_$m "merged 2 parts"
    cmp -s merged_$m.pfm full_$m.pfm || fail "$m: merged shards differ from the 8-spp render"
    ! cmp -s a_$m.wpfilm b_$m.wpfilm || fail "the shards are the same film"
  done
  run mixed "$WP" merge a_megakernel.wpfilm b_wavefront.wpfilm -o mixed.exr
  want_rc "merge of a megakernel and a wavefront shard" 0
  has mixed "rendered by cpu megakernel+wavefront"
  # a merged film, converted by a resume that has nothing left to render
  run mf "$WP" merge a_megakernel.wpfilm b_megakernel.wpfilm -o merged.wpfilm
  want_rc "merge to a film" 0
  run conv "$WP" render "$S/cornell-box.json" --backend cpu --resume merged.wpfilm -o conv.pfm
  want_rc "resume of a complete film" 0
  cmp -s conv.pfm full_megakernel.pfm || fail "the merged film's image differs"
  ok "shards 0:3 + 3:5 merged = the 8-spp render, bit for bit, megakernel and wavefront"
  ;;
shards_aov)
  # issues 22 and 23: AOVs and the Mitchell filter over shards: --samples 0:2 + 2:2 merged write the AOV files of a
  # single 4-spp render byte for byte (and its image); the merged film resumed writes them too
  R=("$S/cornell-box.json" --backend cpu --width 20 --height 14 --spp 4 --seed 3)
  for m in megakernel wavefront; do
    run full_$m "$WP" render "${R[@]}" --mode $m --aov albedo,normal -o full_$m.pfm
    want_rc "full $m render --aov" 0
    run a_$m "$WP" render "${R[@]}" --mode $m --samples 0:2 --aov albedo,normal -o a_$m.wpfilm
    want_rc "--samples 0:2 --aov" 0
    run b_$m "$WP" render "${R[@]}" --mode $m --samples 2:2 --aov albedo,normal -o b_$m.wpfilm
    want_rc "--samples 2:2 --aov" 0
    [ ! -e a_$m.albedo.wpfilm ] || fail "an AOV file beside a partial film"
    grep -aq '"aovs":\["albedo","normal"\]' a_$m.wpfilm || fail "a_$m.wpfilm does not list its AOVs"
    run merge_$m "$WP" merge b_$m.wpfilm a_$m.wpfilm -o merged_$m.pfm
    want_rc "merge $m with AOVs" 0
    has merge_$m "merged_$m.albedo.pfm"
    for f in "" .albedo .normal; do
      [ -s merged_$m$f.pfm ] || fail "no merged_$m$f.pfm: $(cat merge_$m.log)"
      cmp -s merged_$m$f.pfm full_$m$f.pfm || fail "$m: merged_$m$f.pfm differs from the 4-spp render's"
    done
    [ ! -e merged_$m.depth.pfm ] || fail "a depth file without depth in the parts"
  done
  "$WP" render "${R[@]}" --samples 2:2 -o plain.wpfilm > /dev/null || fail "render plain.wpfilm"
  "$WP" render "${R[@]}" -o plain_full.wpfilm > /dev/null || fail "render plain_full.wpfilm"
  # the merged film converted by a resume with nothing left (the same --aov), and the refusal of another --aov
  run mf "$WP" merge a_wavefront.wpfilm b_wavefront.wpfilm -o merged.wpfilm
  want_rc "merge to a film with AOVs" 0
  run conv "$WP" render "$S/cornell-box.json" --backend cpu --resume merged.wpfilm --aov albedo,normal -o conv.pfm
  want_rc "resume of a complete film with AOVs" 0
  for f in "" .albedo .normal; do cmp -s conv$f.pfm full_wavefront$f.pfm || fail "conv$f.pfm differs"; done
  run noaov "$WP" render "$S/cornell-box.json" --backend cpu --resume merged.wpfilm -o x.pfm
  want_rc "resume of a film with AOVs without --aov" 2
  has noaov "holds the AOVs albedo,normal: resume it with --aov albedo,normal"
  run addaov "$WP" render "$S/cornell-box.json" --backend cpu --resume plain_full.wpfilm --aov depth -o y.pfm
  want_rc "resume of a film without AOVs with --aov" 2
  has addaov "holds no AOVs"
  # parts with other AOVs do not merge
  run other "$WP" merge a_megakernel.wpfilm plain.wpfilm -o other.pfm
  want_rc "merge of parts with other AOVs" 1
  has other "plain.wpfilm does not belong with a_megakernel.wpfilm: they hold different AOVs (none and albedo,normal)"
  [ ! -e other.pfm ] || fail "other.pfm written"
  # Mitchell's two films over shards, with all four AOVs
  M=("${R[@]}" --filter mitchell --aov albedo,normal,depth,position)
  run mfull "$WP" render "${M[@]}" -o mfull.pfm
  want_rc "Mitchell render" 0
  run ma "$WP" render "${M[@]}" --samples 0:2 -o ma.wpfilm
  want_rc "Mitchell --samples 0:2" 0
  run mb "$WP" render "${M[@]}" --samples 2:2 -o mb.wpfilm
  want_rc "Mitchell --samples 2:2" 0
  run mm "$WP" merge ma.wpfilm mb.wpfilm -o mmerged.pfm
  want_rc "merge Mitchell" 0
  for f in "" .albedo .normal .depth .position; do
    cmp -s mmerged$f.pfm mfull$f.pfm || fail "Mitchell: mmerged$f.pfm differs from the 4-spp render's"
  done
  # --denoise is refused with shards (a part is not an image: merge --denoise denoises the whole)
  run dn "$WP" render "${R[@]}" --samples 0:2 --denoise -o d.wpfilm
  want_rc "--denoise with --samples" 2
  has dn "--denoise with --samples: a part is not an image"
  ok "AOVs and Mitchell over shards: 0:2 + 2:2 merged = the 4-spp render's image and AOV files byte for byte"
  ;;
merge_refuses)
  R=("$S/cornell-box.json" --backend cpu --width 16 --height 16 --spp 8)
  "$WP" render "${R[@]}" --samples 0:2 -o a.wpfilm > /dev/null || fail "render a"
  "$WP" render "${R[@]}" --samples 1:7 -o b.wpfilm > /dev/null || fail "render b"
  "$WP" render "${R[@]}" --samples 4:4 -o c.wpfilm > /dev/null || fail "render c"
  "$WP" render "${R[@]}" --samples 2:6 --seed 5 -o seed.wpfilm > /dev/null || fail "render seed"
  "$WP" render "$S/rtiow.json" --backend cpu --width 16 --height 16 --spp 8 --max-depth 65 --samples 2:6 \
    -o other.wpfilm > /dev/null || fail "render other"
  run gap "$WP" merge a.wpfilm c.wpfilm -o gap.exr
  want_rc "merge with a gap" 1
  has gap "missing samples 2:2"
  [ ! -e gap.exr ] || fail "gap.exr written"
  run partial "$WP" merge a.wpfilm c.wpfilm -o gap.exr --partial
  want_rc "merge --partial" 0
  has partial "warning: --partial: missing samples 2:2"
  [ -s gap.exr ] || fail "--partial wrote no image"
  run overlap "$WP" merge a.wpfilm b.wpfilm -o o.exr
  want_rc "merge of overlapping parts" 1
  has overlap "a.wpfilm (samples 0:2) and b.wpfilm (samples 1:7) overlap in samples 1:1"
  run scene "$WP" merge a.wpfilm other.wpfilm -o s.exr
  want_rc "merge of two scenes" 1
  has scene "other.wpfilm does not belong with a.wpfilm: they differ in the scene"
  run seed "$WP" merge a.wpfilm seed.wpfilm -o s.exr
  want_rc "merge of two seeds" 1
  has seed "differ in seed 0 and 5"
  "$WP" render "${R[@]}" --samples 2:6 --sampler independent -o ind.wpfilm > /dev/null || fail "render ind"
  run sampler "$WP" merge a.wpfilm ind.wpfilm -o s.exr
  want_rc "merge of two samplers" 1
  has sampler "differ in sampler sobol and independent"
  run notfilm "$WP" merge a.wpfilm gap.exr -o s.exr
  want_rc "merge of an image" 1
  has notfilm "gap.exr: not a wavepath film"
  run badout "$WP" merge a.wpfilm c.wpfilm -o s.jpg
  want_rc "merge -o s.jpg" 2
  run past "$WP" render "${R[@]}" --samples 6:4 -o p.wpfilm
  want_rc "--samples past the spp" 2
  has past "--samples 6:4 goes past the render's 8 samples per pixel"
  run form "$WP" render "${R[@]}" --samples 6 -o p.wpfilm
  want_rc "--samples 6" 2
  run img "$WP" render "${R[@]}" --samples 0:4 -o p.exr
  want_rc "--samples to an image" 2
  has img "write it as a partial film"
  [ ! -e s.exr ] && [ ! -e o.exr ] && [ ! -e p.wpfilm ] || fail "files written by refused merges: $(ls)"
  ok "merge refuses gaps (unless --partial), overlaps, other scenes and settings, non-films; --samples checked"
  ;;
resume) # serial
  # an interrupted render (SIGINT, SIGTERM) continued with --resume ends bit-identical to the uninterrupted one
  R=("$S/cornell-box.json" --backend cpu --width 48 --height 32 --spp 320)
  for m in megakernel wavefront; do
    run full_$m "$WP" render "${R[@]}" --mode $m -o full_$m.pfm
    want_rc "full $m render" 0
    eval "secs_$m=$secs"
  done
  for m in megakernel wavefront; do
    [ $m = megakernel ] && { out=cut_$m.pfm; film=cut_$m.pfm.wpfilm; sig=INT; want=130; } \
                        || { out=cut_$m.wpfilm; film=cut_$m.wpfilm; sig=TERM; want=143; }
    # the signal a fraction of the whole render's time in (this machine's speed), until it lands mid-render
    for f in 0.4 0.2 0.6 0.3 0.5 0.1 0.7 0.25; do
      "$WP" render "${R[@]}" --mode $m -o $out > cut_$m.log 2>&1 &
      p=$!
      sleep "$(awk "BEGIN {print $(eval echo \$secs_$m) * $f}")"
      kill -$sig $p
      wait $p
      rc=$?
      last=cut_$m.log
      [ $rc -eq $want ] && ! grep -q "holds 0 spp" cut_$m.log && break
    done
    want_rc "interrupted $m" $want
    has cut_$m "holds"
    hasnt cut_$m "holds 0 spp"
    # the hint is the command that continues it: the output given, the backend and mode it ran with
    has cut_$m "resume: wavepath render $S/cornell-box.json --backend cpu --mode $m --resume $film -o $out"
    [ -s $film ] || fail "no film $film to resume"
    hint=$(sed -n 's/^resume: wavepath //p' cut_$m.log)
    eval "run res_$m \"\$WP\" $hint"
    want_rc "resume $m (the hint: $hint)" 0
    [ $m = megakernel ] && res=$out || { run img_$m "$WP" merge $out -o res_$m.pfm; want_rc "merge $out" 0; res=res_$m.pfm; }
    cmp -s $res full_$m.pfm || fail "$m: resumed render differs from the uninterrupted one"
  done
  run wrong "$WP" render "$S/cornell-box.json" --backend cpu --spp 100 --resume cut_wavefront.wpfilm -o w.pfm
  want_rc "resume with fewer spp" 1
  has wrong "cut_wavefront.wpfilm is a render of 320 spp: --spp 100 is fewer"
  run wrong2 "$WP" render "$S/cornell-box.json" --backend cpu --width 40 --resume cut_wavefront.wpfilm -o w.pfm
  want_rc "resume with another width" 1
  has wrong2 "width 48 and 40"
  run wrong3 "$WP" render "$S/cornell-box.json" --backend cpu --sampler independent --resume cut_wavefront.wpfilm \
    -o w.pfm
  want_rc "resume with another sampler" 1
  has wrong3 "sampler sobol and independent"
  ok "SIGINT (image + film beside it) and SIGTERM (film) mid-render, resumed: bit-identical to the whole render"
  ;;
resume_spp)
  # a finished 48-spp film resumed with --spp 64 renders the 16 samples per pixel it lacks and ends bit for bit the
  # 64-spp render (the random numbers are keyed by pixel and sample: the 48 are a prefix of the 64); in both
  # schedules, into an image or a film; fewer spp, or a shard that stops short of its render's end, are errors
  R=("$S/cornell-box.json" --backend cpu --width 40 --height 24)
  run full "$WP" render "${R[@]}" --spp 64 -o full64.pfm
  want_rc "64-spp render" 0
  run p48 "$WP" render "${R[@]}" --spp 48 -o p48.wpfilm
  want_rc "48-spp film" 0
  cp p48.wpfilm p48b.wpfilm
  run more "$WP" render "$S/cornell-box.json" --backend cpu --spp 64 --resume p48.wpfilm -o res64.pfm
  want_rc "resume 48 -> 64 spp" 0
  cmp -s res64.pfm full64.pfm || fail "48-spp film resumed to 64 differs from the 64-spp render"
  run morew "$WP" render "$S/cornell-box.json" --backend cpu --mode wavefront --spp 64 --resume p48b.wpfilm -o p48b.wpfilm
  want_rc "resume 48 -> 64 spp into the film (wavefront)" 0
  run mergew "$WP" merge p48b.wpfilm -o resw64.pfm
  want_rc "merge the resumed film" 0
  cmp -s resw64.pfm full64.pfm || fail "48-spp film resumed to 64 (wavefront, into the film) differs from the 64-spp render"
  run fewer "$WP" render "$S/cornell-box.json" --backend cpu --spp 32 --resume p48.wpfilm -o x.pfm
  want_rc "resume 48 -> 32 spp" 1
  has fewer "p48.wpfilm is a render of 48 spp: --spp 32 is fewer"
  run shard "$WP" render "${R[@]}" --spp 48 --samples 0:16 -o s16.wpfilm
  want_rc "shard 0:16" 0
  run sharded "$WP" render "$S/cornell-box.json" --backend cpu --spp 64 --resume s16.wpfilm -o x.pfm
  want_rc "resume a shard with more spp" 1
  has sharded "s16.wpfilm is a shard (samples 0:16 of 48 spp)"
  [ ! -e x.pfm ] || fail "x.pfm written by a refused resume"
  ok "--resume with a larger --spp: the missing samples rendered, bit-identical to the larger render; fewer: an error"
  ;;
aov_outputs)
  # AOVs as channels of the EXR, as files beside a PNG; a bad name and a blocked AOV file fail first (exit 2)
  run exr "$WP" render "$S/cornell-box.json" "${FAST[@]}" --aov albedo,normal,depth,position -o aov.exr
  want_rc "render --aov (EXR)" 0
  for ch in albedo.R albedo.G albedo.B N.X N.Y N.Z Z P.X; do grep -aqF "$ch" aov.exr || fail "no channel $ch in aov.exr"; done
  run png "$WP" render "$S/cornell-box.json" "${FAST[@]}" --aov albedo,normal,depth -o aov.png
  want_rc "render --aov (PNG)" 0
  for f in aov.png aov.albedo.png aov.normal.png aov.depth.png; do [ -s "$f" ] || fail "no $f"; done
  [ ! -e aov.position.png ] || fail "aov.position.png written without being asked for"
  run bad "$WP" render "$S/cornell-box.json" "${FAST[@]}" --aov albedo,colour -o bad.exr
  want_rc "render --aov colour" 2
  has bad "unknown AOV 'colour'"
  mkdir blocked.normal.pfm
  run blocked "$WP" render "$S/cornell-box.json" --backend cpu --width 512 --height 512 --spp 100000 --aov normal \
    -o blocked.pfm
  want_rc "render --aov normal with blocked.normal.pfm a folder" 2
  has blocked blocked.normal.pfm
  [ ! -e blocked.pfm ] || fail "blocked.pfm rendered although an AOV output was bad"
  ok "AOVs: EXR channels, PNG files beside the image, names and outputs checked first"
  ;;
filter_clamp)
  # --filter and --clamp; the defaults leave the image bit for bit
  run a "$WP" render "$S/cornell-box.json" "${FAST[@]}" -o plain.pfm
  want_rc "render" 0
  run b "$WP" render "$S/cornell-box.json" "${FAST[@]}" --filter box:0.5 --clamp 0 -o box.pfm
  want_rc "render --filter box:0.5 --clamp 0" 0
  cmp -s plain.pfm box.pfm || fail "--filter box:0.5 --clamp 0 changed the image"
  run t "$WP" render "$S/cornell-box.json" "${FAST[@]}" --filter tent --clamp 4 -o tent.exr
  want_rc "render --filter tent --clamp 4" 0
  grep -aqF "tent 1" tent.exr || fail "no 'tent 1' filter in tent.exr's metadata"
  grep -aqF "wavepath:clamp" tent.exr || fail "no clamp in tent.exr's metadata"
  run g "$WP" render "$S/cornell-box.json" "${FAST[@]}" --filter gaussian:2 -o g.pfm
  want_rc "render --filter gaussian:2" 0
  cmp -s plain.pfm g.pfm && fail "--filter gaussian:2 left the image as the box's"
  for bad in sinc tent:0 tent:x gaussian:99; do
    run bad "$WP" render "$S/cornell-box.json" "${FAST[@]}" --filter "$bad" -o bad.pfm
    want_rc "render --filter $bad" 2
  done
  run bad "$WP" render "$S/cornell-box.json" "${FAST[@]}" --clamp -1 -o bad.pfm
  want_rc "render --clamp -1" 2
  ok "--filter and --clamp: defaults bit for bit, other filters change the image, bad values exit 2"
  ;;
denoise)
  # --denoise writes NAME.denoised.EXT beside the raw image (Open Image Denoise, CPU device)
  run d "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --denoise -o dn.pfm
  want_rc "render --denoise" 0
  [ -s dn.pfm ] && [ -s dn.denoised.pfm ] || fail "no dn.pfm and dn.denoised.pfm: $(cat d.log)"
  cmp -s dn.pfm dn.denoised.pfm && fail "the denoised image is the raw one"
  [ ! -e dn.albedo.pfm ] || fail "dn.albedo.pfm written without --aov"
  has d dn.denoised.pfm
  has d "denoised on the CPU"
  # --denoise-device: a bad value is a usage error; cuda where OIDN has no CUDA device (no GPU: CI) fails before
  # any work, saying so, and writes nothing
  run dd "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --denoise --denoise-device gpu -o dd.pfm
  want_rc "render --denoise-device gpu" 2
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    run dc "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --denoise --denoise-device cuda -o dc.pfm
    want_rc "render --denoise-device cuda without a GPU" 2
    has dc "no usable CUDA device 0"
    [ ! -e dc.pfm ] || fail "dc.pfm written although the denoiser could not start"
  fi
  # merge --denoise: shards rendered with the guides, merged and denoised, equal the single render's denoised image
  # byte for byte (the merged image and AOVs are the single render's bit for bit; OIDN's CPU device is deterministic)
  run s1 "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --samples 0:2 --aov albedo,normal -o p1.wpfilm
  run s2 "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --samples 2:2 --aov albedo,normal -o p2.wpfilm
  run md "$WP" merge p1.wpfilm p2.wpfilm --denoise --denoise-device cpu -o md.pfm
  want_rc "merge --denoise" 0
  run sd "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --denoise --denoise-device cpu -o sd.pfm
  cmp -s md.pfm sd.pfm || fail "merged shards' image is not the single render's"
  cmp -s md.denoised.pfm sd.denoised.pfm || fail "merge --denoise differs from render --denoise"
  run mw "$WP" merge p1.wpfilm p2.wpfilm --denoise -o mw.wpfilm
  want_rc "merge --denoise to a film" 2
  has mw "not with a film output"
  # --resume --denoise: the film's guides (rendered as AOVs) denoise the resumed image, byte for byte the single
  # render's; a film without them denoises the beauty alone, with a warning; without --denoise, the hint names it
  run mf "$WP" merge p1.wpfilm p2.wpfilm -o mf.wpfilm
  want_rc "merge to a film" 0
  run rd "$WP" render "$S/cornell-box.json" --backend cpu --resume mf.wpfilm --denoise --denoise-device cpu -o rd.pfm
  want_rc "resume --denoise" 0
  cmp -s rd.pfm sd.pfm || fail "resumed image is not the single render's"
  cmp -s rd.denoised.pfm sd.denoised.pfm || fail "resume --denoise differs from render --denoise"
  [ ! -e rd.albedo.pfm ] || fail "rd.albedo.pfm written without --aov"
  run rn "$WP" render "$S/cornell-box.json" --backend cpu --resume mf.wpfilm -o rn.pfm
  want_rc "resume of a film with the guides, without --denoise" 2
  has rn "resume it with --aov albedo,normal (or --denoise, whose guides they are)"
  run pl "$WP" render "$S/cornell-box.json" --backend cpu --width 32 --height 32 --spp 4 --samples 0:4 -o pl.wpfilm
  run rb "$WP" render "$S/cornell-box.json" --backend cpu --resume pl.wpfilm --denoise --denoise-device cpu -o rb.pfm
  want_rc "resume --denoise of a film without the guides" 0
  has rb "the denoiser runs on the beauty alone"
  [ -s rb.denoised.pfm ] || fail "no rb.denoised.pfm"
  cmp -s rb.denoised.pfm sd.denoised.pfm && fail "the denoiser without guides gave the guided image"
  ok "--denoise: NAME.denoised.EXT beside the image; --denoise-device checked before any work; merge --denoise of shards and resume --denoise of their film equal render --denoise"
  ;;
devices)
  # --devices splits a GPU render over devices; its usage errors exit 2 naming the option and the count
  run c "$WP" render "$S/cornell-box.json" "${FAST[@]}" --devices 0 -o c.pfm
  want_rc "--devices with --backend cpu" 2
  has c "error: --devices picks CUDA GPUs: not with --backend cpu"
  run f "$WP" render "$S/cornell-box.json" --devices 0,x -o f.pfm
  want_rc "--devices 0,x" 2
  has f "error: --devices '0,x': give 'all' or CUDA device indices"
  run n "$WP" render "$S/cornell-box.json" --width 16 --height 16 --spp 2 --devices 4096 -o n.pfm
  want_rc "--devices 4096" 2
  has n "error: --devices: device 4096 does not exist: "
  run b "$WP" bench "$S/cornell-box.json" --backend cpu --spp 1 --devices 0
  want_rc "bench --devices with --backend cpu" 2
  has b "error: --devices picks CUDA GPUs"
  [ ! -e c.pfm ] && [ ! -e f.pfm ] && [ ! -e n.pfm ] || fail "a refused render wrote its image"
  run v "$WP" --version
  if grep -q "GPU: none found" v.log; then
    run a "$WP" render "$S/cornell-box.json" --devices all -o a.pfm
    want_rc "--devices all without a GPU" 2
    has a "error: --devices all: no CUDA GPU is visible"
    run z "$WP" render "$S/cornell-box.json" --devices 0 -o z.pfm
    want_rc "--devices 0 without a GPU" 2
    has z "does not exist: no CUDA GPU is visible"
    ok "--devices: usage errors (no GPU here: the split render itself is tested on a GPU)"
  else
    # (with the drain: which paths reach it depends on where the batches end, and it rounds them as shade does)
    for m in megakernel wavefront; do
      G=("$S/cornell-box.json" --backend gpu --mode $m --width 256 --height 256 --spp 256)
      run g1 "$WP" render "${G[@]}" -o one-$m.pfm
      want_rc "gpu $m" 0
      run g2 "$WP" render "${G[@]}" --devices 0,0 -o two-$m.pfm
      want_rc "gpu $m --devices 0,0" 0
      has g2 "split over 2 workers in batches of"
      has g2 "2 x "
      cmp -s one-$m.pfm two-$m.pfm || fail "$m: --devices 0,0 differs from the single-GPU render"
    done
    run bd "$WP" bench "$S/cornell-box.json" --backend gpu --spp 64 --repeat 1 --warmup 0 --no-raycast --devices 0,0 \
      --json bd.json
    want_rc "bench --devices 0,0" 0
    has bd "scaling efficiency"
    grep -q '"scaling_efficiency"' bd.json || fail "no scaling_efficiency in bench's JSON"
    ok "--devices: usage errors; two workers on GPU 0 give the single render's image byte for byte; bench's scaling"
  fi
  ;;
ignored_options)
  # every option that does nothing in the backend and schedules that run is counted and named, with the reason;
  # the ones that do something are not named
  run mk "$WP" render "$S/cornell-box.json" "${FAST[@]}" --capacity 4096 --sort-materials --drain 100 \
    --select-compaction --refill 8 --general-kernels --threads 2 -o mk.pfm
  want_rc "wavefront options on the cpu megakernel" 0
  has mk "warning: 6 options do nothing in this render (cpu megakernel) and are ignored: --capacity, --sort-materials, --drain, --refill, --general-kernels, --select-compaction"
  has mk "  --capacity, --sort-materials, --drain, --select-compaction: wavefront only; the cpu runs the megakernel here (--mode wavefront runs the wavefront)"
  has mk "  --refill, --general-kernels: GPU backend only; this runs on the cpu"
  run wf "$WP" render "$S/cornell-box.json" "${FAST[@]}" --mode wavefront --capacity 4096 --sort-materials \
    --drain 100 --threads 2 -o wf.pfm
  want_rc "wavefront options on the cpu wavefront" 0
  hasnt wf "warning"
  run both "$WP" render "$S/cornell-box.json" "${FAST[@]}" --mode both --capacity 4096 -o both.pfm
  want_rc "--mode both" 0
  hasnt both "warning"
  run bm "$WP" bench "$S/cornell-box.json" --backend cpu --width 8 --height 8 --spp 1 --repeat 1 --warmup 0 \
    --modes megakernel --no-raycast --capacity 4096 --sort-materials --drain 10 --no-queue-stats --raycast-spp 2
  want_rc "bench megakernel only" 0
  has bm "warning: 5 options do nothing in this bench (cpu, --modes megakernel, --no-raycast) and are ignored: --capacity, --sort-materials, --drain, --no-queue-stats, --raycast-spp"
  has bm "(--modes wavefront runs the wavefront)"
  has bm "  --raycast-spp: the ray-cast pass only, which --no-raycast turns off"
  run br "$WP" bench "$S/cornell-box.json" --backend cpu --width 8 --height 8 --spp 1 --repeat 1 --warmup 0 \
    --modes megakernel --capacity 4096
  want_rc "bench megakernel with the ray-cast pass" 0
  hasnt br "warning"  # (the ray-cast pass runs on wavefront queues of --capacity)
  ok "options that do nothing where given: counted, named, with the reason, in render and bench"
  ;;
progress_lines)
  # stderr not a terminal (a file here): progress lines every --progress seconds, while a scene loads and renders
  python3 - <<'PY'
import random
r = random.Random(3)
with open("many.json", "w") as f:
    f.write('{"render": {"width": 8, "height": 8, "spp": 1, "max_depth": 2}, "camera": {"position": [0, 5, 40], '
            '"target": [0, 0, 0]}, "materials": {"w": {"type": "lambert", "albedo": 0.5}}, "objects": [')
    f.write(",\n".join('{"type": "sphere", "material": "w", "center": [%.3f, %.3f, %.3f], "radius": 0.05}'
                       % (r.uniform(-20, 20), r.uniform(0, 5), r.uniform(-20, 20)) for _ in range(300000)))
    f.write("]}\n")
PY
  run ld "$WP" render many.json --backend cpu --progress 0.02 -o ld.pfm
  want_rc "a load of 300000 spheres" 0
  grep -Eq "^loading many.json: [0-9]+ s so far, [0-9.]+ [KMG]iB resident, [0-9.]+ [KMG]iB available$" ld.log \
    || fail "no progress line of the load in: $(head -5 ld.log)"
  run rd "$WP" render "$S/cornell-box.json" --backend cpu --width 64 --height 64 --spp 512 --progress 0.02 -o rd.pfm
  want_rc "a render of 2M samples" 0
  grep -Eq "^megakernel: [0-9]+% \([0-9.e+]+ of 2.1e\+06 samples\), [0-9.]+ Msamples/s, [0-9.]+ s, ETA [0-9.]+ s$" rd.log \
    || fail "no progress line of the render in: $(head -5 rd.log)"
  grep -q $'\r' rd.log && fail "a terminal's progress bar in a log"
  run q "$WP" render "$S/cornell-box.json" --backend cpu --width 64 --height 64 --spp 512 --progress 0 -o q.pfm
  want_rc "--progress 0" 0
  hasnt q "%"
  ok "off a terminal: progress lines of the load (time, memory) and of the render (percent, Msamples/s, ETA)"
  ;;
memory_check)
  # the render's host memory is estimated before it starts, the load's is watched; both fail with the sizes
  # (WP_HOST_MEMORY_LIMIT stands for a small machine)
  run big env WP_HOST_MEMORY_LIMIT=256M "$WP" render "$S/cornell-box.json" --backend cpu --width 8192 --height 8192 \
    --spp 1 -o big.exr
  want_rc "a film over the memory limit" 3
  has big "error: $S/cornell-box.json: the render does not fit in host memory: it needs about 4.5 GiB (film 3.0 GiB, image 1.5 GiB) besides the loaded scene"
  has big "(WP_HOST_MEMORY_LIMIT)"
  hasnt big "megakernel:"
  [ ! -e big.exr ] || fail "big.exr written"
  run st "$WP" render "$S/cornell-box.json" --backend cpu --width 64 --height 64 --spp 1 --mode wavefront --stats \
    -o st.pfm
  want_rc "--stats" 0
  grep -Eq "^memory: the scene's arrays .*; the render about [0-9.]+ [KMG]iB \(film .*, image .*, path queues .*\); host memory [0-9.]+ [MG]iB available of [0-9.]+ GiB$" st.log \
    || fail "no memory line in: $(cat st.log)"
  python3 - <<'PY'
import random
r = random.Random(4)
with open("heavy.json", "w") as f:
    f.write('{"render": {"width": 8, "height": 8, "spp": 1}, "camera": {"position": [0, 5, 40], "target": [0, 0, 0]}, '
            '"materials": {"w": {"type": "lambert", "albedo": 0.5}}, "objects": [')
    f.write(",\n".join('{"type": "sphere", "material": "w", "center": [%.3f, %.3f, %.3f], "radius": 0.05}'
                       % (r.uniform(-20, 20), r.uniform(0, 5), r.uniform(-20, 20)) for _ in range(200000)))
    f.write("]}\n")
PY
  run heavy env WP_HOST_MEMORY_LIMIT=64M "$WP" render heavy.json --backend cpu -o heavy.pfm
  want_rc "a load over the memory limit" 3
  has heavy "error: heavy.json: the scene does not fit in host memory: loading it took "
  has heavy ", over WP_HOST_MEMORY_LIMIT=64.0 MiB"
  [ ! -e heavy.pfm ] || fail "heavy.pfm written"
  ok "host memory: the render's estimated before it starts, the load's watched; exit 3 with the sizes"
  ;;
bvh_forecast)
  # the tree's memory is forecast from the primitive count before it is built: over what is available (here
  # WP_HOST_MEMORY_LIMIT, above the dragon's parse but below its least tree) the load stops before the build, exit 3,
  # naming the scene, the primitives, the forecast and what is available; --stats prints the forecast beside the
  # measured build
  run dr env WP_HOST_MEMORY_LIMIT=192M "$WP" render "$S/dragon.json" --backend cpu --width 8 --height 8 --spp 1 \
    --stats -o dr.pfm
  want_rc "the dragon's tree over the memory limit" 3
  has dr "error: $S/dragon.json: the scene's BVH would not fit in host memory: building it over 500002 primitives takes at least "
  has dr "(forecast: 500002 references at most"
  has dr "are available under WP_HOST_MEMORY_LIMIT=192.0 MiB; nothing was built"
  hasnt dr "BVH 500002 primitives in"
  hasnt dr "does not fit in host memory: loading it"
  [ ! -e dr.pfm ] || fail "dr.pfm written"
  # between the least forecast (no references added by spatial splits) and the full one, the splits' budget is cut
  # to what fits, with a warning, and the render goes on
  run dl env WP_HOST_MEMORY_LIMIT=300M "$WP" render "$S/dragon.json" --backend cpu --width 8 --height 8 --spp 1 \
    -o dl.pfm
  want_rc "the dragon's tree with the splits' budget cut" 0
  has dl "warning: $S/dragon.json: the BVH's spatial splits limited to "
  has dl "x the primitives' references (not 2.00x) to fit in host memory: "
  [ -s dl.pfm ] || fail "no dl.pfm"
  run st "$WP" render "$S/cornell-box.json" "${FAST[@]}" --stats -o st.pfm
  want_rc "--stats" 0
  grep -Eq "^loading .*cornell-box.json: parse [0-9.]+ s, BVH 18 primitives in [0-9.]+ s \(.*SAH cost [0-9.]+\); BVH memory forecast [0-9.]+ [KMG]iB, measured " st.log \
    || fail "no forecast beside the build in: $(cat st.log)"
  ok "the tree's memory forecast: over the limit, exit 3 before the build with the sizes; --stats prints it"
  ;;
small_frictions)
  # pbrt-v4's Film "filename" and Tungsten's output file name the default output (in the current folder)
  run pb "$WP" render "$S/cornell-box.pbrt" "${FAST[@]}"
  want_rc "pbrt without -o" 0
  has pb "output: $S/cornell-box.pbrt: writing cornell-box.exr, the file its Film \"filename\" names, in the current folder (-o gives another)"
  [ -s cornell-box.exr ] || fail "no cornell-box.exr: $(ls)"
  sed 's/"string filename" "cornell-box.exr"/"string filename" "renders\/named.png"/' "$S/cornell-box.pbrt" > named.pbrt
  sed -i "s|Include \"|Include \"$S/|; s|\"cornell-box-|\"$S/cornell-box-|g" named.pbrt
  run nm "$WP" render named.pbrt "${FAST[@]}"
  want_rc "pbrt naming a PNG in a folder" 0
  has nm "writing named.png, the file its Film \"filename\" names (\"renders/named.png\", its folders dropped)"
  [ -s named.png ] || fail "no named.png: $(ls)"
  run po "$WP" render "$S/cornell-box.pbrt" "${FAST[@]}" -o given.pfm
  want_rc "pbrt with -o" 0
  has po "its Film \"filename\" \"cornell-box.exr\" is not used: -o gives the output"
  [ -s given.pfm ] || fail "no given.pfm"
  mkdir od
  run tu "$WP" render "$S/cornell-box/scene.json" "${FAST[@]}" --output-dir od
  want_rc "Tungsten without -o" 0
  has tu "writing od/cornell-box.exr, the file its renderer.hdr_output_file names, in the --output-dir"
  [ -s od/cornell-box.exr ] || fail "no od/cornell-box.exr: $(ls od)"
  # --output-dir with an absolute -o: refused (the folder would be ignored)
  run ab "$WP" render "$S/cornell-box.json" "${FAST[@]}" --output-dir od -o "$T/abs.exr"
  want_rc "--output-dir with an absolute -o" 2
  has ab "error: --output-dir od with an absolute -o $T/abs.exr: the output would not be in od"
  [ ! -e abs.exr ] || fail "abs.exr written"
  # a folder given as the scene: said to be one (not an output named after it)
  run fo "$WP" render "$S/" "${FAST[@]}"
  want_rc "a folder as the scene" 1
  has fo "is a folder, not a scene file"
  hasnt fo "no file extension"
  # --clamp's range in words
  run cl "$WP" render "$S/cornell-box.json" "${FAST[@]}" --clamp -1 -o cl.pfm
  want_rc "--clamp -1" 2
  has cl "--clamp: -1 is out of range (0 to 1e+30; 0: off)"
  hasnt cl "1000000015047466219876688855040"
  run cx "$WP" render "$S/cornell-box.json" "${FAST[@]}" --clamp lots -o cx.pfm
  want_rc "--clamp lots" 2
  has cx "--clamp: 'lots' is not a number (0 to 1e+30; 0: off)"
  # bench --help gives the defaults
  run bh "$WP" bench --help
  want_rc "bench --help" 0
  for d in "(default wavefront,megakernel)" "(default 3)" "(default 1)" "(default 4)" "default: none" "(default 16)" \
    "(default: all cores)"; do
    has bh "$d"
  done
  # merge of one part: "1 part"
  run p1 "$WP" render "$S/cornell-box.json" "${FAST[@]}" --samples 0:2 -o p1.wpfilm
  run m1 "$WP" merge p1.wpfilm -o m1.pfm
  want_rc "merge of one part" 0
  has m1 "merged 1 part of "
  # the CPU bench: its SVG title names the CPU once, its JSON has no ptxas figures on the CPU's stages
  run bb "$WP" bench "$S/cornell-box.json" --backend cpu --threads 2 --width 8 --height 8 --spp 1 --repeat 1 \
    --warmup 0 --no-raycast --resources "$SRC/tests/data/ptxas-sample.txt" --json bb.json --plot bb.svg
  want_rc "cpu bench" 0
  grep -q "wavepath bench: time per stage, stacked (cpu, 2 threads)</text>" bb.svg \
    || fail "SVG title: $(grep -o 'wavepath bench:[^<]*' bb.svg)"
  python3 - <<'PY' || fail "ptxas figures on the CPU's stages in bb.json"
import json
d = json.load(open("bb.json"))
for s in d["scenes"]:
    for m in s["modes"]:
        for k in m["kernels"]:
            assert not any(f in k for f in ("registers", "spill_stores", "stack_bytes", "symbol")), k
PY
  ok "pbrt Film filename and Tungsten's output file as the default output; --output-dir with an absolute -o refused; --clamp's range; bench --help's defaults; merged 1 part; the CPU bench's SVG title and JSON"
  ;;
settings)
  # the render settings' list (kernels/render_params.h) on the command line: --set NAME=VALUE on render and bench
  # renders as the setting's own option; its errors exit 2 naming the setting and its range (an unknown name: the
  # names); --crop writes the crop's size and names it; a crop outside the image is an error naming it
  F=(--backend cpu --threads 2 --width 24 --height 16 --spp 2)
  run a "$WP" render "$S/cornell-box.json" "${F[@]}" --rr-depth 2 --filter tent --light-sampling 0 -o a.pfm
  want_rc "the options" 0
  run b "$WP" render "$S/cornell-box.json" "${F[@]}" --set rr_depth=2 --set filter=tent --set light_sampling=false \
    -o b.pfm
  want_rc "--set" 0
  cmp -s a.pfm b.pfm || fail "--set rendered another image than the settings' own options"
  run e1 "$WP" render "$S/cornell-box.json" "${F[@]}" --set rr_depth=5000 -o e.pfm
  want_rc "--set rr_depth=5000" 2
  has e1 "--set: rr_depth: 5000 is out of range (1 to 1024)"
  run e2 "$WP" render "$S/cornell-box.json" "${F[@]}" --set depth=3 -o e.pfm
  want_rc "--set depth=3" 2
  has e2 "unknown setting 'depth' (settings: width, height, spp, max_depth, rr_depth, seed, light_sampling"
  run e3 "$WP" bench "$S/cornell-box.json" "${F[@]}" --set spp=0
  want_rc "bench --set spp=0" 2
  has e3 "--set: spp: 0 is out of range (1 to 16777216)"
  run e4 "$WP" render "$S/cornell-box.json" "${F[@]}" --set seed=1 --seed 2 -o e.pfm
  want_rc "--set seed=1 --seed 2" 2
  has e4 "seed is given twice"
  run c "$WP" render "$S/cornell-box.json" "${F[@]}" --crop 4,2,20,14 -o c.pfm
  want_rc "--crop" 0
  has c "16x12 (crop 4,2,20,14 of 24x16)"
  [ "$(sed -n 2p c.pfm)" = "16 12" ] || fail "--crop 4,2,20,14: a $(sed -n 2p c.pfm) image (want 16 12)"
  # a --crop outside the image: a usage error (exit 2, as every other; main's exit 1 was the scene's), naming the crop
  # and the image's size; on resume against the film's size too; a crop of the scene file's own stays its error
  run c2 "$WP" render "$S/cornell-box.json" "${F[@]}" --crop 4,2,30,14 -o c2.pfm
  want_rc "--crop outside the image" 2
  has c2 "error: $S/cornell-box.json: --crop 4,2,30,14 is not inside the 24x16 image"
  [ ! -e c2.pfm ] || fail "c2.pfm written"
  run c3 "$WP" bench "$S/cornell-box.json" "${F[@]}" --set crop=0,0,30,8 --repeat 1 --warmup 0 --no-raycast
  want_rc "bench --crop outside the image" 2
  has c3 "--crop 0,0,30,8 is not inside the 24x16 image"
  # an option of one value given twice: both values named, in our words (not CLI11's "At Most 1 required")
  run o2 "$WP" render "$S/cornell-box.json" "${F[@]}" -o a2.pfm --output b2.pfm
  want_rc "-o twice" 2
  has o2 "error: -o/--output is given 2 times ('a2.pfm', 'b2.pfm'): it takes one value"
  hasnt o2 "At Most"
  run o3 "$WP" merge x.wpfilm -o a.pfm -o b.pfm
  want_rc "merge -o twice" 2
  has o3 "error: -o/--output is given 2 times ('a.pfm', 'b.pfm')"
  # the tree's knobs (WP_BVH_*): a bad value is a usage error naming the variable and the value; those set are said
  # and recorded in the bench JSON
  run k1 env WP_BVH_BINS=abc "$WP" render "$S/cornell-box.json" "${F[@]}" -o k.pfm
  want_rc "WP_BVH_BINS=abc" 2
  has k1 "error: WP_BVH_BINS: 'abc' is not a whole number (2 to 256)"
  run k2 env WP_BVH_MAX_LEAF=99 "$WP" bench "$S/cornell-box.json" "${F[@]}" --repeat 1 --warmup 0 --no-raycast
  want_rc "WP_BVH_MAX_LEAF=99" 2
  has k2 "error: WP_BVH_MAX_LEAF: 99 is out of range (1 to 16)"
  run k3 env WP_BVH_SPLIT_GROWTH=1.5x "$WP" render "$S/cornell-box.json" "${F[@]}" -o k.pfm
  want_rc "WP_BVH_SPLIT_GROWTH=1.5x" 2
  has k3 "error: WP_BVH_SPLIT_GROWTH: '1.5x' is not a number (1 to 8)"
  run k4 env WP_BVH_MAX_LEAF=2 WP_BVH_SPLITS=0 "$WP" bench "$S/cornell-box.json" "${F[@]}" --repeat 1 --warmup 0 \
    --no-raycast --json k4.json
  want_rc "WP_BVH_MAX_LEAF=2" 0
  has k4 "the tree's knobs from the environment: WP_BVH_SPLITS=0, WP_BVH_MAX_LEAF=2"
  python3 -c 'import json, sys; k = json.load(open("k4.json"))["bvh_knobs"]; sys.exit(k != {"WP_BVH_MAX_LEAF": 2, "WP_BVH_SPLITS": False})' \
    || fail "k4.json's bvh_knobs: $(python3 -c 'import json; print(json.load(open("k4.json")).get("bvh_knobs"))')"
  run bc "$WP" bench "$S/cornell-box.json" "${F[@]}" --set crop=0,0,8,8 --repeat 1 --warmup 0 --no-raycast
  want_rc "bench --set crop" 0
  has bc "8x8, 2 spp"
  run l "$WP" settings
  want_rc "settings" 0
  has l "rr_depth"
  run lj "$WP" settings --json
  want_rc "settings --json" 0
  python3 -c 'import json, sys; sys.exit([s["name"] for s in json.load(open("lj.log"))][:2] != ["width", "height"])' \
    || fail "settings --json: $(head -c 300 lj.log)"
  # the sampler, a named setting: its option and --set render the same image, another sampler another one; a bad
  # name is refused naming the names; the EXR records it
  run s1 "$WP" render "$S/cornell-box.json" "${F[@]}" --sampler independent -o s1.pfm
  want_rc "--sampler independent" 0
  "$WP" render "$S/cornell-box.json" "${F[@]}" --sampler independent -o s1.exr > /dev/null || fail "render s1.exr"
  run s2 "$WP" render "$S/cornell-box.json" "${F[@]}" --set sampler=independent -o s2.pfm
  want_rc "--set sampler=independent" 0
  run s3 "$WP" render "$S/cornell-box.json" "${F[@]}" -o s3.pfm
  want_rc "the default sampler" 0
  "$WP" render "$S/cornell-box.json" "${F[@]}" -o s3.exr > /dev/null || fail "render s3.exr"
  cmp -s s1.pfm s2.pfm || fail "--set sampler=independent rendered another image than --sampler independent"
  cmp -s s1.pfm s3.pfm && fail "the default sampler (sobol) rendered the independent sampler's image"
  grep -aq "wavepath:sampler.*independent" s1.exr || fail "no sampler independent in s1.exr's metadata"
  grep -aq "wavepath:sampler.*sobol" s3.exr || fail "no sampler sobol in s3.exr's metadata"
  run s4 "$WP" render "$S/cornell-box.json" "${F[@]}" --sampler halton -o e.pfm
  want_rc "--sampler halton" 2
  has s4 "'halton' is not one of (independent or sobol)"
  ok "--set as the options, its errors named with their ranges (render and bench), --crop's size and a crop outside the image (exit 2), -o twice, the WP_BVH_* knobs checked and said, settings, the sampler"
  ;;
error_reference)
  # error per second: render --reference prints the final image's MSE and relMSE (0 against itself: the same seed
  # renders the same image); a reference of another size, or missing, is the input's error naming it; bench
  # --reference auto --spp-list measures each count's error and time into its table, JSON and plot; a file with two
  # scenes is refused; the error's options without their partners are said to do nothing
  F=(--backend cpu --threads 2 --width 16 --height 16)
  run r "$WP" render "$S/cornell-box.json" "${F[@]}" --spp 64 -o ref.pfm
  want_rc "the reference" 0
  run a "$WP" render "$S/cornell-box.json" "${F[@]}" --spp 4 --reference ref.pfm -o a.pfm
  want_rc "render --reference" 0
  has a "reference: MSE "
  has a "against ref.pfm (16x16)"
  hasnt a "reference: MSE 0, relMSE 0 "
  run same "$WP" render "$S/cornell-box.json" "${F[@]}" --spp 64 --reference ref.pfm -o same.pfm
  want_rc "render --reference of the same render" 0
  has same "reference: MSE 0, relMSE 0 against ref.pfm (16x16)"
  run sz "$WP" render "$S/cornell-box.json" --backend cpu --width 8 --height 8 --spp 4 --reference ref.pfm -o sz.pfm
  want_rc "render --reference of another size" 1
  has sz "error: --reference ref.pfm is 16x16, but $S/cornell-box.json renders 8x8"
  [ -e sz.pfm ] && fail "render --reference of another size wrote its image"
  run miss "$WP" render "$S/cornell-box.json" "${F[@]}" --spp 4 --reference nope.exr -o m.pfm
  want_rc "render --reference missing" 1
  has miss "nope.exr"
  run two "$WP" render "$S/cornell-box.json" "$S/cornell-box.pbrt" "${F[@]}" --spp 4 --reference ref.pfm -o '{name}.pfm'
  want_rc "render --reference with two scenes" 2
  has two "2 scenes are given"
  B=(--repeat 1 --warmup 0 --no-raycast --modes megakernel)
  run bt "$WP" bench "$S/cornell-box.json" "$S/cornell-box.pbrt" "${F[@]}" "${B[@]}" --spp-list 4,16 --reference ref.pfm
  want_rc "bench --reference FILE with two scenes" 2
  has bt "error: --reference ref.pfm is the image of one scene, and 2 scenes are given"
  run bs "$WP" bench "$S/cornell-box.json" --backend cpu --width 8 --height 8 "${B[@]}" --spp-list 4,16 \
    --reference ref.pfm
  want_rc "bench --reference of another size" 1
  has bs "ref.pfm is 16x16, but $S/cornell-box.json renders 8x8"
  run be "$WP" bench "$S/cornell-box.json" "${F[@]}" "${B[@]}" --spp-list 16,4 --reference auto --reference-spp 256 \
    --json e.json --plot e.svg
  want_rc "bench --reference auto" 0
  has be "error against the reference (auto: megakernel, 256 spp, seed 1,"
  has be "megakernel: relMSE 0.01"
  grep -q "relMSE against render time (log-log)" e.svg || fail "no error panel in e.svg"
  python3 - e.json <<'PY' || fail "bench's JSON of the error"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["spp_list"] == [4, 16], d["spp_list"]
m = d["scenes"][0]["modes"][0]
assert [p["spp"] for p in m["error"]] == [4, 16], m["error"]
assert all(p["ms"] > 0 and p["relmse"] > 0 for p in m["error"]), m["error"]
assert m["error"][1]["mse"] < m["error"][0]["mse"], m["error"]
assert "ms_to_target_relmse" in m and "ms_to_target_relmse_how" in m, m
PY
  run bf "$WP" bench "$S/cornell-box.json" "${F[@]}" "${B[@]}" --spp-list 4,16 --reference ref.pfm
  want_rc "bench --reference FILE" 0
  has bf "error against the reference ref.pfm, target relMSE 0.01:"
  run w1 "$WP" bench "$S/cornell-box.json" "${F[@]}" "${B[@]}" --spp-list 4,16 --target-relmse 0.1
  want_rc "bench --spp-list alone" 0
  has w1 "2 options do nothing in this bench"
  has w1 "--spp-list: the sample counts the error is measured at: give --reference PATH or auto"
  hasnt w1 "error against the reference"
  run w2 "$WP" bench "$S/cornell-box.json" "${F[@]}" "${B[@]}" --spp-list 4,16 --reference ref.pfm --reference-spp 64
  want_rc "bench --reference-spp with a file" 0
  has w2 "--reference-spp: the samples of the reference the bench renders: --reference auto only"
  run bad "$WP" bench "$S/cornell-box.json" "${F[@]}" "${B[@]}" --spp-list 4,x --reference auto
  want_rc "bench --spp-list 4,x" 2
  has bad "'x' is not a whole number"
  ok "render --reference: MSE and relMSE, sizes and files checked; bench's error per second: table, JSON, plot, refusals, warnings"
  ;;
*) fail "unknown case" ;;
esac
