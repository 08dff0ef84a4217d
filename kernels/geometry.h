// Ray-primitive intersection and surface reconstruction.
#pragma once
#include "features.h"
#include "scene_view.h"

namespace wp {

struct Hit {
    float t;
    uint32_t prim;  // kInvalid: miss
    float u, v;     // triangle barycentrics / quad parameters / unused for spheres
};

// Moeller-Trumbore against (v0, e1 = v1 - v0, e2 = v2 - v0).
WP_HD bool intersect_triangle(const Ray& r, vec3 v0, vec3 e1, vec3 e2, float tmin, float tmax, float& t, float& u,
                              float& v) {
    vec3 pv = cross_fma(r.d, e2);
    float det = dot_fma(e1, pv);
    if (det == 0.0f) return false;
    float inv = 1.0f / det;
    vec3 tv = r.o - v0;
    float uu = dot_fma(tv, pv) * inv;
    if (uu < 0.0f || uu > 1.0f) return false;
    vec3 qv = cross_fma(tv, e1);
    float vv = dot_fma(r.d, qv) * inv;
    if (vv < 0.0f || uu + vv > 1.0f) return false;
    float tt = dot_fma(e2, qv) * inv;
    if (!(tt > tmin && tt < tmax)) return false;
    t = tt;
    u = uu;
    v = vv;
    return true;
}

// Parallelogram p + a*eu + b*ev, a, b in [0,1].
WP_HD bool intersect_quad(const Ray& r, vec3 p, vec3 eu, vec3 ev, float tmin, float tmax, float& t, float& a,
                          float& b) {
    vec3 n = cross_fma(eu, ev);
    float dn = dot_fma(r.d, n);
    if (dn == 0.0f) return false;
    float tt = dot_fma(p - r.o, n) / dn;
    if (!(tt > tmin && tt < tmax)) return false;
    vec3 h = fmadd(tt, r.d, r.o) - p;
    // Solve h = a*eu + b*ev in the plane: a = dot(cross(h, ev), n)/|n|^2, b = dot(cross(eu, h), n)/|n|^2.
    float inv_nn = 1.0f / dot_fma(n, n);
    float aa = dot_fma(cross_fma(h, ev), n) * inv_nn;
    float bb = dot_fma(cross_fma(eu, h), n) * inv_nn;
    if (aa < 0.0f || aa > 1.0f || bb < 0.0f || bb > 1.0f) return false;
    t = tt;
    a = aa;
    b = bb;
    return true;
}

// Spheres up to this radius are intersected and re-projected in float: the rounding of o - c and of |f|^2 - r^2
// then moves t0 by about (|c| + 2r) * 6e-8 / cos, far below the spawn offset of offset_ray_origin (at least
// 1.5e-5 along the normal, 256 ulps away from the origin) for the radii of ordinary scenes. Bigger ones (the RTIOW
// ground, radius 1000) take the double-precision path, which costs ~6 conversions and a few FP64 operations
// more per test (conversions run at 1/8 of the FP32 rate on sm_90).
constexpr float kSphereFloatMaxRadius = 4.0f;

// Sphere, robust for origins inside and far away (distance-to-chord form, Haines et al., RT Gems ch. 7).
WP_HD bool intersect_sphere(const Ray& r, vec3 c, float radius, float tmin, float tmax, float& t) {
    vec3 f = r.o - c;
    float a = dot_fma(r.d, r.d);
    float b = -dot_fma(f, r.d);
    vec3 l = fmadd(b / a, r.d, f);
    float disc = fmadd(radius, radius, -dot_fma(l, l));
    if (disc < 0.0f) return false;
    float cterm;
    if (radius <= kSphereFloatMaxRadius) {
        cterm = fmadd(-radius, radius, dot_fma(f, f));
    } else {
        // |f|^2 - r^2 cancels catastrophically for big spheres (an RTIOW ground of radius 1000: float spacing 0.06
        // at 1e6, so t0 of a ray leaving the surface is off by ~3e-5 and the ray hits its own sphere again).
        // In double, o - c is exact and the difference keeps its bits; t0 = cterm / q is then accurate.
        double fx = double(r.o.x) - double(c.x), fy = double(r.o.y) - double(c.y), fz = double(r.o.z) - double(c.z);
#if defined(__CUDA_ARCH__)
        cterm = float(__fma_rn(-double(radius), double(radius), __fma_rn(fz, fz, __fma_rn(fy, fy, __dmul_rn(fx, fx)))));
#else
        cterm = float(fx * fx + fy * fy + fz * fz - double(radius) * double(radius));
#endif
    }
    float q = b + copysignf(sqrtf(a * disc), b);
    float t0, t1;
    if (q == 0.0f) {
        t0 = t1 = 0.0f;
    } else {
        t0 = cterm / q;
        t1 = q / a;
    }
    if (t0 > t1) {
        float tmp = t0;
        t0 = t1;
        t1 = tmp;
    }
    if (t0 > tmin && t0 < tmax) {
        t = t0;
        return true;
    }
    if (t1 > tmin && t1 < tmax) {
        t = t1;
        return true;
    }
    return false;
}

// Test primitive i; on a closer hit update hit and return true. Ties go to the lower primitive index: a hit at
// exactly hit.t replaces a primitive of a higher index, so the closest hit is the least (t, index) whatever order
// the traversal visits the leaves in (the while-while traversal's order depends on the other rays of its warp, and
// the persistent kernels' warps are made up at run time; kernels/persistent.h). Before any hit, hit.t is the
// query's tmax, which stays exclusive.
// F (kernels/features.h): the shapes compiled in (a set with spheres only loads and tests a sphere's two records).
// The routines' multiply-adds are explicit fused operations on the device (fmadd, dot_fma, cross_fma of
// kernels/common.h; the sphere's FP64 branch likewise), so nvcc's contraction, which depends on the code around
// them, cannot round a ray's hit differently in the persistent extend, one thread per ray, the drain or the
// megakernel (Gpu.PersistentTraversalMatchesOneThreadPerRay: bit for bit; docs/DECISIONS.md: explicit-fma).
template <uint32_t F = kFeaturesAll>
WP_HD bool intersect_prim(const PrimArrays& P, uint32_t i, const Ray& r, float tmin, Hit& hit) {
    constexpr bool kSpheres = has_feature<F>(kFeatSpheres), kFlat = has_feature<F>(kFeatTriangles);
    // All three records are loaded before the type is known (a sphere does not use g2): a load issued after the
    // branch on g0.w would wait for g0 first, two memory round trips per triangle instead of one.
    F4 g0 = load4(&P.geom[3 * i + 0]);
    F4 g1 = load4(&P.geom[3 * i + 1]);
    float t, u = 0.0f, v = 0.0f;
    bool ok;
    // the routines' tmax is exclusive: the next float above hit.t admits a tie with the current hit (hit.t > 0)
    if constexpr (kSpheres && kFlat) {
        F4 g2 = load4(&P.geom[3 * i + 2]);
        uint32_t type = float_bits(g0.w);
        const float tmax = hit.prim == kInvalid ? hit.t : bits_float(float_bits(hit.t) + 1u);
        if (type == uint32_t(ShapeType::Sphere)) {
            ok = intersect_sphere(r, xyz(g0), g1.x, tmin, tmax, t);
        } else {
            if (type == uint32_t(ShapeType::Triangle))
                ok = intersect_triangle(r, xyz(g0), xyz(g1), xyz(g2), tmin, tmax, t, u, v);
            else
                ok = intersect_quad(r, xyz(g0), xyz(g1), xyz(g2), tmin, tmax, t, u, v);
        }
    } else if constexpr (kSpheres) {
        const float tmax = hit.prim == kInvalid ? hit.t : bits_float(float_bits(hit.t) + 1u);
        ok = intersect_sphere(r, xyz(g0), g1.x, tmin, tmax, t);
    } else {
        F4 g2 = load4(&P.geom[3 * i + 2]);
        const float tmax = hit.prim == kInvalid ? hit.t : bits_float(float_bits(hit.t) + 1u);
        if (float_bits(g0.w) == uint32_t(ShapeType::Triangle))
            ok = intersect_triangle(r, xyz(g0), xyz(g1), xyz(g2), tmin, tmax, t, u, v);
        else
            ok = intersect_quad(r, xyz(g0), xyz(g1), xyz(g2), tmin, tmax, t, u, v);
    }
    ok = ok && (t < hit.t || i < hit.prim);  // a tie: the lower index
    if (ok) {
        hit.t = t;
        hit.prim = i;
        hit.u = u;
        hit.v = v;
    }
    return ok;
}

struct SurfacePoint {
    vec3 p;
    vec3 ng;  // geometric normal, unit, as the primitive is oriented (not flipped toward the ray)
    vec3 ns;  // shading normal, unit, same hemisphere as ng
    vec2 uv;
    vec3 dpdu{0.0f}, dpdv{0.0f};   // texture-space tangents (zero where the primitive has no texture coordinates)
    bool sphere_uv = false;        // a sphere: uv is not stored but derived from ng by texture_uv()
    bool interpolated_ns = false;  // ns interpolated from the triangle's corner normals (bump mapping's frame)
};

// Texture coordinates of the point: the stored ones, or a sphere's (u = longitude from +x toward +z, v = polar
// angle from +y), computed from the geometric normal only when a texture is looked up.
WP_HD vec2 texture_uv(const SurfacePoint& sp) {
    if (!sp.sphere_uv) return sp.uv;
    float phi = atan2f(sp.ng.z, sp.ng.x);
    return vec2(fmadd(phi, 0.5f * kInvPi, 0.5f), acosf(glm::clamp(sp.ng.y, -1.0f, 1.0f)) * kInvPi);
}

// info: the primitive's info record (P.info[h.prim]), which the caller loads with the geometry so that the loads
// the shading needs go out together rather than one after another.
template <uint32_t F = kFeaturesAll>
WP_HD SurfacePoint surface_point(const PrimArrays& P, const Hit& h, const Ray& r, const U4& info) {
    constexpr bool kSpheres = has_feature<F>(kFeatSpheres), kFlat = has_feature<F>(kFeatTriangles);
    SurfacePoint sp;
    // all three records at once (a sphere does not use g2), as in intersect_prim; the general kernels' code as it
    // was written before the feature sets (see intersect_prim)
    F4 g0 = load4(&P.geom[3 * h.prim + 0]);
    F4 g1 = load4(&P.geom[3 * h.prim + 1]);
    F4 g2 = kFlat ? load4(&P.geom[3 * h.prim + 2]) : F4{};
    uint32_t type = kSpheres && kFlat ? float_bits(g0.w) : uint32_t(kSpheres ? ShapeType::Sphere : ShapeType::Triangle);
    if (type == uint32_t(ShapeType::Sphere)) {
        vec3 c = xyz(g0);
        float radius = g1.x;
        vec3 p = fmadd(h.t, r.d, r.o);
        vec3 n = normalize_fma(p - c);
        if (radius <= kSphereFloatMaxRadius) {
            sp.p = fmadd(radius, n, c);
        } else {
            // Re-project in double: in float, c + r * n carries the rounding error of c's magnitude (6e-5 at
            // 1000), far above the spawn offset near the world origin: the RTIOW ground would self-intersect.
            // 1/|d| from the float estimate and one Newton step in double (relative error ~1e-14), not a
            // double sqrt and division.
            double dx = double(p.x) - double(c.x), dy = double(p.y) - double(c.y), dz = double(p.z) - double(c.z);
            double d2 = fmadd(dz, dz, fmadd(dy, dy, dx * dx));
            double y = double(approx_rsqrt(float(d2)));
            y = y * fmadd(-(0.5 * d2 * y), y, 1.5);
            double k = double(radius) * y;
            sp.p = vec3(float(fmadd(dx, k, double(c.x))), float(fmadd(dy, k, double(c.y))),
                        float(fmadd(dz, k, double(c.z))));
        }
        sp.ng = sp.ns = n;
        sp.sphere_uv = true;  // texture_uv() computes the spherical coordinates, only where a texture is read
        return sp;
    }
    vec3 e1 = xyz(g1), e2 = xyz(g2);
    sp.p = fmadd(h.v, e2, fmadd(h.u, e1, xyz(g0)));
    sp.ng = normalize_fma(cross_fma(e1, e2));
    sp.ns = sp.ng;
    sp.uv = vec2(h.u, h.v);
    if (type == uint32_t(ShapeType::Quad)) {
        sp.dpdu = e1;
        sp.dpdv = e2;
    }
    if (type == uint32_t(ShapeType::Triangle)) {
        if (info.w != kInvalid && P.attr) {
            const F4* a = &P.attr[4 * info.w];
            F4 a0 = load4(a), a1 = load4(a + 1), a2 = load4(a + 2), a3 = load4(a + 3);
            float w0 = 1.0f - h.u - h.v;
            sp.uv = vec2(fmadd(h.v, a2.w, fmadd(h.u, a1.w, w0 * a0.w)), fmadd(h.v, a3.z, fmadd(h.u, a3.y, w0 * a3.x)));
            vec2 d1(a1.w - a0.w, a3.y - a3.x), d2(a2.w - a0.w, a3.z - a3.x);
            float det = fmadd(d1.x, d2.y, -(d1.y * d2.x));
            if (det != 0.0f) {
                float inv = 1.0f / det;
                sp.dpdu = fmadd(d2.y, e1, -(d1.y * e2)) * inv;
                sp.dpdv = fmadd(d1.x, e2, -(d2.x * e1)) * inv;
            }
            if (a3.w != 0.0f) {
                vec3 n = fmadd(h.v, xyz(a2), fmadd(h.u, xyz(a1), w0 * xyz(a0)));
                float len2 = dot_fma(n, n);
                if (len2 > 0.0f) {
                    n *= 1.0f / sqrtf(len2);
                    sp.ns = dot_fma(n, sp.ng) < 0.0f ? -n : n;
                    sp.interpolated_ns = true;
                }
            }
        }
    }
    return sp;
}

template <uint32_t F = kFeaturesAll>
WP_HD SurfacePoint surface_point(const PrimArrays& P, const Hit& h, const Ray& r) {
    return surface_point<F>(P, h, r, load4(&P.info[h.prim]));
}

}  // namespace wp
