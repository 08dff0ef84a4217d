// Scenes in pbrt-v4's format: the subset that the published test scenes use (docs/SCENES.md lists what is
// read, what is approximated and what is skipped). An own tokenizer (host/scene/pbrt_tokenizer.h) and parser.
// Every error and warning names FILE:LINE:COLUMN; a directive or parameter that pbrt-v4 knows but wavepath does
// not support is a warning (an error with `strict`), one that pbrt-v4 does not know is an error.
#pragma once
#include <string>
#include "host/scene/scene_json.h"

namespace wp {

// Loads the .pbrt file at `path` (Include/Import and file names resolved against its folder, as pbrt does).
// Throws SceneError "FILE:LINE:COL: problem"; warnings go to LoadedScene::warnings and stderr.
LoadedScene load_pbrt_scene(const std::string& path, bool strict = false, const SceneBuildOptions& build = {});

// The same from text in memory; `name` stands for the file in messages and its folder resolves relative paths.
LoadedScene load_pbrt_string(const std::string& text, const std::string& name, bool strict = false,
                             const SceneBuildOptions& build = {});

// The current transformation matrix after the directives of `text` (a scene fragment: transform and attribute
// directives, no WorldBegin needed), for tests: "Translate 1 2 3 Scale 2 2 2" gives T(1,2,3) * S(2,2,2).
mat4 pbrt_transform(const std::string& text);

}  // namespace wp
