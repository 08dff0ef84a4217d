#!/usr/bin/env python3
"""Busy time against idle gaps in an Nsight Systems cuda_gpu_trace CSV (one render): the span from the first to
the last GPU operation, the sum of operation durations, and the gaps between consecutive operations by size and
by the operation that follows them.   python3 profiling/gpu_gaps.py trace_cuda_gpu_trace.csv"""
import csv
import sys
from collections import defaultdict

rows = []
with open(sys.argv[1]) as f:
    for r in csv.DictReader(f):
        start = float(r.get("Start (ns)") or r.get("Start"))
        dur = float(r.get("Duration (ns)") or r.get("Duration"))
        name = r.get("Name", "?")
        rows.append((start, dur, name))
rows.sort()
if not rows:
    sys.exit("no GPU operations in the trace")
span = rows[-1][0] + rows[-1][1] - rows[0][0]
busy = sum(d for _, d, _ in rows)
gaps = defaultdict(float)
count = defaultdict(int)
hist = [0, 0, 0, 0]  # <2us, 2-5us, 5-20us, >20us
for (s0, d0, _), (s1, _, n1) in zip(rows, rows[1:]):
    g = s1 - (s0 + d0)
    if g <= 0:
        continue
    key = n1.split("(")[0].split("<")[0].strip()[:40]
    gaps[key] += g
    count[key] += 1
    hist[0 if g < 2e3 else 1 if g < 5e3 else 2 if g < 2e4 else 3] += 1
print(f"{sys.argv[1]}: {len(rows)} GPU operations, span {span/1e6:.2f} ms, busy {busy/1e6:.2f} ms, "
      f"idle {(span-busy)/1e6:.2f} ms; gaps <2us {hist[0]}, 2-5us {hist[1]}, 5-20us {hist[2]}, >20us {hist[3]}")
for k in sorted(gaps, key=lambda k: -gaps[k])[:8]:
    print(f"  before {k:40s} {count[k]:5d} gaps, {gaps[k]/1e6:.3f} ms, mean {gaps[k]/count[k]/1e3:.1f} us")
