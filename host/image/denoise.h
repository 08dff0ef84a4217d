// Denoising with Intel Open Image Denoise 2.x (the "RT" filter, HDR, with the albedo and normal AOVs when the image
// holds them), on OIDN's CPU device or its CUDA device (a GPU render's image denoised on the GPU it was rendered
// on). The library is loaded at run time (dlopen), so wavepath builds and runs without it: PyPI's pyoidn wheel
// carries libOpenImageDenoise.so.2 and its CPU and CUDA devices but no C headers, and scripts/install-deps.sh
// installs it; the few C functions used are declared in denoise.cpp. The library is looked for at
// $WAVEPATH_OIDN_LIBRARY (a path to libOpenImageDenoise.so.2), then in the pyoidn folder found when CMake configured
// the build, then on the loader's own search path. Images go through OIDN buffers (oidnNewBuffer, written and read
// back), the one way that works on every OIDN device.
#pragma once
#include <string>
#include "host/image/image.h"

namespace wp {

// --denoise-device: auto is the CUDA device for a GPU render when OIDN has a usable CUDA device for its GPU, else
// the CPU device.
enum class DenoiseDevice { Auto, Cpu, Cuda };
const char* denoise_device_name(DenoiseDevice d);  // "auto", "cpu", "cuda"

// The device a render's image is denoised on: Cpu or Cuda, never Auto. gpu_render: the image comes from the GPU
// backend; cuda_id: its CUDA device.
DenoiseDevice resolve_denoise_device(DenoiseDevice requested, bool gpu_render, int cuda_id = 0);

// "" when the denoiser can be loaded and makes a device of this kind (Cuda: on CUDA device cuda_id; Auto: the CPU, as
// in denoise_image); else why not, saying what was tried.
std::string denoiser_problem(DenoiseDevice d = DenoiseDevice::Cpu, int cuda_id = 0);

// img's beauty denoised (albedo and normal used when present and the same size) on device d (Auto: as
// resolve_denoise_device for a CPU render, i.e. the CPU). Throws std::runtime_error saying what failed.
Image denoise_image(const Image& img, DenoiseDevice d = DenoiseDevice::Cpu, int cuda_id = 0);

}  // namespace wp
