// Counter-based random numbers keyed by (pixel, sample, bounce, dimension): the value a path draws does not depend
// on which thread, queue slot or backend computes it, only on those four, the render's seed and its sampler
// (RenderParams::sampler, the `sampler` setting):
//   independent  every number a hash of the four (white noise: the error falls as 1/N);
//   sobol        Owen-scrambled Sobol points (Burley 2020, "Practical Hash-based Owen Scrambling", JCGT 9(4); as
//                Cycles' Sobol-Burley and pbrt-v4's PaddedSobolSampler), padded in 2-D groups: each pair of a
//                bounce's dimensions (the pixel's x and y, the lens' u and v, the light sample's u and v, the BSDF
//                sample's u and v, ...) is the first two Sobol dimensions at a sample index shuffled per (pixel,
//                group, seed), each dimension with its own nested uniform scramble. Each pair is then a (0,2)-sequence
//                in the pixel's samples (every aligned block of 2^k samples a (0,k,2)-net), so a smooth integrand's
//                error falls faster than 1/N, while the shuffles leave the pairs, the bounces and the pixels
//                uncorrelated (unbiased, as the independent sampler). The sample index is the pixel's own (not
//                the render's sample count): a film of 48 spp stays the prefix of the render of 64.
#pragma once
#include "common.h"

namespace wp {

// Dimensions used per bounce. Each bounce owns kDimsPerBounce consecutive dimensions (of the independent sampler's
// hash; the Sobol sampler pairs them, sobol_group below). The numbers are the independent sampler's: unchanged, so
// that films made before the Sobol sampler resume bit for bit.
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
    kDimLayerWalk,  // the key of a layered material's random walks (kernels/layered.h): hashed by every sampler
    kDimsPerBounce = 16
};

// The samplers (RenderParams::sampler), their names in the settings "independent sobol" (kernels/render_params.h).
enum SamplerType : uint32_t { kSamplerIndependent = 0, kSamplerSobol = 1 };

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

// ---- Owen-scrambled Sobol (Burley 2020) ----

WP_HD uint32_t reverse_bits32(uint32_t x) {
#if defined(__CUDA_ARCH__)
    return __brev(x);
#else
    x = __builtin_bswap32(x);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    return ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
#endif
}

// Laine and Karras' hash-based Owen scrambling, on bits reversed (bit i of the result depends on bits 0..i of x
// only: in the reversed order, each digit is permuted by a hash of the digits before it), with the constants of
// Vegdahl's improved hash that pbrt-v4 (FastOwenScrambler) and Cycles (reversed_bit_owen) use in place of Burley's
// first ones.
WP_HD uint32_t laine_karras_permutation(uint32_t x, uint32_t seed) {
    x ^= x * 0x3d20adeau;
    x += seed;
    x *= (seed >> 16) | 1u;
    x ^= x * 0x05526c56u;
    x ^= x * 0x53a22864u;
    return x;
}
// Burley's nested uniform scramble: an Owen scramble of x's binary digits from the most significant one down (a
// random permutation of [0, 2^32) that maps each aligned block of 2^k values onto one).
WP_HD uint32_t nested_uniform_scramble(uint32_t x, uint32_t seed) {
    return reverse_bits32(laine_karras_permutation(reverse_bits32(x), seed));
}

// The first two Sobol dimensions at index i, with their bits reversed (bit j is the coordinate's digit of weight
// 2^-(j+1)). Dimension 0 (van der Corput) reversed is i itself. Dimension 1's direction numbers are the rows of
// Pascal's triangle mod 2 (v_b = v_(b-1) ^ (v_(b-1) >> 1), digit j of v_b set iff (j & b) == j, Lucas), so its
// reversed digit j is the parity of i's bits b with (j & b) == j: the superset sum over the five bits of j, five
// shifts, masks and xors.
WP_HD uint32_t sobol_dim1_reversed(uint32_t i) {
    i ^= (i >> 1) & 0x55555555u;
    i ^= (i >> 2) & 0x33333333u;
    i ^= (i >> 4) & 0x0f0f0f0fu;
    i ^= (i >> 8) & 0x00ff00ffu;
    i ^= (i >> 16) & 0x0000ffffu;
    return i;
}

// The shuffled Sobol index of sample index `sample` (given with its bits reversed, as PathRng keeps it) in stream `h`
// (one (pixel, group, seed)): Burley's nested uniform scramble of the index, which maps each aligned block of 2^k
// samples onto an aligned block of 2^k Sobol points (a (0,k,2)-net of the first two dimensions).
WP_HD uint32_t sobol_shuffled_index(uint32_t h, uint32_t sample_reversed) {
    return reverse_bits32(laine_karras_permutation(sample_reversed, h));
}
// Dimension `component` (0 or 1) of Sobol point `index` of stream h, nested-uniform scrambled by a seed of its own,
// as 32 bits: with the index's shuffle, Burley's shuffled_scrambled_sobol2d. (In the reversed order the scramble is
// one Laine-Karras permutation.)
WP_HD uint32_t sobol_owen_bits(uint32_t h, uint32_t index, uint32_t component) {
    const uint32_t rev = component == 0 ? index : sobol_dim1_reversed(index);
    return reverse_bits32(laine_karras_permutation(rev, hash32(h + 0x9e3779b9u * (component + 1u))));
}

// The Sobol sampler's 2-D groups of a bounce: each dimension's group and its component in it (0 or 1). Pairs of what
// is sampled together: the pixel's x and y, the lens' u and v (bounce 0); the light sample's u and v, the BSDF
// sample's u and v, the light's choice with the BSDF's lobe (both discrete choices), Russian roulette alone.
constexpr uint32_t kSobolGroupsPerBounce = 8;
WP_HD constexpr uint32_t sobol_group(uint32_t dim) {
    switch (dim) {
        case kDimPixelX:
        case kDimPixelY: return 0;
        case kDimLensU:
        case kDimLensV: return 1;
        case kDimLightU:
        case kDimLightV: return 2;
        case kDimBsdfU:
        case kDimBsdfV: return 3;
        case kDimLightSelect:
        case kDimBsdfLobe: return 4;
        case kDimRoulette: return 5;
        default: return 6;  // (none today but kDimLayerWalk, which no sampler pairs)
    }
}
WP_HD constexpr uint32_t sobol_component(uint32_t dim) {
    return dim == kDimPixelY || dim == kDimLensV || dim == kDimLightV || dim == kDimBsdfV || dim == kDimBsdfLobe;
}

// A path's random numbers: the key its sampler needs, made once per stage from (key pixel, sample, seed).
struct PathRng {
    uint32_t key;      // independent: path_key(pixel, sample, seed); sobol: the pixel's key (pixel, seed)
    uint32_t sample;   // sobol: the pixel's sample index, its bits reversed (what the index's shuffle takes)
    uint32_t sampler;  // SamplerType
};
WP_HD PathRng path_rng(uint32_t pixel, uint32_t sample, uint32_t seed, uint32_t sampler) {
    if (sampler == kSamplerSobol)
        return PathRng{hash32(pixel ^ hash32(seed + 0x7f4a7c15u)), reverse_bits32(sample), sampler};
    return PathRng{path_key(pixel, sample, seed), sample, kSamplerIndependent};
}
// The stream of a path's 2-D group: (pixel, group, seed).
WP_HD uint32_t sobol_stream(const PathRng& r, uint32_t bounce, uint32_t dim) {
    return hash32(r.key ^ ((bounce * kSobolGroupsPerBounce + sobol_group(dim)) * 0x9e3779b9u + 0x68e31da4u));
}
// 32 hashed bits for (path, bounce, dimension) whatever the sampler: the layered material's walk key
// (kDimLayerWalk). A walk draws an unbounded number of numbers per bounce (nsamples walks of up to maxdepth steps,
// each a few draws: kernels/layered.h's WalkRng), more than any fixed set of Sobol dimensions, so it keeps a hashed
// stream of its own; its first numbers (the BSDF's lobe and direction) are the sampler's.
WP_HD uint32_t rand_bits(const PathRng& r, uint32_t bounce, uint32_t dim) {
    if (r.sampler == kSamplerSobol) return rand_bits(hash32(r.key ^ hash32(r.sample + 0x2545f491u)), bounce, dim);
    return rand_bits(r.key, bounce, dim);
}
// The 32 bits of (path, bounce, dimension) of the path's sampler.
WP_HD uint32_t sample_bits(const PathRng& r, uint32_t bounce, uint32_t dim) {
    if (r.sampler == kSamplerSobol) {
        const uint32_t h = sobol_stream(r, bounce, dim);
        return sobol_owen_bits(h, sobol_shuffled_index(h, r.sample), sobol_component(dim));
    }
    return rand_bits(r.key, bounce, dim);
}
// Uniform float in [0,1) for (path, bounce, dimension) of the path's sampler.
WP_HD float rand01(const PathRng& r, uint32_t bounce, uint32_t dim) { return u01(sample_bits(r, bounce, dim)); }
// The two numbers of dimensions a and b of one group (components 0 and 1: kDimPixelX and Y, kDimLensU and V,
// kDimLightU and V, kDimBsdfU and V), rand01's each, with the group's stream and shuffled index computed once.
WP_HD vec2 rand2(const PathRng& r, uint32_t bounce, uint32_t a, uint32_t b) {
    if (r.sampler == kSamplerSobol) {
        const uint32_t h = sobol_stream(r, bounce, a), index = sobol_shuffled_index(h, r.sample);
        return vec2(u01(sobol_owen_bits(h, index, 0)), u01(sobol_owen_bits(h, index, 1)));
    }
    return vec2(u01(rand_bits(r.key, bounce, a)), u01(rand_bits(r.key, bounce, b)));
}

}  // namespace wp
