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

// Any scene format, by name and content: native JSON, Tungsten JSON, glTF, pbrt-v4 (.pbrt). Checks the file against its format;
// the limits on the render settings are checked where a render starts (host/render/render_limits.h), after the
// command line's overrides.
LoadedScene load_scene_json(const std::string& path);

// Complex IOR of a named conductor ("Cu", "Au", "Ag", "Al"); false for an unknown name.
bool conductor_preset(const std::string& name, vec3& eta, vec3& k);

}  // namespace wp
