#!/usr/bin/env python3
"""Every citation of docs/DECISIONS.md in the code (`docs/DECISIONS.md: row` or `docs/DECISIONS.md: row1, row2`, in
a comment that may wrap) names a row of its tables.
    tests/check_decisions.py [SOURCE_DIR]      (default: the repository holding this script)
Exit code 0 when every cited row exists, 1 otherwise (one line per unknown row: FILE:LINE: row)."""
import os
import re
import subprocess
import sys

CITE = re.compile(r"docs/DECISIONS\.md:\s+([a-z0-9-]+(?:,\s+[a-z0-9-]+)*)")
ROW = re.compile(r"^\|\s*`([a-z0-9-]+)`\s*\|", re.M)


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    rows = set(ROW.findall(open(os.path.join(root, "docs", "DECISIONS.md"), encoding="utf-8").read()))
    files = []
    for top in ("host", "kernels", "CMakeLists.txt"):
        p = os.path.join(root, top)
        if os.path.isfile(p):
            files.append(p)
        for d, _, names in os.walk(p):
            files += [os.path.join(d, n) for n in sorted(names) if n.endswith((".h", ".cpp", ".cu", ".cuh"))]
    bad = cited = 0
    for f in sorted(files):
        text = open(f, encoding="utf-8", errors="replace").read()
        joined = re.sub(r"\n[ \t]*(//|#)[ \t]*", " ", text)  # a comment's wrapped lines as one
        for m in CITE.finditer(joined):
            for row in re.split(r",\s+", m.group(1)):
                cited += 1
                if row not in rows:
                    at = text.find(row)  # its line, found again in the unjoined text
                    no = text.count("\n", 0, at) + 1 if at >= 0 else 0
                    print(f"{os.path.relpath(f, root)}:{no}: docs/DECISIONS.md has no row '{row}'")
                    bad += 1
    print(f"{cited} citations of docs/DECISIONS.md's {len(rows)} rows, {bad} unknown")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
