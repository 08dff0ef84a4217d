#include "host/bvh_build.h"
#include <algorithm>
#include <numeric>

namespace wp {
namespace {

struct Ctx {
    const std::vector<AABB>& boxes;
    std::vector<vec3> cent;
    BVHBuildOptions opt;
    BVHBuild out;
};

AABB bounds_of(Ctx& c, uint32_t b, uint32_t e, AABB* cb = nullptr) {
    AABB r, cr;
    for (uint32_t i = b; i < e; ++i) {
        r.grow(c.boxes[c.out.order[i]]);
        cr.grow(c.cent[c.out.order[i]]);
    }
    if (cb) *cb = cr;
    return r;
}

// Split [b, e); returns the split position (b < m < e).
uint32_t split(Ctx& c, uint32_t b, uint32_t e, int depth) {
    AABB cb;
    AABB box = bounds_of(c, b, e, &cb);
    uint32_t n = e - b;
    auto& ord = c.out.order;
    int best_axis = -1, best_bin = -1;
    float best_cost = kInf;
    const int B = c.opt.bins;
    if (depth < c.opt.max_depth) {
        for (int axis = 0; axis < 3; ++axis) {
            float lo = cb.lo[axis], ext = cb.hi[axis] - lo;
            if (!(ext > 0.0f)) continue;
            std::vector<AABB> bb(B);
            std::vector<uint32_t> cnt(B, 0);
            float k = B / ext;
            for (uint32_t i = b; i < e; ++i) {
                int bi = std::min(B - 1, int((c.cent[ord[i]][axis] - lo) * k));
                bb[bi].grow(c.boxes[ord[i]]);
                ++cnt[bi];
            }
            std::vector<float> left_cost(B);
            AABB acc;
            uint32_t na = 0;
            for (int i = 0; i < B - 1; ++i) {
                acc.grow(bb[i]);
                na += cnt[i];
                left_cost[i] = na ? acc.area() * na : 0.0f;
            }
            acc = AABB();
            na = 0;
            for (int i = B - 1; i > 0; --i) {
                acc.grow(bb[i]);
                na += cnt[i];
                float cost = left_cost[i - 1] + (na ? acc.area() * na : 0.0f);
                if (na > 0 && na < n && cost < best_cost) {
                    best_cost = cost;
                    best_axis = axis;
                    best_bin = i;
                }
            }
        }
    }
    if (best_axis >= 0) {
        float lo = cb.lo[best_axis], k = B / (cb.hi[best_axis] - lo);
        auto mid = std::partition(ord.begin() + b, ord.begin() + e, [&](uint32_t p) {
            return std::min(B - 1, int((c.cent[p][best_axis] - lo) * k)) < best_bin;
        });
        uint32_t m = uint32_t(mid - ord.begin());
        if (m > b && m < e) return m;
    }
    // Median split on the largest centroid extent (degenerate centroids, or depth limit reached).
    vec3 ext = cb.hi - cb.lo;
    int axis = ext.y > ext.x ? 1 : 0;
    if (ext.z > ext[axis]) axis = 2;
    uint32_t m = b + n / 2;
    std::nth_element(ord.begin() + b, ord.begin() + m, ord.begin() + e,
                     [&](uint32_t x, uint32_t y) { return c.cent[x][axis] < c.cent[y][axis]; });
    (void)box;
    return m;
}

// Should [b, e) become a leaf? SAH: leaf cost n against the best split estimate, bounded by max_leaf.
bool make_leaf(Ctx& c, uint32_t b, uint32_t e) { return e - b <= c.opt.max_leaf; }

void set_child(BVHNode& n, int k, const AABB& bx, uint32_t child, uint32_t count) {
    if (k == 0) {
        n.a = F4{bx.lo.x, bx.hi.x, bx.lo.y, bx.hi.y};
        n.c.x = bx.lo.z;
        n.c.y = bx.hi.z;
        n.d.x = child;
        n.d.z = count;
    } else {
        n.b = F4{bx.lo.x, bx.hi.x, bx.lo.y, bx.hi.y};
        n.c.z = bx.lo.z;
        n.c.w = bx.hi.z;
        n.d.y = child;
        n.d.w = count;
    }
}

// Node `slot` gets children for [b, m) and [m, e).
void build_node(Ctx& c, uint32_t slot, uint32_t b, uint32_t e, int depth) {
    c.out.depth = std::max(c.out.depth, depth + 1);
    uint32_t m = split(c, b, e, depth);
    uint32_t lo[2] = {b, m}, hi[2] = {m, e};
    uint32_t inner[2] = {kInvalid, kInvalid};
    for (int k = 0; k < 2; ++k) {
        AABB bx = bounds_of(c, lo[k], hi[k]);
        if (make_leaf(c, lo[k], hi[k])) {
            set_child(c.out.nodes[slot], k, bx, lo[k], hi[k] - lo[k]);
        } else {
            inner[k] = uint32_t(c.out.nodes.size());
            c.out.nodes.push_back(BVHNode{});
            set_child(c.out.nodes[slot], k, bx, inner[k], 0);
        }
    }
    for (int k = 0; k < 2; ++k)
        if (inner[k] != kInvalid) build_node(c, inner[k], lo[k], hi[k], depth + 1);
}

}  // namespace

BVHBuild build_bvh(const std::vector<AABB>& boxes, const BVHBuildOptions& opt) {
    Ctx c{boxes, {}, opt, {}};
    uint32_t n = uint32_t(boxes.size());
    c.out.order.resize(n);
    std::iota(c.out.order.begin(), c.out.order.end(), 0u);
    c.cent.resize(n);
    for (uint32_t i = 0; i < n; ++i) c.cent[i] = 0.5f * (boxes[i].lo + boxes[i].hi);
    if (n == 0) return c.out;
    c.out.nodes.push_back(BVHNode{});
    if (n <= opt.max_leaf) {
        // A root that is one leaf: both child slots name it (a second test of the same few primitives is harmless).
        c.out.depth = 1;
        AABB bx = bounds_of(c, 0, n);
        set_child(c.out.nodes[0], 0, bx, 0, n);
        set_child(c.out.nodes[0], 1, bx, 0, n);
        return c.out;
    }
    build_node(c, 0, 0, n, 0);
    return c.out;
}

}  // namespace wp
