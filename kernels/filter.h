// Reconstruction filters by filter importance sampling (pbrt-v4's way): a camera ray's offset from the pixel centre
// is drawn with density proportional to the filter, and every sample weighs one. The film then stays a plain sum of
// samples (kernels/film.h: 64-bit fixed point, order-independent, bit-identical reruns) and the pixel is the sample
// mean, which estimates the filter-weighted integral of the radiance around the pixel centre.
//
// All filters are separable: f(x, y) = f1(x) f1(y), so the two offsets are drawn independently by inverting the 1D
// cumulative distribution of |f1| (closed form for box and triangle, bisection on the analytic CDF for Gaussian and
// Mitchell). Mitchell's negative lobes (pbrt-v4's way): the offsets follow |f| and the sign is carried as a weight.
// The film adds non-negative fixed point and the path code assumes positive throughput, so the weight is not in the
// path: a sample of negative weight adds to a second film (its pixel index plus the image's pixel count, see
// RenderParams::film_pixels), and the image is (positive - negative) * k per pixel, k = (integral |f1| / integral
// f1)^2, the constant that makes the weights' mean one (film_to_image). Documented in docs/CLI.md.
#pragma once
#include "common.h"

namespace wp {

// RenderParams::filter. kFilterPixelBox is the default, one pixel's square (radius 0.5) sampled exactly as before
// filters existed (generate_path's original code path, so those images stay bit for bit); a box of another radius
// is kFilterBox.
enum FilterType : uint32_t { kFilterPixelBox = 0, kFilterBox, kFilterTriangle, kFilterGaussian, kFilterMitchell };
static_assert(kFilterMitchell == 4, "RenderParams::film_pixels tests the filter against 4");

// The 1D filter's value at x (|x| <= radius; 0 outside), unnormalised. Gaussian: exp(-x^2 / 2 sigma^2) minus its
// value at the radius (pbrt-v4's); Mitchell: B = C = 1/3 over [-radius, radius] (pbrt-v4's Mitchell1D(2x/radius)).
WP_HD float filter_eval_1d(uint32_t type, float r, float sigma, float x) {
    float a = fabsf(x);
    if (a > r) return 0.0f;
    switch (type) {
        case kFilterTriangle: return r - a;
        case kFilterGaussian:
            return fmaxf(0.0f, expf(-a * a / (2 * sigma * sigma)) - expf(-r * r / (2 * sigma * sigma)));
        case kFilterMitchell: {
            float s = 2.0f * a / r;
            if (s < 1.0f) return (7.0f * s * s * s - 12.0f * s * s + 16.0f / 3.0f) / 6.0f;
            return (-7.0f / 3.0f * s * s * s + 12.0f * s * s - 20.0f * s + 32.0f / 3.0f) / 6.0f;
        }
        default: return 1.0f;
    }
}

// Integral of |f1| over [0, x], 0 <= x <= r.
WP_HD float filter_cdf_half(uint32_t type, float r, float sigma, float x) {
    switch (type) {
        case kFilterTriangle: return x * (r - 0.5f * x);
        case kFilterGaussian:
            return sigma * 1.25331414f * erff(x / (sigma * 1.41421356f)) - x * expf(-r * r / (2 * sigma * sigma));
        case kFilterMitchell: {
            // antiderivatives of the two polynomial pieces of Mitchell1D in s = 2x/r; the outer one is negative on
            // (8/7, 2): |f| integrates it with the sign flipped there
            auto A1 = [](float s) { return (1.75f * s * s * s * s - 4.0f * s * s * s + 16.0f / 3.0f * s) / 6.0f; };
            auto A2 = [](float s) {
                return (-7.0f / 12.0f * s * s * s * s + 4.0f * s * s * s - 10.0f * s * s + 32.0f / 3.0f * s) / 6.0f;
            };
            float s = fminf(2.0f * x / r, 2.0f), h = 0.5f * r;
            if (s <= 1.0f) return h * A1(s);
            const float s0 = 8.0f / 7.0f;
            if (s <= s0) return h * (A1(1.0f) + A2(s) - A2(1.0f));
            return h * (A1(1.0f) + 2.0f * A2(s0) - A2(1.0f) - A2(s));
        }
        default: return x;
    }
}

// An offset in [-r, r] with density |f1| / integral, from u in [0, 1).
WP_HD float filter_sample_1d(uint32_t type, float r, float sigma, float u) {
    switch (type) {
        case kFilterBox: return (2.0f * u - 1.0f) * r;
        case kFilterTriangle:
            return u < 0.5f ? r * (sqrtf(2.0f * u) - 1.0f) : r * (1.0f - sqrtf(fmaxf(0.0f, 2.0f - 2.0f * u)));
        default: {  // Gaussian, Mitchell: bisection on the analytic CDF (monotonic), 24 halvings: below float epsilon
            float t = 2.0f * u - 1.0f, target = fabsf(t) * filter_cdf_half(type, r, sigma, r);
            float lo = 0.0f, hi = r;
            for (int i = 0; i < 24; ++i) {
                float mid = 0.5f * (lo + hi);
                if (filter_cdf_half(type, r, sigma, mid) < target)
                    lo = mid;
                else
                    hi = mid;
            }
            float x = 0.5f * (lo + hi);
            return t < 0.0f ? -x : x;
        }
    }
}

// Whether offset o falls where the filter is negative (Mitchell's outer lobes in one axis but not both).
WP_HD bool filter_negative(uint32_t type, float r, float sigma, vec2 o) {
    if (type != kFilterMitchell) return false;
    return (filter_eval_1d(type, r, sigma, o.x) < 0.0f) != (filter_eval_1d(type, r, sigma, o.y) < 0.0f);
}

// The camera sample's offset from the pixel centre (x, y) and the sign of its weight (z: 1, or -1 where Mitchell's
// lobes are negative); not for kFilterPixelBox, which generate_path samples itself. Out of line on the device
// (WP_HD_NOINLINE): the kernels that generate camera paths (generate, the megakernel's path regeneration) keep their
// default path's registers; inlined, the bisections raised the general megakernel's spills (ptxas -v).
WP_HD_NOINLINE vec3 filter_sample_signed(uint32_t type, float r, float sigma, float u0, float u1) {
    vec2 o(filter_sample_1d(type, r, sigma, u0), filter_sample_1d(type, r, sigma, u1));
    return vec3(o, filter_negative(type, r, sigma, o) ? -1.0f : 1.0f);
}
WP_HD vec2 filter_sample(uint32_t type, float r, float sigma, float u0, float u1) {
    return vec2(filter_sample_signed(type, r, sigma, u0, u1));
}

// k = (integral |f1| / integral f1)^2: the weight magnitude of a sample (1 but for Mitchell, whose signed integral
// over [-r, r] is r / 2).
inline double filter_weight_scale(uint32_t type, float r, float sigma) {
    if (type != kFilterMitchell) return 1.0;
    const double k1 = 2.0 * double(filter_cdf_half(type, r, sigma, r)) / (0.5 * double(r));
    return k1 * k1;
}

}  // namespace wp
