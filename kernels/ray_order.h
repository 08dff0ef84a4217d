// Ray reordering before traversal (Meister, Boksansky, Guthe and Bittner, "On Ray Reordering Techniques for Faster
// GPU Ray Tracing", I3D 2020): a wavefront holds every ray of a bounce before extend runs, so it can trace them in an
// order where the lanes of a warp start in the same part of the scene, heading the same way, and fetch the same
// nodes. The key of a ray: its direction's octant over the Morton code of a point on a 128^3 grid of the scene's
// box; the point is the ray's origin or an estimate of where it ends (RayKeyPoint). Sorting changes the order of
// tracing only: each path's hit is stored by path, and random numbers are keyed by pixel, sample and bounce.
#pragma once
#include "kernels/scene_view.h"

namespace wp {

constexpr int kRayKeyCellBits = 7;                          // at most 128 cells per axis
constexpr int kRayKeyBits = 3 * kRayKeyCellBits + 3;        // Morton code, then the octant above it
constexpr int kRayKeySortBits = kRayKeyBits + 1;            // the most bits the radix sort looks at

// The 7 low bits of v spread to every third bit (bit k to bit 3k).
WP_HD uint32_t spread_bits3(uint32_t v) {
    v &= 0x7fu;
    v = (v | (v << 8)) & 0x0000f00fu;
    v = (v | (v << 4)) & 0x000c30c3u;
    v = (v | (v << 2)) & 0x00249249u;
    return v;
}

// The grid cell of p in the scene's box (clamped to it: an end point estimate may lie outside), as a Morton code.
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

// Which point of the ray the key places on the grid: its origin, or where it is expected to end (a shadow ray's end
// is known: origin + tmax * dir; an extension ray's is estimated a fixed fraction of the scene's diagonal away).
enum RayKeyPoint : uint32_t { kRayKeyOrigin = 0, kRayKeyEnd = 1 };
constexpr float kRayKeyExtensionLength = 0.25f;  // of the diagonal, the end point estimate of an extension ray

// cell_bits: the grid's cells per axis as a power of two, at most kRayKeyCellBits (a coarser grid is the Morton code's
// prefix: fewer key bits, fewer radix sort passes).
WP_HD uint32_t ray_sort_key(const SceneView& s, vec3 o, vec3 d, float length, RayKeyPoint point,
                            uint32_t cell_bits = kRayKeyCellBits) {
    const uint32_t octant = (d.x < 0.0f ? 1u : 0u) | (d.y < 0.0f ? 2u : 0u) | (d.z < 0.0f ? 4u : 0u);
    const vec3 p = point == kRayKeyEnd ? o + d * length : o;
    return (octant << (3 * cell_bits)) | (ray_key_morton(s, p) >> (3 * (kRayKeyCellBits - cell_bits)));
}
// An empty slot's key (sorts after every ray's) and the bits the radix sort looks at, for a grid of cell_bits.
WP_HD uint32_t ray_key_none(uint32_t cell_bits) { return 1u << (3 * cell_bits + 3); }
inline int ray_key_sort_bits(uint32_t cell_bits) { return int(3 * cell_bits + 4); }

WP_HD float ray_key_extension_length(const SceneView& s) {
    return kRayKeyExtensionLength * glm::length(s.bounds_hi - s.bounds_lo);
}

}  // namespace wp
