#include "host/render/render_limits.h"
#include <cstdint>

namespace wp {

std::string render_limits_problem(const RenderParams& rp) {
    const uint64_t width = rp.width, height = rp.height, spp = rp.spp, max_depth = rp.max_depth;
    auto n = [](uint64_t v) { return std::to_string(v); };
    if (width < 1 || height < 1) return "resolution " + n(width) + "x" + n(height) + ": width and height must be >= 1";
    if (width > 32768 || height > 32768)
        return "resolution " + n(width) + "x" + n(height) + " is too large (at most 32768 per side)";
    if (width * height > (1ull << 28))
        return "resolution " + n(width) + "x" + n(height) + " is too large (at most 2^28 pixels)";
    if (spp < 1) return "spp must be >= 1";
    if (spp > (1ull << 24)) return "spp " + n(spp) + " is too large (at most 2^24)";
    if (width * height * spp > (1ull << 40))
        return n(width * height * spp) + " samples are too many (at most 2^40 per render)";
    if (max_depth < 1 || max_depth > 1024) return "max_depth " + n(max_depth) + " out of range (1 to 1024)";
    return "";
}

}  // namespace wp
