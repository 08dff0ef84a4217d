// Statistical comparison of renders: how far apart two images of the same scene are, and whether two sets of
// independent renders (different seeds) estimate the same expected image.
#pragma once
#include <string>
#include <vector>
#include "host/image/image.h"

namespace wp {

struct ImageDiff {
    double mean_a[3] = {0, 0, 0}, mean_b[3] = {0, 0, 0};  // per-channel image means
    double rmse = 0.0, max_abs = 0.0;
    double identical = 0.0;  // fraction of pixels equal in all three channels, bit for bit
    // Per tile and channel: z = (mean_a - mean_b) / sqrt((var_a + var_b) / n), the variances taken over the
    // tile's pixels. Pixel-to-pixel variation includes image structure, so |z| is conservative (too small).
    size_t tiles = 0;
    double z2_mean = 0.0, z_max = 0.0;
};
ImageDiff compare_images(const Image& a, const Image& b, uint32_t tile = 16);

// Two sets of independent renders: per tile and channel, Welch's t between the renders' tile means.
// Under "same expectation", z2_mean is about 1 and z_max grows only like the tail of a t distribution.
struct Agreement {
    size_t tests = 0;
    double z2_mean = 0.0, z_max = 0.0;
    size_t worst = 0;  // index of the worst test: (tile * 3 + channel)
};
Agreement agreement(const std::vector<Image>& a, const std::vector<Image>& b, uint32_t tile = 16);

// The error of an image against a reference of the same size (`wavepath render --reference`, `wavepath bench
// --reference`): the mean over pixels and channels of (x - ref)^2 (MSE) and of (x - ref)^2 / (ref^2 + 1e-2) (relMSE,
// as pbrt-v4's and Mitsuba's tools define it). Pairs where either value is not finite are left out (`skipped`).
// Throws std::invalid_argument for images of different sizes.
struct ReferenceError {
    double mse = 0.0, relmse = 0.0;
    size_t skipped = 0;
};
ReferenceError reference_error(const Image& img, const Image& ref);

// A reference image read from a file (EXR, PFM, HDR; PNG and other 8-bit files sRGB-decoded) as an Image (its RGB,
// alpha dropped). Throws ImageError (host/image/image_load.h) naming the file.
Image read_reference_image(const std::string& path);

}  // namespace wp
