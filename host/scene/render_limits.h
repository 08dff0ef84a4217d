// Limits on a render's settings, for every scene format and the command line's overrides alike. Checked once,
// where a render starts (host/app/render_setup.h, load_render_scene), on the settings the render will use.
#pragma once
#include <cstdint>
#include <string>
#include "kernels/scene_view.h"

namespace wp {

// The limits (kMaxImageSide, kMaxSpp, kMaxDepthLimit, ...) are in kernels/render_params.h: the list's ranges.

// "" when `rp` is within the limits (width, height <= 32768, pixels <= 2^28, spp <= 2^24, samples <= 2^40,
// max_depth <= 1024: the packing of path state relies on them), else what is wrong, e.g.
// "max_depth 5000 out of range (1 to 1024)".
std::string render_limits_problem(const RenderParams& rp);

// An emission, a spectrum's value or any other colour an importer takes from a scene, checked finite in the 32-bit
// floats the renderer holds it in: "" when each of v (values computed in double, products of a value and its scale
// included) is finite and at most a float's largest (3.4e38), else the problem in words, naming `what`: "L x scale
// = (1e+39, 1, 1) is not a finite 32-bit float (at most 3.4e+38 each)". One rule for every importer (native JSON,
// Tungsten, glTF, pbrt-v4), which each call with its own place (JSON pointer, FILE:LINE:COL): a value past it made an
// all-black image (emission), or every pixel NaN (the film's colour transform).
std::string float_range_problem(const std::string& what, double a, double b, double c);
std::string float_range_problem(const std::string& what, double v);

// Reconstruction filters (kernels/filter.h) by name, for every scene format and the command line: "box",
// "tent" (also "triangle"), "gaussian", "mitchell". A radius (in pixels) <= 0 takes the type's default: box 0.5,
// tent 1 (Tungsten's and Mitsuba's), gaussian 1.5 with sigma 0.5 (pbrt-v4's), mitchell 2. A box of radius 0.5 is
// the default filter, sampled as before filters existed (bit for bit). Returns "" or what is wrong.
std::string set_filter(RenderParams& rp, const std::string& type, float radius = 0.0f, float sigma = 0.0f);
// "box 0.5", "tent 1", "gaussian 1.5 (sigma 0.5)": the filter of rp, for messages and metadata.
std::string filter_text(const RenderParams& rp);
// "TYPE" or "TYPE:RADIUS" (the command line's --filter) into rp; "" or what is wrong.
std::string set_filter_spec(RenderParams& rp, const std::string& spec);

}  // namespace wp
