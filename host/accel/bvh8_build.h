// 8-wide compressed BVH (kernels/bvh8.h) collapsed from the binary SAH tree of host/accel/bvh_build.h.
#pragma once
#include <cstdint>
#include <vector>

#include "host/accel/bvh_build.h"
#include "kernels/bvh8.h"

namespace wp {

struct BVH8Build {
    std::vector<BVH8Node> nodes;  // node 0 is the root; empty for an empty binary tree
    // The wide tree needs the primitives of each node's leaf children consecutive, so it has its own primitive
    // order: wide primitive i is binary leaf-order primitive order[i]. Permute geom/info (and anything indexed
    // by primitive, e.g. Light::prim) with it; with BVHBuild b, the input primitive is b.order[order[i]].
    std::vector<uint32_t> order;
    int depth = 0;   // wide nodes on the longest root-to-leaf path (<= kBVH8StackSize)
    int leaves = 0;  // leaf children (of at most 3 primitives each)
};

struct BVH8BuildOptions {
    // true: the paper's SAH-optimal collapse (dynamic programming over the binary tree, section 3.1); false:
    // tinybvh's greedy one (open the child of largest area until there are 8).
    bool sah_collapse = true;
    float node_cost = 1.0f;  // SAH cost of a wide node, per unit of its surface area
    float prim_cost = 0.3f;  // of one primitive test, relative to node_cost (the paper's c_prim)
};

// nodes: a binary tree from build_bvh. prim_boxes (optional): primitive boxes in binary leaf order; binary
// leaves of more than 3 primitives are cut into sub-ranges, which get tight boxes from it (without it, each
// sub-range keeps its leaf's box). Throws std::runtime_error if the wide tree is deeper than kBVH8StackSize.
BVH8Build build_bvh8(const std::vector<BVHNode>& nodes, const std::vector<AABB>& prim_boxes = {},
                     const BVH8BuildOptions& opt = {});

// Host-side decoding, for tests and statistics.
struct BVH8Child {
    enum Kind { Empty, Inner, Leaf } kind = Empty;
    uint32_t index = 0;  // Inner: node index; Leaf: first primitive
    uint32_t count = 0;  // Leaf: primitives (1..3)
    AABB box;            // the quantised (conservative) box, decoded in float as p + q * step
};
BVH8Child bvh8_child(const BVH8Node& n, int slot);

}  // namespace wp
