#!/usr/bin/env python3
"""Writes scenes/rtiow.json: the final scene of Peter Shirley's "Ray Tracing in One Weekend" (book 1, section
"Where Next? / A Final Render"), for wavepath's scene format v1.

Deterministic: the scene comes from its own random.Random(1) (not the book's exact spheres, which depend on the C++
RNG; the layout, the material mix and the distributions are the book's). Standard library only.

    python3 scripts/gen_rtiow.py [-o scenes/rtiow.json]

Mapping of the book's materials:
  - lambertian(albedo)      -> {"type": "lambert", "albedo": albedo}
  - dielectric(1.5)         -> {"type": "dielectric", "ior": 1.5} (smooth)
  - metal(albedo, fuzz)     -> {"type": "conductor", "color": albedo, "roughness": sqrt(0.3 * fuzz)}
    The book perturbs the mirror direction by fuzz * (a point uniform in the unit ball); wavepath's conductor is
    GGX with alpha = roughness^2 (host/scene/scene_json.cpp squares "roughness"). Matching the median angular deviation
    of the reflected ray at normal incidence (GGX: 2*atan(alpha); fuzz: ~0.61*fuzz, checked by Monte Carlo: the
    ratio alpha/fuzz is 0.303 for fuzz 0.1..0.5) gives alpha = 0.3 * fuzz, so roughness = sqrt(0.3 * fuzz):
    fuzz 0 -> 0 (a mirror), fuzz 0.5 -> 0.387. GGX has longer tails than the book's fuzz lobe, so highlights
    spread a little wider; the book's absorption of rays fuzzed below the surface has no counterpart.
  - sky: the book's white-to-blue gradient is replaced by a constant background [0.6, 0.75, 1.0] (wavepath has no
    gradient environment). There are no emitters; light sampling stays at its default (on), which does nothing
    without lights: the background is found by BSDF sampling alone.
  - camera: lookfrom (13,2,3), lookat (0,0,0), vup (0,1,0), vfov 20, aperture 0.1 -> aperture_radius 0.05 (the
    lens radius), focus distance 10 (the book's focus plane, as wavepath's camera).
"""
import argparse
import json
import math
import os
import random

FUZZ_TO_ALPHA = 0.3


def fuzz_to_roughness(fuzz):
    return math.sqrt(FUZZ_TO_ALPHA * fuzz)


def r6(x):
    """Rounded for a stable, short file."""
    v = round(float(x), 6)
    return 0.0 if v == 0 else v


def v3(a):
    return [r6(x) for x in a]


def build(seed=1):
    rng = random.Random(seed)
    rnd = rng.random
    materials = {}
    objects = []

    def mat(m):
        name = "m%d" % len(materials)
        materials[name] = m
        return name

    def sphere(center, radius, m):
        objects.append({"type": "sphere", "material": mat(m), "center": v3(center), "radius": r6(radius)})

    sphere((0, -1000, 0), 1000, {"type": "lambert", "albedo": [0.5, 0.5, 0.5]})
    for a in range(-11, 11):
        for b in range(-11, 11):
            choose = rnd()
            center = (a + 0.9 * rnd(), 0.2, b + 0.9 * rnd())
            if math.dist(center, (4, 0.2, 0)) <= 0.9:
                continue
            if choose < 0.8:  # diffuse: albedo = random * random, per channel
                albedo = [rnd() * rnd() for _ in range(3)]
                sphere(center, 0.2, {"type": "lambert", "albedo": v3(albedo)})
            elif choose < 0.95:  # metal: albedo in [0.5, 1), fuzz in [0, 0.5)
                albedo = [0.5 + 0.5 * rnd() for _ in range(3)]
                fuzz = 0.5 * rnd()
                sphere(center, 0.2, {"type": "conductor", "color": v3(albedo), "roughness": r6(fuzz_to_roughness(fuzz))})
            else:  # glass
                sphere(center, 0.2, {"type": "dielectric", "ior": 1.5})
    sphere((0, 1, 0), 1.0, {"type": "dielectric", "ior": 1.5})
    sphere((-4, 1, 0), 1.0, {"type": "lambert", "albedo": [0.4, 0.2, 0.1]})
    sphere((4, 1, 0), 1.0, {"type": "conductor", "color": [0.7, 0.6, 0.5], "roughness": 0.0})

    scene = {
        "render": {"width": 1280, "height": 720, "spp": 30, "max_depth": 50, "seed": 0, "light_sampling": False},
        "camera": {"position": [13, 2, 3], "target": [0, 0, 0], "up": [0, 1, 0], "fov": 20,
                   "aperture_radius": 0.05, "focus_distance": 10},
        "background": [0.6, 0.75, 1.0],
        "materials": materials,
        "objects": objects,
    }
    return scene


def dump(scene):
    """JSON with one material and one object a line (diff-friendly, short)."""
    d = lambda x: json.dumps(x, separators=(", ", ": "))
    out = ["{"]
    out.append(' "render": %s,' % d(scene["render"]))
    out.append(' "camera": %s,' % d(scene["camera"]))
    out.append(' "background": %s,' % d(scene["background"]))
    out.append(' "materials": {')
    items = list(scene["materials"].items())
    for i, (k, v) in enumerate(items):
        out.append("  %s: %s%s" % (json.dumps(k), d(v), "," if i + 1 < len(items) else ""))
    out.append(" },")
    out.append(' "objects": [')
    objs = scene["objects"]
    for i, o in enumerate(objs):
        out.append("  %s%s" % (d(o), "," if i + 1 < len(objs) else ""))
    out.append(" ]")
    out.append("}")
    return "\n".join(out) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", default=os.path.join(here, "..", "scenes", "rtiow.json"))
    ap.add_argument("--seed", type=int, default=1, help="seed of the scene's RNG (default 1)")
    args = ap.parse_args()
    scene = build(args.seed)
    text = dump(scene)
    json.loads(text)  # sanity: valid JSON
    with open(args.output, "w", newline="\n") as f:
        f.write(text)
    kinds = {}
    for o in scene["objects"]:
        t = scene["materials"][o["material"]]["type"]
        kinds[t] = kinds.get(t, 0) + 1
    print("%s: %d spheres (%s)" % (os.path.normpath(args.output), len(scene["objects"]),
                                   ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))


if __name__ == "__main__":
    main()
