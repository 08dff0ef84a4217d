// The per-path stage bodies (PathState and ShadowRay are the queue records of kernels/path_queue.h). The wavefront launchers run each over a queue; the megakernel and the
// CPU loop call them in sequence for one path. Same code, different scheduling.
#pragma once
#include "bvh.h"
#include "film.h"
#include "filter.h"
#include "lights.h"
#include "rng.h"
#include "texture.h"
#include "kernels/path_queue.h"

namespace wp {

// pbrt-v4's bump mapping (BumpMap in its materials.h, then SurfaceInteraction::SetShadingGeometry): sp.ns becomes
// the normal of the surface displaced along ns by d = b.scale * (texture b.tex's first channel, as pbrt-v4 reads a
// float image), turned to ng's side. With pbrt-v4's shading tangents: where the triangle has corner normals, ss =
// dp/du made perpendicular to ns and ts = ns x dp/du (not dp/dv: pbrt-v4 builds its shading frame so), else the
// geometric dp/du and dp/dv. pbrt-v4's v runs upward, ours downward (host/scene/scene_pbrt.cpp: v -> 1 - v): its
// dp/dv is our -dp/dv and its step +dv is ours -dv, so the same texels are differenced as in pbrt-v4. Left out: the
// term d * dn/du of a curved surface (no normal derivatives here; it is d/r of dp/du for a radius of curvature r),
// and pbrt-v4's steps from the ray differentials (none here: b.du, b.dv, chosen by the loader). A point without
// texture-space tangents (spheres) keeps its normal.
WP_HD void bump_shading_normal(const SceneView& s, const BumpData& b, SurfacePoint& sp) {
    vec3 tu = sp.dpdu, tv = -sp.dpdv;
    if (sp.interpolated_ns) {
        tv = cross_fma(sp.ns, tu);
        tu = cross_fma(tv, sp.ns);
    }
    if (dot_fma(tu, tu) == 0.0f || dot_fma(tv, tv) == 0.0f) return;
    const vec2 uv = sp.uv;  // (never a sphere's: a sphere has no tangents)
    float d[3];             // at uv, one step along u, one along pbrt-v4's v; one lookup inlined for the three
    for (int k = 0; k < 3; ++k)
        d[k] = b.scale * tex_lookup(s, b.tex, vec2(k == 1 ? uv.x + b.du : uv.x, k == 2 ? uv.y - b.dv : uv.y)).x;
    tu = fmadd((d[1] - d[0]) / b.du, sp.ns, tu);
    tv = fmadd((d[2] - d[0]) / b.dv, sp.ns, tv);
    vec3 n = cross_fma(tu, tv);
    const float l2 = dot_fma(n, n);
    if (!(l2 > 0.0f)) return;
    n *= 1.0f / sqrtf(l2);
    sp.ns = dot_fma(n, sp.ng) < 0.0f ? -n : n;
}

// A principled material's tangent-space normal map (glTF 2.0; its texture scaled in xy by normal_scale) at uv:
// sp.ns becomes the map's normal where that stays on ns's side of ng. The point has texture tangents (dp/du != 0).
WP_HD void apply_normal_map(const SceneView& s, const PrincipledData& p, vec2 uv, SurfacePoint& sp) {
    vec3 t = vec3(tex_lookup(s, p.normal_tex, uv)) * 2.0f - vec3(1.0f);
    vec3 n = sp.ns;
    vec3 T = fmadd(-dot_fma(n, sp.dpdu), n, sp.dpdu);
    float tl = dot_fma(T, T);
    if (tl > 0.0f) {
        T *= 1.0f / sqrtf(tl);
        // tangent-space +Y points toward the image's top, i.e. decreasing v (glTF / MikkTSpace)
        vec3 B = cross_fma(n, T);
        if (dot_fma(B, sp.dpdv) > 0.0f) B = -B;
        vec3 nn = fmadd(t.z, n, fmadd(t.y * p.normal_scale, B, T * (t.x * p.normal_scale)));
        float l2 = dot_fma(nn, nn);
        if (l2 > 0.0f) {
            nn *= 1.0f / sqrtf(l2);
            if (dot_fma(nn, sp.ng) * dot_fma(n, sp.ng) > 0.0f) sp.ns = nn;
        }
    }
}

// A principled material's parameters at sp (glTF 2.0 metallic-roughness, textures multiplying the factors), its
// emission in `emitted`; a normal map replaces sp.ns.
template <uint32_t F>
WP_HD void resolve_principled(const SceneView& s, const PrincipledData& p, SurfacePoint& sp, MatParams& m,
                              vec3& emitted) {
    m.color = p.base_color;
    float metallic = p.metallic, roughness = p.roughness;
    bool textured = has_feature<F>(kFeatTextures) && (p.base_tex != kNoTexture || p.mr_tex != kNoTexture ||
                                                      p.emissive_tex != kNoTexture || p.normal_tex != kNoTexture);
    vec2 uv = textured ? texture_uv(sp) : vec2(0.0f);
    if (p.base_tex != kNoTexture) m.color *= vec3(tex_lookup(s, p.base_tex, uv));
    if (p.mr_tex != kNoTexture) {
        vec4 t = tex_lookup(s, p.mr_tex, uv);
        roughness *= t.y;
        metallic *= t.z;
    }
    m.metallic = glm::clamp(metallic, 0.0f, 1.0f);
    m.alpha = glm::max(1e-3f, roughness * roughness);
    emitted = p.emissive;
    if (p.emissive_tex != kNoTexture && (emitted.x > 0.0f || emitted.y > 0.0f || emitted.z > 0.0f))
        emitted *= vec3(tex_lookup(s, p.emissive_tex, uv));
    if (p.normal_tex != kNoTexture && dot_fma(sp.dpdu, sp.dpdu) > 0.0f) apply_normal_map(s, p, uv, sp);
}

// Material parameters at a surface point, textures applied. A normal map or a bump map (MatType::Bumped, which
// wraps the material it bumps) replaces sp.ns (kept on ng's side); a principled material's emission (factor times
// texture) is returned in `emitted`.
template <uint32_t F = kFeaturesAll>
WP_HD MatParams resolve_material(const SceneView& s, MatHandle h, SurfacePoint& sp, vec3& emitted) {
    if constexpr (has_feature<F>(kFeatBump)) {
        if (h.type() == MatType::Bumped) {
            const BumpData& b = s.bump[h.index()];
            bump_shading_normal(s, b, sp);
            h = MatHandle{b.material};
        }
    }
    MatParams m{};
    m.type = h.type();
    m.ior = 1.5f;
    emitted = vec3(0.0f);
    switch (h.type()) {
        case MatType::Lambert:
            if constexpr (has_feature<F>(kFeatLambert)) {
                const LambertData& d = s.lambert[h.index()];
                m.color = d.albedo;
                if (has_feature<F>(kFeatTextures) && d.albedo_tex != kNoTexture)
                    m.color *= vec3(tex_lookup(s, d.albedo_tex, texture_uv(sp)));
                break;
            }
            break;
        case MatType::Conductor:
            if constexpr (has_feature<F>(kFeatConductor)) {
                const ConductorData& c = s.conductor[h.index()];
                m.color = c.color;
                m.alpha = c.alpha;
                m.complex_ior = c.use_complex_ior != 0;
                m.eta = c.eta;
                m.k = c.k;
                break;
            }
            break;
        case MatType::Dielectric:
            if constexpr (has_feature<F>(kFeatDielectric)) {
                const DielectricData& d = s.dielectric[h.index()];
                m.color = d.tint;
                m.ior = d.ior;
                m.alpha = d.alpha;
                break;
            }
            break;
        case MatType::Principled:
            if constexpr (has_feature<F>(kFeatPrincipled)) {
                resolve_principled<F>(s, s.principled[h.index()], sp, m, emitted);
                break;
            }
            break;
        case MatType::DiffuseTransmission:
            if constexpr (has_feature<F>(kFeatDiffuseTransmission)) {
                // the reflectance in color, the transmittance in k (a conductor's field, unused here)
                const LambertData& r = s.lambert[h.index()];
                const LambertData& t = s.lambert[h.index() + 1];
                m.color = r.albedo;
                m.k = t.albedo;
                if (has_feature<F>(kFeatTextures)) {
                    if (r.albedo_tex != kNoTexture) m.color *= vec3(tex_lookup(s, r.albedo_tex, texture_uv(sp)));
                    if (t.albedo_tex != kNoTexture) m.k *= vec3(tex_lookup(s, t.albedo_tex, texture_uv(sp)));
                }
                break;
            }
            break;
        case MatType::Layered:
            if constexpr (has_feature<F>(kFeatLayered)) {
                const LayeredData& d = s.layered[h.index()];
                m.layer = &d;
                m.color = d.reflectance;
                m.ior = d.coat_eta;
                if (has_feature<F>(kFeatTextures) && d.reflectance_tex != kNoTexture)
                    m.color *= vec3(tex_lookup(s, d.reflectance_tex, texture_uv(sp)));
                break;
            }
            break;
    }
    return m;
}

// Whether shade can make shadow rays at all: light sampling on, and a light or an emitting environment to sample.
// When not, the wavefront schedule launches no shadow kernel.
WP_HD bool samples_lights(const SceneView& s, const RenderParams& rp) {
    return rp.light_sampling && (s.num_lights > 0 || env_present(s.env));
}

// The features (kernels/features.h) a render of s with rp uses: the scene's, and light sampling when it runs.
WP_HD uint32_t render_features(const SceneView& s, const RenderParams& rp) {
    return s.features | (samples_lights(s, rp) ? uint32_t(kFeatLightSampling) : 0u);
}
// Options off by default compiled only into instances of their own (bits beside the scene features of
// kernels/features.h, which no scene has): kWithClampCrop the indirect clamp (shade_path) and a crop's key pixel
// (below), kWithFilter a reconstruction filter other than the pixel box (generate_path). The GPU's default kernels are compiled without them, so their
// code is as before the options existed (the clamp compiled in raised the general megakernel's spills from 32 to
// 44-52 bytes, ptxas -v); their launchers take the instances with them when the render asks for one. The CPU and the
// generate kernel always have them (kFeaturesHost, the default F), where the test of the setting is all they cost.
constexpr uint32_t kWithClampCrop = 1u << 31;
constexpr uint32_t kWithFilter = 1u << 30;
constexpr uint32_t kFeaturesHost = kFeaturesAll | kWithClampCrop | kWithFilter;
// A crop (RenderParams::full_width) rides on the clamp's instances: the camera and the random numbers see the full
// image's pixel (key_pixel) only where F has kWithClampCrop, and the launchers pick those instances for a crop, so
// that the default kernels carry no crop key (docs/DECISIONS.md: clamp-crop-instances).
template <uint32_t F>
WP_HD uint32_t path_key_pixel(const RenderParams& rp, uint32_t pixel) {
    if constexpr ((F & kWithClampCrop) != 0) return rp.key_pixel(pixel);
    return pixel;
}
// The sampler other than the default rides on the same instances: a kernel without kWithClampCrop is compiled for
// the default sampler alone (Sobol, kernels/rng.h), so that its registers carry none of the other's code
// (docs/DECISIONS.md: clamp-crop-instances).
template <uint32_t F>
WP_HD uint32_t path_sampler(const RenderParams& rp) {
    if constexpr ((F & kWithClampCrop) != 0) return rp.sampler;
    return kSamplerSobol;
}
// Whether a render runs the kWithClampCrop instances: an indirect clamp, a crop or the non-default sampler.
WP_HD bool needs_clamp_crop(const RenderParams& rp) {
    return rp.clamp_indirect > 0.0f || rp.full_width != 0u || rp.sampler != kSamplerSobol;
}

// generate: camera ray for global sample index (pixel-major within each sample pass).
template <uint32_t F = kFeaturesHost>
WP_HD PathState generate_path(const SceneView& s, const RenderParams& rp, uint64_t index) {
    PathState p;
    const uint32_t np = rp.num_pixels();
    uint32_t rank;
    if (index >> 32 == 0) {  // a 32-bit division (a 64-bit one is a long subroutine on the GPU)
        p.sample = rp.div_pixels.d == np ? rp.div_pixels.div(uint32_t(index)) : uint32_t(index) / np;
        rank = uint32_t(index) - p.sample * np;
    } else {
        p.sample = uint32_t(index / np);
        rank = uint32_t(index - uint64_t(p.sample) * np);
    }
    uint32_t ix, iy;
    rp.pixel_xy_of_rank(rank, ix, iy);
    p.pixel = iy * rp.width + ix;
    const PathRng key = path_rng(path_key_pixel<F>(rp, p.pixel), p.sample, rp.seed, path_sampler<F>(rp));
    uint32_t camera_w = rp.width, camera_h = rp.height;
    if constexpr ((F & kWithClampCrop) != 0) {
        if (rp.full_width) {  // a crop: the full image's pixel, as the camera sees it
            ix += rp.crop_x0, iy += rp.crop_y0;
            camera_w = rp.full_width, camera_h = rp.full_height;
        }
    }
    float px, py;
    if ((F & kWithFilter) == 0 || rp.filter == kFilterPixelBox) {  // the pixel's square, as before filters existed
        const vec2 u = rand2(key, 0, kDimPixelX, kDimPixelY);
        px = float(ix) + u.x;
        py = float(iy) + u.y;
    } else {  // filter importance sampling (kernels/filter.h): the offset from the pixel centre follows the filter
        const vec2 u = rand2(key, 0, kDimPixelX, kDimPixelY);
        vec3 o = filter_sample_signed(rp.filter, rp.filter_radius, rp.filter_sigma, u.x, u.y);
        px = float(ix) + 0.5f + o.x;
        py = float(iy) + 0.5f + o.y;
        // Mitchell: a sample of negative weight adds to the second film (RenderParams::film_pixels)
        if (o.z < 0.0f) p.pixel += np;
    }
    const CameraData& c = s.camera;
    float x = (2.0f * px / float(camera_w) - 1.0f) * c.aspect * c.tan_half_fov_y;
    float y = (1.0f - 2.0f * py / float(camera_h)) * c.tan_half_fov_y;
    vec3 d = glm::normalize(x * c.right + y * c.up + c.forward);
    vec3 o = c.pos;
    if (c.lens_radius > 0.0f) {
        vec3 focus = o + d * (c.focus_dist / dot_fma(d, c.forward));
        vec2 l = c.lens_radius * sample_disk_concentric(rand2(key, 0, kDimLensU, kDimLensV));
        o = o + l.x * c.right + l.y * c.up;
        d = glm::normalize(focus - o);
    }
    p.origin = o;
    p.dir = d;
    p.beta = vec3(1.0f);
    p.depth = 0;
    p.pdf_prev = 0.0f;
    p.flags = kPrevDelta;  // the camera segment is treated like a specular one: emission counts fully
    return p;
}

// extend: closest hit of the path's ray.
template <uint32_t F = kFeaturesAll>
WP_HD Hit extend_path(const SceneView& s, const PathState& p) {
    return intersect_closest<F>(s, path_ray(p));
}

// Cycles' "clamp indirect" (RenderParams::clamp_indirect): a contribution scaled so that its largest component is at
// most `limit` (hue kept; NaN passes through to the film's non-finite count). shade_path applies it to the
// contributions of light paths with two or more scattering vertices: emission found at path depth >= 2 and light
// samples from depth >= 1; the camera's direct view of lights and the first hit's direct lighting are never clamped.
WP_HD vec3 clamp_indirect(vec3 c, float limit) {
    float m = max_comp(c);
    return m > limit ? c * (limit / m) : c;
}
// The clamp is compiled in where the kernels' F has kWithClampCrop (above).
template <uint32_t F>
WP_HD vec3 maybe_clamp(vec3 c, const RenderParams& rp, bool indirect) {
    if constexpr ((F & kWithClampCrop) != 0) {
        if (indirect && rp.clamp_indirect > 0.0f) return clamp_indirect(c, rp.clamp_indirect);
    }
    return c;
}

// shade: emission with MIS, one light sample (returned as a shadow ray), BSDF sampling, roulette.
// Returns whether the path goes on; has_shadow says whether `sh` was written. F: the features compiled in
// (kernels/features.h); the scene's must be among them.
template <uint32_t F = kFeaturesHost>
WP_HD bool shade_path(const SceneView& s, const RenderParams& rp, const FilmView& film, PathState& p, const Hit& h,
                      ShadowRay& sh, bool& has_shadow) {
    has_shadow = false;
    const PathRng key = path_rng(path_key_pixel<F>(rp, p.pixel), p.sample, rp.seed, path_sampler<F>(rp));
    uint32_t bounce = p.depth + 1;
    bool count_full = (p.flags & kPrevDelta) || !rp.light_sampling;
    if (h.prim == kInvalid) {  // escaped: the environment, MIS-weighted against its light sampling
        constexpr bool kMap = has_feature<F>(kFeatEnvMap);
        vec3 Le = kMap ? env_radiance(s.env, p.dir) : s.env.constant;
        if (Le.x > 0.0f || Le.y > 0.0f || Le.z > 0.0f) {
            float w =
                count_full ? 1.0f : power_heuristic(p.pdf_prev, kMap ? env_pdf(s.env, p.dir) : env_pdf_constant(s.env));
            film_add(film, p.pixel, maybe_clamp<F>(p.beta * Le * w, rp, p.depth >= 2));
        }
        return false;
    }
    const U4 info = load4(&s.prims.info[h.prim]);  // with the geometry: one round trip for both
    SurfacePoint sp = surface_point<F>(s.prims, h, path_ray(p), info);
    vec3 wo = -p.dir;
    if (has_feature<F>(kFeatEmitters) && info.z != kInvalid) {
        const Light& L = s.lights[info.z];
        vec3 Le = light_emitted(L, sp.ng, wo);
        if (Le.x > 0.0f || Le.y > 0.0f || Le.z > 0.0f) {
            float w = count_full ? 1.0f : power_heuristic(p.pdf_prev, light_pdf(s, info.z, p.origin, sp.p, sp.ng));
            film_add(film, p.pixel, maybe_clamp<F>(p.beta * Le * w, rp, p.depth >= 2));
        }
    }
    vec3 emitted;
    MatParams m = resolve_material<F>(s, MatHandle{info.y}, sp, emitted);
    if constexpr (has_feature<F>(kFeatLayered)) m.walk_key = rand_bits(key, bounce, kDimLayerWalk);
    // emissive materials (textured glTF emission) are not in the light table: found by BSDF sampling only
    if ((emitted.x > 0.0f || emitted.y > 0.0f || emitted.z > 0.0f) && dot_fma(sp.ng, wo) > 0.0f) {
        film_add(film, p.pixel, maybe_clamp<F>(p.beta * emitted, rp, p.depth >= 2));
    }
    uint32_t nseg = p.depth + 1;
    if (nseg >= rp.max_depth) return false;

    vec3 ng = sp.ng, ns = sp.ns;
    if (m.type != MatType::Dielectric && dot_fma(ng, wo) < 0.0f) {  // opaque surfaces are two-sided
        ng = -ng;
        ns = -ns;
    }
    // A bumped surface is shaded by pbrt-v4's rules: the BSDF on wo's side of the shading normal (pbrt-v4's BxDFs of
    // the opaque materials reflect on wo's side of the shading frame; its dielectric, like ours, takes the side from
    // wo), and no test of wi against the geometric side (pbrt-v4 has none). Bumped normals tilt far from ng (in the
    // parity scene tex_bump up to 41 degrees), so wo is often below the shading plane: with the frame on ng's side
    // and the geometric tests the image is darker than pbrt-v4's (docs/DECISIONS.md: bump-sides).
    bool pbrt_sides = false;
    if constexpr (has_feature<F>(kFeatBump)) {
        if (MatHandle{info.y}.type() == MatType::Bumped) {
            pbrt_sides = true;
            if (m.type != MatType::Dielectric && dot_fma(ns, wo) < 0.0f) ns = -ns;
        }
    }
    Frame f = Frame::from_normal(ns);
    vec3 wo_l = f.to_local(wo);

    if (has_feature<F>(kFeatLightSampling) && samples_lights(s, rp) && !is_delta<F>(m)) {
        LightSample ls;
        vec2 u = rand2(key, bounce, kDimLightU, kDimLightV);
        if (sample_light<F>(s, sp.p, rand01(key, bounce, kDimLightSelect), u, ls) &&
            (ls.Le.x > 0.0f || ls.Le.y > 0.0f || ls.Le.z > 0.0f)) {
            vec3 wi_l = f.to_local(ls.wi);
            float gside = dot_fma(ls.wi, ng);
            if (gside * wi_l.z > 0.0f || pbrt_sides) {  // shading and geometric normals agree on the side
                float bpdf;
                vec3 fv = bsdf_eval<F>(m, wo_l, wi_l, bpdf);
                if (fv.x > 0.0f || fv.y > 0.0f || fv.z > 0.0f) {
                    // a delta light: no BSDF sample finds it, so its light sample counts fully
                    float w = has_feature<F>(kFeatDeltaLights) && ls.delta ? 1.0f : power_heuristic(ls.pdf, bpdf);
                    sh.contrib = p.beta * fv * (fabsf(wi_l.z) * w / ls.pdf) * ls.Le;
                    sh.contrib = maybe_clamp<F>(sh.contrib, rp, p.depth >= 1);
                    sh.origin = offset_ray_origin(sp.p, gside > 0.0f ? ng : -ng);
                    sh.dir = ls.wi;
                    sh.tmax = ls.dist * (1.0f - 1e-4f);
                    sh.pixel = p.pixel;
                    has_shadow = true;
                }
            }
        }
    }

    BsdfSample bs;
    vec2 u = rand2(key, bounce, kDimBsdfU, kDimBsdfV);
    if (!bsdf_sample<F>(m, wo_l, rand01(key, bounce, kDimBsdfLobe), u, bs)) return false;
    vec3 wi = f.to_world(bs.wi);
    float gside = dot_fma(wi, ng);
    if (gside * bs.wi.z <= 0.0f && !pbrt_sides) return false;  // below the geometric surface: light leak guard
    p.beta *= bs.f * (fabsf(bs.wi.z) / bs.pdf);
    p.pdf_prev = bs.pdf;
    p.flags = bs.delta ? kPrevDelta : 0u;
    p.origin = offset_ray_origin(sp.p, gside > 0.0f ? ng : -ng);
    p.dir = wi;
    p.depth = nseg;
    if (nseg >= rp.rr_depth) {
        float q = glm::max(0.05f, 1.0f - max_comp(p.beta));
        if (rand01(key, bounce, kDimRoulette) < q) return false;
        p.beta /= (1.0f - q);
    }
    return finite3(p.beta) && max_comp(p.beta) > 0.0f;
}

// shadow: any-hit occlusion; unoccluded light reaches the pixel.
// kAnyHitWW: occlusion by the while-while traversal (the megakernel's choice, see traverse2 in bvh.h).
template <bool kAnyHitWW = false, uint32_t F = kFeaturesAll>
WP_HD void shadow_trace(const SceneView& s, const FilmView& film, const ShadowRay& sh) {
    if (!occluded<kAnyHitWW, F>(s, shadow_ray(sh), sh.tmax)) film_add(film, sh.pixel, sh.contrib);
}

// No per-segment statistics (the megakernel's paths).
struct NoSegmentStats {
    WP_HD void operator()(uint32_t, bool) const {}
};

// One segment of a path: extend, shade and the segment's shadow ray. on_segment(depth, has_shadow) sees it; ext and
// shadow count the rays. Returns whether the path goes on. kAnyHitWW (default true): the shadow ray uses the
// while-while traversal of the extension ray, so one traversal is inlined, not two (traverse2 in bvh.h).
template <bool kAnyHitWW = true, uint32_t F = kFeaturesHost, class OnSegment>
WP_HD bool path_segment(const SceneView& s, const RenderParams& rp, const FilmView& film, PathState& p,
                        OnSegment&& on_segment, uint32_t& ext, uint32_t& shadow) {
    const uint32_t depth = p.depth;
    Hit h = extend_path<F>(s, p);
    ShadowRay sh;
    bool has_shadow;
    const bool alive = shade_path<F>(s, rp, film, p, h, sh, has_shadow);
    ext++;
    on_segment(depth, has_shadow);
    if constexpr (has_feature<F>(kFeatLightSampling)) {
        if (has_shadow) {
            shadow++;
            shadow_trace<kAnyHitWW, F>(s, film, sh);
        }
    }
    return alive;
}

// A path from its current state to its end, segment by segment. Returns the rays it traced: extension rays in the
// low 32 bits, shadow rays in the high 32 bits. The megakernel runs it from the camera (trace_path) on the CPU; the
// GPU's megakernel and drain run path_segment in the persistent loop of kernels/persistent.h.
template <bool kAnyHitWW = true, class OnSegment = NoSegmentStats>
WP_HD uint64_t finish_path(const SceneView& s, const RenderParams& rp, const FilmView& film, PathState& p,
                           OnSegment&& on_segment = {}) {
    uint32_t ext = 0, shadow = 0;
    while (path_segment<kAnyHitWW>(s, rp, film, p, on_segment, ext, shadow)) {}
    return uint64_t(ext) | (uint64_t(shadow) << 32);
}

// One whole path: the megakernel's loop body (also used by the CPU backend).
template <bool kAnyHitWW = true>
WP_HD uint64_t trace_path(const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t index) {
    PathState p = generate_path(s, rp, index);
    return finish_path<kAnyHitWW>(s, rp, film, p, NoSegmentStats{});
}

}  // namespace wp
