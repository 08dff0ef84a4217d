// Reading images for textures and environment maps: PNG/JPG/TGA/BMP (stb_image, 8-bit, sRGB-decoded when
// asked), Radiance HDR (stb_image), OpenEXR (tinyexr) and PFM. Texels come out as linear RGBA, row 0 at the top.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "kernels/common.h"

namespace wp {

struct ImageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct LoadedImage {
    uint32_t width = 0, height = 0;
    std::vector<F4> texels;
};

// srgb: decode 8-bit values with the sRGB curve (color textures); else value / 255 (data: normals, roughness).
// Float formats are always linear. Throws ImageError naming the file.
LoadedImage load_image(const std::string& path, bool srgb);

float srgb_to_linear(float c);

}  // namespace wp
