// Native scene format v1 (JSON). Errors name the file, the JSON pointer and the problem.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "host/scene/scene_build.h"

namespace wp {

struct SceneError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct LoadedScene {
    SceneData data;
    RenderParams params;
    std::vector<std::string> warnings;  // non-fatal problems (e.g. tinyobjloader's), also printed to stderr
};

LoadedScene load_scene_json(const std::string& path);

// Limits on render settings (width, height <= 32768, pixels <= 2^28, spp <= 2^24, samples <= 2^40, max_depth
// <= 1024): "" when fine, else what is wrong. Shared by every scene format and the command line.
std::string render_limits_problem(uint64_t width, uint64_t height, uint64_t spp, uint64_t max_depth);

// Complex IOR of a named conductor ("Cu", "Au", "Ag", "Al"); false for an unknown name.
bool conductor_preset(const std::string& name, vec3& eta, vec3& k);

}  // namespace wp
