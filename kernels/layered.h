// pbrt-v4's layered BSDF (LayeredBxDF, Physically Based Rendering 4th ed., section 14.3) for its two coated
// materials: coateddiffuse (a dielectric coating over a diffuse base) and coatedconductor (a dielectric coating over
// a conductor). Light enters through the coating, walks between the two interfaces (through a medium of the given
// thickness, optionally scattering with albedo and Henyey-Greenstein g) and leaves through the coating again. f,
// the pdf and sampling are stochastic estimates made by random walks (max_depth steps, nsamples walks per
// evaluation), as in pbrt-v4: an evaluation is unbiased on average, not exact. Both materials are two-sided (the
// walk is mirrored when wo is below the surface).
//
// The walks draw their random numbers from a stream keyed by the path (pixel, sample, bounce: MatParams::walk_key,
// set by shade_path), one stream per purpose (evaluation, its pdf, sampling, the sample's pdf): a walk's numbers
// never depend on which thread or kernel runs it.
//
// The components follow pbrt-v4's conventions, which differ from bsdf.h's in three ways the walk needs: they answer
// for directions on either side (the coating is seen from below inside the layer), sampling can be restricted to
// reflection or transmission, and the dielectric's transmission is scaled by 1/eta^2 in radiance mode only (the
// walk's adjoint direction from wi uses importance mode).
#pragma once
#ifndef WP_BSDF_COMPONENTS_DEFINED
#error "kernels/layered.h is included by kernels/bsdf.h (after the components it builds on): include bsdf.h"
#endif
#include "media.h"
#include "rng.h"

namespace wp {

enum LayerLobes : uint32_t { kLobeRefl = 1u, kLobeTrans = 2u, kLobeAll = 3u };

struct LayerSample {
    vec3 wi;
    vec3 f;
    float pdf;
    bool specular;
    bool transmission;
};

// The walk's random numbers: a counter hashed with the stream's key (kernels/rng.h's hash).
struct WalkRng {
    uint32_t key, n = 0;
    WP_HD explicit WalkRng(uint32_t k) : key(k) {}
    WP_HD float operator()() { return u01(hash32(key ^ hash32(n++ + 0x2545f491u))); }
};
// The purposes' streams of one walk key.
enum WalkStream : uint32_t { kWalkEval = 1, kWalkEvalPdf = 2, kWalkSample = 3, kWalkSamplePdf = 4 };
WP_HD uint32_t walk_stream(uint32_t walk_key, WalkStream s) { return hash32(walk_key + uint32_t(s) * 0x9e3779b9u); }

WP_HD bool same_hemisphere(vec3 a, vec3 b) { return a.z * b.z > 0.0f; }

// pbrt-v4's Refract: wi and n on either side (flipped to wi's side, eta inverted); etap the relative index used.
WP_HD bool refract_either(vec3 wi, vec3 n, float eta, float& etap, vec3& wt) {
    if (dot_fma(n, wi) < 0.0f) {
        eta = 1.0f / eta;
        n = -n;
    }
    etap = eta;
    return refract_local(wi, n, eta, wt);
}

// ---- the coating: pbrt-v4's DielectricBxDF (eta, isotropic GGX alpha; smooth below alpha 1e-3 or at eta 1) ----
struct Coat {
    float eta, alpha;
    WP_HD bool smooth() const { return eta == 1.0f || alpha < 1e-3f; }
};

WP_HD bool coat_sample(const Coat& c, vec3 wo, float uc, vec2 u, bool radiance, uint32_t lobes, LayerSample& s) {
    if (c.smooth()) {
        const float R = fresnel_dielectric(wo.z, c.eta), T = 1.0f - R;
        const float pr = (lobes & kLobeRefl) ? R : 0.0f, pt = (lobes & kLobeTrans) ? T : 0.0f;
        if (pr == 0.0f && pt == 0.0f) return false;
        s.specular = true;
        if (uc < pr / (pr + pt)) {
            s.wi = vec3(-wo.x, -wo.y, wo.z);
            s.f = vec3(R / fabsf(s.wi.z));
            s.pdf = pr / (pr + pt);
            s.transmission = false;
            return true;
        }
        float etap;
        if (!refract_either(wo, vec3(0.0f, 0.0f, 1.0f), c.eta, etap, s.wi) || s.wi.z == 0.0f) return false;
        float ft = T / fabsf(s.wi.z);
        if (radiance) ft /= etap * etap;
        s.f = vec3(ft);
        s.pdf = pt / (pr + pt);
        s.transmission = true;
        return true;
    }
    if (wo.z == 0.0f) return false;
    const vec3 wm = ggx_sample_vndf(wo, c.alpha, u);
    const float dwo = dot_fma(wo, wm);
    const float R = fresnel_dielectric(dwo, c.eta), T = 1.0f - R;
    const float pr = (lobes & kLobeRefl) ? R : 0.0f, pt = (lobes & kLobeTrans) ? T : 0.0f;
    if (pr == 0.0f && pt == 0.0f) return false;
    s.specular = false;
    if (uc < pr / (pr + pt)) {
        s.wi = reflect_local(wo, wm);
        if (!same_hemisphere(wo, s.wi)) return false;
        s.pdf = ggx_pdf_vndf(wo, wm, c.alpha) / (4.0f * fabsf(dwo)) * (pr / (pr + pt));
        s.f = vec3(ggx_D(wm, c.alpha) * ggx_G2(wo, s.wi, c.alpha) * R / (4.0f * s.wi.z * wo.z));
        s.transmission = false;
        return s.pdf > 0.0f;
    }
    float etap;
    if (!refract_either(wo, wm, c.eta, etap, s.wi)) return false;
    if (same_hemisphere(wo, s.wi) || s.wi.z == 0.0f) return false;
    const float dwi = dot_fma(s.wi, wm);
    const float denom = sqr(dwi + dwo / etap);
    s.pdf = ggx_pdf_vndf(wo, wm, c.alpha) * (fabsf(dwi) / denom) * (pt / (pr + pt));
    float ft = T * ggx_D(wm, c.alpha) * ggx_G2(wo, s.wi, c.alpha) * fabsf(dwi * dwo / (s.wi.z * wo.z * denom));
    if (radiance) ft /= etap * etap;
    s.f = vec3(ft);
    s.transmission = true;
    return s.pdf > 0.0f;
}

// The generalized half vector of a rough coating for (wo, wi), oriented up; false where f and the pdf are 0.
WP_HD bool coat_half(const Coat& c, vec3 wo, vec3 wi, vec3& wm, float& etap, bool& reflect) {
    const float co = wo.z, ci = wi.z;
    if (co == 0.0f || ci == 0.0f) return false;
    reflect = co * ci > 0.0f;
    etap = reflect ? 1.0f : (co > 0.0f ? c.eta : 1.0f / c.eta);
    wm = fmadd(etap, wi, wo);
    if (dot_fma(wm, wm) == 0.0f) return false;
    wm = normalize_fma(wm);
    if (wm.z < 0.0f) wm = -wm;
    // backfacing microfacets
    return !(dot_fma(wm, wi) * ci < 0.0f || dot_fma(wm, wo) * co < 0.0f);
}

WP_HD float coat_f(const Coat& c, vec3 wo, vec3 wi, bool radiance) {
    if (c.smooth()) return 0.0f;
    vec3 wm;
    float etap;
    bool reflect;
    if (!coat_half(c, wo, wi, wm, etap, reflect)) return 0.0f;
    const float F = fresnel_dielectric(dot_fma(wo, wm), c.eta);
    const float DG = ggx_D(wm, c.alpha) * ggx_G2(wo, wi, c.alpha);
    if (reflect) return DG * F / fabsf(4.0f * wi.z * wo.z);
    const float dwi = dot_fma(wi, wm), dwo = dot_fma(wo, wm);
    const float denom = sqr(dwi + dwo / etap) * wi.z * wo.z;
    float ft = DG * (1.0f - F) * fabsf(dwi * dwo / denom);
    if (radiance) ft /= etap * etap;
    return ft;
}

WP_HD float coat_pdf(const Coat& c, vec3 wo, vec3 wi, uint32_t lobes) {
    if (c.smooth()) return 0.0f;
    vec3 wm;
    float etap;
    bool reflect;
    if (!coat_half(c, wo, wi, wm, etap, reflect)) return 0.0f;
    const float dwo = dot_fma(wo, wm);
    const float R = fresnel_dielectric(dwo, c.eta), T = 1.0f - R;
    const float pr = (lobes & kLobeRefl) ? R : 0.0f, pt = (lobes & kLobeTrans) ? T : 0.0f;
    if (pr == 0.0f && pt == 0.0f) return 0.0f;
    if (reflect) return ggx_pdf_vndf(wo, wm, c.alpha) / (4.0f * fabsf(dwo)) * (pr / (pr + pt));
    const float dwi = dot_fma(wi, wm);
    return ggx_pdf_vndf(wo, wm, c.alpha) * (fabsf(dwi) / sqr(dwi + dwo / etap)) * (pt / (pr + pt));
}

// ---- the base: pbrt-v4's DiffuseBxDF (R) or ConductorBxDF (eta + i k, alpha); reflection only ----
struct Base {
    vec3 R;  // diffuse reflectance
    vec3 eta, k;
    float alpha;
    bool conductor;
    WP_HD bool specular() const { return conductor && alpha < 1e-3f; }
};

WP_HD vec3 base_fresnel(const Base& b, float cos_t) {
    return vec3(fresnel_complex1(cos_t, b.eta.x, b.k.x), fresnel_complex1(cos_t, b.eta.y, b.k.y),
                fresnel_complex1(cos_t, b.eta.z, b.k.z));
}

WP_HD vec3 base_f(const Base& b, vec3 wo, vec3 wi) {
    if (!same_hemisphere(wo, wi)) return vec3(0.0f);
    if (!b.conductor) return b.R * kInvPi;
    if (b.specular()) return vec3(0.0f);
    vec3 wm = wo + wi;
    if (dot_fma(wm, wm) == 0.0f) return vec3(0.0f);
    wm = normalize_fma(wm);
    return base_fresnel(b, fabsf(dot_fma(wo, wm))) *
           (ggx_D(wm, b.alpha) * ggx_G2(wo, wi, b.alpha) / (4.0f * fabsf(wi.z) * fabsf(wo.z)));
}

WP_HD float base_pdf(const Base& b, vec3 wo, vec3 wi) {
    if (!same_hemisphere(wo, wi)) return 0.0f;
    if (!b.conductor) return fabsf(wi.z) * kInvPi;
    if (b.specular()) return 0.0f;
    vec3 wm = wo + wi;
    if (dot_fma(wm, wm) == 0.0f) return 0.0f;
    wm = normalize_fma(wm);
    if (wm.z < 0.0f) wm = -wm;
    return ggx_pdf_vndf(wo, wm, b.alpha) / (4.0f * fabsf(dot_fma(wo, wm)));
}

WP_HD bool base_sample(const Base& b, vec3 wo, vec2 u, LayerSample& s) {
    s.transmission = false;
    if (!b.conductor) {
        s.wi = sample_cosine_hemisphere(u);
        if (wo.z < 0.0f) s.wi.z = -s.wi.z;
        s.pdf = fabsf(s.wi.z) * kInvPi;
        s.f = b.R * kInvPi;
        s.specular = false;
        return s.pdf > 0.0f;
    }
    if (b.specular()) {
        s.wi = vec3(-wo.x, -wo.y, wo.z);
        s.f = base_fresnel(b, fabsf(s.wi.z)) / fabsf(s.wi.z);
        s.pdf = 1.0f;
        s.specular = true;
        return true;
    }
    if (wo.z == 0.0f) return false;
    const vec3 wm = ggx_sample_vndf(wo, b.alpha, u);
    s.wi = reflect_local(wo, wm);
    if (!same_hemisphere(wo, s.wi)) return false;
    s.pdf = ggx_pdf_vndf(wo, wm, b.alpha) / (4.0f * fabsf(dot_fma(wo, wm)));
    s.f = base_fresnel(b, fabsf(dot_fma(wo, wm))) *
          (ggx_D(wm, b.alpha) * ggx_G2(wo, s.wi, b.alpha) / (4.0f * fabsf(s.wi.z) * fabsf(wo.z)));
    s.specular = false;
    return s.pdf > 0.0f;
}

// ---- the medium between the interfaces ----
// Transmittance over a height dz along w (unit extinction).
WP_HD float layer_tr(float dz, vec3 w) {
    if (fabsf(dz) <= 1.17549435e-38f) return 1.0f;
    return expf(-fabsf(dz / w.z));
}
// Its scattering: Henyey-Greenstein, hg_phase and hg_sample (kernels/media.h).

// ---- the layered BSDF ----
struct Layered {
    Coat top;
    Base bottom;
    vec3 albedo;
    float thickness, g;
    uint32_t max_depth, nsamples;
    WP_HD bool has_medium() const { return albedo.x > 0.0f || albedo.y > 0.0f || albedo.z > 0.0f; }
    // Only specular lobes (smooth coating over a smooth conductor, no medium): no light sampling.
    WP_HD bool specular() const { return top.smooth() && bottom.specular() && !has_medium(); }
};

// The BSDF of a material's data at a hit; `reflectance` is the data's, times its texture. A conductor base given by
// its reflectance r (conductor_base 2) gets pbrt-v4's eta = 1, k = 2 sqrt(r) / sqrt(1 - r) (r below 0.9999), both
// divided by the coating's index like eta and k given directly (done by the loader).
WP_HD Layered make_layered(const LayeredData& d, vec3 reflectance) {
    Layered L;
    L.top = Coat{d.coat_eta, d.coat_alpha};
    L.bottom = Base{reflectance, d.eta, d.k, d.base_alpha, d.conductor_base != 0u};
    if (d.conductor_base == 2u) {
        const vec3 r = glm::clamp(reflectance, vec3(0.0f), vec3(0.9999f));
        const float inv = 1.0f / d.coat_eta;
        L.bottom.eta = vec3(inv);
        L.bottom.k = vec3(2.0f * sqrtf(r.x) / sqrtf(1.0f - r.x), 2.0f * sqrtf(r.y) / sqrtf(1.0f - r.y),
                          2.0f * sqrtf(r.z) / sqrtf(1.0f - r.z)) *
                     inv;
    }
    L.albedo = d.albedo;
    L.thickness = glm::max(d.thickness, 1.17549435e-38f);
    L.g = d.g;
    L.max_depth = d.max_depth;
    L.nsamples = glm::max(d.nsamples, 1u);
    return L;
}

// f(wo, wi), estimated with nsamples walks (pbrt-v4's LayeredBxDF::f with the coating on top, two-sided).
WP_HD vec3 layered_f(const Layered& L, vec3 wo, vec3 wi, uint32_t key) {
    if (wo.z < 0.0f) {
        wo = -wo;
        wi = -wi;
    }
    // light leaving through the base: the opaque base transmits nothing
    if (!same_hemisphere(wo, wi)) return vec3(0.0f);
    WalkRng r(key);
    const bool top_spec = L.top.smooth(), base_spec = L.bottom.specular();
    const float exit_z = L.thickness;
    vec3 f(float(L.nsamples) * coat_f(L.top, wo, wi, true));
    for (uint32_t smp = 0; smp < L.nsamples; ++smp) {
        // into the layer through the coating, and the adjoint direction out of it toward wi
        LayerSample wos, wis;
        float uc = r();
        vec2 u(r(), r());
        if (!coat_sample(L.top, wo, uc, u, true, kLobeTrans, wos) || wos.pdf == 0.0f || wos.wi.z == 0.0f) continue;
        uc = r();
        u = vec2(r(), r());
        if (!coat_sample(L.top, wi, uc, u, false, kLobeTrans, wis) || wis.pdf == 0.0f || wis.wi.z == 0.0f) continue;
        vec3 beta = wos.f * (fabsf(wos.wi.z) / wos.pdf);
        float z = L.thickness;
        vec3 w = wos.wi;
        for (uint32_t depth = 0; depth < L.max_depth; ++depth) {
            if (depth > 3 && max_comp(beta) < 0.25f) {  // Russian roulette
                const float q = glm::max(0.0f, 1.0f - max_comp(beta));
                if (r() < q) break;
                beta /= 1.0f - q;
            }
            if (!L.has_medium()) {
                z = (z == L.thickness) ? 0.0f : L.thickness;
                beta *= layer_tr(L.thickness, w);
            } else {
                const float dz = -logf(1.0f - r()) * fabsf(w.z);  // exponential, unit extinction along w
                const float zp = w.z > 0.0f ? z + dz : z - dz;
                if (zp == z) continue;
                if (0.0f < zp && zp < L.thickness) {  // scattering inside the medium
                    const float ph = hg_phase(dot_fma(-w, -wis.wi), L.g);
                    const float wt = top_spec ? 1.0f : power_heuristic(wis.pdf, ph);
                    f += beta * L.albedo * wis.f * (ph * wt * layer_tr(zp - exit_z, wis.wi) / wis.pdf);
                    float ppdf;
                    const vec3 nw = hg_sample(-w, L.g, vec2(r(), r()), ppdf);
                    if (ppdf == 0.0f || nw.z == 0.0f) continue;
                    beta *= L.albedo;  // phase value / pdf = 1
                    w = nw;
                    z = zp;
                    if (((z < exit_z && w.z > 0.0f) || (z > exit_z && w.z < 0.0f)) && !top_spec) {
                        const float fe = coat_f(L.top, -w, wi, true);
                        if (fe > 0.0f) {
                            const float wt2 = power_heuristic(ppdf, coat_pdf(L.top, wi, -w, kLobeTrans));
                            f += beta * (layer_tr(zp - exit_z, w) * fe * wt2);
                        }
                    }
                    continue;
                }
                z = glm::clamp(zp, 0.0f, L.thickness);
            }
            if (z == exit_z) {  // at the coating, from below: its reflection back into the layer
                LayerSample bs;
                const float uc2 = r();
                const vec2 u2(r(), r());
                if (!coat_sample(L.top, -w, uc2, u2, true, kLobeRefl, bs) || bs.pdf == 0.0f || bs.wi.z == 0.0f) break;
                beta *= bs.f * (fabsf(bs.wi.z) / bs.pdf);
                w = bs.wi;
            } else {               // at the base
                if (!base_spec) {  // next-event estimation along the presampled exit direction wis
                    const float wt = top_spec ? 1.0f : power_heuristic(wis.pdf, base_pdf(L.bottom, -w, -wis.wi));
                    f += beta * base_f(L.bottom, -w, -wis.wi) * wis.f *
                         (fabsf(wis.wi.z) * wt * layer_tr(L.thickness, wis.wi) / wis.pdf);
                }
                LayerSample bs;
                const float uc2 = r();
                const vec2 u2(r(), r());
                (void)uc2;
                if (!base_sample(L.bottom, -w, u2, bs) || bs.pdf == 0.0f || bs.wi.z == 0.0f) break;
                beta *= bs.f * (fabsf(bs.wi.z) / bs.pdf);
                w = bs.wi;
                if (!top_spec) {  // the sampled direction leaving through the coating toward wi
                    const float fe = coat_f(L.top, -w, wi, true);
                    if (fe > 0.0f) {
                        // the other strategy's density of this inside direction: the coating sampled from wi
                        // (pbrt-v4 takes PDF(-w, wi), a density over wi, and its weights then do not sum to one:
                        // f high on rough coatings against its own sampling)
                        const float wt =
                            base_spec ? 1.0f : power_heuristic(bs.pdf, coat_pdf(L.top, wi, -w, kLobeTrans));
                        f += beta * (layer_tr(L.thickness, bs.wi) * fe * wt);
                    }
                }
            }
        }
    }
    return f / float(L.nsamples);
}

// The pdf of sampling wi, estimated (pbrt-v4's LayeredBxDF::PDF): the coating's reflection plus the
// transmission-reflection-transmission term, mixed with a uniform sphere (weight 0.1) so that it is never 0.
WP_HD float layered_pdf(const Layered& L, vec3 wo, vec3 wi, uint32_t key) {
    if (wo.z < 0.0f) {
        wo = -wo;
        wi = -wi;
    }
    WalkRng r(key);
    float sum = 0.0f;
    if (same_hemisphere(wo, wi)) {
        sum = float(L.nsamples) * coat_pdf(L.top, wo, wi, kLobeRefl);
        for (uint32_t smp = 0; smp < L.nsamples; ++smp) {
            LayerSample wos, wis;
            float uc = r();
            vec2 u(r(), r());
            const bool ok_o = coat_sample(L.top, wo, uc, u, true, kLobeTrans, wos) && wos.pdf > 0.0f;
            uc = r();
            u = vec2(r(), r());
            const bool ok_i = coat_sample(L.top, wi, uc, u, false, kLobeTrans, wis) && wis.pdf > 0.0f;
            if (!ok_o || !ok_i || max_comp(wos.f) <= 0.0f || max_comp(wis.f) <= 0.0f) continue;
            if (L.top.smooth()) {
                sum += base_pdf(L.bottom, -wos.wi, -wis.wi);
                continue;
            }
            LayerSample rs;
            const float uc2 = r();
            const vec2 u2(r(), r());
            (void)uc2;
            if (!base_sample(L.bottom, -wos.wi, u2, rs) || rs.pdf <= 0.0f || max_comp(rs.f) <= 0.0f) continue;
            if (L.bottom.specular()) {
                sum += coat_pdf(L.top, -rs.wi, wi, kLobeAll);
            } else {
                const float rpdf = base_pdf(L.bottom, -wos.wi, -wis.wi);
                sum += power_heuristic(wis.pdf, rpdf) * rpdf;
                const float tpdf = coat_pdf(L.top, -rs.wi, wi, kLobeAll);
                sum += power_heuristic(rs.pdf, tpdf) * tpdf;
            }
        }
    }
    return fmadd(0.9f, sum / float(L.nsamples), 0.1f / (4.0f * kPi));
}

// Samples wi by a walk (pbrt-v4's LayeredBxDF::Sample_f). The walk's f and pdf are path products whose ratio is
// the sample's weight; `pdf` is set to the sample's own pdf except where `proportional` says it is only
// proportional to it (then the caller asks layered_pdf for MIS).
WP_HD bool layered_sample_walk(const Layered& L, vec3 wo, float uc, vec2 u, uint32_t key, LayerSample& out,
                               bool& proportional) {
    bool flip = false;
    if (wo.z < 0.0f) {
        wo = -wo;
        flip = true;
    }
    proportional = true;
    LayerSample bs;
    if (!coat_sample(L.top, wo, uc, u, true, kLobeAll, bs) || bs.pdf == 0.0f || bs.wi.z == 0.0f) return false;
    if (!bs.transmission) {  // reflected by the coating
        out = bs;
        if (flip) out.wi = -out.wi;
        return max_comp(out.f) > 0.0f;
    }
    vec3 w = bs.wi;
    bool specular_path = bs.specular;
    WalkRng r(key);
    vec3 f = bs.f * fabsf(bs.wi.z);
    float pdf = bs.pdf;
    float z = L.thickness;
    for (uint32_t depth = 0; depth < L.max_depth; ++depth) {
        const float rr = max_comp(f) / pdf;
        if (depth > 3 && rr < 0.25f) {
            const float q = glm::max(0.0f, 1.0f - rr);
            if (r() < q) return false;
            pdf *= 1.0f - q;
        }
        if (w.z == 0.0f) return false;
        if (L.has_medium()) {
            const float dz = -logf(1.0f - r()) * fabsf(w.z);
            const float zp = w.z > 0.0f ? z + dz : z - dz;
            if (zp == z) return false;
            if (0.0f < zp && zp < L.thickness) {
                float ppdf;
                const vec3 nw = hg_sample(-w, L.g, vec2(r(), r()), ppdf);
                if (ppdf == 0.0f || nw.z == 0.0f) return false;
                f *= L.albedo * ppdf;
                pdf *= ppdf;
                specular_path = false;
                w = nw;
                z = zp;
                continue;
            }
            z = glm::clamp(zp, 0.0f, L.thickness);
        } else {
            z = (z == L.thickness) ? 0.0f : L.thickness;
            f *= layer_tr(L.thickness, w);
        }
        LayerSample is;
        const float uc2 = r();
        const vec2 u2(r(), r());
        const bool ok =
            z == 0.0f ? base_sample(L.bottom, -w, u2, is) : coat_sample(L.top, -w, uc2, u2, true, kLobeAll, is);
        if (!ok || is.pdf == 0.0f || is.wi.z == 0.0f || max_comp(is.f) <= 0.0f) return false;
        f *= is.f;
        pdf *= is.pdf;
        specular_path = specular_path && is.specular;
        w = is.wi;
        if (is.transmission) {  // out through the coating
            out.wi = flip ? -w : w;
            out.f = f;
            out.pdf = pdf;
            out.specular = specular_path;
            out.transmission = !same_hemisphere(wo, w);
            return true;
        }
        f *= fabsf(is.wi.z);
    }
    return false;
}

// ---- the material interface of bsdf.h (bsdf_eval, bsdf_sample, is_delta) ----
WP_HD bool layered_specular(const MatParams& m) { return make_layered(*m.layer, m.color).specular(); }

// f and the pdf of wi (each its own estimate, from streams of their own).
WP_HD_NOINLINE vec3 layered_eval(const MatParams& m, vec3 wo, vec3 wi, float& pdf) {
    const Layered L = make_layered(*m.layer, m.color);
    pdf = layered_pdf(L, wo, wi, walk_stream(m.walk_key, kWalkEvalPdf));
    return layered_f(L, wo, wi, walk_stream(m.walk_key, kWalkEval));
}

// A sampled direction. The path's weight f |cos| / pdf is the walk's; the pdf returned for MIS is the estimate of
// layered_pdf (pbrt-v4's "pdfIsProportional"), f scaled to keep the weight. A purely specular walk (a smooth
// coating's mirror reflection, or a walk through smooth interfaces only) is a delta sample with the walk's pdf.
WP_HD_NOINLINE bool layered_sample(const MatParams& m, vec3 wo, float uc, vec2 u, BsdfSample& s) {
    const Layered L = make_layered(*m.layer, m.color);
    LayerSample ls;
    bool proportional;
    if (!layered_sample_walk(L, wo, uc, u, walk_stream(m.walk_key, kWalkSample), ls, proportional)) return false;
    s.wi = ls.wi;
    s.delta = ls.specular;
    if (ls.specular || !proportional) {
        s.f = ls.f;
        s.pdf = ls.pdf;
        return s.pdf > 0.0f;
    }
    const float p = layered_pdf(L, wo, ls.wi, walk_stream(m.walk_key, kWalkSamplePdf));
    s.f = ls.f * (p / ls.pdf);
    s.pdf = p;
    return p > 0.0f && finite3(s.f);
}

}  // namespace wp
