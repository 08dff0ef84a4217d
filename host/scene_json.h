// Native scene format v1 (JSON). Errors name the file, the JSON pointer and the problem.
#pragma once
#include <stdexcept>
#include <string>
#include "host/scene_build.h"

namespace wp {

struct SceneError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct LoadedScene {
    SceneData data;
    RenderParams params;
};

LoadedScene load_scene_json(const std::string& path);

}  // namespace wp
