#!/usr/bin/env python3
"""The source folders are layers: a file includes only files of its own layer or of lower ones.

    tests/check_layers.py SOURCE_DIR        check the tree; exit 1 listing every include that runs upward
    tests/check_layers.py --self-test       check that an upward include, and an unknown file, are found

Layers, low to high (docs/ARCHITECTURE.md, "Layers and dependency direction"):
    kernels       device code, header-only: math, geometry, traversal, BSDFs, lights, the queues, the stage
                  bodies and the CUDA kernels over them (compiled by nvcc and the host compiler alike)
    host/accel    tree builders
    host/image    images: the Image record, files, statistics, the denoiser
    host/scene    importers and assembly (SceneBuilder, SceneData), the render limits every format checks
    host/render   the render drivers of both backends, partial films
    host/app      the command line: wavepath render, merge, bench; the environment and host queries
Every `#include "..."` line of a file under these folders is resolved (beside the file first, then from the
source root) and must name a file that exists; a file outside every layer (a test, an experiment) is not checked.
Device code (kernels/) also includes no heavy host library (JSON, images, command line, glTF, OBJ).
"""
import os
import re
import sys
import tempfile

LAYERS = ["kernels", "host/accel", "host/image", "host/scene", "host/render", "host/app"]
SOURCES = (".h", ".hpp", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
HOST_LIBRARIES = ("nlohmann/", "CLI/", "tinyexr", "stb/", "stb_", "tiny_gltf", "tiny_obj_loader", "fstream", "iostream")


def layer_of(rel):
    """The index of the layer holding rel (a path relative to the source root), or None."""
    best = None
    for i, name in enumerate(LAYERS):
        if rel == name or rel.startswith(name + "/"):
            if best is None or len(name) > len(LAYERS[best]):
                best = i
    return best


def check(root):
    """Every problem of the tree at root, as 'FILE:LINE: message' lines."""
    problems = []
    for top in sorted({name.split("/")[0] for name in LAYERS}):
        for folder, _, files in sorted(os.walk(os.path.join(root, top))):
            for f in sorted(files):
                if not f.endswith(SOURCES):
                    continue
                path = os.path.join(folder, f)
                rel = os.path.relpath(path, root)
                mine = layer_of(rel)
                if mine is None:
                    continue
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        kind, name = m.groups()
                        if kind == "<":
                            if LAYERS[mine] == "kernels" and name.startswith(HOST_LIBRARIES):
                                problems.append("%s:%d: device code includes the host library <%s>" % (rel, n, name))
                            continue
                        beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                        if os.path.isfile(os.path.join(root, beside)):
                            target = beside
                        elif os.path.isfile(os.path.join(root, name)):
                            target = os.path.normpath(name)
                        else:
                            problems.append('%s:%d: includes "%s", which is no file of the source tree'
                                            % (rel, n, name))
                            continue
                        theirs = layer_of(target)
                        if theirs is None:
                            problems.append('%s:%d: includes "%s", outside every layer (%s)'
                                            % (rel, n, name, ", ".join(LAYERS)))
                        elif theirs > mine:
                            problems.append('%s:%d: includes "%s" of layer %s from layer %s: includes run from a '
                                            'layer to itself or a lower one (%s)'
                                            % (rel, n, name, LAYERS[theirs], LAYERS[mine], " < ".join(LAYERS)))
    return problems


def self_test():
    """The checker finds an upward include, a missing file and a host library in device code; a clean tree passes."""
    with tempfile.TemporaryDirectory() as root:
        def write(rel, text):
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as fh:
                fh.write(text)
        write("kernels/common.h", "#pragma once\n#include <cstdint>\n")
        write("kernels/geometry.h", '#include "common.h"\n')
        write("host/render/render.h", '#include "kernels/geometry.h"\n#include "host/image/image.h"\n')
        write("host/image/image.h", "#include <vector>\n")
        clean = check(root)
        if clean:
            print("self-test: a clean tree reported:\n  " + "\n  ".join(clean))
            return 1
        write("host/image/image_io.h", '#include "host/render/render.h"\n#include "host/image/nothing.h"\n')
        write("kernels/bad.h", "#include <nlohmann/json.hpp>\n")
        found = check(root)
        want = ['host/image/image_io.h:1: includes "host/render/render.h" of layer host/render from layer host/image',
                'host/image/image_io.h:2: includes "host/image/nothing.h", which is no file',
                "kernels/bad.h:1: device code includes the host library <nlohmann/json.hpp>"]
        missing = [w for w in want if not any(p.startswith(w) for p in found)]
        if missing or len(found) != len(want):
            print("self-test: expected\n  " + "\n  ".join(want) + "\nfound\n  " + "\n  ".join(found))
            return 1
    print("self-test: upward include, missing file and host library in device code found; a clean tree passes")
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = os.path.realpath(sys.argv[1])
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print("%d include(s) against the layers (%s): see docs/ARCHITECTURE.md" % (len(problems), " < ".join(LAYERS)))
        return 1
    print("includes follow the layers: " + " < ".join(LAYERS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
