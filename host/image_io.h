// Image output: PNG (sRGB, clamped, 8-bit), EXR (linear float), PFM (linear float). Chosen by extension.
#pragma once
#include <string>
#include "host/render.h"

namespace wp {

// Throws std::runtime_error naming the file and the problem.
void write_image(const std::string& path, const Image& img);
Image read_pfm(const std::string& path);  // for tests and comparisons
float linear_to_srgb(float v);

}  // namespace wp
