// CPU backend: the per-path stage functions on all cores.
#pragma once
#include <vector>
#include "host/scene_build.h"
#include "kernels/scene_view.h"

namespace wp {

struct Image {
    uint32_t width = 0, height = 0;
    std::vector<float> rgb;  // linear, 3 per pixel
    unsigned long long nonfinite = 0;
    uint32_t first_nonfinite_pixel = 0xffffffffu;
};

// Megakernel schedule on CPU threads (one path at a time per thread).
Image render_cpu_megakernel(const SceneData& scene, const RenderParams& rp, unsigned threads = 0);

}  // namespace wp
