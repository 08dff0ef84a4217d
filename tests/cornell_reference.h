// The Mitsuba 3 reference of the Cornell box (tests/data/cornell-reference-mitsuba.exr, 1024x1024), for the tests
// that compare renders with it: the reference as RGB, averaged down to a smaller square image, and the relative MSE
// of an image against it.
#pragma once
#include <gtest/gtest.h>
#include <tinyexr.h>
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
