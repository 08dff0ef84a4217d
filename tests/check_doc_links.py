#!/usr/bin/env python3
"""Every relative link of README.md and docs/*.md resolves: the file or folder exists and, for a Markdown target,
its #anchor is one of that file's headings (GitHub's anchors). Links in code blocks and code spans are not links.
    tests/check_doc_links.py [SOURCE_DIR]      (default: the repository holding this script)
Exit code 0 when every link resolves, 1 otherwise (one line per broken link: FILE:LINE: target: why)."""
import os
import re
import sys


LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def outside_fences(text):
    """Each line with whether it is outside fenced code blocks (a fence's own lines count as inside)."""
    fence = None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            yield line, False
        elif m:
            fence = m.group(1)
            yield line, False
        else:
            yield line, True


def strip_code(text):
    """The text with fenced code blocks blanked and code spans removed, lines kept in place."""
    return [re.sub(r"(`+)(?:(?!\1).)*?\1", "", line) if outside else "" for line, outside in outside_fences(text)]


def anchors(path):
    """GitHub's heading anchors of a Markdown file: lower case, punctuation dropped, spaces as '-', -1, -2 for
    repeats."""
    seen, result = {}, set()
    for line in strip_code_headings(open(path, encoding="utf-8").read()):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(2).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else f"{slug}-{n}")
    return result


def strip_code_headings(text):
    """Lines outside fenced code blocks (headings keep their code spans: GitHub keeps the span's text)."""
    return [line for line, outside in outside_fences(text) if outside]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    docs = os.path.join(root, "docs")
    files = [os.path.join(root, "README.md")] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    bad = checked = 0
    cache = {}
    for f in files:
        rel_f = os.path.relpath(f, root)
        for no, line in enumerate(strip_code(open(f, encoding="utf-8").read()), 1):
            for target in LINK.findall(line):
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                    continue  # a URL
                checked += 1
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
                rel = os.path.relpath(dest, root)
                why = None
                if rel.startswith(".."):
                    why = "outside the repository"
                elif not os.path.exists(dest):
                    why = "no such file or folder"
                elif anchor and dest.endswith(".md"):
                    if dest not in cache:
                        cache[dest] = anchors(dest)
                    if anchor not in cache[dest]:
                        why = f"no heading with the anchor #{anchor} in {rel}"
                if why:
                    bad += 1
                    print(f"{rel_f}:{no}: {target}: {why}")
    print(f"{checked} relative links in {len(files)} files, {bad} broken")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
