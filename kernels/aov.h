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
//
// Exact sums (shards): each sample's AOV values are rounded to signed 64-bit fixed point, kAovScale = 2^24 units
// per unit (as the beauty film), each clamped to [-kAovMaxSample, kAovMaxSample] (a NaN adds 0), and a
// pixel's channel is the two's-complement (wrapping) sum of its samples' words. Integer addition is associative, so
// the sums of disjoint sample ranges (shards, the parts of a resumed render) add up to the whole render's exactly, in
// any order; the image is sum / 2^24 / the pixel's own sample count (aov_images, host/render/render.h). Exact while
// a pixel's true sum stays within 2^39 units (about 5.5e11: over 5e5 samples at the clamp).
#pragma once
#include "kernels/stages.h"

namespace wp {

enum AovBits : uint32_t { kAovAlbedo = 1, kAovNormal = 2, kAovDepth = 4, kAovPosition = 8 };
constexpr uint32_t kAovMaxSpecular = 8;  // delta bounces followed before the albedo and normal are taken as zero

constexpr double kAovScale = 16777216.0;  // 2^24 fixed-point units per unit
constexpr float kAovMaxSample = 1.0e6f;   // per-sample clamp (|value|) that keeps the sums far from overflow

// Channels per pixel of the AOVs in bits: albedo, normal and position 3, depth 1.
WP_HD uint32_t aov_channels(uint32_t bits) {
    return 3u * ((bits & kAovAlbedo) != 0) + 3u * ((bits & kAovNormal) != 0) + ((bits & kAovDepth) != 0) +
           3u * ((bits & kAovPosition) != 0);
}

// Output sums (nullptr: not requested): albedo, normal and position 3 words per pixel, depth 1; signed 64-bit fixed
// point held as unsigned (two's complement).
struct AovView {
    unsigned long long* albedo = nullptr;
    unsigned long long* normal = nullptr;
    unsigned long long* depth = nullptr;
    unsigned long long* position = nullptr;
};

// The AOVs' sums laid out in one array of aov_channels(bits) * np words: one block per AOV present, in the order
// albedo, normal, depth, position, each pixel after pixel (3 words per pixel, depth 1). The .wpfilm keeps this layout.
inline AovView aov_view(unsigned long long* base, uint32_t bits, uint64_t np) {
    AovView v;
    if (bits & kAovAlbedo) v.albedo = base, base += 3 * np;
    if (bits & kAovNormal) v.normal = base, base += 3 * np;
    if (bits & kAovDepth) v.depth = base, base += np;
    if (bits & kAovPosition) v.position = base;
    return v;
}

// One sample's AOV value as a fixed-point word (rounded half away from zero; clamped; NaN: 0).
WP_HD unsigned long long aov_fixed(float x) {
    if (!(fabsf(x) <= kAovMaxSample)) x = x > 0.0f ? kAovMaxSample : x < 0.0f ? -kAovMaxSample : 0.0f;  // NaN: 0
    const double d = double(x) * kAovScale;
    return (unsigned long long)(long long)(d >= 0.0 ? d + 0.5 : d - 0.5);
}

// One sample's AOVs (all zero where it escapes).
struct AovSample {
    vec3 albedo{0.0f}, normal{0.0f}, position{0.0f};
    float depth = 0.0f;
};

// The AOVs of global sample `index` (generate_path's numbering).
WP_HD AovSample aov_sample(const SceneView& s, const RenderParams& rp, uint64_t index) {
    AovSample a;
    PathState p = generate_path(s, rp, index);
    const PathRng key = path_rng(rp.key_pixel(p.pixel), p.sample, rp.seed, rp.sampler);
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
        m.walk_key = rand_bits(key, bounce + 1, kDimLayerWalk);
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
        vec2 u = rand2(key, bounce + 1, kDimBsdfU, kDimBsdfV);
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

// Pixel `pixel`'s AOV sums over the global samples [begin, end) (the beauty's range: Image::first, samples): the
// pixel's own samples of the range (its rank's, RenderParams::pixel_of_rank), as fixed-point words written to out.
WP_HD void aov_pixel(const SceneView& s, const RenderParams& rp, uint32_t pixel, uint64_t begin, uint64_t end,
                     uint32_t bits, const AovView& out) {
    const uint64_t np = rp.num_pixels();
    const uint32_t rank = rp.rank_of_pixel(pixel);
    // the pixel's samples before x: x / np passes, one more where the partial pass covers its rank
    const uint64_t k0 = begin / np + (rank < begin % np ? 1 : 0), k1 = end / np + (rank < end % np ? 1 : 0);
    unsigned long long albedo[3] = {0, 0, 0}, normal[3] = {0, 0, 0}, position[3] = {0, 0, 0}, depth = 0;
    for (uint64_t k = k0; k < k1; ++k) {
        AovSample a = aov_sample(s, rp, k * np + rank);
        for (int c = 0; c < 3; ++c) {  // (unsigned adds wrap: the two's-complement sums, exact in any order)
            albedo[c] += aov_fixed(a.albedo[c]);
            normal[c] += aov_fixed(a.normal[c]);
            position[c] += aov_fixed(a.position[c]);
        }
        depth += aov_fixed(a.depth);
    }
    if (bits & kAovAlbedo)
        for (int c = 0; c < 3; ++c) out.albedo[3 * pixel + c] = albedo[c];
    if (bits & kAovNormal)
        for (int c = 0; c < 3; ++c) out.normal[3 * pixel + c] = normal[c];
    if (bits & kAovPosition)
        for (int c = 0; c < 3; ++c) out.position[3 * pixel + c] = position[c];
    if (bits & kAovDepth) out.depth[pixel] = depth;
}

}  // namespace wp
