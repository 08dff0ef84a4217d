// Ray reordering before traversal (Meister, Boksansky, Guthe and Bittner, "On Ray Reordering Techniques for Faster
// GPU Ray Tracing", I3D 2020): a wavefront holds every ray of a bounce before extend runs, so it can trace them in an
// order where the lanes of a warp start in the same part of the scene, heading the same way, and fetch the same
// nodes. The key of a ray: its direction's octant over the Morton code of a point on a 128^3 grid of the scene's
// box (ray_sort_key: its origin's). Sorting changes the order of tracing only: each path's hit is stored by path, and random numbers are keyed by pixel, sample and bounce.
#pragma once
#include "kernels/scene_view.h"

namespace wp {

constexpr int kRayKeyCellBits = 7;                    // 128 cells per axis
constexpr int kRayKeyBits = 3 * kRayKeyCellBits + 3;  // Morton code, then the octant above it
// An empty slot of the shadow queue: the largest key, not a bit of its own, so that the radix sort looks at 24 bits
// (three 8-bit passes, not four: docs/DECISIONS.md: ray-key). A
// ray may have this key too (octant 7, the last cell); the sort is stable and the empty slots follow every ray in
// the queue, so they still sort last.
constexpr uint32_t kRayKeyNone = (1u << kRayKeyBits) - 1u;
constexpr int kRayKeySortBits = kRayKeyBits;  // the bits the radix sort looks at

// The 7 low bits of v spread to every third bit (bit k to bit 3k).
WP_HD uint32_t spread_bits3(uint32_t v) {
    v &= 0x7fu;
    v = (v | (v << 8)) & 0x0000f00fu;
    v = (v | (v << 4)) & 0x000c30c3u;
    v = (v | (v << 2)) & 0x00249249u;
    return v;
}

// The grid cell of p in the scene's box (clamped to it), as a Morton code.
WP_HD uint32_t ray_key_morton(const SceneView& s, vec3 p) {
    const vec3 ext = s.bounds_hi - s.bounds_lo;
    const float cells = float(1 << kRayKeyCellBits);
    uint32_t c[3];
    for (int k = 0; k < 3; ++k) {
        const float f = ext[k] > 0.0f ? (p[k] - s.bounds_lo[k]) / ext[k] : 0.0f;
        const float x = fminf(fmaxf(f * cells, 0.0f), cells - 1.0f);  // NaN (none expected) goes to cell 0
        c[k] = uint32_t(x);
    }
    return spread_bits3(c[0]) | (spread_bits3(c[1]) << 1) | (spread_bits3(c[2]) << 2);
}

// The key of a ray from o in direction d. The origin, not an estimate of the end point (the origin plus the direction
// times a quarter of the scene's diagonal for extension rays, the light sample's point for shadow rays), and 128
// cells per axis, not coarser grids of fewer radix passes: both traced faster (docs/DECISIONS.md: ray-key).
WP_HD uint32_t ray_sort_key(const SceneView& s, vec3 o, vec3 d) {
    const uint32_t octant = (d.x < 0.0f ? 1u : 0u) | (d.y < 0.0f ? 2u : 0u) | (d.z < 0.0f ? 4u : 0u);
    return (octant << (3 * kRayKeyCellBits)) | ray_key_morton(s, o);
}

}  // namespace wp
