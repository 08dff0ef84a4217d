// The Mitsuba 3 reference of the Cornell box (tests/data/cornell-reference-mitsuba.exr, 1024x1024), for the tests
// that compare renders with it: the reference as RGB, averaged down to a smaller square image, and the relative MSE
// of an image against it.
#pragma once
#include <gtest/gtest.h>
#include <tinyexr.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "host/render/render.h"
#include "kernels/aov.h"
#include "tests/cornell_scene.h"

namespace wp_test {

struct Reference {
    int w = 0, h = 0;
    std::vector<float> rgb;
};

inline Reference load_reference() {
    Reference r;
    float* px = nullptr;
    const char* err = nullptr;
    std::string path = source_dir() + "/tests/data/cornell-reference-mitsuba.exr";
    if (LoadEXR(&px, &r.w, &r.h, path.c_str(), &err) != TINYEXR_SUCCESS) {
        ADD_FAILURE() << (err ? err : "cannot read the reference");
        return r;
    }
    r.rgb.resize(size_t(r.w) * r.h * 3);
    for (int i = 0; i < r.w * r.h; ++i)
        for (int c = 0; c < 3; ++c) r.rgb[3 * i + c] = px[4 * i + c];
    free(px);
    return r;
}

// The reference's mean per channel over its whole image.
inline std::array<double, 3> reference_means() {
    const Reference ref = load_reference();
    std::array<double, 3> m{0, 0, 0};
    for (int i = 0; i < ref.w * ref.h; ++i)
        for (int c = 0; c < 3; ++c) m[c] += ref.rgb[3 * size_t(i) + c];
    for (double& v : m) v /= std::max(1.0, double(ref.w) * ref.h);
    return m;
}

// An image's mean per channel.
inline std::array<double, 3> image_means(const Image& img) {
    std::array<double, 3> m{0, 0, 0};
    const size_t n = img.rgb.size() / 3;
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c) m[c] += img.rgb[3 * i + c];
    for (double& v : m) v /= std::max<size_t>(n, 1);
    return m;
}

// A W x W render of the box against the reference: every channel's mean within 2% of Mitsuba's (printed with
// `what`), no non-finite sample, and the red wall on the left as in the reference (a column near the left edge
// more than twice as red as green).
inline void expect_cornell_matches_reference(const Image& img, int W, const char* what) {
    const std::array<double, 3> ref = reference_means();
    ASSERT_GT(ref[0], 0.1);  // the reference is a real image
    EXPECT_EQ(img.nonfinite, 0u) << what;
    const std::array<double, 3> mean = image_means(img);
    for (int c = 0; c < 3; ++c) {
        std::printf("channel %d: %s %.5f  mitsuba %.5f  (%+.2f%%)\n", c, what, mean[c], ref[c],
                    100 * (mean[c] / ref[c] - 1));
        EXPECT_NEAR(mean[c], ref[c], 0.02 * ref[c]) << what << ", channel " << c;
    }
    double left_r = 0, left_g = 0;  // a column near the left edge, over the walls' middle half
    for (int y = W / 4; y < 3 * W / 4; ++y) {
        left_r += img.rgb[3 * (size_t(y) * W + W / 20) + 0];
        left_g += img.rgb[3 * (size_t(y) * W + W / 20) + 1];
    }
    EXPECT_GT(left_r, 2 * left_g) << what;
}

// The reference averaged over blocks of (1024 / W)^2 pixels: a W x W RGB image.
inline std::vector<float> reference_blocks(const Reference& ref, int W) {
    const int f = ref.w / W;
    std::vector<float> small(size_t(W) * W * 3, 0.0f);
    for (int y = 0; y < W * f; ++y)
        for (int x = 0; x < W * f; ++x)
            for (int c = 0; c < 3; ++c)
                small[3 * ((y / f) * W + x / f) + c] += ref.rgb[3 * (size_t(y) * ref.w + x) + c] / float(f * f);
    return small;
}

// The denoiser tests' render (CPU: tests/test_filter_aov.cpp, GPU: tests/test_gpu.cpp): the Cornell box at W x W,
// 16 spp, Mitsuba's depth of 65, seed 1, with the albedo and normal AOVs the denoiser takes as guides.
struct DenoiseCase {
    RenderParams rp;
    RenderOptions o;
};
inline DenoiseCase denoise_case(int W) {
    DenoiseCase c;
    c.rp.width = c.rp.height = W;
    c.rp.spp = 16;
    c.rp.max_depth = 65;
    c.rp.seed = 1;
    c.o.aovs = kAovAlbedo | kAovNormal;
    return c;
}

// Relative MSE of img against `to` (same size), with 1e-2 in the denominator against division by black.
inline double relmse(const std::vector<float>& img, const std::vector<float>& to) {
    double s = 0;
    for (size_t i = 0; i < to.size(); ++i) {
        double e = img[i] - to[i];
        s += e * e / (double(to[i]) * to[i] + 1e-2);
    }
    return s / double(to.size());
}

}  // namespace wp_test
