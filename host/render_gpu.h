// GPU backend. Declared without CUDA types so that host .cpp files can call it.
#pragma once
#include <map>
#include <string>
#include "host/render_cpu.h"

namespace wp {

struct GpuRenderStats {
    std::string device;
    double render_ms = 0.0;
    std::map<std::string, std::pair<uint64_t, double>> kernels;  // name -> (launches, total ms)
};

bool gpu_available(std::string* name = nullptr);
Image render_gpu_megakernel(const SceneData& scene, const RenderParams& rp, GpuRenderStats* stats = nullptr);

}  // namespace wp
