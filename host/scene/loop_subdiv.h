// Loop subdivision surfaces (Loop 1987), as pbrt-v4's "loopsubdiv" shape makes them: the control mesh refined
// `levels` times with Loop's rules (interior and boundary), its vertices then pushed to the limit surface, with
// shading normals from the limit surface's tangents. The result is a triangle mesh.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "kernels/common.h"

namespace wp {

struct LoopMesh {
    std::vector<vec3> p;        // vertex positions
    std::vector<vec3> n;        // limit-surface normals (pbrt-v4's S x T), one per vertex; empty without the limit
    std::vector<uint32_t> idx;  // three per triangle, the control mesh's corner order kept in every child
};

// Refines the triangle mesh (p, idx) `levels` times. One level: every edge gets a new (odd) vertex, 3/8 of its
// endpoints and 1/8 of the two opposite vertices, or the midpoint on a boundary edge (an edge of one face); every
// old (even) vertex of valence n moves to (1 - n beta) p + beta (sum of its neighbours), beta = 3/16 for n = 3 and
// 3/(8n) otherwise, or on the boundary to 3/4 p + 1/8 of its two boundary neighbours; each triangle becomes four.
// Old vertices keep their indices, and the vertex of edge e is V + e (so V' = V + E, F' = 4F). With `limit`, the
// vertices are then moved to the limit surface (interior: gamma = 1 / (n + 3 / (8 beta)), (1 - n gamma) p + gamma
// sum; boundary: 3/5 p + 1/5 of the two boundary neighbours) and get normals. Throws std::invalid_argument on
// indices out of range or an edge shared by more than two faces (not a manifold), naming the problem.
LoopMesh loop_subdivide(const std::vector<vec3>& p, const std::vector<uint32_t>& idx, int levels, bool limit = true);

}  // namespace wp
