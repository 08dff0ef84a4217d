// GPU-labelled tests: skip with a message where no GPU is present.
#include <gtest/gtest.h>
#include <tinyexr.h>
#include <cstdio>
#include "host/render_gpu.h"
#include "tests/cornell_scene.h"
using namespace wp_test;

#define REQUIRE_GPU()                                                          \
    do {                                                                       \
        if (!wp::gpu_available()) GTEST_SKIP() << "no CUDA GPU present: skipped"; \
    } while (0)

TEST(Gpu, WhiteFurnaceMegakernel) {
    REQUIRE_GPU();
    SceneBuilder b;
    MatHandle white = b.lambert(vec3(1.0f));
    MatHandle black = b.lambert(vec3(0.0f));
    b.sphere(vec3(0), 1.0f, white);
    b.sphere(vec3(0), 10.0f, black, vec3(1.0f), true);
    b.set_camera(make_camera(vec3(0, 0, 4), vec3(0), vec3(0, 1, 0), 40.0f, 1.0f));
    RenderParams rp;
    rp.width = rp.height = 64;
    rp.spp = 8192;
    rp.max_depth = 1000;
    rp.seed = 7;
    Image img = render_gpu_megakernel(b.build(), rp);
    EXPECT_EQ(img.nonfinite, 0u);
    double mean = 0;
    for (size_t i = 0; i < img.rgb.size(); ++i) {
        EXPECT_NEAR(img.rgb[i], 1.0f, 0.01f) << "value " << i;
        mean += img.rgb[i];
    }
    EXPECT_NEAR(mean / img.rgb.size(), 1.0, 0.002);
}

TEST(Gpu, CornellMegakernelMatchesMitsubaAndIsDeterministic) {
    REQUIRE_GPU();
    float* ref = nullptr;
    int w = 0, h = 0;
    const char* err = nullptr;
    std::string path = source_dir() + "/tests/data/cornell-reference-mitsuba.exr";
    ASSERT_EQ(LoadEXR(&ref, &w, &h, path.c_str(), &err), TINYEXR_SUCCESS) << (err ? err : "");
    double rmean[3] = {0, 0, 0};
    for (int i = 0; i < w * h; ++i)
        for (int c = 0; c < 3; ++c) rmean[c] += ref[4 * i + c] / (double(w) * h);
    free(ref);
    SceneData sd = cornell();
    RenderParams rp;
    rp.width = rp.height = 1024;
    rp.spp = 64;
    rp.max_depth = 65;
    rp.seed = 1;
    render_gpu_megakernel(sd, rp);  // warm-up
    GpuRenderStats st;
    Image img = render_gpu_megakernel(sd, rp, &st);
    EXPECT_EQ(img.nonfinite, 0u);
    for (int c = 0; c < 3; ++c) {
        double m = 0;
        for (uint32_t i = 0; i < rp.num_pixels(); ++i) m += img.rgb[3 * i + c] / rp.num_pixels();
        std::printf("channel %d: wavepath-gpu %.5f  mitsuba %.5f  (%+.2f%%)\n", c, m, rmean[c], 100 * (m / rmean[c] - 1));
        EXPECT_NEAR(m, rmean[c], 0.02 * rmean[c]);
    }
    double samples = double(rp.num_pixels()) * rp.spp;
    std::printf("cornell 1024x1024 64spp megakernel on %s: %.1f ms, %.1f Msamples/s\n", st.device.c_str(), st.render_ms,
                samples / st.render_ms / 1e3);
    Image again = render_gpu_megakernel(sd, rp);
    EXPECT_EQ(img.rgb, again.rgb);  // fixed-point film: bit-identical rerun
}
