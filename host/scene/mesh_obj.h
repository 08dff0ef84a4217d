// Triangle meshes from Wavefront OBJ files (through tinyobjloader), with their MTL materials.
#pragma once
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>
#include "kernels/common.h"

namespace wp {

// A problem with an OBJ file; the message starts with the OBJ's path.
struct MeshError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
// Whether path names a folder: the readers (scenes, meshes, films) say so before a stream reads a folder as an
// empty or unreadable file.
bool is_folder(const std::string& path);

struct ObjMaterial {
    std::string name;
    vec3 kd{0.8f};
    std::string map_kd;  // diffuse texture named by the MTL (relative to the OBJ)
    vec3 ke{0.0f};       // emitted radiance (MTL Ke)
};

// Triangle soup in world space: corner k of triangle i is element 3*i + k.
struct ObjMesh {
    std::vector<vec3> pos;
    std::vector<vec3> normal;  // unit shading normals; meaningful where has_normals[i]
    std::vector<vec2> uv;  // texture coordinates, v flipped to run downward (glTF, texel row 0 on top); where has_uv[i]
    std::vector<uint8_t> has_normals, has_uv;  // per triangle
    std::vector<int> material;                 // per triangle: index into materials, -1 where the face has none
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

// Area-weighted vertex normals (|cross| = twice the area) for the triangles of `mesh` without normals;
// corner_vertex[3*i + k] is the file vertex (< num_vertices) of corner k of triangle i. Shared by the OBJ and
// PLY loaders. Triangles whose accumulated normals vanish keep none.
template <class Index>
void smooth_vertex_normals(ObjMesh& mesh, const std::vector<Index>& corner_vertex, size_t num_vertices) {
    std::vector<vec3> acc(num_vertices, vec3(0.0f));
    size_t T = mesh.triangles();
    for (size_t i = 0; i < T; ++i) {
        if (mesh.has_normals[i]) continue;
        vec3 a = mesh.pos[3 * i];
        vec3 g = glm::cross(mesh.pos[3 * i + 1] - a, mesh.pos[3 * i + 2] - a);
        for (int k = 0; k < 3; ++k) acc[size_t(corner_vertex[3 * i + k])] += g;
    }
    for (size_t i = 0; i < T; ++i) {
        if (mesh.has_normals[i]) continue;
        bool good = true;
        vec3 n[3];
        for (int k = 0; k < 3; ++k) {
            vec3 s = acc[size_t(corner_vertex[3 * i + k])];
            float l = glm::length(s);
            good = good && l > 0.0f && std::isfinite(l);
            n[k] = s / l;
        }
        if (!good) continue;
        for (int k = 0; k < 3; ++k) mesh.normal[3 * i + k] = n[k];
        mesh.has_normals[i] = 1;
    }
}

}  // namespace wp
