#include "host/render/render_limits.h"
#include <cstdint>

namespace wp {

std::string render_limits_problem(const RenderParams& rp) {
    const uint64_t width = rp.width, height = rp.height, spp = rp.spp, max_depth = rp.max_depth;
    auto n = [](uint64_t v) { return std::to_string(v); };
    if (width < 1 || height < 1) return "resolution " + n(width) + "x" + n(height) + ": width and height must be >= 1";
    if (width > kMaxImageSide || height > kMaxImageSide)
        return "resolution " + n(width) + "x" + n(height) + " is too large (at most " + n(kMaxImageSide) + " per side)";
    if (width * height > kMaxPixels)
        return "resolution " + n(width) + "x" + n(height) + " is too large (at most 2^28 pixels)";
    if (spp < 1) return "spp must be >= 1";
    if (spp > kMaxSpp) return "spp " + n(spp) + " is too large (at most 2^24)";
    if (width * height * spp > kMaxSamples)
        return n(width * height * spp) + " samples are too many (at most 2^40 per render)";
    if (max_depth < 1 || max_depth > kMaxDepthLimit)
        return "max_depth " + n(max_depth) + " out of range (1 to " + n(kMaxDepthLimit) + ")";
    if (rp.rr_depth < 1 || rp.rr_depth > kMaxDepthLimit)
        return "rr_depth " + n(rp.rr_depth) + " out of range (1 to " + n(kMaxDepthLimit) + ")";
    return "";
}

}  // namespace wp
