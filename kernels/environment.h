// Environment light: constant or lat-long map, importance-sampled through piecewise-constant marginal and
// conditional CDFs over texels weighted by luminance * sin(theta). Evaluation is per texel (nearest), the
// same piecewise-constant function the sampler follows, so MIS weights and pdfs agree exactly.
#pragma once
#include "scene_view.h"

namespace wp {

WP_HD bool env_present(const EnvView& e) { return e.select_prob > 0.0f; }

// World direction -> map coordinates in [0,1)^2 and back.
WP_HD vec2 env_dir_to_uv(const EnvView& e, vec3 d) {
    float x = fmadd(e.rot_cos, d.x, -(e.rot_sin * d.z)),
          z = fmadd(e.rot_sin, d.x, e.rot_cos * d.z);  // undo the rotation
    float u = fmadd(atan2f(x, -z), 0.5f * kInvPi, 0.5f);
    float v = acosf(glm::clamp(d.y, -1.0f, 1.0f)) * kInvPi;
    return vec2(u - floorf(u), glm::clamp(v, 0.0f, 1.0f));
}
WP_HD vec3 env_uv_to_dir(const EnvView& e, vec2 uv, float& sin_theta) {
    float phi = 2.0f * kPi * (uv.x - 0.5f), theta = kPi * uv.y;
    sin_theta = sinf(theta);
    float x = sin_theta * sinf(phi), z = -sin_theta * cosf(phi);
    return vec3(fmadd(e.rot_cos, x, e.rot_sin * z), cosf(theta), fmadd(-e.rot_sin, x, e.rot_cos * z));
}
WP_HD uint32_t env_texel(const EnvView& e, vec2 uv) {
    uint32_t i = glm::min(uint32_t(uv.x * float(e.width)), e.width - 1);
    uint32_t j = glm::min(uint32_t(uv.y * float(e.height)), e.height - 1);
    return j * e.width + i;
}

WP_HD vec3 env_radiance(const EnvView& e, vec3 d) {
    if (!e.texels) return e.constant;
    return xyz(load4(&e.texels[env_texel(e, env_dir_to_uv(e, d))]));
}

// The pdf of env_pdf without a map (uniform directions).
WP_HD float env_pdf_constant(const EnvView& e) { return env_present(e) ? e.select_prob * (0.25f * kInvPi) : 0.0f; }

// Solid-angle pdf of light sampling choosing direction d (selection probability included).
WP_HD float env_pdf(const EnvView& e, vec3 d) {
    if (!env_present(e)) return 0.0f;
    if (!e.texels) return env_pdf_constant(e);
    vec2 uv = env_dir_to_uv(e, d);
    uint32_t i = glm::min(uint32_t(uv.x * float(e.width)), e.width - 1);
    uint32_t j = glm::min(uint32_t(uv.y * float(e.height)), e.height - 1);
    float pm = (e.marginal[j + 1] - e.marginal[j]) * float(e.height);
    const float* c = e.conditional + size_t(j) * (e.width + 1);
    float pc = (c[i + 1] - c[i]) * float(e.width);
    float sin_theta = sinf(kPi * uv.y);
    if (!(sin_theta > 0.0f)) return 0.0f;
    return e.select_prob * pm * pc / (2.0f * kPi * kPi * sin_theta);
}

// Index of the CDF interval containing u: cdf[k] <= u < cdf[k+1], k in [0, n).
WP_HD uint32_t cdf_find(const float* cdf, uint32_t n, float u) {
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) >> 1;
        if (cdf[mid] <= u)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

// Samples a direction; pdf is per solid angle with the selection probability included.
WP_HD bool env_sample(const EnvView& e, vec2 u, vec3& wi, vec3& Le, float& pdf) {
    if (!e.texels) {
        float z = 1.0f - 2.0f * u.x, r = safe_sqrt(fmadd(-z, z, 1.0f)), phi = 2.0f * kPi * u.y;
        wi = vec3(r * cosf(phi), r * sinf(phi), z);
        Le = e.constant;
        pdf = e.select_prob * (0.25f * kInvPi);
        return true;
    }
    uint32_t j = cdf_find(e.marginal, e.height, u.y);
    float m0 = e.marginal[j], m1 = e.marginal[j + 1];
    if (!(m1 > m0)) return false;
    float dv = (u.y - m0) / (m1 - m0);
    const float* c = e.conditional + size_t(j) * (e.width + 1);
    uint32_t i = cdf_find(c, e.width, u.x);
    float c0 = c[i], c1 = c[i + 1];
    if (!(c1 > c0)) return false;
    float du = (u.x - c0) / (c1 - c0);
    vec2 uv((float(i) + glm::clamp(du, 0.0f, 0.9999f)) / float(e.width),
            (float(j) + glm::clamp(dv, 0.0f, 0.9999f)) / float(e.height));
    float sin_theta;
    wi = env_uv_to_dir(e, uv, sin_theta);
    if (!(sin_theta > 0.0f)) return false;
    float pm = (m1 - m0) * float(e.height), pc = (c1 - c0) * float(e.width);
    pdf = e.select_prob * pm * pc / (2.0f * kPi * kPi * sin_theta);
    Le = xyz(load4(&e.texels[j * e.width + i]));
    return pdf > 0.0f;
}

}  // namespace wp
