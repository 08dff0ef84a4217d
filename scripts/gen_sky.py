#!/usr/bin/env python3
"""Writes scenes/materials/sky.pfm: a 256x128 lat-long sky (row 0 = up) with a zenith-to-horizon gradient,
a dim ground below the horizon and a small sun of radiance 400 at 35 degrees elevation. Standard library only;
the same file on every run. PFM: little-endian floats, rows from the bottom up."""
import math
import os
import struct

W, H = 256, 128
SUN_ELEV, SUN_AZ, SUN_RADIUS = math.radians(35), math.radians(60), math.radians(2.5)
sun = (math.cos(SUN_ELEV) * math.sin(SUN_AZ), math.sin(SUN_ELEV), -math.cos(SUN_ELEV) * math.cos(SUN_AZ))


def radiance(u, v):
    phi, theta = 2 * math.pi * (u - 0.5), math.pi * v
    d = (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))
    if sum(a * b for a, b in zip(d, sun)) > math.cos(SUN_RADIUS):
        return (400.0, 380.0, 340.0)
    if d[1] < 0:
        return (0.25, 0.23, 0.2)
    t = d[1] ** 0.5
    horizon, zenith = (1.0, 0.95, 0.9), (0.25, 0.45, 1.0)
    return tuple(h + (z - h) * t for h, z in zip(horizon, zenith))


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes", "materials", "sky.pfm")
    rows = []
    for j in range(H):
        row = b"".join(struct.pack("<3f", *radiance((i + 0.5) / W, (j + 0.5) / H)) for i in range(W))
        rows.append(row)
    with open(out, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (W, H))
        for row in reversed(rows):  # bottom row first
            f.write(row)
    print(out)


if __name__ == "__main__":
    main()
