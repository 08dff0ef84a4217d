#!/usr/bin/env python3
"""wavepath_farm: a batch of renders (scenes x sample ranges) spread over a Ray cluster.

Every scene's samples per pixel are cut into shards of sample ranges; each shard is one Ray task that runs
`wavepath render SCENE --samples START:COUNT -o part.wpfilm` on one GPU (num_gpus=1) or on CPU cores, and returns
the partial film's bytes through Ray's object store (no shared folder is needed for the parts). A shard that fails
(the worker or the renderer killed, a GPU error) is submitted again, up to --retries times; one that fails with an
input or usage error (exit code 1 or 2) is not. The parts of each scene are then merged with `wavepath merge`,
which checks they belong together and hold every sample: the image equals a single-process render bit for bit.

    python3 python/wavepath_farm.py --address auto --spp 256 --shards 16 scenes/*.json -o 'out/{name}.exr' \\
        -- --width 1920 --height 1080

Arguments after `--` go to every `wavepath render`. The scene files (and what they reference) and the wavepath
binary must be at the same paths on every node (a shared or copied folder). The binary: --wavepath, else the build
of this source tree (build/wavepath beside python/), else `wavepath` on PATH.

`--address local` starts a cluster of its own in this process, isolated from any other Ray on the machine: its own
temporary folder (removed at the end) and token authentication with a fresh token of its own (RAY_AUTH_MODE=token,
RAY_AUTH_TOKEN_PATH to a file in that folder), so that a stale ~/.ray/auth_token or a RAY_ADDRESS in the
environment plays no part. Tested with Ray 2.52 to 2.60 (RAY_SUPPORTED). docs/FARM.md.
"""
import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# wavepath's exit codes (docs/CLI.md, "Exit codes"): these two are the input's fault, a retry cannot help
EXIT_INPUT, EXIT_USAGE = 1, 2
EXIT_RAY = 3  # the cluster could not be started or reached (as a render that failed: docs/CLI.md, "Exit codes")
# The Ray versions this driver is tested with (scripts/install-deps.sh installs within them): token authentication
# (RAY_AUTH_MODE, RAY_AUTH_TOKEN_PATH) came in 2.52; 2.61 turns it on for every cluster (untested here).
RAY_SUPPORTED = ((2, 52), (2, 61))  # [first, end)
RAY_SUPPORTED_TEXT = ">=2.52,<2.61"


def default_wavepath():
    """The binary when --wavepath is not given: this source tree's build (build/wavepath beside python/), else
    `wavepath` on PATH; None when neither is there."""
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(os.path.dirname(here), "build", "wavepath")
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    return shutil.which("wavepath")


def ray_version_ok(version):
    """True when a Ray version string ("2.60.0") is within RAY_SUPPORTED."""
    try:
        v = tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        return False
    return RAY_SUPPORTED[0] <= v < RAY_SUPPORTED[1]


def isolate_local_ray():
    """The configuration of a Ray cluster of this process alone, set before Ray is imported (Ray reads it at import):
    its own temporary folder and its own token (explicit token authentication), whatever ~/.ray, RAY_ADDRESS or
    RAY_AUTH_* held. Returns the folder (removed by the caller); the cluster's workers inherit the environment."""
    import secrets

    d = tempfile.mkdtemp(prefix="wpray.", dir="/tmp" if os.path.isdir("/tmp") else None)  # short: Ray's sockets
    token = os.path.join(d, "auth_token")
    fd = os.open(token, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    for k in ("RAY_ADDRESS", "RAY_AUTH_TOKEN"):
        os.environ.pop(k, None)
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN_PATH"] = token
    return d


class ShardFailed(Exception):
    """A shard's render failed in a way a retry may fix (exit code 3, a signal, a crash)."""


class ShardRefused(Exception):
    """A shard's render refused its input (exit code 1 or 2): not retried."""


def shard_ranges(spp, shards):
    """[(start, count)] of `shards` near-equal ranges covering samples [0, spp)."""
    shards = max(1, min(shards, spp))
    cuts = [spp * i // shards for i in range(shards + 1)]
    return [(cuts[i], cuts[i + 1] - cuts[i]) for i in range(shards)]


def render_shard(wavepath, scene, start, count, spp, args, kill_marker=None):
    """The body of one Ray task: the shard's partial film, as bytes. kill_marker (tests): on the first attempt, the
    renderer and then this worker process are killed with SIGKILL once the render has started."""
    import socket

    with tempfile.TemporaryDirectory(prefix="wavepath-shard-") as d:
        out = os.path.join(d, "part.wpfilm")
        cmd = [wavepath, "render", scene, "--spp", str(spp), "--samples", "%d:%d" % (start, count), "-o", out]
        cmd += list(args)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if kill_marker and not os.path.exists(kill_marker):
            open(kill_marker, "w").write("killed once\n")
            time.sleep(0.2)
            proc.kill()
            os.kill(os.getpid(), signal.SIGKILL)  # the worker dies mid-shard: Ray reports the task lost
        log, _ = proc.communicate()
        if proc.returncode in (EXIT_INPUT, EXIT_USAGE):
            raise ShardRefused("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, log))
        if proc.returncode != 0 or not os.path.exists(out):
            raise ShardFailed("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, log))
        with open(out, "rb") as f:
            return f.read(), socket.gethostname()


class Bar:
    """A progress bar over shards on stderr (redrawn in place on a terminal, one line per change otherwise)."""

    def __init__(self, total):
        self.total, self.done, self.retried, self.t0 = total, 0, 0, time.time()
        self.tty = sys.stderr.isatty()
        self.show()

    def show(self):
        k = int(20 * self.done / max(1, self.total))
        line = "shards [%s%s] %d/%d, %d retried, %.1f s" % (
            "#" * k, "." * (20 - k), self.done, self.total, self.retried, time.time() - self.t0)
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        sys.stderr.flush()

    def close(self):
        if self.tty:
            sys.stderr.write("\n")


def output_for(pattern, scene):
    name = os.path.splitext(os.path.basename(scene))[0]
    folder = os.path.basename(os.path.dirname(os.path.abspath(scene)))
    return pattern.replace("{name}", name).replace("{dir}", folder)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    render_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, render_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description="Render scenes x sample ranges as Ray tasks and merge the parts.",
                                 epilog="Arguments after -- go to every `wavepath render` (e.g. -- --width 640).")
    ap.add_argument("scenes", nargs="+", help="scene files (the same paths on every node)")
    ap.add_argument("--spp", type=int, required=True, help="samples per pixel of every image")
    ap.add_argument("--shards", type=int, default=0, help="shards per scene (default: the cluster's GPUs or CPUs)")
    ap.add_argument("-o", "--output", default="{name}.exr",
                    help="image per scene: {name} is the scene's file name without extension, {dir} its folder's")
    ap.add_argument("--parts-dir", default="", help="keep the partial films here (default: a temporary folder)")
    ap.add_argument("--wavepath", default="",
                    help="the wavepath binary (the same path on every node; default: build/wavepath of this source "
                         "tree, else the one on PATH)")
    ap.add_argument("--address", default=os.environ.get("RAY_ADDRESS", "auto"),
                    help="Ray cluster: auto (the running one), HOST:PORT, or local (start one in this process, with "
                         "its own temporary folder and token)")
    ap.add_argument("--backend", choices=["auto", "gpu", "cpu"], default="auto",
                    help="gpu: one GPU per shard (num_gpus=1); cpu: --cpus-per-shard cores; auto: gpu if the "
                         "cluster has GPUs")
    ap.add_argument("--cpus-per-shard", type=int, default=1, help="CPU shards: cores (and render threads) each")
    ap.add_argument("--retries", type=int, default=3, help="times a failed shard is submitted again")
    ap.add_argument("--inject-kill", type=int, action="append", default=[], metavar="SHARD",
                    help=argparse.SUPPRESS)  # tests: kill the worker of this shard (of every scene) once
    a = ap.parse_args(argv)
    if a.spp < 1:
        ap.error("--spp must be at least 1")
    if a.wavepath:
        wavepath = os.path.abspath(a.wavepath) if os.sep in a.wavepath else shutil.which(a.wavepath)
    else:
        wavepath = default_wavepath()
    if not wavepath or not os.path.isfile(wavepath) or not os.access(wavepath, os.X_OK):
        if a.wavepath:
            print("error: no wavepath binary at %r (--wavepath)" % a.wavepath, file=sys.stderr)
        else:
            print("error: no wavepath binary: none at %s and none on PATH; build it (cmake --build build --target "
                  "wavepath) or give --wavepath PATH" % os.path.join(
                      os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build", "wavepath"),
                  file=sys.stderr)
        return EXIT_USAGE
    scenes = [os.path.abspath(s) for s in a.scenes]
    for s in scenes:
        if not os.path.isfile(s):
            print("error: scene %s does not exist" % s, file=sys.stderr)
            return EXIT_INPUT
    outputs = [output_for(a.output, s) for s in scenes]
    if len(set(outputs)) != len(outputs):
        print("error: -o %r names one file for several scenes: use {name} (and {dir})" % a.output, file=sys.stderr)
        return EXIT_USAGE

    for o in outputs:
        d = os.path.dirname(os.path.abspath(o))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            print("error: output %s: folder %s does not exist or is not writable" % (o, d), file=sys.stderr)
            return EXIT_USAGE

    if importlib.util.find_spec("ray") is None:
        print("error: the Python package ray is not installed (scripts/install-deps.sh installs it: "
              "python3 -m pip install 'ray%s')" % RAY_SUPPORTED_TEXT, file=sys.stderr)
        return EXIT_USAGE
    local_dir = isolate_local_ray() if a.address == "local" else None
    import ray
    if not ray_version_ok(ray.__version__):
        print("warning: Ray %s is outside the versions this driver is tested with (%s; scripts/install-deps.sh "
              "installs one)" % (ray.__version__, RAY_SUPPORTED_TEXT), file=sys.stderr)
    try:
        if local_dir:
            ray.init(address="local", _temp_dir=local_dir, include_dashboard=False, log_to_driver=False)
            print("local Ray cluster: %s (its own temporary folder and token)" % local_dir, flush=True)
        else:
            ray.init(address=a.address, log_to_driver=False)
    except Exception as e:  # Ray's own message (an authentication error names the token it wants)
        print("error: cannot %s the Ray cluster%s: %s: %s" % (
            "start" if a.address == "local" else "connect to", "" if a.address == "local" else " at " + a.address,
            type(e).__name__, str(e).strip() or "(no message)"), file=sys.stderr)
        if a.address != "local":
            print("  (with token authentication, RAY_AUTH_MODE=token, the driver needs the cluster's token: "
                  "RAY_AUTH_TOKEN_PATH, RAY_AUTH_TOKEN or ~/.ray/auth_token; Ray's log lines above say which "
                  "error the cluster answered)", file=sys.stderr)
        if local_dir:
            shutil.rmtree(local_dir, ignore_errors=True)
        return EXIT_RAY
    try:
        return run_farm(ray, a, wavepath, scenes, outputs, render_args)
    finally:
        ray.shutdown()
        if local_dir:
            shutil.rmtree(local_dir, ignore_errors=True)


def run_farm(ray, a, wavepath, scenes, outputs, render_args):
    """The shards on the cluster ray is connected to, then each scene's merge; the exit code."""
    res = ray.cluster_resources()
    backend = a.backend if a.backend != "auto" else ("gpu" if res.get("GPU", 0) >= 1 else "cpu")
    if backend == "gpu":
        opts, args = dict(num_gpus=1, num_cpus=1), ["--backend", "gpu"] + render_args
        slots = int(res.get("GPU", 0))
    else:
        opts = dict(num_cpus=a.cpus_per_shard)
        args = ["--backend", "cpu", "--threads", str(a.cpus_per_shard)] + render_args
        slots = int(res.get("CPU", 1)) // a.cpus_per_shard
    nshards = a.shards or max(1, slots)
    task = ray.remote(max_retries=0)(render_shard).options(**opts)
    print("wavepath_farm: %d scenes x %d shards of %d spp on %s (%d %s); %s" % (
        len(scenes), min(nshards, a.spp), a.spp, a.address, slots, "GPUs" if backend == "gpu" else "CPU shards at once",
        wavepath), flush=True)

    parts_dir = a.parts_dir or tempfile.mkdtemp(prefix="wavepath-parts-")
    os.makedirs(parts_dir, exist_ok=True)
    marker_dir = tempfile.mkdtemp(prefix="wavepath-farm-")
    jobs = {}  # ObjectRef -> (scene index, start, count, attempt)
    for si, s in enumerate(scenes):
        for k, (start, count) in enumerate(shard_ranges(a.spp, nshards)):
            kill = os.path.join(marker_dir, "%d-%d" % (si, k)) if k in a.inject_kill else None
            jobs[task.remote(wavepath, s, start, count, a.spp, args, kill)] = (si, start, count, 0)
    bar = Bar(len(jobs))
    parts = {si: [] for si in range(len(scenes))}
    failed = []
    while jobs:
        ready, _ = ray.wait(list(jobs), num_returns=1)
        ref = ready[0]
        si, start, count, attempt = jobs.pop(ref)
        what = "%s samples %d:%d" % (os.path.basename(scenes[si]), start, count)
        try:
            data, host = ray.get(ref)
        except Exception as e:  # RayTaskError wraps ShardFailed / ShardRefused; a lost worker is its own error
            refused = isinstance(getattr(e, "cause", None), ShardRefused) or "ShardRefused" in type(e).__name__
            reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            if refused or attempt >= a.retries:
                print("\nerror: shard %s failed%s: %s" % (what, "" if refused else " %d times" % (attempt + 1),
                                                         str(e)), file=sys.stderr)
                failed.append(what)
                bar.done += 1
            else:
                print("\nshard %s failed (%s: %s): retry %d of %d" % (what, type(e).__name__, reason, attempt + 1,
                                                                       a.retries), file=sys.stderr, flush=True)
                bar.retried += 1
                kill = None  # (the marker is set: a retry runs normally)
                jobs[task.remote(wavepath, scenes[si], start, count, a.spp, args, kill)] = (si, start, count,
                                                                                           attempt + 1)
            bar.show()
            continue
        path = os.path.join(parts_dir, "%s.%d-%d.wpfilm" % (os.path.splitext(os.path.basename(scenes[si]))[0],
                                                             start, count))
        with open(path, "wb") as f:
            f.write(data)
        parts[si].append(path)
        bar.done += 1
        bar.show()
    bar.close()
    shutil.rmtree(marker_dir, ignore_errors=True)
    if failed:
        print("error: %d shards failed: %s; nothing merged for their scenes" % (len(failed), ", ".join(failed)),
              file=sys.stderr)
    code = 0
    for si, s in enumerate(scenes):
        if any(f.startswith(os.path.basename(s) + " ") for f in failed):
            code = 3
            continue
        r = subprocess.run([wavepath, "merge"] + sorted(parts[si]) + ["-o", outputs[si]], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            code = code or r.returncode
    if not a.parts_dir:
        shutil.rmtree(parts_dir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
