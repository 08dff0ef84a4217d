// BVH traversal: closest hit (extend) and any hit (shadow). Explicit stack, no recursion.
#pragma once
#include "geometry.h"

namespace wp {

struct RayBoxPre {
    vec3 inv, oinv;
};
WP_HD RayBoxPre ray_box_pre(const Ray& r) {
    RayBoxPre p;
    const float big = 1e30f;
    p.inv = vec3(fabsf(r.d.x) > 1e-30f ? 1.0f / r.d.x : copysignf(big, r.d.x),
                 fabsf(r.d.y) > 1e-30f ? 1.0f / r.d.y : copysignf(big, r.d.y),
                 fabsf(r.d.z) > 1e-30f ? 1.0f / r.d.z : copysignf(big, r.d.z));
    p.oinv = -r.o * p.inv;
    return p;
}

// Closest-hit culling compares a box's entry distance with the closest hit so far. Both are rounded, and a box's
// entry can round above the t of a primitive inside it (a triangle in the plane of its box's face, as the walls of a
// Cornell box); such a box would be culled or not depending on whether an equally distant primitive had been hit
// first. Culling only boxes entered beyond hit.t * kCullSlack keeps them, so the closest hit (least t, ties to the
// least index: intersect_prim) does not depend on the order the leaves are visited in, which for the GPU's
// while-while and persistent traversals depends on the other rays of the warp.
constexpr float kCullSlack = 1.0f + 1.0f / 65536.0f;
WP_HD float cull_t(float t) { return t * kCullSlack; }

// Conservative slab test (Ize 2013, "Robust BVH ray traversal"; pbrt-v4's 1 + 2 gamma(3)): a box's exit distance is
// widened by kSlabWiden before it is compared with the entry. The slab distances a * inv + (-o * inv) (one fma per
// plane) carry two kinds of rounding error: relative ones, from the reciprocal (approximate under fast math) and
// the fma's own rounding, which the widening covers (it is 16 times 2 gamma(3), for the approximate reciprocal); and
// an absolute one, the rounding of -o * inv, at most half an ulp of the origin's coordinate in world space, which the
// builder's padding of every box covers (BVHBuildOptions::pad_ulps). Together every computed slab interval holds
// the exact one, so a ray meeting a primitive on its box's face (a seam between flat boxes) cannot slip through
// (docs/DECISIONS.md: box-padding).
constexpr float kSlabWiden = 1.0f + 1.0f / 1048576.0f;

// Slab test of both children of a node: t0, t1 their entry distances, hit0, hit1 whether the ray enters them
// within (tmin, tmax); d the children's references.
WP_HD void node_children(const BVHNode* nodes, uint32_t idx, const RayBoxPre& q, float tmin, float tmax, float& t0,
                         float& t1, bool& hit0, bool& hit1, U4& d) {
    const BVHNode* n = nodes + idx;
    F4 a = load4(&n->a), b = load4(&n->b), c = load4(&n->c);
    d = load4(&n->d);
    float x0 = fmaf(a.x, q.inv.x, q.oinv.x), x1 = fmaf(a.y, q.inv.x, q.oinv.x);
    float y0 = fmaf(a.z, q.inv.y, q.oinv.y), y1 = fmaf(a.w, q.inv.y, q.oinv.y);
    float z0 = fmaf(c.x, q.inv.z, q.oinv.z), z1 = fmaf(c.y, q.inv.z, q.oinv.z);
    t0 = fmaxf(fmaxf(fminf(x0, x1), fminf(y0, y1)), fmaxf(fminf(z0, z1), tmin));
    const float hi0 = fminf(fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fmaxf(z0, z1)) * kSlabWiden, tmax);
    x0 = fmaf(b.x, q.inv.x, q.oinv.x), x1 = fmaf(b.y, q.inv.x, q.oinv.x);
    y0 = fmaf(b.z, q.inv.y, q.oinv.y), y1 = fmaf(b.w, q.inv.y, q.oinv.y);
    z0 = fmaf(c.z, q.inv.z, q.oinv.z), z1 = fmaf(c.w, q.inv.z, q.oinv.z);
    t1 = fmaxf(fmaxf(fminf(x0, x1), fminf(y0, y1)), fmaxf(fminf(z0, z1), tmin));
    const float hi1 = fminf(fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fmaxf(z0, z1)) * kSlabWiden, tmax);
    hit0 = t0 <= hi0;
    hit1 = t1 <= hi1;
}

// Closest hit in (tmin, tmax). any_hit: stop at the first hit (occlusion).
template <bool kAnyHit, uint32_t F = kFeaturesAll>
WP_HD Hit traverse(const SceneView& s, const Ray& r, float tmin, float tmax) {
    Hit hit{tmax, kInvalid, 0.0f, 0.0f};
    if (!s.nodes) return hit;
    RayBoxPre q = ray_box_pre(r);
    uint32_t stack[kBVHStackSize];
    int sp = 0;
    uint32_t node = 0;
    while (true) {
        float t0, t1;
        bool h0, h1;
        U4 d;
        node_children(s.nodes, node, q, tmin, cull_t(hit.t), t0, t1, h0, h1, d);
        // missed children as distance kInf: this loop's logic (with the flags instead, ptxas gives the shadow
        // kernel 55 registers rather than 48)
        if (!h0) t0 = kInf;
        if (!h1) t1 = kInf;
        // Leaves are intersected at once; only inner children are descended.
        if (t0 < kInf && d.z > 0) {
            for (uint32_t i = d.x; i < d.x + d.z; ++i)
                if (intersect_prim<F>(s.prims, i, r, tmin, hit) && kAnyHit) return hit;
            t0 = kInf;
        }
        if (t1 < kInf && d.w > 0) {
            for (uint32_t i = d.y; i < d.y + d.w; ++i)
                if (intersect_prim<F>(s.prims, i, r, tmin, hit) && kAnyHit) return hit;
            t1 = kInf;
        }
        // Children may have been culled by a closer hit found in the sibling leaf.
        const float tc = cull_t(hit.t);
        if (t0 > tc) t0 = kInf;
        if (t1 > tc) t1 = kInf;
        if (t0 < kInf && t1 < kInf) {
            uint32_t near = d.x, far = d.y;
            if (t1 < t0) {
                near = d.y;
                far = d.x;
            }
            stack[sp++] = far;
            node = near;
        } else if (t0 < kInf) {
            node = d.x;
        } else if (t1 < kInf) {
            node = d.y;
        } else {
            if (sp == 0) break;
            node = stack[--sp];
        }
    }
    return hit;
}

// Aila & Laine 2009, "Understanding the efficiency of ray traversal on GPUs": while-while traversal with
// postponed leaves and speculative traversal, the closest-hit traversal of the binary tree (same contract and result as
// traverse(), which any-hit rays use: traverse2 below). The inner loop only visits nodes: a hit leaf is not intersected
// at once but postponed (kept in a register), and a second leaf met before the first is processed waits in
// `node` (or on the stack). The leaf loop then intersects the postponed leaves. On the GPU a ray that already
// holds a leaf keeps traversing until every active lane of the warp holds one, so the lanes run the leaf loop
// together (speculative traversal, section 4); on the host there is no warp and a ray leaves the inner loop as
// soon as it holds a leaf, unless kHostSpeculative (tests) makes it behave as if the other lanes never found
// one: then it leaves only when a second leaf or the end of the traversal stops it.

// A traversal reference: an inner node (count == 0) or a leaf, the primitives [idx, idx + count).
struct BVH2Ref {
    uint32_t idx, count;
};
constexpr uint32_t kBVH2Done = 0xffffffffu;  // idx of the sentinel under the stack: an "inner node" ending traversal

// Node visits and primitive tests of traversals, counted on the host (the bench's per-ray figures); the device's
// traversal takes no counter.
struct TraversalCount {
    uint64_t nodes = 0, prims = 0;
};

// One round of the while-while traversal (traverse_ww's outer loop, also run by the persistent extend kernel of
// kernels/persistent.h): inner nodes until the ray holds a leaf and, on the GPU, every active lane of its warp
// does too, then the leaf loop. The state (stack, sp, node, leaf) carries over to the next round; the traversal is
// over when node is the sentinel after a round. Returns true when an any-hit query found its hit.
template <bool kAnyHit, bool kHostSpeculative = false, uint32_t F = kFeaturesAll>
WP_HD bool ww_round(const SceneView& s, const Ray& r, const RayBoxPre& q, float tmin, Hit& hit, BVH2Ref* stack, int& sp,
                    BVH2Ref& node, BVH2Ref& leaf, TraversalCount* count = nullptr) {
    const float tc = cull_t(hit.t);  // hit.t does not change in the inner loop
    // Inner loop: while `node` is an inner node.
    while (node.count == 0 && node.idx != kBVH2Done) {
        float t0, t1;
        bool hit0, hit1;
        U4 d;
        // Closest-hit culling: children entered beyond hit.t (with the slack) are missed.
        node_children(s.nodes, node.idx, q, tmin, tc, t0, t1, hit0, hit1, d);
#if !defined(__CUDA_ARCH__)
        if (count) count->nodes++;
#endif
        if (!hit0 && !hit1) {
            node = stack[sp--];
        } else {
            // Nearer child next; the farther one, when both are hit, onto the stack (leaf or not).
            node = hit0 ? BVH2Ref{d.x, d.z} : BVH2Ref{d.y, d.w};
            if (hit0 && hit1) {
                BVH2Ref far{d.y, d.w};
                if (t1 < t0) {
                    far = node;
                    node = BVH2Ref{d.y, d.w};
                }
                stack[++sp] = far;
            }
        }
        // The first leaf is postponed and traversal goes on with the stack top; a second one stays in `node`,
        // which ends this loop.
        if (node.count > 0 && leaf.count == 0) {
            leaf = node;
            node = stack[sp--];
        }
        // Speculative traversal: leave once all active lanes hold a leaf. __activemask(): lanes that left the
        // inner loop (or finished) take no part, so none waits on them.
#if defined(__CUDA_ARCH__)
        if (!__any_sync(__activemask(), leaf.count == 0)) break;
#else
        if (!kHostSpeculative && leaf.count > 0) break;
#endif
    }
    // Leaf loop: the postponed leaf, then `node` too while it is a leaf (the next one coming off the stack).
    while (leaf.count > 0) {
        for (uint32_t i = leaf.idx; i < leaf.idx + leaf.count; ++i) {
#if !defined(__CUDA_ARCH__)
            if (count) count->prims++;
#endif
            if (intersect_prim<F>(s.prims, i, r, tmin, hit) && kAnyHit) return true;
        }
        leaf = node;  // an inner node or the sentinel (count 0) ends the leaf loop and stays in `node`
        if (node.count > 0) node = stack[sp--];
    }
    return false;
}

template <bool kAnyHit, bool kHostSpeculative = false, uint32_t F = kFeaturesAll>
WP_HD Hit traverse_ww(const SceneView& s, const Ray& r, float tmin, float tmax, TraversalCount* count = nullptr) {
    Hit hit{tmax, kInvalid, 0.0f, 0.0f};
    if (!s.nodes) return hit;
    const RayBoxPre q = ray_box_pre(r);
    // stack[0] is the sentinel: popping the empty stack yields it, so no emptiness test. At most one entry per
    // tree level is pushed (the far child), as in traverse().
    BVH2Ref stack[kBVHStackSize];
    stack[0] = BVH2Ref{kBVH2Done, 0u};
    int sp = 0;
    BVH2Ref node{0u, 0u};  // next reference to visit: the root
    BVH2Ref leaf{0u, 0u};  // the postponed leaf; count == 0: none
    while (node.idx != kBVH2Done)
        if (ww_round<kAnyHit, kHostSpeculative, F>(s, r, q, tmin, hit, stack, sp, node, leaf, count)) return hit;
    return hit;
}

// Binary-tree traversal. Closest hit: the Aila-Laine while-while traversal (kernels/bvh.h traverse_ww;
// docs/DECISIONS.md: while-while).
// Any hit: traverse_ww as well when kAnyHitWW, else traverse(), which intersects a leaf as soon as it meets one,
// so an occluded shadow ray stops at once instead of waiting for its warp's other lanes to find leaves. The
// wavefront's shadow kernel takes traverse(); the megakernel and the drain (finish_path) keep one traversal,
// traverse_ww, for both, so that one is inlined (docs/DECISIONS.md: shadow-traversal). Same hits either way.
template <bool kAnyHit, bool kAnyHitWW = false, uint32_t F = kFeaturesAll>
WP_HD Hit traverse2(const SceneView& s, const Ray& r, float tmin, float tmax) {
    if constexpr (!kAnyHit || kAnyHitWW)
        return traverse_ww<kAnyHit, false, F>(s, r, tmin, tmax);
    else
        return traverse<true, F>(s, r, tmin, tmax);
}

// The scene's tree. F: the shapes compiled in (kernels/features.h).
template <uint32_t F = kFeaturesAll>
WP_HD Hit intersect_closest(const SceneView& s, const Ray& r, float tmin = 0.0f, float tmax = kInf) {
    return traverse2<false, false, F>(s, r, tmin, tmax);
}
template <bool kAnyHitWW = false, uint32_t F = kFeaturesAll>
WP_HD bool occluded(const SceneView& s, const Ray& r, float tmax) {
    Hit h;
    h = traverse2<true, kAnyHitWW, F>(s, r, 0.0f, tmax);
    return h.prim != kInvalid;
}

}  // namespace wp
