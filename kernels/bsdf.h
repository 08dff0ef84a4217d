// BSDFs in the local shading frame (normal = +z). f excludes the cosine; pdf is per solid angle.
// Lambert, conductor (mirror / GGX with height-correlated Smith and visible-normal sampling),
// dielectric (smooth / Walter et al. rough GGX BTDF) and glTF metallic-roughness.
#pragma once
#include "features.h"
#include "scene_view.h"

namespace wp {

struct BsdfSample {
    vec3 wi;
    vec3 f;
    float pdf;
    bool delta;
};

// Material parameters resolved at a hit (after textures).
struct MatParams {
    MatType type;
    vec3 color;   // albedo / conductor F0 / dielectric tint / base color
    float alpha;  // GGX alpha (roughness^2 for principled)
    float ior;    // dielectric IOR
    float metallic;
    bool complex_ior;
    vec3 eta, k;
    // layered (coated) materials: their parameters (color holds the resolved reflectance) and the key of the random
    // walks' numbers (kernels/layered.h; set by the caller from the path's key and bounce)
    const LayeredData* layer;
    uint32_t walk_key;
};

// ---- sampling helpers ----
WP_HD vec2 sample_disk_concentric(vec2 u) {
    vec2 o = 2.0f * u - vec2(1.0f);
    if (o.x == 0.0f && o.y == 0.0f) return vec2(0.0f);
    float r, th;
    if (fabsf(o.x) > fabsf(o.y)) {
        r = o.x;
        th = (kPi / 4.0f) * (o.y / o.x);
    } else {
        r = o.y;
        th = (kPi / 2.0f) - (kPi / 4.0f) * (o.x / o.y);
    }
    return r * vec2(cosf(th), sinf(th));
}
// Cosine-weighted hemisphere, square-root form (no acos): z = sqrt(1 - u1).
WP_HD vec3 sample_cosine_hemisphere(vec2 u) {
    float r = sqrtf(u.x);
    float phi = 2.0f * kPi * u.y;
    return vec3(r * cosf(phi), r * sinf(phi), sqrtf(glm::max(0.0f, 1.0f - u.x)));
}
WP_HD vec3 sample_uniform_sphere(vec2 u) {
    float z = 1.0f - 2.0f * u.x;
    float r = safe_sqrt(fmadd(-z, z, 1.0f));
    float phi = 2.0f * kPi * u.y;
    return vec3(r * cosf(phi), r * sinf(phi), z);
}
WP_HD float power_heuristic(float a, float b) {
    float a2 = a * a, s = fmadd(b, b, a2);
    return s > 0.0f ? a2 / s : 0.0f;
}

// ---- Fresnel ----
WP_HD vec3 schlick(vec3 f0, float cos_t) {
    float m = glm::clamp(1.0f - cos_t, 0.0f, 1.0f);
    float m2 = m * m;
    return fmadd(m2 * m2 * m, vec3(1.0f) - f0, f0);
}
// Unpolarised dielectric Fresnel; eta = n_t / n_i for a ray arriving on the +z side.
WP_HD float fresnel_dielectric(float cos_i, float eta) {
    cos_i = glm::clamp(cos_i, -1.0f, 1.0f);
    if (cos_i < 0.0f) {
        eta = 1.0f / eta;
        cos_i = -cos_i;
    }
    float sin2_t = fmadd(-cos_i, cos_i, 1.0f) / (eta * eta);
    if (sin2_t >= 1.0f) return 1.0f;
    float cos_t = safe_sqrt(1.0f - sin2_t);
    float rpar = fmadd(eta, cos_i, -cos_t) / fmadd(eta, cos_i, cos_t);
    float rper = fmadd(-eta, cos_t, cos_i) / fmadd(eta, cos_t, cos_i);
    return 0.5f * fmadd(rpar, rpar, rper * rper);
}
// Conductor Fresnel from complex IOR eta + i k, per channel (exact, as in pbrt-v4 FrComplex).
WP_HD float fresnel_complex1(float cos_i, float eta, float k) {
    cos_i = glm::clamp(cos_i, 0.0f, 1.0f);
    float sin2 = fmadd(-cos_i, cos_i, 1.0f);
    // complex arithmetic by hand: eta_c = eta + i k
    float e2r = fmadd(eta, eta, -(k * k)), e2i = 2.0f * eta * k;  // eta_c^2
    float den = fmadd(e2r, e2r, e2i * e2i);
    float s2i = -sin2 / den * e2i;                          // sin2 / eta_c^2 = s2r + i s2i, s2r = sin2 / den * e2r
    float cr = fmadd(-(sin2 / den), e2r, 1.0f), ci = -s2i;  // cos2_t = 1 - sin2_t
    float mag = sqrtf(fmadd(cr, cr, ci * ci));              // sqrt(cos2_t)
    float ctr = sqrtf(glm::max(0.0f, 0.5f * (mag + cr)));
    float cti = copysignf(sqrtf(glm::max(0.0f, 0.5f * (mag - cr))), ci);
    // r_parl = (eta cos_i - cos_t) / (eta cos_i + cos_t)
    float ar = fmadd(eta, cos_i, -ctr), ai = fmadd(k, cos_i, -cti), br = fmadd(eta, cos_i, ctr),
          bi = fmadd(k, cos_i, cti);
    float rparl = fmadd(ar, ar, ai * ai) / fmadd(br, br, bi * bi);
    // r_perp = (cos_i - eta cos_t) / (cos_i + eta cos_t)
    float ectr = fmadd(eta, ctr, -(k * cti)), ecti = fmadd(eta, cti, k * ctr);
    ar = cos_i - ectr;
    ai = -ecti;
    br = cos_i + ectr;
    bi = ecti;
    float rperp = fmadd(ar, ar, ai * ai) / fmadd(br, br, bi * bi);
    return 0.5f * (rparl + rperp);
}

// ---- GGX (isotropic Trowbridge-Reitz) ----
WP_HD float ggx_D(vec3 wm, float a) {
    float c2 = wm.z * wm.z;
    if (c2 <= 0.0f) return 0.0f;
    float a2 = a * a;
    // c2 (a2 - 1) + 1 written as sin^2 + c2 a2: no cancellation at the peak for tiny alpha (finite D)
    float d = fmadd(c2, a2, fmadd(wm.y, wm.y, wm.x * wm.x));
    return a2 / (kPi * d * d);
}
// sqrt(1 + a^2 tan^2 theta) = 1 + 2 lambda (1 at grazing), so that G1 and G2 fuse their sums of lambdas
WP_HD float ggx_lambda_root(vec3 w, float a) {
    float c2 = w.z * w.z;
    if (c2 <= 0.0f) return 1.0f;
    float t2 = glm::max(0.0f, fmadd(-w.z, w.z, 1.0f)) / c2;
    return sqrtf(fmadd(a * a, t2, 1.0f));
}
// Smith: lambda = (root - 1) / 2, G1 = 1 / (1 + lambda), G2 = 1 / (1 + lambda_o + lambda_i)
WP_HD float ggx_G1(vec3 w, float a) { return 1.0f / fmadd(0.5f, ggx_lambda_root(w, a) - 1.0f, 1.0f); }
WP_HD float ggx_G2(vec3 wo, vec3 wi, float a) {
    return 1.0f / fmadd(0.5f, ggx_lambda_root(wi, a) - 1.0f, fmadd(0.5f, ggx_lambda_root(wo, a) - 1.0f, 1.0f));
}
// Density of visible normals for wo (wo.z > 0).
WP_HD float ggx_pdf_vndf(vec3 wo, vec3 wm, float a) {
    float cos_o = fabsf(wo.z);
    if (cos_o == 0.0f) return 0.0f;
    return ggx_G1(wo, a) * fabsf(dot_fma(wo, wm)) * ggx_D(wm, a) / cos_o;
}
// Visible normal sampling (Heitz 2018, "Sampling the GGX Distribution of Visible Normals").
WP_HD vec3 ggx_sample_vndf(vec3 wo, float a, vec2 u) {
    vec3 vh = normalize_fma(vec3(a * wo.x, a * wo.y, wo.z));
    if (vh.z < 0.0f) vh = -vh;
    float len2 = fmadd(vh.y, vh.y, vh.x * vh.x);
    vec3 t1 = len2 > 0.0f ? vec3(-vh.y, vh.x, 0.0f) * (1.0f / sqrtf(len2)) : vec3(1.0f, 0.0f, 0.0f);
    vec3 t2 = cross_fma(vh, t1);
    float r = sqrtf(u.x);
    float phi = 2.0f * kPi * u.y;
    float p1 = r * cosf(phi), p2 = r * sinf(phi);
    float s = 0.5f * (1.0f + vh.z);
    p2 = fmadd(1.0f - s, safe_sqrt(fmadd(-p1, p1, 1.0f)), s * p2);
    vec3 nh = fmadd(safe_sqrt(fmadd(-p2, p2, fmadd(-p1, p1, 1.0f))), vh, fmadd(p2, t2, p1 * t1));
    return normalize_fma(vec3(a * nh.x, a * nh.y, glm::max(1e-6f, nh.z)));
}

WP_HD vec3 reflect_local(vec3 wo, vec3 n) { return fmadd(2.0f * dot_fma(wo, n), n, -wo); }
// Refract wi about n (same side as wi); eta = n_t / n_i. Returns false on total internal reflection.
WP_HD bool refract_local(vec3 wi, vec3 n, float eta, vec3& wt) {
    float cos_i = dot_fma(n, wi);
    float sin2_i = glm::max(0.0f, fmadd(-cos_i, cos_i, 1.0f));
    float sin2_t = sin2_i / (eta * eta);
    if (sin2_t >= 1.0f) return false;
    float cos_t = safe_sqrt(1.0f - sin2_t);
    wt = fmadd(cos_i / eta - cos_t, n, -wi / eta);
    return true;
}

WP_HD vec3 conductor_F(const MatParams& m, float cos_t) {
    if (m.complex_ior)
        return vec3(fresnel_complex1(cos_t, m.eta.x, m.k.x), fresnel_complex1(cos_t, m.eta.y, m.k.y),
                    fresnel_complex1(cos_t, m.eta.z, m.k.z)) *
               m.color;
    return schlick(m.color, cos_t);
}

// glTF metallic-roughness: probability of choosing the specular lobe.
WP_HD float principled_spec_prob(const MatParams& m) { return fmadd(0.5f, m.metallic, 0.5f); }

}  // namespace wp

// The layered materials (pbrt-v4's coated ones) build on the components above; evaluation and sampling below
// dispatch to them.
#define WP_BSDF_COMPONENTS_DEFINED
#include "layered.h"

namespace wp {

// Whether the material has only specular lobes (no light sampling then).
template <uint32_t Feat = kFeaturesAll>
WP_HD bool is_delta(const MatParams& m) {
    if constexpr (has_feature<Feat>(kFeatLayered)) {
        if (m.type == MatType::Layered) return layered_specular(m);
    }
    return (m.type == MatType::Conductor || m.type == MatType::Dielectric) &&
           m.alpha < 1e-3f;  // effectively smooth (as pbrt-v4)
}

// ---- evaluation ----
template <uint32_t Feat = kFeaturesAll>
WP_HD vec3 bsdf_eval(const MatParams& m, vec3 wo, vec3 wi, float& pdf) {
    pdf = 0.0f;
    switch (m.type) {
        case MatType::Lambert:
            if constexpr (has_feature<Feat>(kFeatLambert)) {
                if (wo.z <= 0.0f || wi.z <= 0.0f) return vec3(0.0f);
                pdf = wi.z * kInvPi;
                return m.color * kInvPi;
            }
            break;
        case MatType::Conductor:
            if constexpr (has_feature<Feat>(kFeatConductor)) {
                if (m.alpha < 1e-3f || wo.z <= 0.0f || wi.z <= 0.0f) return vec3(0.0f);
                vec3 wm = wo + wi;
                if (dot_fma(wm, wm) == 0.0f) return vec3(0.0f);
                wm = normalize_fma(wm);
                float dwo = dot_fma(wo, wm);
                pdf = ggx_pdf_vndf(wo, wm, m.alpha) / (4.0f * fabsf(dwo));
                return conductor_F(m, fabsf(dwo)) *
                       (ggx_D(wm, m.alpha) * ggx_G2(wo, wi, m.alpha) / (4.0f * wo.z * wi.z));
            }
            break;
        case MatType::Dielectric:
            if constexpr (has_feature<Feat>(kFeatDielectric)) {
                if (m.alpha < 1e-3f || wo.z == 0.0f || wi.z == 0.0f) return vec3(0.0f);
                float cos_o = wo.z, cos_i = wi.z;
                bool reflect = cos_o * cos_i > 0.0f;
                float etap = 1.0f;
                if (!reflect) etap = cos_o > 0.0f ? m.ior : 1.0f / m.ior;
                vec3 wm = fmadd(etap, wi, wo);
                if (dot_fma(wm, wm) == 0.0f) return vec3(0.0f);
                wm = normalize_fma(wm);
                if (wm.z < 0.0f) wm = -wm;
                float dwi = dot_fma(wm, wi), dwo = dot_fma(wm, wo);
                if (dwi * cos_i < 0.0f || dwo * cos_o < 0.0f) return vec3(0.0f);  // backfacing microfacet
                float F = fresnel_dielectric(dwo, m.ior);
                vec3 wo_up = cos_o > 0.0f ? wo : -wo;
                float D = ggx_D(wm, m.alpha), G = ggx_G2(wo, wi, m.alpha);
                if (reflect) {
                    pdf = ggx_pdf_vndf(wo_up, wm, m.alpha) / (4.0f * fabsf(dwo)) * F;
                    return vec3(D * G * F / fabsf(4.0f * cos_i * cos_o));
                }
                float denom = sqr(dwi + dwo / etap) * cos_i * cos_o;
                float dwm_dwi = fabsf(dwi) / sqr(dwi + dwo / etap);
                pdf = ggx_pdf_vndf(wo_up, wm, m.alpha) * dwm_dwi * (1.0f - F);
                float ft = D * (1.0f - F) * G * fabsf(dwi * dwo / denom) / (etap * etap);
                return m.color * ft;
            }
            break;
        case MatType::Principled:
            if constexpr (has_feature<Feat>(kFeatPrincipled)) {
                if (wo.z <= 0.0f || wi.z <= 0.0f) return vec3(0.0f);
                vec3 wm = normalize_fma(wo + wi);
                float vdoth = glm::max(0.0f, dot_fma(wo, wm));
                float a = m.alpha;
                float spec = ggx_D(wm, a) * ggx_G2(wo, wi, a) / (4.0f * wo.z * wi.z);
                // glTF 2.0 appendix B: mix(fresnel_mix(dielectric), conductor_fresnel(metal), metallic)
                float fd = fmadd(0.96f, schlick(vec3(0.0f), vdoth).x, 0.04f);  // Schlick with F0 = 0.04
                vec3 diffuse = m.color * kInvPi;
                vec3 dielectric = fmadd(1.0f - fd, diffuse, vec3(fd * spec));
                vec3 metal = schlick(m.color, vdoth) * spec;
                float ps = principled_spec_prob(m);
                pdf = fmadd((1.0f - ps) * wi.z, kInvPi, ps * ggx_pdf_vndf(wo, wm, a) / fmadd(4.0f, vdoth, 1e-12f));
                return fmadd(m.metallic, metal, (1.0f - m.metallic) * dielectric);
            }
            break;
        case MatType::Layered:
            if constexpr (has_feature<Feat>(kFeatLayered)) return layered_eval(m, wo, wi, pdf);
            break;
        case MatType::DiffuseTransmission:
            if constexpr (has_feature<Feat>(kFeatDiffuseTransmission)) {
                // pbrt-v4's DiffuseTransmissionBxDF: R / pi on wo's side, T / pi on the other; the lobe chosen in
                // proportion to the larger channel of each
                const float pr = max_comp(m.color), pt = max_comp(m.k);
                if (wo.z == 0.0f || wi.z == 0.0f || !(pr + pt > 0.0f)) return vec3(0.0f);
                const bool same = wo.z * wi.z > 0.0f;
                pdf = (same ? pr : pt) / (pr + pt) * fabsf(wi.z) * kInvPi;
                return (same ? m.color : m.k) * kInvPi;
            }
            break;
    }
    return vec3(0.0f);
}

// ---- sampling ----
template <uint32_t Feat = kFeaturesAll>
WP_HD bool bsdf_sample(const MatParams& m, vec3 wo, float ulobe, vec2 u, BsdfSample& s) {
    s.delta = false;
    switch (m.type) {
        case MatType::Lambert:
            if constexpr (has_feature<Feat>(kFeatLambert)) {
                if (wo.z <= 0.0f) return false;
                s.wi = sample_cosine_hemisphere(u);
                s.pdf = s.wi.z * kInvPi;
                s.f = m.color * kInvPi;
                return s.pdf > 0.0f;
            }
            break;
        case MatType::Conductor:
            if constexpr (has_feature<Feat>(kFeatConductor)) {
                if (wo.z <= 0.0f) return false;
                if (m.alpha < 1e-3f) {
                    s.wi = vec3(-wo.x, -wo.y, wo.z);
                    s.pdf = 1.0f;
                    s.f = conductor_F(m, wo.z) / wo.z;
                    s.delta = true;
                    return true;
                }
                vec3 wm = ggx_sample_vndf(wo, m.alpha, u);
                s.wi = reflect_local(wo, wm);
                if (s.wi.z <= 0.0f) return false;
                s.f = bsdf_eval<Feat>(m, wo, s.wi, s.pdf);
                return s.pdf > 0.0f;
            }
            break;
        case MatType::Dielectric:
            if constexpr (has_feature<Feat>(kFeatDielectric)) {
                if (wo.z == 0.0f) return false;
                if (m.alpha < 1e-3f) {
                    float F = fresnel_dielectric(wo.z, m.ior);
                    vec3 n(0.0f, 0.0f, wo.z > 0.0f ? 1.0f : -1.0f);
                    s.delta = true;
                    if (ulobe < F) {
                        s.wi = vec3(-wo.x, -wo.y, wo.z);
                        s.pdf = F;
                        s.f = vec3(F / fabsf(s.wi.z));
                        return true;
                    }
                    float etap = wo.z > 0.0f ? m.ior : 1.0f / m.ior;
                    if (!refract_local(wo, n, etap, s.wi)) return false;
                    s.pdf = 1.0f - F;
                    s.f = m.color * ((1.0f - F) / fabsf(s.wi.z) / (etap * etap));
                    return true;
                }
                vec3 wo_up = wo.z > 0.0f ? wo : -wo;
                vec3 wm = ggx_sample_vndf(wo_up, m.alpha, u);
                float dwo = dot_fma(wo, wm);
                float F = fresnel_dielectric(dwo, m.ior);
                if (ulobe < F) {
                    s.wi = reflect_local(wo, wm);
                    if (s.wi.z * wo.z <= 0.0f) return false;
                } else {
                    vec3 nm = dwo > 0.0f ? wm : -wm;
                    float etap = dwo > 0.0f ? m.ior : 1.0f / m.ior;
                    if (!refract_local(wo, nm, etap, s.wi)) return false;
                    if (s.wi.z * wo.z >= 0.0f) return false;
                }
                s.f = bsdf_eval<Feat>(m, wo, s.wi, s.pdf);
                return s.pdf > 0.0f;
            }
            break;
        case MatType::Principled:
            if constexpr (has_feature<Feat>(kFeatPrincipled)) {
                if (wo.z <= 0.0f) return false;
                if (ulobe < principled_spec_prob(m)) {
                    vec3 wm = ggx_sample_vndf(wo, m.alpha, u);
                    s.wi = reflect_local(wo, wm);
                } else {
                    s.wi = sample_cosine_hemisphere(u);
                }
                if (s.wi.z <= 0.0f) return false;
                s.f = bsdf_eval<Feat>(m, wo, s.wi, s.pdf);
                return s.pdf > 0.0f;
            }
            break;
        case MatType::Layered:
            if constexpr (has_feature<Feat>(kFeatLayered)) return layered_sample(m, wo, ulobe, u, s);
            break;
        case MatType::DiffuseTransmission:
            if constexpr (has_feature<Feat>(kFeatDiffuseTransmission)) {
                const float pr = max_comp(m.color), pt = max_comp(m.k);
                if (wo.z == 0.0f || !(pr + pt > 0.0f)) return false;
                const bool reflect = ulobe * (pr + pt) < pr;
                s.wi = sample_cosine_hemisphere(u);
                if ((wo.z > 0.0f) != reflect) s.wi.z = -s.wi.z;  // reflection on wo's side, transmission across
                s.pdf = (reflect ? pr : pt) / (pr + pt) * fabsf(s.wi.z) * kInvPi;
                s.f = (reflect ? m.color : m.k) * kInvPi;
                return s.pdf > 0.0f;
            }
            break;
    }
    return false;
}

}  // namespace wp
