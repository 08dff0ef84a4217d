// Traversal against brute force. The tree here comes from a small median-split builder kept in
// this test (the production binned-SAH builder is host work still to land); it exercises the node
// layout, leaf encoding, stack and both child orders of traverse().
#include <gtest/gtest.h>
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>
#include "kernels/bvh.h"
using namespace wp;

namespace {
struct Box {
    vec3 lo{kInf}, hi{-kInf};
    void grow(vec3 p) { lo = glm::min(lo, p); hi = glm::max(hi, p); }
    void grow(const Box& b) { lo = glm::min(lo, b.lo); hi = glm::max(hi, b.hi); }
};
struct Builder {
    std::vector<Box> boxes;
    std::vector<vec3> cent;
    std::vector<uint32_t> order;
    std::vector<BVHNode> nodes;
    Box range(uint32_t b, uint32_t e) {
        Box r;
        for (uint32_t i = b; i < e; ++i) r.grow(boxes[order[i]]);
        return r;
    }
    // Fills node slot `slot` for children covering [b, m) and [m, e).
    void build(uint32_t slot, uint32_t b, uint32_t e) {
        uint32_t m = (b + e) / 2;
        Box rb = range(b, e);
        int axis = 0;
        vec3 ext = rb.hi - rb.lo;
        if (ext.y > ext.x) axis = 1;
        if (ext.z > ext[axis]) axis = 2;
        std::nth_element(order.begin() + b, order.begin() + m, order.begin() + e,
                         [&](uint32_t x, uint32_t y) { return cent[x][axis] < cent[y][axis]; });
        uint32_t lo[2] = {b, m}, hi[2] = {m, e};
        Box cb[2] = {range(b, m), range(m, e)};
        uint32_t child[2], count[2];
        for (int c = 0; c < 2; ++c) {
            if (hi[c] - lo[c] <= 3) {
                child[c] = lo[c];
                count[c] = hi[c] - lo[c];
            } else {
                child[c] = uint32_t(nodes.size());
                count[c] = 0;
                nodes.push_back({});
            }
        }
        BVHNode& n = nodes[slot];
        n.a = F4{cb[0].lo.x, cb[0].hi.x, cb[0].lo.y, cb[0].hi.y};
        n.b = F4{cb[1].lo.x, cb[1].hi.x, cb[1].lo.y, cb[1].hi.y};
        n.c = F4{cb[0].lo.z, cb[0].hi.z, cb[1].lo.z, cb[1].hi.z};
        n.d = U4{child[0], child[1], count[0], count[1]};
        for (int c = 0; c < 2; ++c)
            if (count[c] == 0) build(child[c], lo[c], hi[c]);
    }
};
}  // namespace

TEST(BVH, TraversalMatchesBruteForceOnRandomTriangles) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    const int n = 3000;
    std::vector<vec3> v(3 * n);
    for (int i = 0; i < n; ++i) {
        vec3 c(U(rng) * 5, U(rng) * 5, U(rng) * 5);
        for (int k = 0; k < 3; ++k) v[3 * i + k] = c + 0.3f * vec3(U(rng), U(rng), U(rng));
    }
    Builder B;
    for (int i = 0; i < n; ++i) {
        Box b;
        for (int k = 0; k < 3; ++k) b.grow(v[3 * i + k]);
        B.boxes.push_back(b);
        B.cent.push_back((v[3 * i] + v[3 * i + 1] + v[3 * i + 2]) / 3.0f);
    }
    B.order.resize(n);
    std::iota(B.order.begin(), B.order.end(), 0u);
    B.nodes.push_back({});
    B.build(0, 0, n);
    std::vector<F4> geom(3 * n);
    std::vector<U4> info(n);
    for (int j = 0; j < n; ++j) {
        int i = B.order[j];
        vec3 a = v[3 * i], e1 = v[3 * i + 1] - a, e2 = v[3 * i + 2] - a;
        geom[3 * j] = F4{a.x, a.y, a.z, bits_float(uint32_t(ShapeType::Triangle))};
        geom[3 * j + 1] = F4{e1.x, e1.y, e1.z, 0};
        geom[3 * j + 2] = F4{e2.x, e2.y, e2.z, 0};
        info[j] = U4{0, 0, kInvalid, kInvalid};
    }
    SceneView s;
    s.nodes = B.nodes.data();
    s.prims.geom = geom.data();
    s.prims.info = info.data();
    s.prims.count = n;
    int hits = 0;
    for (int r = 0; r < 10000; ++r) {
        vec3 o = vec3(U(rng), U(rng), U(rng)) * 8.0f;
        Ray ray{o, glm::normalize(vec3(U(rng), U(rng), U(rng)) * 3.0f - o)};
        Hit bf{kInf, kInvalid, 0, 0};
        for (uint32_t i = 0; i < uint32_t(n); ++i) intersect_prim(s.prims, i, ray, 0.0f, bf);
        Hit h = intersect_closest(s, ray);
        ASSERT_EQ(h.prim == kInvalid, bf.prim == kInvalid) << "ray " << r;
        if (bf.prim == kInvalid) continue;
        ++hits;
        EXPECT_NEAR(h.t, bf.t, 1e-4f * bf.t);
        bool occ = occluded(s, ray, bf.t * 1.001f);
        EXPECT_TRUE(occ);
        EXPECT_FALSE(occluded(s, ray, bf.t * 0.999f));
    }
    EXPECT_GT(hits, 5000);  // the test must exercise real hits
}
