#include "host/scene_gltf.h"

namespace wp {
GltfImport import_gltf(const std::string& path, const mat4&, SceneBuilder&, float) {
    throw SceneError(path + ": glTF is not supported yet");
}
LoadedScene load_gltf_scene(const std::string& path) { throw SceneError(path + ": glTF is not supported yet"); }
}  // namespace wp
