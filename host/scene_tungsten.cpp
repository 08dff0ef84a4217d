#include "host/scene_tungsten.h"

namespace wp {
LoadedScene load_tungsten_scene(const std::string& path, const nlohmann::json&) {
    throw SceneError(path + ": Tungsten scenes are not supported yet");
}
ObjMesh load_wo3(const std::string& path, const mat4&) { throw MeshError(path + ": .wo3 not supported yet"); }
}  // namespace wp
