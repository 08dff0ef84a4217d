// Binned SAH BVH builder (host). Produces the two-child node layout of kernels/scene_view.h and the
// leaf-order permutation of the primitives.
#pragma once
#include <cstdint>
#include <vector>
#include "kernels/scene_view.h"

namespace wp {

struct AABB {
    vec3 lo{kInf}, hi{-kInf};
    void grow(vec3 p) {
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
    }
    void grow(const AABB& b) {
        lo = glm::min(lo, b.lo);
        hi = glm::max(hi, b.hi);
    }
    float area() const {
        vec3 e = glm::max(hi - lo, vec3(0.0f));
        return 2.0f * (e.x * e.y + e.y * e.z + e.z * e.x);
    }
    bool valid() const { return lo.x <= hi.x && lo.y <= hi.y && lo.z <= hi.z; }
};

// Width of the scene's tree (SceneBuilder::build; the environment variable WP_BVH_WIDTH=2 or 8 overrides).
constexpr int kDefaultBVHWidth = 2;  // 8 measured 4% slower overall (profiling/LOG.md entry 9)

struct BVHBuildOptions {
    int bins = 32;           // 16 -> 32 and leaves 4 -> 2: Sponza 14% faster (profiling/LOG.md entry 8)
    uint32_t max_leaf = 2;
    float traversal_cost = 1.0f;      // relative to one primitive test
    int max_depth = kBVHStackSize - 4;  // deeper subtrees fall back to median splits
};

struct BVHBuild {
    std::vector<BVHNode> nodes;
    std::vector<uint32_t> order;  // order[leaf position] = input primitive index
    int depth = 0;                // longest root-to-leaf path in nodes
};

BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt = {});

}  // namespace wp
