// Triangle meshes from PLY files (ASCII and binary little-endian), by a small reader of our own.
#pragma once
#include <string>
#include "host/scene/mesh_obj.h"

namespace wp {

// Loads `path`: vertex x/y/z (float or double), optional nx/ny/nz and u/v (or s/t, texture_u/texture_v), faces
// from a vertex_indices or vertex_index list (polygons triangulated as fans). Same conventions as load_obj
// (transform, mirrored transforms, smooth normals); no materials. Throws MeshError naming the file for anything
// malformed: bad header, unsupported format (binary big-endian), truncated data, indices out of range, no
// triangles, non-finite positions.
ObjMesh load_ply(const std::string& path, const mat4& M = mat4(1.0f), bool smooth = false);

}  // namespace wp
