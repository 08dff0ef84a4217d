// Image output: PNG (sRGB, clamped, 8-bit), EXR (linear float), PFM (linear float). Chosen by extension.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "host/image/image.h"

namespace wp {

// (name, value) pairs: EXR string attributes (PNG and PFM have none; see write_sidecar).
using ImageMetadata = std::vector<std::pair<std::string, std::string>>;
// Throws std::runtime_error naming the file and the problem.
void write_image(const std::string& path, const Image& img, const ImageMetadata& metadata = {});
// AOVs (Image::albedo, normal, depth, position): an EXR holds them as channels of the same file (write_image);
// PNG and PFM get one file each beside the image, "out.albedo.png", "out.normal.png", "out.depth.png",
// "out.position.png" (PNG previews: normals as (n + 1) / 2, depth over its maximum; PFM: the values).
// aov_path("out/a.png", "albedo") = "out/a.albedo.png"; aov_files: the files write_aov_files writes for the AOVs of
// `bits` (kernels/aov.h AovBits; none for an EXR).
std::string aov_path(const std::string& path, const std::string& aov);
std::vector<std::string> aov_files(const std::string& path, uint32_t bits);
std::vector<std::string> write_aov_files(const std::string& path, const Image& img);
Image read_pfm(const std::string& path);  // for tests and comparisons
float linear_to_srgb(float v);

}  // namespace wp
