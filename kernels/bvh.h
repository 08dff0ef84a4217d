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

// Slab test of both children of a node; returns entry distances (kInf when missed).
WP_HD void node_children(const BVHNode* nodes, uint32_t idx, const RayBoxPre& q, float tmin, float tmax, float& t0,
                         float& t1, U4& d) {
    const BVHNode* n = nodes + idx;
    F4 a = load4(&n->a), b = load4(&n->b), c = load4(&n->c);
    d = load4(&n->d);
    float x0 = fmaf(a.x, q.inv.x, q.oinv.x), x1 = fmaf(a.y, q.inv.x, q.oinv.x);
    float y0 = fmaf(a.z, q.inv.y, q.oinv.y), y1 = fmaf(a.w, q.inv.y, q.oinv.y);
    float z0 = fmaf(c.x, q.inv.z, q.oinv.z), z1 = fmaf(c.y, q.inv.z, q.oinv.z);
    float lo0 = fmaxf(fmaxf(fminf(x0, x1), fminf(y0, y1)), fmaxf(fminf(z0, z1), tmin));
    float hi0 = fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fminf(fmaxf(z0, z1), tmax));
    x0 = fmaf(b.x, q.inv.x, q.oinv.x), x1 = fmaf(b.y, q.inv.x, q.oinv.x);
    y0 = fmaf(b.z, q.inv.y, q.oinv.y), y1 = fmaf(b.w, q.inv.y, q.oinv.y);
    z0 = fmaf(c.z, q.inv.z, q.oinv.z), z1 = fmaf(c.w, q.inv.z, q.oinv.z);
    float lo1 = fmaxf(fmaxf(fminf(x0, x1), fminf(y0, y1)), fmaxf(fminf(z0, z1), tmin));
    float hi1 = fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fminf(fmaxf(z0, z1), tmax));
    t0 = lo0 <= hi0 ? lo0 : kInf;
    t1 = lo1 <= hi1 ? lo1 : kInf;
}

// Closest hit in (tmin, tmax). any_hit: stop at the first hit (occlusion).
template <bool kAnyHit>
WP_HD Hit traverse(const SceneView& s, const Ray& r, float tmin, float tmax) {
    Hit hit{tmax, kInvalid, 0.0f, 0.0f};
    if (!s.nodes) return hit;
    RayBoxPre q = ray_box_pre(r);
    uint32_t stack[kBVHStackSize];
    int sp = 0;
    uint32_t node = 0;
    while (true) {
        float t0, t1;
        U4 d;
        node_children(s.nodes, node, q, tmin, hit.t, t0, t1, d);
        // Leaves are intersected at once; only inner children are descended.
        if (t0 < kInf && d.z > 0) {
            for (uint32_t i = d.x; i < d.x + d.z; ++i)
                if (intersect_prim(s.prims, i, r, tmin, hit) && kAnyHit) return hit;
            t0 = kInf;
        }
        if (t1 < kInf && d.w > 0) {
            for (uint32_t i = d.y; i < d.y + d.w; ++i)
                if (intersect_prim(s.prims, i, r, tmin, hit) && kAnyHit) return hit;
            t1 = kInf;
        }
        // Children may have been culled by a closer hit found in the sibling leaf.
        if (t0 > hit.t) t0 = kInf;
        if (t1 > hit.t) t1 = kInf;
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

}  // namespace wp
