#!/usr/bin/env python3
"""Error at equal samples against pbrt-v4, on the CPU (issue 45's CPU comparison).

For each published pbrt-v4 scene of the parity suite (tests/parity/manifest.txt, at the manifest's small size), each
renderer renders the scene as published (its own sampler: pbrt-v4 honours the file's Sampler line, wavepath maps it,
scenes/README.md) at every sample count N of --spp and once at --ref-spp (another seed), and its image's MSE is taken
against its own reference. The table gives both MSEs and the ratio pbrt-v4 / wavepath (above 1: wavepath's image is
the cleaner at equal samples). The references' own noise adds about MSE(N) * N / ref_spp to each figure.

  profiling/pbrt_cpu_mse.py --wavepath build/wavepath [--pbrt ../shared/pbrt-v4/tool/pbrt] [--spp 16,64]
      [--ref-spp 1024] [--scenes killeroo_simple,...] [--scale 1.0] [--threads 2] [--work DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        w, h = (int(v) for v in f.readline().split())
        scale = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if scale < 0 else ">f4")
    channels = 3 if kind == b"PF" else 1
    if data.size != w * h * channels:
        raise SystemExit(f"{path}: {data.size} floats for a {w}x{h} image of {channels} channels")
    return data.reshape(h, w, channels).astype(np.float64)


def published_scenes(manifest):
    """(name, path under the archive, width, height) of the manifest's published lines."""
    out = []
    for line in open(manifest):
        f = line.split()
        if len(f) >= 3 and not line.startswith("#") and f[1].startswith("published/"):
            w, h = (int(v) for v in f[2].split("x"))
            out.append((f[0], f[1], w, h))
    return out


def resized_copy(src, name, w, h):
    """A copy of the pbrt-v4 file beside it with only the Film's resolution changed (pbrt has no resolution flag)."""
    text = open(src).read()
    text = re.sub(r'("integer xresolution"\s*)\[?\s*\d+\s*\]?', lambda m: f"{m.group(1)}[ {w} ]", text)
    text = re.sub(r'("integer yresolution"\s*)\[?\s*\d+\s*\]?', lambda m: f"{m.group(1)}[ {h} ]", text)
    dst = os.path.join(os.path.dirname(src), name + ".mse.pbrt")
    open(dst, "w").write(text)
    return dst


def run(cmd, log):
    with open(log, "w") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise SystemExit(f"failed (exit {r.returncode}), see {log}: {' '.join(cmd)}")


def render(args, who, scene, small, w, h, spp, seed, out):
    log = out + ".log"
    if os.path.exists(out):
        return read_pfm(out)
    if who == "pbrt":
        run(["nice", "-n", "10", args.pbrt, "--nthreads", str(args.threads), "--spp", str(spp), "--seed", str(seed),
             "--outfile", out, small], log)
    else:
        run(["nice", "-n", "10", args.wavepath, "render", scene, "--backend", "cpu", "--threads", str(args.threads),
             "--spp", str(spp), "--seed", str(seed), "--width", str(w), "--height", str(h), "-o", out,
             "--progress", "0"], log)
    return read_pfm(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wavepath", required=True)
    ap.add_argument("--pbrt", default=os.path.join(ROOT, "..", "shared", "pbrt-v4", "tool", "pbrt"))
    ap.add_argument("--spp", default="16,64")
    ap.add_argument("--ref-spp", type=int, default=1024)
    ap.add_argument("--scenes", default="")
    ap.add_argument("--scale", type=float, default=1.0, help="scale of the manifest's image sizes")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default="", help="folder for the images (kept: a rerun reuses them)")
    args = ap.parse_args()
    spps = [int(v) for v in args.spp.split(",")]
    work = args.work or tempfile.mkdtemp(prefix="pbrt_mse_")
    os.makedirs(work, exist_ok=True)
    if not os.path.isdir(os.path.join(work, "published")):
        with tarfile.open(os.path.join(ROOT, "tests", "parity", "published.tar.xz")) as t:
            t.extractall(work)
    want = set(args.scenes.split(",")) if args.scenes else None
    rows = []
    for name, rel, w, h in published_scenes(os.path.join(ROOT, "tests", "parity", "manifest.txt")):
        if want and name not in want:
            continue
        w, h = max(8, round(w * args.scale)), max(8, round(h * args.scale))
        scene = os.path.join(work, rel)
        small = resized_copy(scene, name, w, h)
        mse = {}
        for who in ("pbrt", "wavepath"):
            ref = render(args, who, scene, small, w, h, args.ref_spp, 7, os.path.join(work, f"{name}.{who}.{w}x{h}.ref{args.ref_spp}.pfm"))
            for n in spps:
                img = render(args, who, scene, small, w, h, n, 1, os.path.join(work, f"{name}.{who}.{w}x{h}.{n}.pfm"))
                mse[(who, n)] = float(np.mean((img - ref) ** 2))
        for n in spps:
            rows.append((name, f"{w}x{h}", n, mse[("pbrt", n)], mse[("wavepath", n)]))
            print(f"{name:24s} {w}x{h:<4d} {n:5d} spp  pbrt {mse[('pbrt', n)]:.3e}  wavepath {mse[('wavepath', n)]:.3e}"
                  f"  ratio {mse[('pbrt', n)] / mse[('wavepath', n)]:.2f}", flush=True)
    print(f"\n| scene | size | spp | pbrt-v4 MSE | wavepath MSE | pbrt-v4 / wavepath |  (references: {args.ref_spp} spp)")
    print("|---|---|---|---|---|---|")
    for name, size, n, p, q in rows:
        print(f"| {name} | {size} | {n} | {p:.3e} | {q:.3e} | {p / q:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
