// Native scene format v1 (JSON). Errors name the file, the JSON pointer and the problem.
#pragma once
#include <stdexcept>
#include <set>
#include <string>
#include <vector>
#include <nlohmann/json_fwd.hpp>
#include "host/image/input_file.h"
#include "host/scene/scene_build.h"

namespace wp {

// A scene that cannot be loaded: the message names the file and the place. Its bytes that are not printable (a NUL
// in a quoted name would cut a printed message off) are written as \xNN (host/image/input_file.h: printable).
struct SceneError : std::runtime_error {
    explicit SceneError(const std::string& what) : std::runtime_error(printable(what, std::string::npos)) {}
};

struct LoadedScene {
    SceneData data;
    RenderParams params;
    std::vector<std::string> warnings;  // non-fatal problems (e.g. tinyobjloader's), also printed to stderr
    // The whole load (load_scene_json: reading, parsing, assembly and the tree), wall clock and this process's CPU
    // time; the tree's part is data.bvh_stats.
    double load_seconds = 0.0, load_cpu_seconds = 0.0;
};

// How a scene is read. strict: every warning is an error (`--strict`). build: the tree's knobs and the memory
// check before it (SceneBuilder::build), which every loader passes on.
struct LoadOptions {
    bool strict = false;
    SceneBuildOptions build;
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
// (host/scene/render_limits.h), after the command line's overrides.
LoadedScene load_scene_json(const std::string& path, const LoadOptions& opt = {});
// A native (or Tungsten) JSON scene given as text rather than read from a file (the Python module's scenes from
// dicts): `path` names it in every message and its folder is where relative files (meshes, textures) are found; no
// file of that name is read. The same checks, errors and warnings as the file's.
LoadedScene load_scene_json_text(const std::string& text, const std::string& path, const LoadOptions& opt = {});

// Where a JSON text cannot be taken as it is: line and column (1-based, in bytes) of a syntax error or of a number
// out of range, or the JSON pointer of a key given twice in one object (line 0 then). `what` is in the project's
// words, never the JSON library's exception text.
struct JsonProblem {
    size_t line = 0, col = 0;
    std::string pointer;
    std::string what;
    // "FILE:LINE:COL: what" or "FILE: POINTER: what"
    std::string message(const std::string& file) const;
};
// Parses `text` into `out`; false (and `problem`) on a syntax error, a number out of range (1e309) or a duplicate
// key (the JSON library would keep the last one silently: which of the two was meant is unknown, so it is an error).
bool parse_json_text(const std::string& text, nlohmann::json& out, JsonProblem& problem);
// "FILE: is a folder, not a scene file" (SceneError) when path is a folder; the loaders call it first, before a
// stream would read a folder as an empty or unreadable file.
void refuse_folder(const std::string& path, const char* what = "a scene file");

// "" when j is an integer in [lo, hi]; else the problem in words, with the range: "expected an integer from 1 to
// 1073741824" (not an integer) or "1099511627776 is out of range (an integer from 1 to 1073741824)".
std::string integer_problem(const nlohmann::json& j, long long lo, long long hi);

// A key as one JSON pointer token (RFC 6901: '~' -> "~0", '/' -> "~1"), for the pointers of error messages.
std::string pointer_escape(const std::string& k);

// The name of `names` nearest to `s` (edit distance, case-insensitive) when it is near enough to be a misspelling
// of it, else "". For "did you mean" messages.
std::string nearest_name(const std::string& s, const std::vector<std::string>& names);
// "unknown key 'albdo' (did you mean 'albedo'?)", or the list of the keys allowed there (scene_json.cpp).
std::string unknown_key(const std::string& key, const std::set<std::string>& allowed);

// Complex IOR of a named conductor ("Cu", "Au", "Ag", "Al"); false for an unknown name.
bool conductor_preset(const std::string& name, vec3& eta, vec3& k);

}  // namespace wp
