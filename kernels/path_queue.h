// The wavefront's records, each declared once: a path in flight, its closest hit, a shadow ray. Each list gives
// the member a stage sees, the array that holds it and the lane within that array (kernels/soa.h), so PathState
// and ShadowRay, their queues' arrays, load, store and compaction's copy all come from the lists below. The
// megakernel keeps the same structs in registers.
#pragma once
#include "kernels/geometry.h"
#include "kernels/soa.h"

namespace wp {

enum PathFlags : uint32_t { kPrevDelta = 1u };

// A path in flight, 52 bytes: ray origin + solid-angle pdf of the BSDF sample that made the ray, direction + pixel,
// throughput + sample, depth (segments traced before the current ray, at most 1024: render_limits_problem) and
// flags in one word: generate and shade move every byte of it (docs/DECISIONS.md: path-record).
#define WP_PATH_MEMBERS(M)                \
    M(vec3, origin, o_pdf, xyz)           \
    M(float, pdf_prev, o_pdf, w)          \
    M(vec3, dir, dir_pixel, xyz)          \
    M(uint32_t, pixel, dir_pixel, w)      \
    M(vec3, beta, beta_sample, xyz)       \
    M(uint32_t, sample, beta_sample, w)   \
    M(uint32_t, depth, depth_flags, lo16) \
    M(uint32_t, flags, depth_flags, hi16)
#define WP_PATH_ARRAYS(A) A(F4, o_pdf) A(F4, dir_pixel) A(F4, beta_sample) A(U1, depth_flags)
WP_RECORD(PathState, WP_PATH_MEMBERS)
WP_SOA(PathSoA, PathState, WP_PATH_MEMBERS, WP_PATH_ARRAYS)

// Closest hit of each path's ray (struct Hit of kernels/geometry.h): t, primitive, barycentrics.
#define WP_HIT_MEMBERS(M) M(float, t, tpuv, x) M(uint32_t, prim, tpuv, y) M(float, u, tpuv, z) M(float, v, tpuv, w)
#define WP_HIT_ARRAYS(A) A(F4, tpuv)
WP_SOA(HitSoA, Hit, WP_HIT_MEMBERS, WP_HIT_ARRAYS)

// A shadow ray: origin + tmax, direction + pixel, the contribution it carries if unoccluded.
#define WP_SHADOW_MEMBERS(M)       \
    M(vec3, origin, o_tmax, xyz)   \
    M(float, tmax, o_tmax, w)      \
    M(vec3, dir, d_pixel, xyz)     \
    M(uint32_t, pixel, d_pixel, w) \
    M(vec3, contrib, contrib, xyz)
#define WP_SHADOW_ARRAYS(A) A(F4, o_tmax) A(F4, d_pixel) A(F4, contrib)
WP_RECORD(ShadowRay, WP_SHADOW_MEMBERS)
WP_SOA(ShadowSoA, ShadowRay, WP_SHADOW_MEMBERS, WP_SHADOW_ARRAYS)

WP_HD Ray path_ray(const PathState& p) { return Ray{p.origin, p.dir}; }
WP_HD void set_path_ray(PathState& p, const Ray& r) {
    p.origin = r.o;
    p.dir = r.d;
}
WP_HD Ray shadow_ray(const ShadowRay& s) { return Ray{s.origin, s.dir}; }

}  // namespace wp
