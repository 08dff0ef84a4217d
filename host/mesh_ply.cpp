#include "host/mesh_ply.h"

namespace wp {
ObjMesh load_ply(const std::string& path, const mat4&, bool) { throw MeshError(path + ": PLY not supported yet"); }
}  // namespace wp
