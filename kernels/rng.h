// Counter-based random numbers keyed by (pixel, sample, bounce, dimension): the value a path
// draws does not depend on which thread, queue slot or backend computes it.
#pragma once
#include "common.h"

namespace wp {

// Dimensions used per bounce. Each bounce owns kDimsPerBounce consecutive dimensions.
enum Dim : uint32_t {
    kDimPixelX = 0,
    kDimPixelY,
    kDimLensU,
    kDimLensV,
    kDimLightSelect,
    kDimLightU,
    kDimLightV,
    kDimBsdfLobe,
    kDimBsdfU,
    kDimBsdfV,
    kDimRoulette,
    kDimLayerWalk,  // the key of a layered material's random walks (kernels/layered.h)
    kDimsPerBounce = 16
};

// Bias-minimised 32-bit integer hash (Chris Wellons' lowbias32 / "triple32" family).
WP_HD uint32_t hash32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

// Key of one path: pixel and sample index, mixed with the render seed.
WP_HD uint32_t path_key(uint32_t pixel, uint32_t sample, uint32_t seed) {
    return hash32(pixel ^ hash32(sample ^ hash32(seed + 0x9e3779b9u)));
}

WP_HD float u01(uint32_t bits) { return float(bits >> 8) * (1.0f / 16777216.0f); }

// 32 random bits for (path key, bounce, dimension).
WP_HD uint32_t rand_bits(uint32_t key, uint32_t bounce, uint32_t dim) {
    return hash32(key ^ hash32(bounce * kDimsPerBounce + dim + 0x632be5abu));
}
// Uniform float in [0,1) for (path key, bounce, dimension).
WP_HD float rand01(uint32_t key, uint32_t bounce, uint32_t dim) { return u01(rand_bits(key, bounce, dim)); }

}  // namespace wp
