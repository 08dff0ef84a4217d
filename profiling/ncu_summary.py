#!/usr/bin/env python3
"""Summarise an `ncu --metrics ...` text log: per kernel name, mean of each metric over its launches."""
import re
import sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(list))
kernel = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"^  ([A-Za-z_][A-Za-z0-9_]*)\(", line)
    if m:
        kernel = m.group(1)
        continue
    m = re.match(r"^\s+([a-z_]+__[A-Za-z0-9_.]+)\s+(\S+(?:/\S+)?)?\s+([0-9.,]+)\s*$", line)
    if m and kernel:
        rows[kernel][m.group(1)].append(float(m.group(3).replace(",", "")))
short = {"launch__registers_per_thread": "regs", "sm__warps_active.avg.pct_of_peak_sustained_active": "occupancy %",
         "smsp__thread_inst_executed_per_inst_executed.ratio": "active threads/warp", "gpu__time_duration.sum": "us/launch"}
cols = list(short)
print("%-12s %8s" % ("kernel", "launches") + "".join("%22s" % short[c] for c in cols))
for k, metr in rows.items():
    n = max(len(v) for v in metr.values())
    print("%-12s %8d" % (k, n) + "".join("%22.2f" % (sum(metr[c]) / len(metr[c])) if metr[c] else "%22s" % "-" for c in cols))
