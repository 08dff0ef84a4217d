// 8-wide compressed BVH (Ylitie, Karras, Laine 2017, "Efficient incoherent ray traversal on GPUs through
// compressed wide BVHs"): node layout and the closest-hit / any-hit traversal. Header-only, host and device.
// The builder is host/accel/bvh8_build.cpp (collapse of the binary SAH tree, octant slot order, quantisation).
#pragma once
#include "bvh.h"

namespace wp {

// One wide node: 8 child boxes quantised to 8 bits per plane on a per-node grid, read with five 16-byte loads.
//  n0: x, y, z = p, the grid origin (lower corner of the node box); w = bytes (ex, ey, ez, imask): the biased
//      float exponents of the per-axis grid step (step = 2^(e - 127), so bits_float(e << 23) is the step) and
//      one bit per slot whose child is an inner node
//  n1: x = index of the first child node (inner children are consecutive, in slot order), y = index of the
//      first primitive of the node's leaf children, z = meta of slots 0-3, w = meta of slots 4-7 (one byte each)
//  n2: x, y = q_lo_x of slots 0-7, z, w = q_lo_y        n3: x, y = q_lo_z, z, w = q_hi_x
//  n4: x, y = q_hi_y, z, w = q_hi_z
// Child box of slot s on axis a: [p + q_lo * step, p + q_hi * step] (conservative: contains the exact box).
// meta byte: 0 = empty slot; inner child: 0b001 << 5 | (24 + s); leaf child of k <= 3 primitives:
// ((1 << k) - 1) << 5 | offset, the primitives being [n1.y + offset, n1.y + offset + k), offset + k <= 24.
struct alignas(16) BVH8Node {
    F4 n0;
    U4 n1, n2, n3, n4;
};
static_assert(sizeof(BVH8Node) == 80, "BVH8Node is five 16-byte records");

// One stack entry per wide level below the root suffices (each descent pushes at most the rest of one group);
// build_bvh8 refuses trees deeper than this.
constexpr int kBVH8StackSize = 32;

// Group of children or primitives: x = base index; y = mask. Node group: bits 24-31 = hit children (bit 24 + slot
// ^ octant_inv), bits 0-7 = the node's imask. Primitive group: bits 0-23 = hit primitives relative to x.
struct BVH8Group {
    uint32_t x, y;
};

WP_HD uint32_t wp_popc(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    return uint32_t(__builtin_popcount(v));
#endif
}
// Index of the highest set bit; v != 0.
WP_HD uint32_t wp_msb(uint32_t v) {
#if defined(__CUDA_ARCH__)
    return 31u - uint32_t(__clz(v));
#else
    return 31u - uint32_t(__builtin_clz(v));
#endif
}

// Box test of four children (slots 4h..4h+3) from their packed bytes; ORs their hit bits into hitmask.
// meta4: their meta bytes; lo/hi: the packed q bytes per axis already swapped so that lo is the entry plane.
WP_HD uint32_t bvh8_hit4(uint32_t meta4, uint32_t octinv4, uint32_t lox, uint32_t hix, uint32_t loy, uint32_t hiy,
                         uint32_t loz, uint32_t hiz, vec3 idir, vec3 orig, float tmin, float tmax) {
    // Inner children have 0b11 in bits 3-4 (index 24 + slot); their bit index is flipped by the octant so that
    // the highest set bit is the child nearest the ray origin. Leaf bit indices (offsets < 24) stay.
    uint32_t is_inner4 = (meta4 & (meta4 << 1)) & 0x10101010u;
    uint32_t inner_mask4 = (is_inner4 >> 4) * 0xffu;  // 0xff in each byte of an inner child
    uint32_t bit_index4 = (meta4 ^ (octinv4 & inner_mask4)) & 0x1f1f1f1fu;
    uint32_t child_bits4 = (meta4 >> 5) & 0x07070707u;
    uint32_t hitmask = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k = 0; k < 4; ++k) {
        const uint32_t sh = 8u * uint32_t(k);
        float tx0 = fmaf(float((lox >> sh) & 0xffu), idir.x, orig.x);
        float tx1 = fmaf(float((hix >> sh) & 0xffu), idir.x, orig.x);
        float ty0 = fmaf(float((loy >> sh) & 0xffu), idir.y, orig.y);
        float ty1 = fmaf(float((hiy >> sh) & 0xffu), idir.y, orig.y);
        float tz0 = fmaf(float((loz >> sh) & 0xffu), idir.z, orig.z);
        float tz1 = fmaf(float((hiz >> sh) & 0xffu), idir.z, orig.z);
        float lo = fmaxf(fmaxf(tx0, ty0), fmaxf(tz0, tmin));
        float hi = fminf(fminf(fminf(tx1, ty1), tz1) * kSlabWiden, tmax);  // conservative (kSlabWiden, bvh.h)
        if (lo <= hi) hitmask |= ((child_bits4 >> sh) & 0xffu) << ((bit_index4 >> sh) & 31u);
    }
    return hitmask;
}

// Closest hit in (tmin, tmax) over a wide BVH (prims in the order build_bvh8 returned). kAnyHit: stop at the
// first hit (occlusion).
template <bool kAnyHit, uint32_t F = kFeaturesAll>
WP_HD Hit traverse8(const BVH8Node* nodes, const PrimArrays& prims, const Ray& r, float tmin, float tmax) {
    Hit hit{tmax, kInvalid, 0.0f, 0.0f};
    if (!nodes) return hit;
    const RayBoxPre q = ray_box_pre(r);
    // Octant from the signs of the inverse direction (the same signs that pick entry/exit planes below, also
    // for -0 components). 7 - octant in every byte: XORed into inner children's bit indices.
    const bool nx = q.inv.x < 0.0f, ny = q.inv.y < 0.0f, nz = q.inv.z < 0.0f;
    const uint32_t octinv4 = (7u - ((nx ? 4u : 0u) | (ny ? 2u : 0u) | (nz ? 1u : 0u))) * 0x01010101u;
    BVH8Group stack[kBVH8StackSize];
    int sp = 0;
    BVH8Group group{0u, 0x80000000u};  // the root: child 0 of a virtual node, in the highest bit
    while (true) {
        BVH8Group tris{0u, 0u};
        if (group.y & 0xff000000u) {
            // Next child: the highest hit bit; the rest of the group waits on the stack.
            const uint32_t hits_imask = group.y;
            const uint32_t bit = wp_msb(hits_imask);
            group.y &= ~(1u << bit);
            if (group.y & 0xff000000u) {
                if (sp < kBVH8StackSize) stack[sp++] = group;  // always true for trees build_bvh8 accepts
            }
            const uint32_t slot = (bit - 24u) ^ (octinv4 & 0xffu);
            const uint32_t rel = wp_popc(hits_imask & ~(0xffffffffu << slot));  // inner children before slot
            const BVH8Node* n = nodes + group.x + rel;
            const F4 n0 = load4(&n->n0);
            const U4 n1 = load4(&n->n1);
            const U4 n2 = load4(&n->n2);
            const U4 n3 = load4(&n->n3);
            const U4 n4 = load4(&n->n4);
            const uint32_t e = float_bits(n0.w);
            const float tc = cull_t(hit.t);
            // t of grid plane k on axis a: k * step * inv + (p - o) * inv.
            const vec3 idir(bits_float((e & 0xffu) << 23) * q.inv.x, bits_float(((e >> 8) & 0xffu) << 23) * q.inv.y,
                            bits_float(((e >> 16) & 0xffu) << 23) * q.inv.z);
            const vec3 orig(fmaf(n0.x, q.inv.x, q.oinv.x), fmaf(n0.y, q.inv.y, q.oinv.y),
                            fmaf(n0.z, q.inv.z, q.oinv.z));
            uint32_t hitmask = bvh8_hit4(n1.z, octinv4, nx ? n3.z : n2.x, nx ? n2.x : n3.z, ny ? n4.x : n2.z,
                                         ny ? n2.z : n4.x, nz ? n4.z : n3.x, nz ? n3.x : n4.z, idir, orig, tmin, tc);
            hitmask |= bvh8_hit4(n1.w, octinv4, nx ? n3.w : n2.y, nx ? n2.y : n3.w, ny ? n4.y : n2.w, ny ? n2.w : n4.y,
                                 nz ? n4.w : n3.y, nz ? n3.y : n4.w, idir, orig, tmin, tc);
            group.x = n1.x;
            group.y = (hitmask & 0xff000000u) | (e >> 24);
            tris.x = n1.y;
            tris.y = hitmask & 0x00ffffffu;
        }
        // Primitives of the leaves just hit, before descending further.
        while (tris.y != 0) {
            const uint32_t i = wp_msb(tris.y);
            tris.y &= ~(1u << i);
            if (intersect_prim<F>(prims, tris.x + i, r, tmin, hit) && kAnyHit) return hit;
        }
        if ((group.y & 0xff000000u) == 0) {
            if (sp == 0) break;
            group = stack[--sp];
        }
    }
    return hit;
}

WP_HD Hit intersect_closest8(const BVH8Node* nodes, const PrimArrays& prims, const Ray& r, float tmin = 0.0f,
                             float tmax = kInf) {
    return traverse8<false>(nodes, prims, r, tmin, tmax);
}
WP_HD bool occluded8(const BVH8Node* nodes, const PrimArrays& prims, const Ray& r, float tmax) {
    return traverse8<true>(nodes, prims, r, 0.0f, tmax).prim != kInvalid;
}

// Binary-tree traversal. Closest hit: the Aila-Laine while-while traversal (kernels/bvh.h traverse_ww; Sponza's
// diffuse rays 2.1x faster than traverse(), profiling/LOG.md entry 19, where the option to build without it was
// measured and later removed).
// Any hit: traverse_ww as well when kAnyHitWW, else traverse(), which intersects a leaf as soon as it meets one,
// so an occluded shadow ray stops at once instead of waiting for its warp's other lanes to find leaves. The
// wavefront's shadow kernel takes traverse() (11% faster on Cornell, 7% on the dragon, 2% on Sponza, 3% slower on
// the helmet); the megakernel and the drain (finish_path) keep one traversal, traverse_ww, for both (with the two
// inlined the megakernel was 3% slower on Sponza and the dragon): profiling/LOG.md entry 25. Same hits either way.
template <bool kAnyHit, bool kAnyHitWW = false, uint32_t F = kFeaturesAll>
WP_HD Hit traverse2(const SceneView& s, const Ray& r, float tmin, float tmax) {
    if constexpr (!kAnyHit || kAnyHitWW)
        return traverse_ww<kAnyHit, false, F>(s, r, tmin, tmax);
    else
        return traverse<true, F>(s, r, tmin, tmax);
}

// The scene's tree. W = 0: whichever width it was built with (SceneView: nodes8 set means the wide tree), tested at
// run time, so both traversals are compiled in; W = 2 or 8: that tree only (the GPU kernels are instantiated for
// each width and the launcher picks one, which keeps the other traversal's registers and stack out of them).
// F: the shapes compiled in (kernels/features.h).
template <int W = 0, uint32_t F = kFeaturesAll>
WP_HD Hit intersect_closest(const SceneView& s, const Ray& r, float tmin = 0.0f, float tmax = kInf) {
    static_assert(W == 0 || W == 2 || W == 8, "tree width");
    if constexpr (W == 8)
        return traverse8<false, F>(s.nodes8, s.prims, r, tmin, tmax);
    else if constexpr (W == 2)
        return traverse2<false, false, F>(s, r, tmin, tmax);
    else
        return s.nodes8 ? traverse8<false, F>(s.nodes8, s.prims, r, tmin, tmax)
                        : traverse2<false, false, F>(s, r, tmin, tmax);
}
template <int W = 0, bool kAnyHitWW = false, uint32_t F = kFeaturesAll>
WP_HD bool occluded(const SceneView& s, const Ray& r, float tmax) {
    static_assert(W == 0 || W == 2 || W == 8, "tree width");
    Hit h;
    if constexpr (W == 8)
        h = traverse8<true, F>(s.nodes8, s.prims, r, 0.0f, tmax);
    else if constexpr (W == 2)
        h = traverse2<true, kAnyHitWW, F>(s, r, 0.0f, tmax);
    else
        h = s.nodes8 ? traverse8<true, F>(s.nodes8, s.prims, r, 0.0f, tmax)
                     : traverse2<true, kAnyHitWW, F>(s, r, 0.0f, tmax);
    return h.prim != kInvalid;
}

}  // namespace wp
