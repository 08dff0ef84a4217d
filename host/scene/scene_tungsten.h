// Scenes in the Tungsten renderer's JSON format (bsdfs / primitives / camera / integrator / renderer), the format
// of Bitterli's benchmark scenes, and Tungsten's .wo3 binary meshes.
#pragma once
#include <string>
#include <vector>
#include <nlohmann/json.hpp>
#include "host/scene/mesh_obj.h"
#include "host/scene/scene_json.h"

namespace wp {

// True when a parsed JSON root looks like a Tungsten scene (it has "primitives").
inline bool is_tungsten_scene(const nlohmann::json& root) { return root.is_object() && root.contains("primitives"); }

// Builds the scene from an already parsed Tungsten root. Errors (SceneError) name the file, the JSON pointer and
// the problem: among them a type name outside Tungsten's vocabulary ("unknown primitive type 'teapot'"). A key
// Tungsten does not know is a warning with the nearest known key ("unknown bsdf key 'albdo' (did you mean
// 'albedo'?)"), and so is a Tungsten feature not supported here; all in LoadedScene::warnings. strict: every
// warning is an error instead.
LoadedScene load_tungsten_scene(const std::string& path, const nlohmann::json& root, bool strict = false,
                                const SceneBuildOptions& build = {});

// Tungsten's type names (its factories: BsdfFactory, PrimitiveFactory, TextureFactory, CameraFactory,
// IntegratorFactory), supported here or not. kind: "bsdf", "primitive", "texture", "camera", "integrator".
const std::vector<std::string>& tungsten_types(const std::string& kind);

// A Tungsten .wo3 mesh (layout in ../shared/scenes/README.md) under transform M, as a triangle soup (the
// per-triangle material index of the file is kept in ObjMesh::material). Throws MeshError.
// The file's normals become shading normals (under the inverse transpose of M; a triangle with a zero normal at
// a corner gets none), its uvs texture coordinates with v flipped to run downward. Where M mirrors, the corner
// order is swapped so that the geometric normal keeps the file's side (as load_obj does).
ObjMesh load_wo3(const std::string& path, const mat4& M = mat4(1.0f));

// A Tungsten "transform" value as a matrix: either 16 numbers (row by row) or an object with "position",
// "scale" (number or [x, y, z], each > 0), "rotation" (degrees; Tungsten's Mat4f::rotYXZ, i.e. Ry(-y) Rx(x) Rz(z)),
// and optionally "look_at" / "up" / "x_axis" / "y_axis" / "z_axis" (an orthonormal basis built as Tungsten does).
// M = translate(position) * rotation * basis * scale. Throws SceneError "file: ptr: problem".
mat4 tungsten_transform(const nlohmann::json& t, const std::string& file = "<json>",
                        const std::string& ptr = "/transform");

}  // namespace wp
