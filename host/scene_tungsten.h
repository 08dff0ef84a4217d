// Scenes in the Tungsten renderer's JSON format (bsdfs / primitives / camera / integrator / renderer), the format
// of Bitterli's benchmark scenes, and Tungsten's .wo3 binary meshes.
#pragma once
#include <string>
#include <nlohmann/json.hpp>
#include "host/mesh_obj.h"
#include "host/scene_json.h"

namespace wp {

// True when a parsed JSON root looks like a Tungsten scene (it has "primitives").
inline bool is_tungsten_scene(const nlohmann::json& root) { return root.is_object() && root.contains("primitives"); }

// Builds the scene from an already parsed Tungsten root. Errors (SceneError) name the file, the JSON pointer and
// the problem; anything unsupported is named in a warning in LoadedScene::warnings.
LoadedScene load_tungsten_scene(const std::string& path, const nlohmann::json& root);

// A Tungsten .wo3 mesh (layout in ../shared/scenes/README.md) under transform M, as a triangle soup (the
// per-triangle material index of the file is kept in ObjMesh::material). Throws MeshError.
ObjMesh load_wo3(const std::string& path, const mat4& M = mat4(1.0f));

}  // namespace wp
