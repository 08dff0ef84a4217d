// glTF 2.0 (.gltf, .glb) through tinygltf: meshes under their node transforms, cameras, metallic-roughness
// materials with textures, normal maps, emissive (KHR_materials_emissive_strength), KHR_materials_ior and
// KHR_materials_transmission.
#pragma once
#include <string>
#include <vector>
#include "host/scene/scene_json.h"

namespace wp {

struct GltfImport {
    size_t triangles = 0;
    size_t materials = 0;
    bool has_camera = false;
    CameraData camera{};           // the first camera in the default scene, when has_camera
    float camera_yfov_deg = 0.0f;  // that camera's vertical fov
    vec3 lo{1e30f}, hi{-1e30f};    // world bounds of the imported triangles (after M)
    std::vector<std::string> warnings;
};

// Adds the default scene of a .gltf/.glb under transform M to b: its triangles with their materials and
// textures; emissive triangles become lights. `aspect` frames the file's camera. Throws SceneError naming
// `path` for a file that cannot be read or is malformed.
GltfImport import_gltf(const std::string& path, const mat4& M, SceneBuilder& b, float aspect);

// A .gltf/.glb used as the scene file: its own camera (or one framing its bounds), a constant environment,
// default render settings.
LoadedScene load_gltf_scene(const std::string& path, const SceneBuildOptions& build = {});

}  // namespace wp
