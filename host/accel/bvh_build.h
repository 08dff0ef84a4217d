// Binned SAH BVH builder (host). Produces the two-child node layout of kernels/scene_view.h and the
// leaf-order permutation of the primitives.
#pragma once
#include <array>
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

// SceneBuilder's BVHBuildOptions::split_beta: a node tries a spatial split only where its best object split's
// children overlap by more than 0.2 of the node's own area (as well as split_alpha of the root's): spatial binning in
// nodes whose children barely overlap was most of the build and rarely won. docs/DECISIONS.md: split-beta.
constexpr float kDefaultSplitBeta = 0.2f;

// SceneBuilder's BVHBuildOptions::split_gamma: nor where every reference spans a quarter of the node or less on every
// axis. Small triangles' nodes overlap where the surface curves, not where a triangle is long, and their spatial
// splits (all that binning) hardly ever pay. docs/DECISIONS.md: split-gamma.
constexpr float kDefaultSplitGamma = 0.25f;

// SceneBuilder's BVHBuildOptions::split_bins: spatial splits choose among 16 planes per axis, not the object splits' 32
// (the spatial binning clips each reference to every bin it spans). docs/DECISIONS.md: split-bins.
constexpr int kDefaultSplitBins = 16;

struct BVHBuildOptions {
    int bins = 32;  // docs/DECISIONS.md: bvh-bins, bvh-leaf-size
    uint32_t max_leaf = 2;
    float traversal_cost = 1.0f;        // relative to one primitive test
    int max_depth = kBVHStackSize - 4;  // deeper subtrees fall back to median splits
    // Spatial splits (SBVH, Stich, Friedrich and Dietrich 2009). Off: the plain binned object-split builder
    // above, unchanged. On: each node also tries a binned spatial split (opt.bins planes per axis) when the
    // best object split's children overlap by more than split_alpha * the root's surface area, followed by
    // reference unsplitting; primitives may then be referenced by several leaf slots (order has duplicates).
    bool spatial_splits = false;
    float split_alpha = 1e-5f;
    // Cap on references: no spatial split is taken once the references would exceed split_max_growth * the
    // input count (the budget is spent depth-first, as it comes, each subtree built apart (threads) with its share).
    float split_max_growth = 2.0f;
    // No spatial split is tried in nodes of fewer references than split_min_refs (0: any node), nor in nodes whose
    // best object split's children overlap by split_beta * the node's area or less (0: any overlap; SceneBuilder:
    // kDefaultSplitBeta).
    uint32_t split_min_refs = 0;
    float split_beta = 0.0f;
    // Nor in nodes whose references all span split_gamma or less of the node's extent on every axis (0: any; SceneBuilder:
    // kDefaultSplitGamma).
    float split_gamma = 0.0f;
    // With spatial splits, BVHBuild::ref_boxes is filled (false: left empty; SceneBuilder's binary tree does not read
    // them, and they were a tenth of the build's memory).
    bool ref_boxes = true;
    // Planes per axis of the spatial-split binning (0: bins).
    int split_bins = 0;
    // Threads of the spatial-split builder (0: the machine's cores). The tree does not depend on it: subtrees of a
    // sixteenth of the input or more are built apart, on threads or not, each with its share of the reference
    // budget (split_max_growth).
    int threads = 0;
    // Conservative node boxes: each child box is widened on every side by pad_ulps * M * 2^-23 (pad_ulps units in
    // the last place of M or more), M the larger of the scene's largest coordinate and pad_magnitude (the magnitude
    // of ray origins outside the scene, e.g. the camera's). The traversal's slab test, a * inv + (-o * inv), errs
    // relatively (covered by kSlabWiden in kernels/bvh.h) and absolutely, by the rounding of -o * inv: up to half an
    // ulp of |o| in world space, which this padding covers, so an exact box can no longer be missed by a ray that
    // meets its contents on the box's face (rays slipping between flat boxes at a seam). 0: exact boxes. The relative
    // error is the slab test's widening's, not the padding's, which would widen small boxes beside large ones.
    // docs/DECISIONS.md: box-padding.
    float pad_ulps = 2.0f;
    // Tree optimisation after the build by reinsertion (Bittner, Hapala, Havran 2013, "Fast insertion-based
    // optimization of bounding volume hierarchies"): up to this many batches, each removing the 1% of inner nodes
    // whose boxes are largest for their children's and reinserting their subtrees where they add the least surface
    // area, until three batches in a row do not lower the tree's SAH cost. Leaves and their primitives stay as
    // built; the depth stays within max_depth. 0: off.
    int optimize_batches = 0;
    float pad_magnitude = 0.0f;
};

// Child k's box of a binary node (the inverse of the builders' layout: x and y of child 0 in a, of child 1 in b,
// both children's z in c).
inline AABB child_box(const BVHNode& n, int k) {
    AABB b;
    if (k == 0) {
        b.lo = vec3(n.a.x, n.a.z, n.c.x);
        b.hi = vec3(n.a.y, n.a.w, n.c.y);
    } else {
        b.lo = vec3(n.b.x, n.b.z, n.c.z);
        b.hi = vec3(n.b.y, n.b.w, n.c.w);
    }
    return b;
}

struct BVHBuild {
    std::vector<BVHNode> nodes;
    std::vector<uint32_t> order;  // order[leaf position] = input primitive index
    int depth = 0;                // longest root-to-leaf path in nodes
    // With spatial splits and BVHBuildOptions::ref_boxes only (else empty): ref_boxes[leaf position] = the box of that
    // reference, i.e. the primitive's box clipped to the part of it this leaf slot stands for (a sub-box of
    // boxes[order[j]]).
    std::vector<AABB> ref_boxes;
};

BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt = {});

// With opt.spatial_splits, triangles (optional: nullptr, or one entry per box) lets spatial splits clip
// primitive i exactly: its triangle's polygon is chopped by each split plane and each part's box is
// intersected with the reference's current box. An entry whose first vertex has a NaN x (kNotATriangle()),
// and every primitive when triangles is nullptr, is split by its box alone (both halves keep the box's
// extent on the other axes: correct for any shape, just less tight). Without spatial splits the triangles
// are ignored and the result equals build_bvh(boxes, opt).
BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt,
                   const std::vector<std::array<vec3, 3>>* triangles);
std::array<vec3, 3> kNotATriangle();

// The SAH cost of a binary tree (the builders' layout), relative to its root's box: each inner node (the root
// included) costs its box's area times traversal_cost, each leaf its box's area times its primitive count, all
// over the root's area. The measure of the reinsertion (BVHBuildOptions::optimize_batches) and of the load line.
double bvh_sah_cost(const std::vector<BVHNode>& nodes, float traversal_cost = 1.0f);

}  // namespace wp
