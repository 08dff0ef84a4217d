#!/usr/bin/env python3
"""The samplers' convergence on the CPU (issue 45's CPU target; profiling/LOG.md entry 65).

    python3 profiling/sampler_convergence.py [WAVEPATH] [--scene scenes/cornell-box.json] [--size 64]
        [--spp 16,64,256,1024] [--ref-spp 4096] [--seeds 3] [--out /tmp/wp-sampler]

Renders the scene with each sampler (`--set sampler=...`) at each sample count and `--seeds` seeds, and a reference
with the Sobol sampler at --ref-spp (its own seed); prints per sampler and sample count the MSE against the
reference (mean over pixels and channels, then over the seeds), the render time, and the least-squares slope of
log MSE against log spp. The images are PFM (the same 32-bit floats as the EXR output), read here without numpy.
"""
import argparse
import math
import os
import re
import struct
import subprocess
import sys


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        n = w * h * (3 if kind == b"PF" else 1)
        data = struct.unpack(("<" if scale < 0 else ">") + "%df" % n, f.read(4 * n))
    return data


def render(wp, scene, size, spp, seed, sampler, out):
    cmd = [wp, "render", scene, "--backend", "cpu", "--width", str(size), "--height", str(size), "--spp", str(spp),
           "--seed", str(seed), "--set", "sampler=" + sampler, "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    m = re.search(r"render ([0-9.]+) ms", r.stderr + r.stdout)
    return float(m.group(1)) if m else float("nan")


def slope(xs, ys):
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wavepath", nargs="?", default="build-cpu/wavepath")
    ap.add_argument("--scene", default="scenes/cornell-box.json")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--spp", default="16,64,256,1024")
    ap.add_argument("--ref-spp", type=int, default=4096)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--samplers", default="independent,sobol")
    ap.add_argument("--out", default="/tmp/wp-sampler")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    spps = [int(s) for s in a.spp.split(",")]
    ref_path = os.path.join(a.out, "ref-%d-%d.pfm" % (a.size, a.ref_spp))
    if not os.path.exists(ref_path):
        t = render(a.wavepath, a.scene, a.size, a.ref_spp, 1000, "sobol", ref_path)
        print("reference: sobol, %d spp, seed 1000, %.0f ms" % (a.ref_spp, t), flush=True)
    ref = read_pfm(ref_path)
    table = {}
    for sampler in a.samplers.split(","):
        for spp in spps:
            errs, times = [], []
            for seed in range(1, a.seeds + 1):
                p = os.path.join(a.out, "%s-%d-%d-%d.pfm" % (sampler, a.size, spp, seed))
                times.append(render(a.wavepath, a.scene, a.size, spp, seed, sampler, p))
                img = read_pfm(p)
                errs.append(sum((x - r) ** 2 for x, r in zip(img, ref)) / len(ref))
            table[(sampler, spp)] = (sum(errs) / len(errs), sorted(times)[len(times) // 2])
            print("%-12s %5d spp: MSE %.4e (seeds %s), render %.1f ms (median)" %
                  (sampler, spp, table[(sampler, spp)][0], " ".join("%.3e" % e for e in errs),
                   table[(sampler, spp)][1]), flush=True)
    print("\n| sampler | " + " | ".join("MSE %d spp" % s for s in spps) + " | slope | ms at %d spp |" % spps[-1])
    print("|---|" + "---|" * (len(spps) + 2))
    for sampler in a.samplers.split(","):
        mse = [table[(sampler, s)][0] for s in spps]
        print("| %s | %s | %.2f | %.0f |" % (sampler, " | ".join("%.3e" % m for m in mse), slope(spps, mse),
                                               table[(sampler, spps[-1])][1]))
    if "sobol" in a.samplers and "independent" in a.samplers:
        print("\nratio sobol / independent: " + ", ".join(
            "%d spp %.3f" % (s, table[("sobol", s)][0] / table[("independent", s)][0]) for s in spps))


if __name__ == "__main__":
    sys.exit(main())
