#!/usr/bin/env python3
"""Multiply-adds left unfused in the wavefront's kernels (LOG entry 51).

kernels/extend.cu, shade.cu, shadow.cu and drain.cu are compiled with -fmad=false (CMakeLists.txt), so that the
drain and the stage kernels round a path alike; their multiply-adds are explicit fused operations instead (fmadd,
dot_fma, cross_fma, normalize_fma, length_fma in kernels/common.h). Code written with plain `a * b + c` there costs
a multiply and an add where the contracted megakernel pays one FMA. This compiles a kernel file to PTX as the build
does (no GPU needed) and lists, per kernel instance, every f32/f64 multiply whose result feeds an add or subtract,
attributed to the first wavepath source line up its inlining chain (glm's and CUDA's headers skipped), most
frequent first. The counts are static (instructions in the code, not executed).

    profiling/unfused_fma.py [--source kernels/shade.cu] [--entry shade] [--top 20] [--ptx FILE]

--entry keeps the kernel instances whose mangled name contains it; --ptx reads a PTX file (compiled with -lineinfo)
instead of compiling. Exit code 0; the numbers are for reading, not a pass/fail.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The build's flags for the CUDA library (CMakeLists.txt: Release, sm_90, fast math, the default register budgets)
# with contraction off and line information on.
NVCC_FLAGS = ["-O3", "-DNDEBUG", "-arch=sm_90", "--use_fast_math", "-fmad=false", "-lineinfo", "-std=c++17",
              "-diag-suppress=20012,2190", "-DWP_MEGAKERNEL_MIN_BLOCKS=7", "-DWP_SHADE_MIN_BLOCKS=7",
              "-DWP_TRAVERSAL_MIN_BLOCKS=0"]


def compile_ptx(source, out):
    cmd = ["nvcc", *NVCC_FLAGS, "-I" + ROOT, "-ptx", os.path.join(ROOT, source), "-o", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("nvcc failed:\n" + r.stderr[-4000:])


LOC = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:,\s*function_name\s+\S+,\s*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
INSTR = re.compile(r"([a-z][\w.]*)\s+([^;]*);")
ENTRY = re.compile(r"\.(?:visible|weak)\s+\.entry\s+(\S+)\(")


def analyse(ptx, entry_filter, top):
    files = dict(re.findall(r'\.file\s+(\d+)\s+"([^"]+)"', ptx))
    parent = {}  # a .loc's inlined_at, as last seen (the PTX states the chain one level per .loc)

    def ours(key):  # the first location up the chain in a file of this repository
        for _ in range(64):
            if key is None:
                return "?"
            name = os.path.abspath(os.path.join(ROOT, files.get(key[0], "")))
            if name.startswith(ROOT + os.sep):
                return f"{os.path.relpath(name, ROOT)}:{key[1]}"
            key = parent.get(key)
        return "?"

    for body in re.split(r"\n(?=\.(?:visible|weak)\s+\.entry)", ptx):
        m = ENTRY.match(body.strip())
        if not m or entry_filter not in m.group(1):
            continue
        loc, muls, pairs, ops = "?", {}, collections.Counter(), collections.Counter()
        for line in body.split("\n"):
            line = line.strip()
            lm = LOC.match(line)
            if lm:
                g = lm.groups()
                if g[3]:
                    parent[g[:3]] = g[3:]
                loc = ours(g[:3])
                continue
            im = INSTR.match(line)
            if not im:
                continue
            op, args = im.group(1), [a.strip() for a in im.group(2).split(",")]
            base = op.split(".")[0]
            if not (op.endswith("f32") or op.endswith("f64")):
                continue
            ops[base] += 1
            if base == "mul":
                muls[args[0]] = loc
            elif base in ("add", "sub"):
                for a in args[1:]:
                    if a in muls:
                        pairs[muls[a]] += 1
        print(f"{m.group(1)}: {sum(pairs.values())} unfused multiply-adds; "
              f"fma {ops['fma']}, mul {ops['mul']}, add {ops['add']}, sub {ops['sub']}")
        for where, n in pairs.most_common(top):
            print(f"  {n:5d}  {where}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default="kernels/shade.cu")
    ap.add_argument("--entry", default="")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--ptx")
    a = ap.parse_args()
    if a.ptx:
        ptx = open(a.ptx).read()
    else:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "k.ptx")
            compile_ptx(a.source, out)
            ptx = open(out).read()
    analyse(ptx, a.entry, a.top)


if __name__ == "__main__":
    main()
