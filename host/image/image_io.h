// Image output: PNG (sRGB, clamped, 8-bit), EXR (linear float), PFM (linear float). Chosen by extension.
#pragma once
#include <string>
#include <utility>
#include <vector>
#include "host/render/render.h"

namespace wp {

// (name, value) pairs: EXR string attributes (PNG and PFM have none; see write_sidecar).
using ImageMetadata = std::vector<std::pair<std::string, std::string>>;
// Throws std::runtime_error naming the file and the problem.
void write_image(const std::string& path, const Image& img, const ImageMetadata& metadata = {});
Image read_pfm(const std::string& path);  // for tests and comparisons
float linear_to_srgb(float v);

}  // namespace wp
