#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <tinyexr.h>
#include <cstdio>
#include "tests/cornell_scene.h"
#include "host/image/image_io.h"
using namespace wp;

namespace {
Image gradient() {
    Image img;
    img.width = 7;
    img.height = 5;
    for (uint32_t y = 0; y < img.height; ++y)
        for (uint32_t x = 0; x < img.width; ++x) {
            img.rgb.push_back(x * 0.3f);  // goes above 1: PNG clamps, EXR keeps
            img.rgb.push_back(y * 0.1f);
            img.rgb.push_back(x == 0 && y == 0 ? 2.5f : 0.001f * (x + y));
        }
    return img;
}
std::string tmp(const char* name) { return wp_test::temp_dir() + name; }
}  // namespace

TEST(ImageIO, ExrAndPfmRoundTripLinearValues) {
    Image img = gradient();
    write_image(tmp("wp.exr"), img);
    float* px = nullptr;
    int w, h;
    const char* err = nullptr;
    ASSERT_EQ(LoadEXR(&px, &w, &h, tmp("wp.exr").c_str(), &err), TINYEXR_SUCCESS);
    ASSERT_EQ(w, 7);
    ASSERT_EQ(h, 5);
    for (int i = 0; i < w * h; ++i)
        for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(px[4 * i + c], img.rgb[3 * i + c]);
    free(px);
    write_image(tmp("wp.pfm"), img);
    Image back = read_pfm(tmp("wp.pfm"));
    EXPECT_EQ(back.rgb, img.rgb);  // including row order
}

TEST(ImageIO, PngIsSrgbAndClamped) {
    Image img = gradient();
    write_image(tmp("wp.png"), img);
    int w, h, n;
    unsigned char* px = stbi_load(tmp("wp.png").c_str(), &w, &h, &n, 3);
    ASSERT_NE(px, nullptr);
    ASSERT_EQ(w, 7);
    EXPECT_EQ(px[0], 0);                                                                     // x = 0: black red channel
    EXPECT_EQ(px[2], 255);                                                                   // 2.5 clamps to white
    EXPECT_EQ(px[3 * 6], 255);                                                               // 1.8 clamps
    EXPECT_EQ(px[3 * (1 * 7) + 1], (unsigned char)std::lround(255 * linear_to_srgb(0.1f)));  // sRGB curve
    EXPECT_GT(px[3 * (1 * 7) + 1], 80);  // 0.1 linear is ~89 in sRGB, not 26
    stbi_image_free(px);
}

TEST(ImageIO, BadExtensionAndPathNameTheFile) {
    Image img = gradient();
    try {
        write_image(tmp("wp.tiff"), img);
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("wp.tiff"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("unknown image extension"), std::string::npos);
    }
    EXPECT_THROW(write_image("/nonexistent-dir/x.pfm", img), std::runtime_error);
    EXPECT_THROW(read_pfm("/nonexistent-dir/x.pfm"), std::runtime_error);
}
