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

// What refining the control mesh (`vertices`, triangles `idx`, its edges counted) `levels` times makes, computed
// before it is made (V' = V + E, E' = 2E + 3F, F' = 4F per level): the output's triangles and vertices, and the
// bytes of loop_subdivide's peak (the last level's topology: edges, their map, each vertex's fan and one-ring) plus
// the triangle mesh an importer makes of its result (positions, normals, uvs and flags per corner). Against the
// CPU build's peak resident memory of the whole load (`/usr/bin/time -f %M wavepath render` with WP_BVH_SPLITS=0,
// 200 control triangles of a 10x10 grid): levels 5, 78.8 MiB estimated, 89 MiB measured; levels 6, 314.8 MiB
// estimated, 311 MiB measured.
struct LoopEstimate {
    uint64_t triangles = 0, vertices = 0, bytes = 0;
};
LoopEstimate loop_subdivide_estimate(size_t vertices, const std::vector<uint32_t>& idx, int levels);

}  // namespace wp
