// Bitterli's Cornell box, built from the to_world matrices of its Mitsuba 3 file
// (scenes/cornell-box/scene-mitsuba.xml), rendered on the CPU and compared with Mitsuba's render.
#include <gtest/gtest.h>
#include <tinyexr.h>
#include "host/render/render.h"
#include "tests/cornell_scene.h"
using namespace wp;

using namespace wp_test;

TEST(Cornell, CpuMeanMatchesMitsubaReference) {
    float* ref = nullptr;
    int w = 0, h = 0;
    const char* err = nullptr;
    std::string path = source_dir() + "/tests/data/cornell-reference-mitsuba.exr";
    ASSERT_EQ(LoadEXR(&ref, &w, &h, path.c_str(), &err), TINYEXR_SUCCESS) << (err ? err : "");
    double rmean[3] = {0, 0, 0};
    for (int i = 0; i < w * h; ++i)
        for (int c = 0; c < 3; ++c) rmean[c] += ref[4 * i + c];
    free(ref);
    for (double& m : rmean) m /= double(w) * h;
    ASSERT_GT(rmean[0], 0.1);  // the reference is a real image

    RenderParams rp;
    rp.width = rp.height = 128;
    rp.spp = 64;
    rp.max_depth = 65;  // Mitsuba's max_depth for Tungsten's 64 bounces
    rp.seed = 1;
    Image img = render_cpu_megakernel(cornell(), rp);
    EXPECT_EQ(img.nonfinite, 0u);
    double mean[3] = {0, 0, 0};
    for (uint32_t i = 0; i < rp.num_pixels(); ++i)
        for (int c = 0; c < 3; ++c) mean[c] += img.rgb[3 * i + c];
    for (int c = 0; c < 3; ++c) {
        mean[c] /= rp.num_pixels();
        std::printf("channel %d: wavepath %.5f  mitsuba %.5f  (%+.2f%%)\n", c, mean[c], rmean[c],
                    100 * (mean[c] / rmean[c] - 1));
        EXPECT_NEAR(mean[c], rmean[c], 0.02 * rmean[c]) << "channel " << c;
    }
    // The red wall is on the left, the green wall on the right, as in the reference.
    double left_r = 0, left_g = 0;
    for (uint32_t y = 32; y < 96; ++y) {
        left_r += img.rgb[3 * (y * 128 + 6) + 0];
        left_g += img.rgb[3 * (y * 128 + 6) + 1];
    }
    EXPECT_GT(left_r, 2 * left_g);
}
