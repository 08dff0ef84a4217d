// The samplers of kernels/rng.h: the Owen-scrambled Sobol sampler's construction (its second dimension, the nested
// scramble), its stratification and the uniformity of its projections (chi-square, with negative controls), and the
// convergence order of its renders on the CPU against the independent sampler's (a directly lit Lambert plane and
// the Cornell box).
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>
#include "host/render/render.h"
#include "kernels/rng.h"
#include "kernels/stages.h"
#include "tests/chi2.h"
#include "tests/cornell_scene.h"
using namespace wp;
using namespace wp_test;

namespace {

// The second Sobol dimension at index i, from its direction numbers (v_0 = 2^31, v_b = v_(b-1) ^ (v_(b-1) >> 1)).
uint32_t sobol_dim1_reference(uint32_t i) {
    uint32_t x = 0, v = 0x80000000u;
    for (; i; i >>= 1, v ^= v >> 1)
        if (i & 1u) x ^= v;
    return x;
}

// A (bounce, dimension) pair of one 2-D group of the Sobol sampler.
struct DimPair {
    uint32_t bounce, a, b;
};
const DimPair kPairs[] = {{0, kDimPixelX, kDimPixelY}, {0, kDimLensU, kDimLensV},          {1, kDimLightU, kDimLightV},
                          {1, kDimBsdfU, kDimBsdfV},   {2, kDimLightSelect, kDimBsdfLobe}, {5, kDimBsdfU, kDimBsdfV}};

// The sampler's number for (pixel, sample, bounce, dim), as the stages draw it.
float draw(uint32_t sampler, uint32_t pixel, uint32_t sample, uint32_t bounce, uint32_t dim, uint32_t seed = 3) {
    return rand01(path_rng(pixel, sample, seed, sampler), bounce, dim);
}

// Whether each of the n^2... cells of the (a, b) elementary intervals of 2^a x 2^b holds exactly one of the points.
bool one_per_box(const std::vector<float>& x, const std::vector<float>& y, int a, int b) {
    std::vector<int> count(size_t(1) << (a + b), 0);
    for (size_t i = 0; i < x.size(); ++i) {
        const uint32_t cx = uint32_t(x[i] * float(1u << a)), cy = uint32_t(y[i] * float(1u << b));
        if (++count[(size_t(cy) << a) | cx] > 1) return false;
    }
    return true;
}

// Chi-square of values in [0, 1) against the uniform density over `cells` equal cells; true when it passes.
bool uniform_1d(const std::vector<float>& v, int cells) {
    std::vector<double> obs(size_t(cells), 0.0), expected(size_t(cells), double(v.size()) / cells);
    for (float x : v) obs[std::min(size_t(cells) - 1, size_t(x * cells))] += 1.0;
    const Chi2 c = pearson_chi2(obs, expected);
    return c.stat < chi2_crit(c.dof);
}
bool uniform_2d(const std::vector<float>& x, const std::vector<float>& y, int side) {
    const size_t n = size_t(side);
    std::vector<double> obs(n * n, 0.0), expected(n * n, double(x.size()) / double(n * n));
    for (size_t i = 0; i < x.size(); ++i)
        obs[std::min(n - 1, size_t(y[i] * side)) * n + std::min(n - 1, size_t(x[i] * side))] += 1.0;
    const Chi2 c = pearson_chi2(obs, expected);
    return c.stat < chi2_crit(c.dof);
}

}  // namespace

TEST(Sampler, SobolSecondDimensionMatchesItsDirectionNumbers) {
    for (uint32_t i = 0; i < 70000; ++i)
        ASSERT_EQ(reverse_bits32(sobol_dim1_reversed(i)), sobol_dim1_reference(i)) << "index " << i;
    for (uint32_t i : {0x80000000u, 0xffffffffu, 0x12345678u, 0xdeadbeefu})
        EXPECT_EQ(reverse_bits32(sobol_dim1_reversed(i)), sobol_dim1_reference(i)) << "index " << i;
}

// Burley's nested uniform scramble maps each aligned block of 2^k indices onto an aligned block, one to one (what
// keeps every aligned block of a pixel's samples a net once the index is shuffled).
TEST(Sampler, NestedScrambleMapsAlignedBlocksOntoAlignedBlocks) {
    for (uint32_t seed : {0u, 1u, 0x9e3779b9u, hash32(5)}) {
        for (uint32_t k : {1u, 4u, 8u}) {
            for (uint32_t block : {0u, 1u, 77u}) {
                std::vector<bool> seen(size_t(1) << k, false);
                const uint32_t first = nested_uniform_scramble(block << k, seed) >> k;
                for (uint32_t i = 0; i < (1u << k); ++i) {
                    const uint32_t s = nested_uniform_scramble((block << k) | i, seed);
                    // (the sampler's form: the index given reversed, as PathRng keeps it)
                    ASSERT_EQ(sobol_shuffled_index(seed, reverse_bits32((block << k) | i)), s);
                    ASSERT_EQ(s >> k, first) << "seed " << seed << " k " << k;
                    ASSERT_FALSE(seen[s & ((1u << k) - 1)]) << "seed " << seed << " k " << k;
                    seen[s & ((1u << k) - 1)] = true;
                }
            }
        }
    }
}

// For 2^k samples of a pixel (the first ones, and an aligned block further on: a resumed render's), each of the 2^k
// elementary intervals of a dimension holds exactly one point, and each pair of a group is a (0,k,2)-net (every
// 2^a x 2^(k-a) box one point). The independent sampler, the negative control, does not stratify.
TEST(Sampler, SobolStratifiesEveryAlignedBlockOfSamples) {
    for (uint32_t pixel : {0u, 1u, 4095u, 123457u}) {
        for (const DimPair& d : kPairs) {
            for (int k : {2, 5, 8, 10}) {
                for (uint32_t start : {0u, 3u << k}) {
                    std::vector<float> x, y;
                    for (uint32_t s = start; s < start + (1u << k); ++s) {
                        x.push_back(draw(kSamplerSobol, pixel, s, d.bounce, d.a));
                        y.push_back(draw(kSamplerSobol, pixel, s, d.bounce, d.b));
                    }
                    for (int a = 0; a <= k; ++a)
                        EXPECT_TRUE(one_per_box(x, y, a, k - a))
                            << "pixel " << pixel << " bounce " << d.bounce << " dims " << d.a << "," << d.b << " k "
                            << k << " start " << start << " box " << a << "," << k - a;
                }
            }
        }
        std::vector<float> r;  // Russian roulette, the group's single dimension
        for (uint32_t s = 0; s < 256; ++s) r.push_back(draw(kSamplerSobol, pixel, s, 3, kDimRoulette));
        EXPECT_TRUE(one_per_box(r, std::vector<float>(r.size(), 0.0f), 8, 0)) << "pixel " << pixel;
    }
    std::vector<float> x, y;
    for (uint32_t s = 0; s < 256; ++s) {
        x.push_back(draw(kSamplerIndependent, 7, s, 1, kDimLightU));
        y.push_back(draw(kSamplerIndependent, 7, s, 1, kDimLightV));
    }
    EXPECT_FALSE(one_per_box(x, y, 8, 0));
    EXPECT_FALSE(one_per_box(x, y, 4, 4));
}

// The 1-D and 2-D projections are uniform (chi-square): over pixels (each pixel's randomisation: its first samples),
// and between the groups of one pixel (the padding: a pixel's x against its light sample's u, two bounces' BSDF
// samples). Negative controls: the points of one group against themselves (a diagonal) and an unshuffled pair (both
// groups with the same stream) fail.
TEST(Sampler, SobolProjectionsAreUniform) {
    for (const DimPair& d : kPairs) {
        std::vector<float> x, y;
        for (uint32_t pixel = 0; pixel < 8192; ++pixel)
            for (uint32_t s = 0; s < 4; ++s) {
                x.push_back(draw(kSamplerSobol, pixel * 31 + 5, s, d.bounce, d.a));
                y.push_back(draw(kSamplerSobol, pixel * 31 + 5, s, d.bounce, d.b));
            }
        EXPECT_TRUE(uniform_1d(x, 64)) << "bounce " << d.bounce << " dim " << d.a;
        EXPECT_TRUE(uniform_1d(y, 64)) << "bounce " << d.bounce << " dim " << d.b;
        EXPECT_TRUE(uniform_2d(x, y, 16)) << "bounce " << d.bounce << " dims " << d.a << "," << d.b;
    }
    // the groups of one pixel against each other, over its samples
    auto pair_of = [](uint32_t pixel, uint32_t b0, uint32_t d0, uint32_t b1, uint32_t d1, uint32_t n) {
        std::vector<float> x, y;
        for (uint32_t s = 0; s < n; ++s) {
            x.push_back(draw(kSamplerSobol, pixel, s, b0, d0));
            y.push_back(draw(kSamplerSobol, pixel, s, b1, d1));
        }
        return std::make_pair(x, y);
    };
    for (uint32_t pixel : {0u, 99u, 65536u}) {
        auto [x0, u1] = pair_of(pixel, 0, kDimPixelX, 1, kDimLightU, 16384);
        EXPECT_TRUE(uniform_2d(x0, u1, 16)) << "pixel " << pixel;
        auto [b1, b2] = pair_of(pixel, 1, kDimBsdfV, 2, kDimBsdfV, 16384);
        EXPECT_TRUE(uniform_2d(b1, b2, 16)) << "pixel " << pixel;
        auto [l, b] = pair_of(pixel, 1, kDimLightU, 1, kDimBsdfU, 16384);
        EXPECT_TRUE(uniform_2d(l, b, 16)) << "pixel " << pixel;
        auto [same0, same1] = pair_of(pixel, 1, kDimLightU, 1, kDimLightU, 16384);  // control: a diagonal
        EXPECT_FALSE(uniform_2d(same0, same1, 16)) << "pixel " << pixel;
    }
    // control: two groups drawn from one stream (no shuffle of the index between them) are far from independent
    std::vector<float> x, y;
    const uint32_t h = hash32(12345);
    for (uint32_t s = 0; s < 16384; ++s) {
        const uint32_t index = nested_uniform_scramble(s, h);
        x.push_back(u01(reverse_bits32(laine_karras_permutation(index, hash32(h + 1)))));
        y.push_back(u01(reverse_bits32(laine_karras_permutation(index, hash32(h + 2)))));
    }
    EXPECT_TRUE(uniform_1d(x, 64));
    EXPECT_FALSE(uniform_2d(x, y, 16));
}

// The number of (pixel, sample, bounce, dimension) depends on those, the seed and the sampler alone.
// The kernels' instances (kernels/stages.h): those without kWithClampCrop are compiled for the default sampler alone,
// and a render with the other sampler asks for the instances with it, as a clamp or a crop does.
TEST(Sampler, TheOtherSamplerTakesTheOptionsInstances) {
    RenderParams rp;
    EXPECT_EQ(rp.sampler, uint32_t(kSamplerSobol));
    EXPECT_FALSE(needs_clamp_crop(rp));
    EXPECT_EQ(path_sampler<kFeaturesGeneral>(rp), uint32_t(kSamplerSobol));
    rp.sampler = kSamplerIndependent;
    EXPECT_TRUE(needs_clamp_crop(rp));
    EXPECT_EQ(path_sampler<kFeaturesGeneral>(rp), uint32_t(kSamplerSobol));
    EXPECT_EQ(path_sampler<kFeaturesGeneral | kWithClampCrop>(rp), uint32_t(kSamplerIndependent));
    EXPECT_EQ(path_sampler<kFeaturesHost>(rp), uint32_t(kSamplerIndependent));  // the CPU's: every option
    RenderParams clamped, cropped;
    clamped.clamp_indirect = 10.0f;
    cropped.full_width = 64;
    EXPECT_TRUE(needs_clamp_crop(clamped));
    EXPECT_TRUE(needs_clamp_crop(cropped));
}

TEST(Sampler, NumbersDependOnTheirKeyAndTheSamplerAlone) {
    EXPECT_EQ(draw(kSamplerSobol, 10, 20, 1, kDimBsdfU), draw(kSamplerSobol, 10, 20, 1, kDimBsdfU));
    EXPECT_NE(draw(kSamplerSobol, 10, 20, 1, kDimBsdfU), draw(kSamplerSobol, 10, 20, 1, kDimBsdfU, 4));
    EXPECT_NE(draw(kSamplerSobol, 10, 20, 1, kDimBsdfU), draw(kSamplerSobol, 11, 20, 1, kDimBsdfU));
    EXPECT_NE(draw(kSamplerSobol, 10, 20, 1, kDimBsdfU), draw(kSamplerSobol, 10, 20, 2, kDimBsdfU));
    EXPECT_NE(draw(kSamplerSobol, 10, 20, 1, kDimBsdfU), draw(kSamplerIndependent, 10, 20, 1, kDimBsdfU));
    // the independent sampler is the hash it always was (films made before the sampler setting resume bit for bit)
    EXPECT_EQ(draw(kSamplerIndependent, 10, 20, 1, kDimBsdfU, 3), rand01(path_key(10, 20, 3), 1, kDimBsdfU));
    EXPECT_EQ(rand_bits(path_rng(10, 20, 3, kSamplerIndependent), 2, kDimLayerWalk),
              rand_bits(path_key(10, 20, 3), 2, kDimLayerWalk));
    // rand2: the two numbers of a group, rand01's each
    for (uint32_t sampler : {uint32_t(kSamplerIndependent), uint32_t(kSamplerSobol)})
        for (uint32_t sample : {0u, 5u, 1000u}) {
            const PathRng k = path_rng(10, sample, 3, sampler);
            for (const DimPair& d : kPairs) {
                const vec2 u = rand2(k, d.bounce, d.a, d.b);
                EXPECT_EQ(u.x, rand01(k, d.bounce, d.a)) << "sampler " << sampler << " dim " << d.a;
                EXPECT_EQ(u.y, rand01(k, d.bounce, d.b)) << "sampler " << sampler << " dim " << d.b;
            }
        }
    // the layered walks' keys stay hashed: a different key per sample
    EXPECT_NE(rand_bits(path_rng(10, 20, 3, kSamplerSobol), 2, kDimLayerWalk),
              rand_bits(path_rng(10, 21, 3, kSamplerSobol), 2, kDimLayerWalk));
}

// ------------------------------------------------------------------------------------------------ convergence
namespace {

// Least-squares slope of log(mse) against log(spp).
double loglog_slope(const std::vector<double>& spp, const std::vector<double>& mse) {
    double mx = 0, my = 0;
    for (size_t i = 0; i < spp.size(); ++i) mx += std::log(spp[i]), my += std::log(mse[i]);
    mx /= spp.size(), my /= spp.size();
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < spp.size(); ++i) {
        sxy += (std::log(spp[i]) - mx) * (std::log(mse[i]) - my);
        sxx += (std::log(spp[i]) - mx) * (std::log(spp[i]) - mx);
    }
    return sxy / sxx;
}

// Mean over the image's values of (render - reference)^2, over `seeds` renders of rp at each spp.
std::vector<double> mse_per_spp(const SceneData& sd, RenderParams rp, const std::vector<double>& spps,
                                const std::vector<float>& ref, uint32_t seeds) {
    std::vector<double> mse;
    for (double spp : spps) {
        double e = 0;
        for (uint32_t seed = 0; seed < seeds; ++seed) {
            rp.spp = uint32_t(spp);
            rp.seed = 1000 + seed;
            const Image img = render_cpu_megakernel(sd, rp);
            for (size_t i = 0; i < ref.size(); ++i) e += (double(img.rgb[i]) - ref[i]) * (double(img.rgb[i]) - ref[i]);
        }
        mse.push_back(e / (double(ref.size()) * seeds));
    }
    return mse;
}

// Both samplers' MSE against ref at 16, 64, 256 and 1024 spp (seeds renders each) and their log-log slopes, printed.
struct Convergence {
    std::vector<double> sobol, independent;
    double slope_sobol, slope_independent;
};
Convergence convergence(const char* what, const SceneData& sd, RenderParams rp, const std::vector<float>& ref,
                        int seeds) {
    const std::vector<double> spps{16, 64, 256, 1024};
    Convergence c;
    rp.sampler = kSamplerSobol;
    c.sobol = mse_per_spp(sd, rp, spps, ref, seeds);
    rp.sampler = kSamplerIndependent;
    c.independent = mse_per_spp(sd, rp, spps, ref, seeds);
    c.slope_sobol = loglog_slope(spps, c.sobol);
    c.slope_independent = loglog_slope(spps, c.independent);
    for (size_t k = 0; k < spps.size(); ++k)
        std::printf("%s %4.0f spp: MSE sobol %.3e independent %.3e\n", what, spps[k], c.sobol[k], c.independent[k]);
    std::printf("slopes: sobol %.2f independent %.2f\n", c.slope_sobol, c.slope_independent);
    return c;
}

// A Lambert plane lit directly by a quad light above it (one bounce, light sampling with MIS), seen from above: 8x8
// pixels all on the plane.
SceneData lit_plane() {
    SceneBuilder b;
    b.quad(vec3(-2, 0, -2), vec3(0, 0, 4), vec3(4, 0, 0), b.lambert(vec3(0.5f)));
    b.quad(vec3(-0.8f, 1.5f, -0.3f), vec3(1.6f, 0, 0), vec3(0, 0, 0.6f), b.lambert(vec3(0.0f)), vec3(4.0f));
    b.set_camera(make_camera(vec3(0.6f, 1.0f, 0.3f), vec3(0.5f, 0, 0.2f), vec3(0, 0, -1), 20.0f, 1.0f));
    return b.build();
}

}  // namespace

// The MSE of a directly lit Lambert plane's pixels falls faster than 1/N with the Sobol sampler (16..1024 spp, against
// a 65536-spp render); with the independent sampler, the negative control, as 1/N.
TEST(SamplerConvergence, DirectlyLitPlaneFallsFasterThanOneOverN) {
    const SceneData sd = lit_plane();
    RenderParams rp;
    rp.width = rp.height = 8;
    rp.max_depth = 2;  // the camera's segment and the light's: direct light, light and BSDF samples under MIS
    rp.spp = 65536;
    rp.seed = 99;
    const std::vector<float> ref = render_cpu_megakernel(sd, rp).rgb;
    for (float v : ref) ASSERT_GT(v, 0.05f);  // every pixel on the lit plane
    const Convergence c = convergence("lit plane", sd, rp, ref, 4);
    const std::vector<double>&sobol = c.sobol, &independent = c.independent;
    const double s = c.slope_sobol, i = c.slope_independent;
    EXPECT_LT(s, -1.3);
    EXPECT_GT(i, -1.15);
    EXPECT_LT(i, -0.85);
    EXPECT_LT(sobol[1], 0.5 * independent[1]);
}

// The Cornell box's image (16x16, max depth 65) likewise: its MSE against an 8192-spp render falls faster than 1/N
// with the Sobol sampler, as 1/N with the independent one.
TEST(SamplerConvergence, CornellBoxFallsFasterThanOneOverN) {
    const SceneData sd = cornell();
    RenderParams rp;
    rp.width = rp.height = 16;
    rp.max_depth = 65;
    rp.spp = 8192;
    rp.seed = 99;
    const std::vector<float> ref = render_cpu_megakernel(sd, rp).rgb;
    const Convergence c = convergence("Cornell", sd, rp, ref, 2);
    const std::vector<double>&sobol = c.sobol, &independent = c.independent;
    const double s = c.slope_sobol, i = c.slope_independent;
    EXPECT_LT(s, -1.1);
    EXPECT_GT(i, -1.15);
    EXPECT_LT(i, -0.85);
    EXPECT_LT(sobol[1], 0.8 * independent[1]);
}
