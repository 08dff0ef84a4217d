// Lights: the light table (kernels/scene_view.h) holds emissive triangles, quads and spheres and pbrt-v4's delta
// lights (point, spot, distant), chosen in proportion to power, and the environment (chosen with probability
// env.select_prob: 1 without lights in the table, else 1/2). Pdfs of area lights and the environment are per unit
// solid angle at the reference point and include the selection probability; a delta light's sample has the
// selection probability alone as its pdf and no MIS weight (no BSDF-sampled ray can find it).
#pragma once
#include "bsdf.h"
#include "environment.h"
#include "geometry.h"

namespace wp {

struct LightSample {
    vec3 p, n;  // point on the light and its oriented normal
    vec3 wi;    // unit direction from the reference point to p
    float dist;
    vec3 Le;     // radiance leaving p toward the reference point (0 if it sees the back of a one-sided light);
                 // a delta light: what arrives (point, spot: intensity / dist^2; distant: its radiance)
    float pdf;   // solid angle, selection included; a delta light: its selection probability
    bool delta;  // a delta light's sample: weighted 1, not by MIS
};

// Binary search in the inclusive CDF.
WP_HD uint32_t select_light(const SceneView& s, float u) {
    uint32_t lo = 0, hi = s.num_lights - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) >> 1;
        if (s.light_cdf[mid] <= u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

WP_HD vec3 light_emitted(const Light& L, vec3 n, vec3 w_out) {
    float c = dot_fma(n, w_out);
    return (c > 0.0f || (L.two_sided && c < 0.0f)) ? L.Le : vec3(0.0f);
}

// Sphere seen from outside: half-angle cosine of the cone it subtends.
WP_HD float sphere_cos_max(vec3 ref, vec3 c, float r, float& dc) {
    dc = length_fma(c - ref);
    float s2 = r * r / (dc * dc);
    return safe_sqrt(1.0f - s2);
}

// Solid-angle pdf of reaching point p (normal n) on area light li from ref, selection included.
WP_HD float light_pdf(const SceneView& s, uint32_t li, vec3 ref, vec3 p, vec3 n) {
    const Light& L = s.lights[li];
    const float area_prob = 1.0f - s.env.select_prob;
    F4 g0 = load4(&s.prims.geom[3 * L.prim]);
    uint32_t type = float_bits(g0.w);
    if (type == uint32_t(ShapeType::Sphere)) {
        float r = load4(&s.prims.geom[3 * L.prim + 1]).x;
        float dc;
        float cmax = sphere_cos_max(ref, xyz(g0), r, dc);
        if (dc > r * 1.0001f) return area_prob * L.select_pdf / (2.0f * kPi * (1.0f - cmax));
    }
    vec3 d = p - ref;
    float d2 = dot_fma(d, d);
    float cos_l = fabsf(dot_fma(n, d)) / sqrtf(d2);
    if (cos_l <= 0.0f) return 0.0f;
    return area_prob * L.select_pdf * d2 / (cos_l * L.area);
}

// pbrt-v4's spot falloff: smoothstep of the cosine to the axis from cos_end (0) to cos_start (1).
WP_HD float spot_falloff(const Light& L, float cos_t) {
    if (L.cos_start == L.cos_end) return cos_t < L.cos_end ? 0.0f : 1.0f;
    float t = glm::clamp((cos_t - L.cos_end) / (L.cos_start - L.cos_end), 0.0f, 1.0f);
    return t * t * fmadd(-2.0f, t, 3.0f);
}

// A delta light's sample from ref; sel: its selection probability. Point and spot lights deliver intensity / d^2
// (the spot's falloff applied), a distant light its radiance, from infinitely far (dist = kInf).
WP_HD bool sample_delta_light(const Light& L, vec3 ref, float sel, LightSample& ls) {
    ls.delta = true;
    ls.pdf = sel;
    if (L.type == kLightDistant) {
        ls.wi = L.dir;
        ls.dist = kInf;
        ls.p = ref;
        ls.n = -L.dir;
        ls.Le = L.Le;
        return sel > 0.0f;
    }
    vec3 d = L.pos - ref;
    float d2 = dot_fma(d, d);
    if (!(d2 > 0.0f)) return false;
    ls.dist = sqrtf(d2);
    ls.wi = d / ls.dist;
    ls.p = L.pos;
    ls.n = -ls.wi;
    float k = 1.0f / d2;
    if (L.type == kLightSpot) k *= spot_falloff(L, -dot_fma(ls.wi, L.dir));
    ls.Le = L.Le * k;
    return sel > 0.0f && finite1(k);
}

// F: the features compiled in (kernels/features.h); without kFeatDeltaLights the table holds area lights only.
template <uint32_t F = kFeaturesAll>
WP_HD bool sample_light(const SceneView& s, vec3 ref, float usel, vec2 u, LightSample& ls) {
    const float pe = s.env.select_prob, area_prob = 1.0f - pe;
    ls.delta = false;
    if (pe > 0.0f && usel < pe) {
        if (!env_sample(s.env, u, ls.wi, ls.Le, ls.pdf)) return false;
        ls.dist = kInf;
        ls.p = ref;
        ls.n = -ls.wi;
        return finite1(ls.pdf);
    }
    if (s.num_lights == 0) return false;
    usel = glm::min((usel - pe) / area_prob, 0.99999994f);
    uint32_t li = select_light(s, usel);
    const Light& L = s.lights[li];
    if constexpr (has_feature<F>(kFeatDeltaLights)) {
        if (L.type != kLightArea) return sample_delta_light(L, ref, area_prob * L.select_pdf, ls);
    }
    F4 g0 = load4(&s.prims.geom[3 * L.prim]);
    F4 g1 = load4(&s.prims.geom[3 * L.prim + 1]);
    uint32_t type = float_bits(g0.w);
    if (type == uint32_t(ShapeType::Sphere)) {
        vec3 c = xyz(g0);
        float r = g1.x, dc;
        float cmax = sphere_cos_max(ref, c, r, dc);
        if (dc > r * 1.0001f) {
            // uniform in the subtended cone
            float ct = fmadd(-u.x, 1.0f - cmax, 1.0f);
            float st = safe_sqrt(fmadd(-ct, ct, 1.0f)), phi = 2.0f * kPi * u.y;
            Frame f = Frame::from_normal((c - ref) / dc);
            vec3 w = f.to_world(vec3(st * cosf(phi), st * sinf(phi), ct));
            float t;
            if (!intersect_sphere(Ray{ref, w}, c, r, 0.0f, kInf, t)) t = dc * ct;  // tangent ray: closest approach
            ls.p = fmadd(t, w, ref);
            ls.n = normalize_fma(ls.p - c);
            ls.p = fmadd(r, ls.n, c);
            ls.wi = normalize_fma(ls.p - ref);
            ls.dist = length_fma(ls.p - ref);
            ls.pdf = area_prob * L.select_pdf / (2.0f * kPi * (1.0f - cmax));
            ls.Le = light_emitted(L, ls.n, -ls.wi);
            return ls.pdf > 0.0f && finite1(ls.pdf);
        }
        ls.n = sample_uniform_sphere(u);
        ls.p = fmadd(r, ls.n, c);
    } else {
        F4 g2 = load4(&s.prims.geom[3 * L.prim + 2]);
        vec3 e1 = xyz(g1), e2 = xyz(g2);
        vec2 b = u;
        if (type == uint32_t(ShapeType::Triangle)) {
            // uniform barycentrics (square-root parameterisation)
            float su = sqrtf(u.x);
            b = vec2(1.0f - su, u.y * su);
        }
        ls.p = fmadd(b.y, e2, fmadd(b.x, e1, xyz(g0)));
        ls.n = normalize_fma(cross_fma(e1, e2));
    }
    vec3 d = ls.p - ref;
    float d2 = dot_fma(d, d);
    if (d2 <= 0.0f) return false;
    ls.dist = sqrtf(d2);
    ls.wi = d / ls.dist;
    float cos_l = fabsf(dot_fma(ls.n, ls.wi));
    if (cos_l <= 1e-8f) return false;
    ls.pdf = area_prob * L.select_pdf * d2 / (cos_l * L.area);
    ls.Le = light_emitted(L, ls.n, -ls.wi);
    return finite1(ls.pdf);
}

}  // namespace wp
