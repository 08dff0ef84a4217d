// Limits on a render's settings, for every scene format and the command line's overrides alike. Checked once,
// where a render starts (host/app/render_setup.h, load_render_scene), on the settings the render will use.
#pragma once
#include <cstdint>
#include <string>
#include "kernels/scene_view.h"

namespace wp {

// The limits, also the ranges of the command line's overrides (host/app/main.cpp).
constexpr uint32_t kMaxImageSide = 32768;
constexpr uint64_t kMaxPixels = 1ull << 28;
constexpr uint32_t kMaxSpp = 1u << 24;
constexpr uint64_t kMaxSamples = 1ull << 40;
constexpr uint32_t kMaxDepthLimit = 1024;

// "" when `rp` is within the limits (width, height <= 32768, pixels <= 2^28, spp <= 2^24, samples <= 2^40,
// max_depth <= 1024: the packing of path state relies on them), else what is wrong, e.g.
// "max_depth 5000 out of range (1 to 1024)".
std::string render_limits_problem(const RenderParams& rp);

}  // namespace wp
