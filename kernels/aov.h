// AOVs (feature buffers for denoisers and compositing): a pass of its own over the camera paths, after the beauty
// render, so that the shading kernels' default paths are untouched. A pixel's samples are the beauty's: the same
// global sample indices through generate_path (same keyed random numbers, so the same primary rays, filter offsets
// and lens positions), averaged with weight one like the beauty.
//   albedo:   the material colour of the first non-specular hit, times the specular (delta) bounces' throughput on
//             the way there (glass tint, mirror colour), as OIDN and OptiX expect; 0 where the path escapes
//   normal:   the world-space shading normal of that hit, facing the incoming ray on opaque surfaces
//   depth:    camera-space depth (along the camera's forward axis) of the first hit, specular or not; 0 on a miss
//   position: world-space position of the first hit; 0 on a miss
// A sample that escapes adds zero to every AOV (the mean is over all the pixel's samples).
#pragma once
#include "kernels/stages.h"

namespace wp {

enum AovBits : uint32_t { kAovAlbedo = 1, kAovNormal = 2, kAovDepth = 4, kAovPosition = 8 };
constexpr uint32_t kAovMaxSpecular = 8;  // delta bounces followed before the albedo and normal are taken as zero

// Output arrays (nullptr: not requested): albedo, normal and position 3 floats per pixel, depth 1.
struct AovView {
    float* albedo = nullptr;
    float* normal = nullptr;
    float* depth = nullptr;
    float* position = nullptr;
};

// One sample's AOVs (all zero where it escapes).
struct AovSample {
    vec3 albedo{0.0f}, normal{0.0f}, position{0.0f};
    float depth = 0.0f;
};

// The AOVs of global sample `index` (generate_path's numbering).
WP_HD AovSample aov_sample(const SceneView& s, const RenderParams& rp, uint64_t index) {
    AovSample a;
    PathState p = generate_path(s, rp, index);
    const uint32_t key = path_key(p.pixel, p.sample, rp.seed);
    vec3 through(1.0f);
    for (uint32_t bounce = 0; bounce <= kAovMaxSpecular; ++bounce) {
        Hit h = intersect_closest(s, path_ray(p));
        if (h.prim == kInvalid) return a;
        const U4 info = load4(&s.prims.info[h.prim]);
        SurfacePoint sp = surface_point(s.prims, h, path_ray(p), info);
        if (bounce == 0) {
            a.position = sp.p;
            a.depth = glm::dot(sp.p - s.camera.pos, s.camera.forward);
        }
        vec3 emitted;
        MatParams m = resolve_material(s, MatHandle{info.y}, sp, emitted);
        vec3 wo = -p.dir;
        vec3 ng = sp.ng, ns = sp.ns;
        if (m.type != MatType::Dielectric && glm::dot(ng, wo) < 0.0f) {
            ng = -ng;
            ns = -ns;
        }
        if (!is_delta(m)) {
            a.albedo = through * m.color;
            a.normal = ns;
            return a;
        }
        // a delta bounce: followed with the path's own random numbers for it (the BSDF dimensions of that bounce)
        Frame f = Frame::from_normal(ns);
        BsdfSample bs;
        vec2 u(rand01(key, bounce + 1, kDimBsdfU), rand01(key, bounce + 1, kDimBsdfV));
        if (!bsdf_sample(m, f.to_local(wo), rand01(key, bounce + 1, kDimBsdfLobe), u, bs)) return a;
        vec3 wi = f.to_world(bs.wi);
        float gside = glm::dot(wi, ng);
        if (gside * bs.wi.z <= 0.0f) return a;
        through *= bs.f * (fabsf(bs.wi.z) / bs.pdf);
        p.origin = offset_ray_origin(sp.p, gside > 0.0f ? ng : -ng);
        p.dir = wi;
    }
    return a;
}

// Pixel `pixel`'s AOVs over the first `done` global samples (the beauty's: Image::samples), written to out.
WP_HD void aov_pixel(const SceneView& s, const RenderParams& rp, uint32_t pixel, uint64_t done, uint32_t bits,
                     const AovView& out) {
    const uint64_t np = rp.num_pixels();
    const uint32_t rank = rp.rank_of_pixel(pixel);
    const uint64_t n = done / np + (rank < done % np ? 1 : 0);
    vec3 albedo(0.0f), normal(0.0f), position(0.0f);
    float depth = 0.0f;
    for (uint64_t k = 0; k < n; ++k) {
        AovSample a = aov_sample(s, rp, k * np + rank);
        albedo += a.albedo;
        normal += a.normal;
        position += a.position;
        depth += a.depth;
    }
    const float inv = n ? 1.0f / float(n) : 0.0f;
    if (bits & kAovAlbedo)
        for (int c = 0; c < 3; ++c) out.albedo[3 * pixel + c] = albedo[c] * inv;
    if (bits & kAovNormal)
        for (int c = 0; c < 3; ++c) out.normal[3 * pixel + c] = normal[c] * inv;
    if (bits & kAovPosition)
        for (int c = 0; c < 3; ++c) out.position[3 * pixel + c] = position[c] * inv;
    if (bits & kAovDepth) out.depth[pixel] = depth * inv;
}

}  // namespace wp
