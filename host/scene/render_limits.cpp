#include "host/scene/render_limits.h"
#include <cmath>
#include <cstdint>
#include <cstdio>
#include "host/scene/render_settings.h"
#include "kernels/filter.h"

namespace wp {

std::string render_limits_problem(const RenderParams& rp) {
    const uint64_t width = rp.width, height = rp.height, spp = rp.spp;
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
    // each setting within its range (the list's, kernels/render_params.h): "max_depth 5000 out of range (1 to 1024)"
    return setting_range_problem(rp);
}

std::string float_range_problem(const std::string& what, double a, double b, double c) {
    const double big = 3.4028234663852886e38;  // FLT_MAX
    auto ok = [&](double v) { return std::isfinite(v) && std::fabs(v) <= big; };
    if (ok(a) && ok(b) && ok(c)) return "";
    char s[160];
    std::snprintf(s, sizeof s, " = (%g, %g, %g) is not a finite 32-bit float (at most 3.4e+38 each)", a, b, c);
    return what + s;
}

std::string float_range_problem(const std::string& what, double v) {
    const std::string p = float_range_problem(what, v, 0.0, 0.0);
    if (p.empty()) return p;
    char s[96];
    std::snprintf(s, sizeof s, " = %g is not a finite 32-bit float (at most 3.4e+38)", v);
    return what + s;
}

std::string set_filter(RenderParams& rp, const std::string& type, float radius, float sigma) {
    uint32_t t;
    float def;
    if (type == "box")
        t = kFilterBox, def = 0.5f;
    else if (type == "tent" || type == "triangle")
        t = kFilterTriangle, def = 1.0f;
    else if (type == "gaussian")
        t = kFilterGaussian, def = 1.5f;
    else if (type == "mitchell")
        t = kFilterMitchell, def = 2.0f;
    else
        return "unknown reconstruction filter '" + type + "' (box, tent, gaussian, mitchell)";
    if (!(radius <= kMaxFilterRadius) || !(sigma <= kMaxFilterRadius))  // (NaN too)
        return "filter radius and sigma must be at most 8 pixels";
    rp.filter_radius = radius > 0.0f ? radius : def;
    rp.filter_sigma = sigma > 0.0f ? sigma : 0.5f;
    rp.filter = t == kFilterBox && rp.filter_radius == 0.5f ? uint32_t(kFilterPixelBox) : t;
    return "";
}

std::string filter_text(const RenderParams& rp) {
    static const char* names[] = {"box", "box", "tent", "gaussian", "mitchell"};
    char b[96];
    const char* name = rp.filter <= kFilterMitchell ? names[rp.filter] : "unknown";
    if (rp.filter == kFilterGaussian)
        std::snprintf(b, sizeof b, "%s %g (sigma %g)", name, rp.filter_radius, rp.filter_sigma);
    else
        std::snprintf(b, sizeof b, "%s %g", name, rp.filter == kFilterPixelBox ? 0.5f : rp.filter_radius);
    return b;
}

std::string set_filter_spec(RenderParams& rp, const std::string& spec) {
    size_t c = spec.find(':');
    std::string type = spec.substr(0, c);
    float radius = 0.0f;
    if (c != std::string::npos) {
        const std::string r = spec.substr(c + 1);
        size_t used = 0;
        try {
            radius = std::stof(r, &used);
        } catch (const std::exception&) { used = 0; }
        if (r.empty() || used != r.size() || !(radius > 0.0f))
            return "filter radius '" + r + "' is not a number > 0 (e.g. tent:1)";
    }
    return set_filter(rp, type, radius);
}

}  // namespace wp
