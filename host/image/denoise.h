// Denoising with Intel Open Image Denoise 2.x (the "RT" filter, HDR, with the albedo and normal AOVs when the image
// holds them), on OIDN's CPU device. The library is loaded at run time (dlopen), so wavepath builds and runs without
// it: PyPI's pyoidn wheel carries libOpenImageDenoise.so.2 and its CPU and CUDA devices but no C headers, and
// scripts/install-deps.sh installs it; the few C functions used are declared in denoise.cpp. The library is looked
// for at $WAVEPATH_OIDN_LIBRARY (a path to libOpenImageDenoise.so.2), then in the pyoidn folder found when CMake
// configured the build, then on the loader's own search path.
#pragma once
#include <string>
#include "host/render/render.h"

namespace wp {

// "" when the denoiser can be loaded and makes a CPU device; else why not (what was tried).
std::string denoiser_problem();
// img's beauty denoised (albedo and normal used when present and the same size); throws std::runtime_error.
Image denoise_image(const Image& img);

}  // namespace wp
