#!/usr/bin/env python3
"""Every path profiling/LOG.md cites under profiling/ resolves: in the working tree, or on the `results` branch (the
raw device outputs: docs/PROFILING.md#where-the-results-live), or, cited as `<commit>:<path>`, in that commit.

A citation is a code span or a link target of the LOG that is a path: it starts with `profiling/` (or is
`<commit>:profiling/...`), holds no space (a span with spaces is a command) and no `<` (a placeholder). `{a,b}` is
expanded; `*` matches as in the shell; a path ending in `/` is a folder.

    tests/check_log_paths.py [SOURCE_DIR]      (default: the repository holding this script)

Exit code 0 when every cited path resolves, 1 when one does not (one line each: LOG.md:LINE: path: why). Where the
`results` branch is absent (a clone of one branch, a source archive: no `results`, `origin/results` or other
remote's `results`), the paths only it could hold are not checked: the test says so and exits 77, which CTest
reports as skipped, never as passed; `git fetch origin results:results` brings the branch."""
import fnmatch
import os
import re
import subprocess
import sys

SKIP = 77
SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?\s*\)")
PATH = re.compile(r"^(?:([0-9a-f]{7,40}):)?(profiling/\S*)$")


def git(root, *args):
    r = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def expand(path):
    """`a{b,c}d` -> [abd, acd] (one level per brace, every brace)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",") for p in expand(path[:m.start()] + alt + path[m.end():])]


def citations(text):
    """(line, commit or None, path) of every cited path, in order."""
    found = []
    for m in SPAN.finditer(text):
        found.append((m.start(), " ".join(m.group(2).split())))
    for m in LINK.finditer(text):
        found.append((m.start(), m.group(1)))
    for off, s in sorted(found):
        p = PATH.match(s.strip())
        if p and "<" not in s:
            line = text.count("\n", 0, off) + 1
            for path in expand(p.group(2).rstrip(".,;:")):
                yield line, p.group(1), path


def in_listing(path, files):
    """Whether a list of file paths holds `path` (a file, a folder when it ends in '/' or has files below it, a
    pattern when it holds '*')."""
    if "*" in path:
        return any(fnmatch.fnmatch(f, path) or fnmatch.fnmatch(f, path.rstrip("/") + "/*") for f in files)
    folder = path.rstrip("/") + "/"
    return (not path.endswith("/") and path in files) or any(f.startswith(folder) for f in files)


def in_tree(root, path):
    full = os.path.join(root, path)
    if "*" in path:
        import glob
        return bool(glob.glob(full))
    return os.path.isdir(full) if path.endswith("/") else os.path.exists(full)


def results_ref(root):
    """The `results` branch, local or a remote's (a fresh `git clone` has it as origin/results), or None."""
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/heads/results", "refs/remotes/*/results")
    if not refs:
        return None
    refs = refs.split()
    local = [r for r in refs if r == "refs/heads/results"]
    return (local or sorted(refs))[0]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    log = os.path.join(root, "profiling", "LOG.md")
    text = open(log, encoding="utf-8").read()
    ref = results_ref(root)
    listing = None
    if ref:
        out = git(root, "ls-tree", "-r", "--name-only", ref)
        listing = set(out.split("\n")) - {""} if out is not None else None
    bad, unchecked, checked = [], [], 0
    commits = {}
    for line, commit, path in citations(text):
        where = f"profiling/LOG.md:{line}: {commit + ':' if commit else ''}{path}"
        if commit:
            if commit not in commits:
                out = git(root, "ls-tree", "-r", "--name-only", commit)
                commits[commit] = set(out.split("\n")) - {""} if out is not None else None
            if commits[commit] is None:
                unchecked.append(f"{where}: commit {commit} is not in this clone (a shallow clone?)")
            elif not in_listing(path, commits[commit]):
                bad.append(f"{where}: not in commit {commit}")
            else:
                checked += 1
            continue
        if in_tree(root, path):
            checked += 1
        elif listing is None:
            unchecked.append(f"{where}: not in the working tree, and no `results` branch here to look on")
        elif in_listing(path, listing):
            checked += 1
        else:
            bad.append(f"{where}: neither in the working tree nor on {ref}")
    for b in bad:
        print(f"error: {b}")
    if bad:
        print(f"{len(bad)} of the LOG's cited paths resolve nowhere: put the file on the `results` branch under that "
              "path, or cite it as <commit>:<path>")
        return 1
    if unchecked:
        for u in unchecked:
            print(f"unchecked: {u}")
        print(f"SKIPPED: {len(unchecked)} of the LOG's cited paths could not be checked: this clone has no `results` "
              "branch (git fetch origin results:results) or lacks the commits they name; "
              f"{checked} others resolve")
        return SKIP
    print(f"{checked} cited paths of profiling/LOG.md resolve" + (f" (the results branch: {ref})" if ref else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
