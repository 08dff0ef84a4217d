#include <gtest/gtest.h>
#include <stb/stb_image.h>
#include <tinyexr.h>
#include <cstdio>
#include <fstream>
#include "tests/cornell_scene.h"
#include "host/image/image_io.h"
#include "host/image/image_load.h"
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

// Image files for textures and environments are checked before they are decoded (issue 47): a folder or a device
// said at once, a forged header's size refused before its pixels are allocated (a PFM's against the bytes after
// it, a PNG's at most 2^28 texels), each naming the file.
TEST(ImageLoad, FileAndHeaderSizeCheckedBeforeDecoding) {
    auto error_of = [](const std::string& p) -> std::string {
        try {
            load_image(p, false);
        } catch (const ImageError& e) { return e.what(); }
        return "(no error)";
    };
    EXPECT_EQ(error_of("/dev/zero"), "/dev/zero: is a character device, not an image file");
    EXPECT_EQ(error_of(wp_test::temp_dir()), wp_test::temp_dir() + ": is a folder, not an image file");
    const std::string pfm = tmp("forged.pfm");
    std::ofstream(pfm, std::ios::binary) << "PF\n16384 16384\n-1\n" << std::string(600, '\0');
    EXPECT_EQ(error_of(pfm), pfm +
                                 ": truncated PFM data (its header's 16384x16384 need 3221225472 bytes, the file has "
                                 "600)");
    // a PNG signature and an IHDR of 16385 x 16384 (8-bit grey: under stb_image's own limit of 2^30 bytes, over
    // 2^28 texels, 4 GiB as our float texels), no image data
    const unsigned char png[] = {0x89, 'P',  'N',  'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0,
                                 0,    0x40, 0x01, 0,   0,    0x40, 0x00, 8,    0, 0, 0, 0,  0,   0,   0,   0};
    const std::string forged = tmp("forged.png");
    std::ofstream(forged, std::ios::binary).write(reinterpret_cast<const char*>(png), sizeof png);
    EXPECT_EQ(error_of(forged), forged + ": its header says 16385x16384 pixels, more than an image may have (2^28)");
}
