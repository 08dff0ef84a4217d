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
    // The whole load (load_scene_json: reading, parsing, assembly and the tree), wall clock and this process's CPU
    // time; the tree's part is data.bvh_stats.
    double load_seconds = 0.0, load_cpu_seconds = 0.0;
};

// How a scene is read. strict: every warning is an error (`--strict`).
struct LoadOptions {
    bool strict = false;
};

// The scene formats, by the file's extension: the loader's dispatch, and the list an unsupported extension's
// message gives ("unsupported scene format '.usda' (supported: .json, .gltf, .glb, .pbrt)"). A new format is one row.
struct SceneFormat {
    const char* extension;  // lower case, with the dot
    const char* what;       // for the documentation: "native or Tungsten JSON"
    LoadedScene (*load)(const std::string& path, const LoadOptions& opt);
};
const std::vector<SceneFormat>& scene_formats();

// Any scene format, by extension (scene_formats) and content: native JSON, Tungsten JSON, glTF, pbrt-v4 (.pbrt). Checks the file
// against its format; the limits on the render settings are checked where a render starts
// (host/render/render_limits.h), after the command line's overrides.
LoadedScene load_scene_json(const std::string& path, const LoadOptions& opt = {});

// A key as one JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1"), for the pointers of error messages.
std::string pointer_escape(const std::string& k);

// The name of `names` nearest to `s` (edit distance, case-insensitive) when it is near enough to be a misspelling
// of it, else "". For "did you mean" messages.
std::string nearest_name(const std::string& s, const std::vector<std::string>& names);

// Complex IOR of a named conductor ("Cu", "Au", "Ag", "Al"); false for an unknown name.
bool conductor_preset(const std::string& name, vec3& eta, vec3& k);

}  // namespace wp
