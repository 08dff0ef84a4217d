// Triangle meshes from Wavefront OBJ files (through tinyobjloader), with their MTL materials.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>
#include "kernels/common.h"

namespace wp {

// A problem with an OBJ file; the message starts with the OBJ's path.
struct MeshError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ObjMaterial {
    std::string name;
    vec3 kd{0.8f};
    std::string map_kd;  // diffuse texture named by the MTL (relative to the OBJ)
    vec3 ke{0.0f};       // emitted radiance (MTL Ke)
};

// Triangle soup in world space: corner k of triangle i is element 3*i + k.
struct ObjMesh {
    std::vector<vec3> pos;
    std::vector<vec3> normal;    // unit shading normals; meaningful where has_normals[i]
    std::vector<vec2> uv;        // texture coordinates, v flipped to run downward (glTF, texel row 0 on top); where has_uv[i]
    std::vector<uint8_t> has_normals, has_uv;  // per triangle
    std::vector<int> material;   // per triangle: index into materials, -1 where the face has none
    std::vector<ObjMaterial> materials;
    std::vector<std::string> warnings;  // tinyobjloader's warnings, each prefixed with the OBJ's path
    size_t triangles() const { return material.size(); }
};

// Loads `path` (polygons triangulated as fans), maps positions by M and normals by the inverse transpose of
// M's upper 3x3 (renormalized). Where M mirrors (negative determinant) the corner order is swapped so that the
// geometric normal keeps the file's outward side. With `smooth`, triangles whose faces give no normals get
// area-weighted vertex normals (over the faces sharing each OBJ vertex). MTL files are looked up next to the OBJ.
// Throws MeshError for: a file that cannot be opened or parsed, no triangles, non-finite positions (after M),
// out-of-range indices, a singular M.
ObjMesh load_obj(const std::string& path, const mat4& M = mat4(1.0f), bool smooth = false);

}  // namespace wp
