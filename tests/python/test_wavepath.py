"""The Python package `wavepath` against the command line (docs/PYTHON.md; ctest `python_module`).

The module comes from PYTHONPATH (ctest: <build>/python) or an installed package (`pip install .`); the command
line from $WAVEPATH_CLI (ctest sets it), else build/wavepath of the source tree. The tests that compare with the
command line skip without it.
"""
import json
import os
import signal
import subprocess
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

import wavepath

SRC = Path(__file__).resolve().parents[2]
SCENES = SRC / "scenes"
CORNELL = SCENES / "cornell-box.json"
BAD = SRC / "tests" / "bad_input"
CLI = Path(os.environ.get("WAVEPATH_CLI") or SRC / "build" / "wavepath")
needs_cli = pytest.mark.skipif(not CLI.is_file(), reason="no wavepath binary at %s (WAVEPATH_CLI)" % CLI)


def cli(*args, check=True):
    r = subprocess.run([str(CLI)] + [str(a) for a in args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError("wavepath %s: exit %d\n%s%s" % (" ".join(map(str, args)), r.returncode, r.stdout,
                                                              r.stderr))
    return r


def read_pfm(path):
    """A PFM file as the module's arrays are: float32, height x width x 3 (or x 1), row 0 at the top."""
    with open(path, "rb") as f:
        magic = f.readline().strip()
        w, h = (int(x) for x in f.readline().split())
        scale = float(f.readline())
        assert scale < 0, "big-endian PFM"
        c = 3 if magic == b"PF" else 1
        data = np.frombuffer(f.read(), dtype="<f4", count=w * h * c)
    return np.flipud(data.reshape(h, w, c)).squeeze()


def same_bits(a, b):
    a, b = np.ascontiguousarray(a, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


# --- renders equal the command line's ---------------------------------------------------------------------------

@needs_cli
@pytest.mark.parametrize("mode", ["megakernel", "wavefront"])
def test_render_equals_cli_bit_for_bit(tmp_path, mode):
    out = tmp_path / "cli.pfm"
    cli("render", CORNELL, "--backend", "cpu", "--mode", mode, "--width", 40, "--height", 24, "--spp", 3,
        "--seed", 7, "--max-depth", 6, "-o", out)
    scene = wavepath.load(CORNELL, width=40, height=24)
    img = scene.render(spp=3, backend="cpu", mode=mode, settings={"seed": 7, "max_depth": 6})
    assert img.dtype == np.float32 and img.shape == (24, 40, 3)
    ref = read_pfm(out)
    assert same_bits(img, ref), "max difference %g" % np.abs(img - ref).max()
    assert float(img.mean()) > 0.0


@needs_cli
def test_pbrt_scene_and_aovs_equal_cli(tmp_path):
    out = tmp_path / "cli.pfm"
    scene_file = SCENES / "cornell-box.pbrt"
    cli("render", scene_file, "--backend", "cpu", "--width", 32, "--height", 32, "--spp", 2, "--aov",
        "albedo,depth", "-o", out)
    r = wavepath.load(scene_file, width=32, height=32).render_full(spp=2, backend="cpu", aovs=["albedo", "depth"])
    assert same_bits(r.image, read_pfm(out))
    assert sorted(r.aovs) == ["albedo", "depth"]
    assert r.aovs["albedo"].shape == (32, 32, 3) and r.aovs["depth"].shape == (32, 32)
    assert same_bits(r.aovs["albedo"], read_pfm(tmp_path / "cli.albedo.pfm"))
    depth = read_pfm(tmp_path / "cli.depth.pfm")  # (an RGB PFM, the depth in each channel)
    assert same_bits(r.aovs["depth"], depth[..., 0]) and same_bits(depth[..., 0], depth[..., 2])


def test_render_settings_equal_load_settings():
    a = wavepath.load(CORNELL, width=24, height=16, spp=2).render(backend="cpu")
    b = wavepath.load(CORNELL).render(backend="cpu", settings={"width": 24, "height": 16, "spp": 2})
    assert same_bits(a, b)
    # a crop of the render: the same pixels as the whole image's
    c = wavepath.load(CORNELL, width=24, height=16, spp=2).render(backend="cpu", settings={"crop": (4, 2, 20, 10)})
    assert same_bits(c, a[2:10, 4:20])


def test_stats_and_last_render():
    scene = wavepath.load(CORNELL, width=16, height=16)
    assert scene.last_render is None
    img = scene.render(spp=2, backend="cpu", mode="wavefront")
    r = scene.last_render
    assert r.image is img
    st = r.stats
    assert (st.backend, st.mode) == ("cpu", "wavefront")
    assert st.samples == 16 * 16 * 2 == r.samples
    assert st.render_ms > 0 and st.msamples_per_s > 0 and st.extension_rays > 0
    assert st.kernels and all(set(k) == {"kernel", "launches", "ms", "percent_frame", "avg_ms"} for k in st.kernels)
    assert {"generate", "extend"} <= {k["kernel"] for k in st.kernels}
    assert st.iterations and sum(st.paths_at_depth) > 0


# --- scenes ------------------------------------------------------------------------------------------------------

def test_dict_scene_equals_file_scene():
    with open(CORNELL) as f:
        d = json.load(f)
    from_file = wavepath.load(CORNELL, width=24, height=24)
    from_dict = wavepath.load(d, base_dir=str(SCENES), width=24, height=24)
    for fact in ("resolution", "spp", "max_depth", "primitives", "materials", "lights", "feature_set", "bytes",
                 "settings"):
        assert getattr(from_dict, fact) == getattr(from_file, fact), fact
    assert same_bits(from_dict.render(spp=2, backend="cpu"), from_file.render(spp=2, backend="cpu"))
    # NumPy values in the dict and the settings are taken as their Python values
    d["camera"]["position"] = np.array(d["camera"]["position"], dtype=np.float64)
    again = wavepath.load(d, base_dir=str(SCENES), width=np.int64(24), height=24)
    assert same_bits(again.render(spp=2, backend="cpu"), from_file.last_render.image)
    # a change in the dict is a change in the image
    d["materials"]["white"]["albedo"] = [0.2, 0.2, 0.2]
    darker = wavepath.load(d, base_dir=str(SCENES), width=24, height=24).render(spp=2, backend="cpu")
    assert darker.mean() < from_file.last_render.image.mean()


@needs_cli
def test_scene_facts_match_cli():
    scene = wavepath.load(CORNELL)
    assert scene.resolution == (512, 512) and scene.spp == 64 and scene.max_depth == 65
    assert scene.lights > 0 and scene.materials["lambert"] >= 3 and scene.bytes > 0
    assert scene.lights_by_type["area"] == scene.lights and scene.lights_by_type["point"] == 0
    assert scene.features["lambert"] and scene.feature_set in ("spheres", "general", "layered", "all")
    assert scene.load_seconds >= scene.bvh_seconds >= 0
    err = cli("render", CORNELL, "--backend", "cpu", "--width", 8, "--height", 8, "--spp", 1, "--stats", "-o",
              "/dev/null/x.pfm", check=False).stderr
    # the CLI's load line ("loading PATH: parse ... s, BVH N primitives in ...") names the same primitive count
    assert ("BVH %d primitives" % scene.primitives) in err or ("BVH %d primitives" % scene.primitives) in scene.load_line


def test_scene_warnings_go_through_warnings_module():
    d = {"camera": {"position": [0, 0, 5], "target": [0, 0, 0], "fov": 40},
         "materials": {"grey": {"type": "lambert", "albedo": [0.5, 0.5, 0.5]},
                       "spare": {"type": "lambert", "albedo": [0.1, 0.1, 0.1]}},
         "objects": [{"type": "sphere", "center": [0, 0, 0], "radius": 1, "material": "grey"}],
         "background": [1, 1, 1]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scene = wavepath.load(d, name="mine.json", width=8, height=8)
    msg = "mine.json: /materials/spare: defined but not used by any object"
    assert scene.warnings == [msg]
    assert [str(w.message) for w in caught if issubclass(w.category, wavepath.SceneWarning)] == [msg]
    with pytest.raises(wavepath.SceneError, match="defined but not used by any object .an error with --strict."):
        wavepath.load(d, name="mine.json", strict=True)


# --- errors ------------------------------------------------------------------------------------------------------

def bad_cases():
    cases = []
    with open(BAD / "cases.tsv") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            cases.append((parts[0], parts[2], parts[3:] == ["--strict"]))
    return cases[::3]  # a sample: every third case, syntax, types, references, files, formats


@needs_cli
@pytest.mark.parametrize("case,problem,strict", bad_cases(), ids=[c[0] for c in bad_cases()])
def test_bad_input_raises_cli_message(case, problem, strict):
    path = BAD / case
    r = cli("render", path, "--backend", "cpu", "-o", "/tmp/wp-py-bad.pfm", *(["--strict"] if strict else []),
            check=False)
    assert r.returncode == 1, r.stderr
    with pytest.raises(wavepath.SceneError) as e:
        wavepath.load(path, strict=strict)
    msg = str(e.value)
    assert msg.startswith(str(path)) and problem in msg
    assert ("error: " + msg) in r.stderr.splitlines(), r.stderr


def test_bad_dict_names_json_pointer():
    with pytest.raises(wavepath.SceneError, match=r"^<dict>: /camera: missing"):
        wavepath.load({"objects": []})
    with pytest.raises(ValueError, match=r"^scene.json: /render/spp"):
        wavepath.load({"render": {"spp": "many"}, "camera": {}}, name="scene.json")


def test_unknown_arguments_and_settings_raise():
    with pytest.raises(TypeError, match="unknown keyword argument.*sppp"):
        wavepath.load(CORNELL, sppp=4)
    scene = wavepath.load(CORNELL, width=8, height=8)
    with pytest.raises(ValueError, match=r"unknown setting 'depth' \(settings: width, height, spp"):
        scene.render(backend="cpu", settings={"depth": 4})
    with pytest.raises(ValueError, match=r"max_depth: 5000 is out of range \(1 to 1024\)"):
        scene.render(backend="cpu", settings={"max_depth": 5000})
    with pytest.raises(TypeError):
        scene.render(backend="cpu", colour=True)
    with pytest.raises(ValueError, match="unknown AOV 'alpha'"):
        scene.render(backend="cpu", aovs=["alpha"])
    with pytest.raises(ValueError, match="is not wavefront, megakernel or auto"):
        scene.render(backend="cpu", mode="fast")
    # a crop outside the image: the command line's usage error, at the load or the render
    with pytest.raises(wavepath.UsageError, match=r"cornell-box.json: --crop 0,0,100,8 is not inside the 8x8 image"):
        wavepath.load(CORNELL, width=8, height=8, crop=(0, 0, 100, 8))
    with pytest.raises(wavepath.UsageError, match=r"--crop 0,0,100,8 is not inside the 8x8 image"):
        scene.render(backend="cpu", settings={"crop": (0, 0, 100, 8)})
    with pytest.raises(ValueError, match="spp is given twice"):
        scene.render(4, settings={"spp": 4})


# --- threads, Ctrl-C ---------------------------------------------------------------------------------------------

def test_gil_released_while_rendering():
    scene = wavepath.load(CORNELL, width=128, height=128)
    ticks = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=count)
    t.start()
    try:
        time.sleep(0.05)
        before = ticks[0]
        scene.render(spp=4, backend="cpu", threads=1)
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    render_s = scene.last_render.wall_s
    assert render_s > 0.05 and during > 1000, (render_s, during)  # the other thread ran while the render did


def test_interrupt_stops_render_within_bound():
    # a render of hours, interrupted as Ctrl-C does (SIGINT to this process) once samples are coming: the renderer
    # finishes the paths in flight and KeyboardInterrupt is raised; nothing is returned or kept. The bound is the
    # command line's (tests/run_cli.sh interrupt_prompt: 10 s, generous), counted from the signal.
    scene = wavepath.load(CORNELL, width=1024, height=1024)
    sent = []
    calls = []

    def progress(done, total):
        calls.append((done, total))
        if done > 0 and not sent:
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        scene.render(spp=100000, backend="cpu", progress=progress)
    stopped = time.monotonic() - sent[0]
    assert stopped < 10.0, "stopped %.1f s after the signal" % stopped
    assert calls[0][1] == 1024 * 1024 * 100000 and 0 < calls[-1][0] < calls[0][1]
    assert scene.last_render is None
    # the scene renders again afterwards
    assert scene.render(spp=1, backend="cpu", settings={"width": 8, "height": 8}).shape == (8, 8, 3)


def test_progress_exception_cancels_and_propagates():
    scene = wavepath.load(CORNELL, width=512, height=512)

    class Stop(Exception):
        pass

    def progress(done, total):
        if done > 0:
            raise Stop("enough")

    with pytest.raises(Stop, match="enough"):
        scene.render(spp=100000, backend="cpu", progress=progress)


# --- bench -------------------------------------------------------------------------------------------------------

def keys_of(doc):
    """The document's key sets by level: the top, each scene, each mode, each kernel row."""
    scenes, modes, kernels = set(), set(), set()
    for s in doc["scenes"]:
        scenes |= set(s)
        for m in s["modes"]:
            modes |= set(m)
            for k in m["kernels"]:
                kernels |= set(k)
    return set(doc) - {"command"}, scenes, modes, kernels


@needs_cli
def test_bench_records_have_cli_keys(tmp_path):
    out = tmp_path / "bench.json"
    opts = ["--backend", "cpu", "--repeat", 1, "--warmup", 0, "--width", 24, "--height", 24, "--spp", 2]
    cli("bench", CORNELL, *opts, "--json", out)
    with open(out) as f:
        want = json.load(f)
    got = wavepath.bench([CORNELL], backend="cpu", repeat=1, warmup=0,
                         settings={"width": 24, "height": 24, "spp": 2})
    assert keys_of(got) == keys_of(want)
    assert [m["mode"] for m in got["scenes"][0]["modes"]] == [m["mode"] for m in want["scenes"][0]["modes"]]
    assert got["scenes"][0]["width"] == 24 and got["backend"] == "cpu"


def test_bench_error_curve_and_bad_options():
    doc = wavepath.bench([CORNELL], backend="cpu", modes=["megakernel"], repeat=1, warmup=0, raycast=False,
                         settings={"width": 16, "height": 16}, reference="auto", spp_list=[1, 4],
                         reference_spp=16)
    curve = doc["scenes"][0]["modes"][0]["error"]
    assert [p["spp"] for p in curve] == [1, 4] and curve[1]["mse"] < curve[0]["mse"]
    with pytest.raises(ValueError, match="unknown schedule 'fast'"):
        wavepath.bench([CORNELL], modes=["fast"])
    with pytest.raises(TypeError):
        wavepath.bench([CORNELL], repeats=2)


# --- GPU ---------------------------------------------------------------------------------------------------------

gpu, gpu_name = wavepath.gpu_available()


@pytest.mark.skipif(not gpu, reason="no CUDA GPU (or a build without CUDA)")
@pytest.mark.parametrize("mode", ["wavefront", "megakernel"])
def test_gpu_render(mode):
    scene = wavepath.load(CORNELL, width=64, height=64)
    img = scene.render(spp=16, backend="gpu", mode=mode)
    st = scene.last_render.stats
    assert st.backend == "gpu" and st.mode == mode and st.samples == 64 * 64 * 16
    cpu = scene.render(spp=16, backend="cpu", mode=mode)
    assert np.isfinite(img).all()
    assert abs(img.mean() - cpu.mean()) < 0.05 * cpu.mean()  # the same estimator, other rounding


def test_gpu_backend_refused_without_gpu():
    if gpu:
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="no CUDA GPU is present"):
        wavepath.load(CORNELL, width=8, height=8).render(backend="gpu")
