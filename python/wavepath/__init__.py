"""wavepath from Python: load a scene, render it into a NumPy array, benchmark the schedules.

    >>> import wavepath
    >>> scene = wavepath.load("scenes/cornell-box.json", width=256, height=256)
    >>> image = scene.render(spp=16)              # float32, height x width x 3, linear
    >>> scene.last_render.stats.render_ms         # the figures `wavepath render --stats` prints
    >>> doc = wavepath.bench(["scenes/cornell-box.json"], backend="cpu", repeat=1)   # `wavepath bench --json`'s

The module is a thin layer over the command line's own code (host/app, host/render, host/scene): the same loaders,
checks and messages, the same renderers, the same bench. Errors are exceptions carrying the command line's messages
(`SceneError`, a ValueError: "FILE:LINE:COL: ..." or "FILE: /json/pointer: ..."); a scene's warnings are
`SceneWarning`s through Python's `warnings` (and `Scene.warnings`). Renders release the GIL; Ctrl-C stops one as
the command line's SIGINT does (the paths in flight finished) and raises KeyboardInterrupt, returning nothing.
Guide: docs/PYTHON.md.
"""
import json as _json
import os as _os
import warnings as _warnings

from . import _wavepath
from ._wavepath import RenderStats, SceneError, SceneMemoryError, UsageError

__all__ = ["load", "bench", "Scene", "Render", "RenderStats", "SceneError", "SceneMemoryError", "SceneWarning",
           "RenderWarning", "UsageError", "gpu_available", "cuda_built", "setting_names"]

#: Whether this build of the module has the CUDA backend (nvcc was found when it was built).
cuda_built = bool(_wavepath.cuda_built)


class SceneWarning(UserWarning):
    """A scene importer's warning (what `wavepath render` prints as "warning: FILE: ...")."""


class RenderWarning(UserWarning):
    """A render's warning: non-finite samples dropped, samples clamped (the command line's stderr warnings)."""


def gpu_available():
    """(True, the GPU's name) when a CUDA GPU is present and this build has the GPU backend, else (False, "")."""
    return _wavepath.gpu_available()


def setting_names():
    """The render settings' names (docs/OPTIONS.md): the keys of `load(**settings)` and `render(settings=...)`."""
    return list(_wavepath.setting_names())


def _setting_text(name, value):
    """A setting's value as the command line's --set takes it: True/False as 1/0, a crop (x0, y0, x1, y1) joined."""
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # a NumPy scalar
        value = value.item()
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, (int, float, str)):
        return str(value)
    raise TypeError("setting %s: %r is not a number, a string, a bool or a crop tuple" % (name, value))


def _json_value(x):
    """NumPy values in a dict scene, as JSON takes them (json.dumps' default=)."""
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError("a scene dict holds %r, which is not a JSON value" % (x,))


def _resources():
    """ptxas's per-kernel report for bench(): beside the module (pip install), else in its build folder."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    for p in (_os.path.join(here, "kernel_resources.txt"), _os.path.join(here, "..", "..", "kernel_resources.txt")):
        if _os.path.isfile(p):
            return _os.path.normpath(p)
    return ""


def _settings(settings):
    return [(str(k), _setting_text(k, v)) for k, v in (settings or {}).items()]


class Render:
    """A render's result: `image` (float32 NumPy array, height x width x 3, linear RGB, row 0 at the top), `aovs`
    (name -> array: albedo, normal, position height x width x 3, depth height x width), `stats` (RenderStats),
    `samples` (the samples the image holds), `wall_s` (seconds, wall clock, around the render call)."""

    __slots__ = ("image", "aovs", "stats", "samples", "wall_s")

    def __init__(self, out):
        self.image = out.image
        self.aovs = dict(out.aovs)
        self.stats = out.stats
        self.samples = out.samples
        self.wall_s = out.wall_s

    def __repr__(self):
        h, w = self.image.shape[:2]
        return "Render(%dx%d, %d samples, aovs=%s, %r)" % (w, h, self.samples, sorted(self.aovs), self.stats)


class Scene:
    """A loaded scene (`wavepath.load`): read-only facts and `render`."""

    def __init__(self, native):
        self._s = native
        #: The Render of the latest `render` call (None before the first).
        self.last_render = None

    # the facts
    path = property(lambda self: self._s.path, doc="the scene's file (for a dict: the name given to load)")
    width = property(lambda self: self._s.width, doc="image width in pixels (a crop's, when cropped)")
    height = property(lambda self: self._s.height, doc="image height in pixels (a crop's, when cropped)")
    resolution = property(lambda self: (self._s.width, self._s.height), doc="(width, height)")
    spp = property(lambda self: self._s.spp, doc="samples per pixel")
    max_depth = property(lambda self: self._s.max_depth, doc="longest path, in segments")
    settings = property(lambda self: dict(self._s.settings),
                        doc="every render setting (docs/OPTIONS.md) as its text, as `wavepath settings` names them")
    primitives = property(lambda self: self._s.primitives, doc="primitives (triangles, quads, spheres)")
    bvh_references = property(lambda self: self._s.bvh_references, doc="the tree's leaf slots (spatial splits)")
    materials = property(lambda self: dict(self._s.materials),
                         doc="material records by family: lambert, conductor, dielectric, principled, layered, bumped")
    lights = property(lambda self: self._s.lights, doc="lights in the light table (area and delta lights)")
    lights_by_type = property(lambda self: dict(self._s.lights_by_type),
                              doc="the light table by kind: area, point, spot, distant; environment_map 0 or 1")
    textures = property(lambda self: self._s.textures, doc="textures")
    features = property(lambda self: dict(self._s.features),
                        doc="the features the scene uses (kernels/features.h), name -> bool")
    feature_set = property(lambda self: self._s.feature_set,
                           doc="the smallest compiled kernel feature set that holds the scene's features")
    bytes = property(lambda self: self._s.bytes, doc="the scene's arrays, in bytes (what a GPU render uploads)")
    load_seconds = property(lambda self: self._s.load_seconds, doc="the whole load, wall clock")
    bvh_seconds = property(lambda self: self._s.bvh_seconds, doc="the tree's build, wall clock")
    load_line = property(lambda self: self._s.load_line, doc="the load's phases as `render --stats` prints them")
    warnings = property(lambda self: list(self._s.warnings), doc="the importers' warnings, as a list")

    def __repr__(self):
        return "Scene(%r, %dx%d, %d spp, %d primitives, %d lights, feature set %s)" % (
            self.path, self.width, self.height, self.spp, self.primitives, self.lights, self.feature_set)

    def render_full(self, spp=None, *, backend="auto", mode="auto", settings=None, aovs=(), progress=None,
                    threads=0, capacity=0):
        """Renders the scene; returns a `Render` (image, aovs, stats).

        spp: samples per pixel (None: the scene's); backend: "cpu", "gpu" or "auto" (the GPU when present); mode:
        "wavefront", "megakernel" or "auto" (the GPU's wavefront, the CPU's megakernel, as `wavepath render`);
        settings: more render settings by name (docs/OPTIONS.md, as `--set NAME=VALUE`; an unknown name or a value out
        of range raises ValueError); aovs: any of "albedo", "normal", "depth", "position"; progress: a callable
        progress(samples_done, samples_total), called on this thread about every 50 ms; threads: CPU threads (0:
        all); capacity: wavefront paths in flight (0: the default). The image is the CLI's for the same scene and
        settings, bit for bit. Ctrl-C: KeyboardInterrupt once the paths in flight are finished; nothing returned.
        """
        settings = dict(settings or {})
        if spp is not None:
            if "spp" in settings:
                raise ValueError("spp is given twice (by spp= and settings)")
            settings["spp"] = spp
        out = self._s.render(backend, mode, _settings(settings), list(aovs), int(threads), int(capacity), progress)
        if out.nonfinite:
            _warnings.warn("%d non-finite samples dropped, first at pixel (%d, %d)"
                           % (out.nonfinite, out.first_nonfinite_x, out.first_nonfinite_y), RenderWarning, 2)
        if out.clamped:
            _warnings.warn("%d samples clamped at 1e6 (the film's largest sample value)" % out.clamped,
                           RenderWarning, 2)
        self.last_render = Render(out)
        return self.last_render

    def render(self, spp=None, **kwargs):
        """Renders the scene; returns the image, a float32 NumPy array (height x width x 3, linear RGB, row 0 at the
        top). The AOVs and statistics are in `scene.last_render` (a `Render`). Arguments: those of `render_full`."""
        return self.render_full(spp, **kwargs).image


def load(scene, *, strict=False, name=None, base_dir=None, **settings):
    """Loads a scene: a file of any supported format (native or Tungsten JSON, glTF, pbrt-v4), or a dict in the
    native JSON form (scenes/README.md). `settings` override the scene's render settings by name (docs/OPTIONS.md:
    width=, height=, spp=, max_depth=, seed=, ..., as `wavepath render`'s options and --set); strict=True makes every
    importer warning an error (--strict). A dict is named `name` in messages (default "<dict>") and its relative files
    are found under `base_dir` (default: the current folder). Raises SceneError (a ValueError) with the command
    line's message; the importers' warnings go to `warnings.warn` as SceneWarning, and to `Scene.warnings`."""
    unknown = sorted(k for k in settings if k not in _wavepath.setting_names())
    if unknown:
        raise TypeError("load() got unknown keyword argument(s) %s (settings: %s)"
                        % (", ".join(unknown), ", ".join(_wavepath.setting_names())))
    if isinstance(scene, dict):
        label = name or "<dict>"
        path = _os.path.join(base_dir, label) if base_dir else label
        native = _wavepath.load_text(_json.dumps(scene, default=_json_value), path, _settings(settings), bool(strict))
    elif isinstance(scene, (str, _os.PathLike)):
        if name is not None or base_dir is not None:
            raise TypeError("load(): name= and base_dir= are for a dict scene, not a file")
        native = _wavepath.load_file(_os.fspath(scene), _settings(settings), bool(strict))
    else:
        raise TypeError("load(): a scene is a path or a dict, not %s" % type(scene).__name__)
    for w in native.warnings:
        _warnings.warn(w, SceneWarning, 2)
    return Scene(native)


def bench(scenes=None, *, backend="auto", modes=("wavefront", "megakernel"), settings=None, repeat=3, warmup=1,
          raycast=True, raycast_spp=4, queue_stats=True, kernel_timing=True, reference=None, spp_list=(),
          reference_spp=0, target_relmse=0.01, resources=None, threads=0):
    """`wavepath bench` from Python: returns its JSON document (`bench --json`) as dicts and lists; the records are
    doc["scenes"], one per scene, each with its "modes". scenes: paths (None: the benchmark set, as the command's);
    the options are the command's (--backend, --modes, --set as settings, --repeat, --warmup, --no-raycast as
    raycast=False, --raycast-spp, --no-queue-stats, --no-kernel-timing, --reference (a file or "auto"), --spp-list,
    --reference-spp, --target-relmse, --resources (default: the build's kernel_resources.txt, installed beside the
    module), --threads). The table is printed on stdout as the command's. Ctrl-C stops the render in flight (the
    remaining ones stop at once) and raises KeyboardInterrupt."""
    if isinstance(scenes, (str, _os.PathLike)):
        scenes = [scenes]
    text, notes = _wavepath.bench([_os.fspath(s) for s in (scenes or [])], backend, list(modes), _settings(settings),
                                  int(repeat), int(warmup), bool(raycast), int(raycast_spp), bool(queue_stats),
                                  bool(kernel_timing), reference or "", [int(n) for n in spp_list],
                                  int(reference_spp), float(target_relmse), resources or _resources(), int(threads), None)
    for n in notes:
        _warnings.warn(n, RuntimeWarning, 2)
    return _json.loads(text)
