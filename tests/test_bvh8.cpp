// 8-wide compressed BVH (host/accel/bvh8_build.cpp, kernels/bvh8.h): structure of the collapsed tree and traversal
// against the binary traversal of kernels/bvh.h, on triangle soups, meshes and mixed spheres/quads/triangles.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "host/accel/bvh8_build.h"
#include "host/render/render.h"
#include "host/scene/scene_build.h"
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "kernels/bvh8.h"
using namespace wp;

#ifndef WP_SOURCE_DIR
#error "WP_SOURCE_DIR must name the source tree"
#endif

namespace {

// Primitives in input order (geom/info as in kernels/scene_view.h), then in binary and in wide leaf order.
struct Scene {
    std::vector<F4> geom;
    std::vector<U4> info;
    std::vector<AABB> boxes;
    BVHBuild bvh;
    std::vector<F4> geom2, geom8;
    std::vector<U4> info2, info8;
    std::vector<AABB> boxes2;  // binary leaf order
    BVH8Build wide;

    void add(ShapeType t, vec3 a, vec3 b, vec3 c) {
        geom.push_back(F4{a.x, a.y, a.z, bits_float(uint32_t(t))});
        geom.push_back(F4{b.x, b.y, b.z, 0.0f});
        geom.push_back(F4{c.x, c.y, c.z, 0.0f});
        info.push_back(U4{uint32_t(t), 0, kInvalid, kInvalid});
        AABB bx;
        if (t == ShapeType::Triangle) {
            bx.grow(a);
            bx.grow(a + b);
            bx.grow(a + c);
        } else if (t == ShapeType::Quad) {
            bx.grow(a);
            bx.grow(a + b);
            bx.grow(a + c);
            bx.grow(a + b + c);
        } else {
            bx.grow(a - vec3(b.x));
            bx.grow(a + vec3(b.x));
        }
        boxes.push_back(bx);
    }
    void tri(vec3 a, vec3 b, vec3 c) { add(ShapeType::Triangle, a, b - a, c - a); }
    void sphere(vec3 c, float r) { add(ShapeType::Sphere, c, vec3(r, 0, 0), vec3(0)); }
    void quad(vec3 p, vec3 eu, vec3 ev) { add(ShapeType::Quad, p, eu, ev); }

    // tight: give build_bvh8 the primitive boxes (split leaves get tight boxes) or not; sah: SAH or greedy collapse.
    void build(uint32_t max_leaf, bool tight = true, bool sah = true) {
        BVHBuildOptions opt;
        opt.max_leaf = max_leaf;
        bvh = build_bvh(boxes, opt);
        size_t n = info.size();
        geom2.resize(3 * n);
        info2.resize(n);
        boxes2.resize(n);
        for (size_t j = 0; j < n; ++j) {
            uint32_t i = bvh.order[j];
            for (int k = 0; k < 3; ++k) geom2[3 * j + k] = geom[3 * i + k];
            info2[j] = info[i];
            boxes2[j] = boxes[i];
        }
        BVH8BuildOptions wo;
        wo.sah_collapse = sah;
        wide = build_bvh8(bvh.nodes, tight ? boxes2 : std::vector<AABB>{}, wo);
        geom8.resize(3 * n);
        info8.resize(n);
        for (size_t j = 0; j < wide.order.size(); ++j) {
            uint32_t i = wide.order[j];
            for (int k = 0; k < 3; ++k) geom8[3 * j + k] = geom2[3 * i + k];
            info8[j] = info2[i];
        }
    }
    SceneView view2() const {
        SceneView s;
        s.nodes = bvh.nodes.empty() ? nullptr : bvh.nodes.data();
        s.prims = PrimArrays{geom2.data(), info2.data(), nullptr, uint32_t(info2.size())};
        return s;
    }
    PrimArrays prims8() const { return PrimArrays{geom8.data(), info8.data(), nullptr, uint32_t(info8.size())}; }
    const BVH8Node* nodes8() const { return wide.nodes.empty() ? nullptr : wide.nodes.data(); }
    AABB bounds() const {
        AABB b;
        for (const AABB& x : boxes) b.grow(x);
        return b;
    }
};

// Walks the wide tree from the root and checks its structure; returns the exact box of node `idx`'s primitives.
struct Checker {
    const Scene& s;
    std::vector<int> node_refs, prim_refs;
    int max_depth = 0, loose_boxes = 0;
    explicit Checker(const Scene& sc) : s(sc), node_refs(sc.wide.nodes.size(), 0), prim_refs(sc.wide.order.size(), 0) {}

    AABB walk(uint32_t idx, int depth) {
        max_depth = std::max(max_depth, depth);
        if (node_refs[idx]++ > 0) return AABB{};  // referenced twice (reported by check_structure); no cycles
        const BVH8Node& n = s.wide.nodes[idx];
        AABB all;
        int children = 0;
        for (int slot = 0; slot < 8; ++slot) {
            BVH8Child c = bvh8_child(n, slot);
            if (c.kind == BVH8Child::Empty) continue;
            ++children;
            AABB exact;
            if (c.kind == BVH8Child::Inner) {
                EXPECT_LT(c.index, s.wide.nodes.size());
                if (c.index >= s.wide.nodes.size()) continue;
                exact = walk(c.index, depth + 1);
            } else {
                EXPECT_GE(c.count, 1u);
                EXPECT_LE(c.count, 3u);
                EXPECT_LE(c.index - n.n1.y + c.count, 24u) << "leaf beyond the 24-bit primitive mask";
                for (uint32_t p = c.index; p < c.index + c.count; ++p) {
                    EXPECT_LT(p, s.wide.order.size());
                    if (p >= s.wide.order.size()) continue;
                    prim_refs[p]++;
                    exact.grow(s.boxes2[s.wide.order[p]]);
                }
            }
            // the quantised box, decoded as p + q * step, contains the exact box of everything below the slot
            for (int a = 0; a < 3; ++a)
                if (!(c.box.lo[a] <= exact.lo[a] && c.box.hi[a] >= exact.hi[a]) && ++loose_boxes <= 5)
                    ADD_FAILURE() << "node " << idx << " slot " << slot << " axis " << a << ": quantised ["
                                  << c.box.lo[a] << ", " << c.box.hi[a] << "] misses [" << exact.lo[a] << ", "
                                  << exact.hi[a] << "]";
            all.grow(exact);
        }
        EXPECT_GE(children, 1) << "node " << idx;
        return all;
    }
};

void check_structure(const Scene& s) {
    ASSERT_FALSE(s.wide.nodes.empty());
    ASSERT_EQ(s.wide.order.size(), s.info.size());
    // order is a permutation of the binary leaf positions
    std::vector<int> seen(s.info.size(), 0);
    for (uint32_t p : s.wide.order) {
        ASSERT_LT(p, seen.size());
        seen[p]++;
    }
    for (size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "binary primitive " << i;
    Checker c(s);
    c.walk(0, 1);
    EXPECT_EQ(c.loose_boxes, 0) << "quantised boxes that do not contain their children";
    for (size_t i = 0; i < c.node_refs.size(); ++i) ASSERT_EQ(c.node_refs[i], 1) << "node " << i;
    for (size_t i = 0; i < c.prim_refs.size(); ++i) ASSERT_EQ(c.prim_refs[i], 1) << "wide primitive " << i;
    EXPECT_EQ(c.max_depth, s.wide.depth);
    EXPECT_LE(s.wide.depth, kBVH8StackSize);
}

struct Stats {
    int rays = 0, hits = 0, occluded = 0, bad_closest = 0, bad_occluded = 0;
};

// Closest hit and occlusion of the wide traversal against the binary one, ray by ray.
Stats compare(const Scene& s, const std::vector<Ray>& rays, uint32_t seed) {
    SceneView v2 = s.view2();
    PrimArrays p8 = s.prims8();
    const BVH8Node* n8 = s.nodes8();
    AABB b = s.bounds();
    float diag = glm::length(b.hi - b.lo);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    Stats st;
    for (size_t r = 0; r < rays.size(); ++r) {
        const Ray& ray = rays[r];
        ++st.rays;
        // a positive tmin now and then (both traversals clip boxes by it)
        float tmin = r % 7 == 0 ? 0.3f * diag * U(rng) : 0.0f;
        Hit h2 = traverse<false>(v2, ray, tmin, kInf);
        Hit h8 = traverse8<false>(n8, p8, ray, tmin, kInf);
        uint32_t p8_as_2 = h8.prim == kInvalid ? kInvalid : s.wide.order[h8.prim];
        bool ok = (h2.prim == kInvalid) == (h8.prim == kInvalid);
        if (ok && h2.prim != kInvalid) {
            ++st.hits;
            // same primitive (same t), or a tie between primitives sharing an edge or overlapping
            ok = p8_as_2 == h2.prim ? h8.t == h2.t && h8.u == h2.u && h8.v == h2.v
                                    : std::fabs(h8.t - h2.t) <= 1e-4f * std::fabs(h2.t);
        }
        if (!ok && ++st.bad_closest <= 5)
            ADD_FAILURE() << "ray " << r << " o=(" << ray.o.x << "," << ray.o.y << "," << ray.o.z << ") d=(" << ray.d.x
                          << "," << ray.d.y << "," << ray.d.z << ") tmin " << tmin << ": binary prim " << h2.prim
                          << " t " << h2.t << ", wide prim " << p8_as_2 << " t " << h8.t;
        // occlusion for a random tmax, and just before / after the closest hit
        float tmaxes[3] = {diag * 1.5f * U(rng), h2.t * 0.999f, h2.t * 1.001f};
        for (int k = 0; k < (h2.prim == kInvalid ? 1 : 3); ++k) {
            bool o2 = traverse<true>(v2, ray, 0.0f, tmaxes[k]).prim != kInvalid;
            bool o8 = occluded8(n8, p8, ray, tmaxes[k]);
            st.occluded += o8;
            if (o2 != o8 && ++st.bad_occluded <= 5)
                ADD_FAILURE() << "ray " << r << " tmax " << tmaxes[k] << ": binary occluded " << o2 << ", wide " << o8;
        }
    }
    return st;
}

// Origins inside and around the bounds; random directions, axis-parallel ones (+-0 components) and directions
// with one zero component.
std::vector<Ray> make_rays(const Scene& s, int n, uint32_t seed) {
    AABB b = s.bounds();
    vec3 c = 0.5f * (b.lo + b.hi), h = 0.5f * (b.hi - b.lo);
    float rad = glm::length(h) * 1.5f;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    std::vector<Ray> rays;
    for (int i = 0; i < n; ++i) {
        vec3 o = i % 3 == 0 ? c + h * vec3(U(rng), U(rng), U(rng))                     // inside the bounds
                            : c + rad * glm::normalize(vec3(U(rng), U(rng), U(rng)));  // around
        vec3 target = c + 0.8f * h * vec3(U(rng), U(rng), U(rng));
        vec3 d = glm::normalize(target - o);
        switch (i % 8) {
            case 5: {  // axis-parallel, towards the target along the dominant axis, other components +0 or -0
                int a = std::fabs(d.x) > std::fabs(d.y) ? 0 : 1;
                if (std::fabs(d.z) > std::fabs(d[a])) a = 2;
                vec3 e(U(rng) < 0 ? -0.0f : 0.0f, U(rng) < 0 ? -0.0f : 0.0f, U(rng) < 0 ? -0.0f : 0.0f);
                e[a] = d[a] < 0 ? -1.0f : 1.0f;
                // aim the origin at the target across the other two axes
                for (int k = 0; k < 3; ++k)
                    if (k != a) o[k] = target[k];
                d = e;
                break;
            }
            case 6:  // one zero component
                d[i % 3] = (i & 8) ? -0.0f : 0.0f;
                if (glm::length(d) == 0.0f) d = vec3(0, 1, 0);
                d = glm::normalize(d);
                break;
            case 7:  // random direction, unrelated to the scene
                d = glm::normalize(vec3(U(rng), U(rng), U(rng)) + vec3(1e-3f));
                break;
            default: break;
        }
        rays.push_back(Ray{o, d});
    }
    return rays;
}

// Runs the structure and traversal checks for max_leaf 1, 2, 4, 8 (and 16 where asked): SAH collapse with and
// without primitive boxes for split leaves, greedy collapse.
void check_all(Scene& s, int rays, float min_hit_fraction, bool with16 = false) {
    std::vector<uint32_t> leaves = {1, 2, 4, 8};
    if (with16) leaves.push_back(16);
    for (uint32_t ml : leaves) {
        for (int variant = 0; variant < 3; ++variant) {
            bool tight = variant != 1, sah = variant != 2;
            if (!tight && ml <= 3) continue;  // no leaves to split
            const char* name = variant == 0 ? "sah" : variant == 1 ? "sah, loose split boxes" : "greedy";
            SCOPED_TRACE("max_leaf " + std::to_string(ml) + " " + name);
            s.build(ml, tight, sah);
            check_structure(s);
            // (with leaves of up to 16 the binary tree can have fewer nodes than a wide one of leaves of 3)
            if (ml <= 8) { EXPECT_LT(s.wide.nodes.size(), s.bvh.nodes.size()); }
            EXPECT_LT(s.wide.depth, s.bvh.depth);
            // the collapse fills nodes: on average at least 3 leaf children per node
            EXPECT_LE(3 * s.wide.nodes.size(), size_t(s.wide.leaves));
            Stats st = compare(s, make_rays(s, rays, 100 + ml), ml);
            EXPECT_EQ(st.bad_closest, 0);
            EXPECT_EQ(st.bad_occluded, 0);
            EXPECT_GT(st.hits, int(min_hit_fraction * rays)) << "too few rays hit: the comparison says little";
            std::printf(
                "  [bvh8] %zu prims max_leaf %u %s: binary %zu nodes depth %d -> wide %zu nodes depth %d, "
                "%d leaves; %d/%d rays hit\n",
                s.info.size(), ml, name, s.bvh.nodes.size(), s.bvh.depth, s.wide.nodes.size(), s.wide.depth,
                s.wide.leaves, st.hits, st.rays);
        }
    }
}

Scene load_mesh(const ObjMesh& m) {
    Scene s;
    for (size_t i = 0; i < m.triangles(); ++i) s.tri(m.pos[3 * i], m.pos[3 * i + 1], m.pos[3 * i + 2]);
    return s;
}

}  // namespace

TEST(BVH8, NodeIsFiveRecords) {
    EXPECT_EQ(sizeof(BVH8Node), 80u);
    EXPECT_EQ(alignof(BVH8Node), 16u);
}

TEST(BVH8, EmptyAndTinyScenes) {
    Scene empty;
    empty.build(2);
    EXPECT_TRUE(empty.wide.nodes.empty());
    EXPECT_EQ(traverse8<false>(empty.nodes8(), empty.prims8(), Ray{vec3(0), vec3(0, 0, 1)}, 0.0f, kInf).prim, kInvalid);

    // 1, 3 and 10 triangles in a row: a root that is one binary leaf (up to 16: split into leaves of 3)
    for (int n : {1, 3, 10}) {
        for (uint32_t ml : {1u, 4u, 16u}) {
            for (bool sah : {true, false}) {
                SCOPED_TRACE("n " + std::to_string(n) + " max_leaf " + std::to_string(ml) + (sah ? " sah" : " greedy"));
                Scene s;
                for (int i = 0; i < n; ++i) s.tri(vec3(2.0f * i, 0, 0), vec3(2.0f * i + 1, 0, 0), vec3(2.0f * i, 1, 0));
                s.build(ml, true, sah);
                check_structure(s);
                for (int i = 0; i < n; ++i) {
                    Ray r{vec3(2.0f * i + 0.2f, 0.2f, 1.0f), vec3(0, 0, -1)};
                    Hit h = intersect_closest8(s.nodes8(), s.prims8(), r);
                    ASSERT_NE(h.prim, kInvalid) << "triangle " << i;
                    EXPECT_EQ(s.bvh.order[s.wide.order[h.prim]], uint32_t(i));
                    EXPECT_NEAR(h.t, 1.0f, 1e-6f);
                    EXPECT_TRUE(occluded8(s.nodes8(), s.prims8(), r, 1.01f));
                    EXPECT_FALSE(occluded8(s.nodes8(), s.prims8(), r, 0.99f));
                    Ray miss{vec3(2.0f * i + 0.8f, 0.8f, 1), vec3(0, 0, -1)};
                    EXPECT_EQ(intersect_closest8(s.nodes8(), s.prims8(), miss).prim, kInvalid);
                }
            }
        }
    }
}

TEST(BVH8, IdenticalPrimitivesZeroExtentBoxes) {
    // 40 copies of one triangle in the z = 0 plane plus points-like slivers: zero-extent node boxes on z
    Scene s;
    for (int i = 0; i < 40; ++i) s.tri(vec3(0, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0));
    for (int i = 0; i < 40; ++i) s.tri(vec3(0.5f, 0.5f, 0), vec3(0.5f, 0.5f, 0), vec3(0.5f, 0.5f, 0));
    for (uint32_t ml : {1u, 2u, 8u}) {
        for (bool sah : {true, false}) {
            SCOPED_TRACE("max_leaf " + std::to_string(ml) + (sah ? " sah" : " greedy"));
            s.build(ml, true, sah);
            check_structure(s);
            Hit h = intersect_closest8(s.nodes8(), s.prims8(), Ray{vec3(0.25f, 0.25f, 2), vec3(0, 0, -1)});
            ASSERT_NE(h.prim, kInvalid);
            EXPECT_NEAR(h.t, 2.0f, 1e-6f);
            EXPECT_EQ(intersect_closest8(s.nodes8(), s.prims8(), Ray{vec3(0.75f, 0.75f, 2), vec3(0, 0, -1)}).prim,
                      kInvalid);
            Stats st = compare(s, make_rays(s, 3000, 7), 7);
            EXPECT_EQ(st.bad_closest, 0);
            EXPECT_EQ(st.bad_occluded, 0);
            EXPECT_GT(st.hits, 100);
        }
    }
}

TEST(BVH8, RandomTriangleSoupMatchesBinary) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    Scene s;
    for (int i = 0; i < 6000; ++i) {
        vec3 c(U(rng) * 5, U(rng) * 5, U(rng) * 5);
        float size = i % 10 == 0 ? 2.0f : 0.3f;  // some large triangles overlapping many others
        vec3 a = c + size * vec3(U(rng), U(rng), U(rng)), b = c + size * vec3(U(rng), U(rng), U(rng));
        vec3 d = c + size * vec3(U(rng), U(rng), U(rng));
        if (i % 17 == 0) d = a + 1e-4f * (b - a);  // needle: nearly collinear corners
        if (i % 23 == 0) b.z = a.z, d.z = a.z;     // axis-aligned (flat box on z)
        if (i % 29 == 0) b = a;                    // degenerate: zero area
        s.tri(a, b, d);
    }
    // a mesh-like fan with shared edges (ties between neighbours)
    for (int i = 0; i < 64; ++i) {
        float a0 = 2 * kPi * i / 64, a1 = 2 * kPi * (i + 1) / 64;
        s.tri(vec3(0, 0, 6), vec3(3 * cosf(a0), 3 * sinf(a0), 6), vec3(3 * cosf(a1), 3 * sinf(a1), 6));
    }
    check_all(s, 20000, 0.3f, /*with16=*/true);
}

TEST(BVH8, StanfordBunnyMatchesBinary) {
    ObjMesh m = load_obj(std::string(WP_SOURCE_DIR) + "/scenes/stanford/bunny.obj");
    Scene s = load_mesh(m);
    ASSERT_EQ(s.info.size(), 69451u);
    check_all(s, 20000, 0.2f);
}

TEST(BVH8, StanfordDragonPlyMatchesBinary) {
    ObjMesh m = load_ply(std::string(WP_SOURCE_DIR) + "/scenes/stanford/dragon.ply");
    Scene s = load_mesh(m);
    ASSERT_EQ(s.info.size(), 100000u);
    check_all(s, 20000, 0.2f);
}

TEST(BVH8, MixedSpheresQuadsTrianglesMatchBinary) {
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    Scene s;
    // a Cornell-like room of axis-aligned quads (flat child boxes on the node faces) and a huge ground sphere
    s.quad(vec3(-10, -10, -10), vec3(20, 0, 0), vec3(0, 0, 20));
    s.quad(vec3(-10, 10, -10), vec3(0, 0, 20), vec3(20, 0, 0));
    s.quad(vec3(-10, -10, -10), vec3(0, 20, 0), vec3(20, 0, 0));
    s.quad(vec3(-10, -10, -10), vec3(0, 0, 20), vec3(0, 20, 0));
    s.quad(vec3(10, -10, -10), vec3(0, 20, 0), vec3(0, 0, 20));
    s.sphere(vec3(0, -1009, 0), 1000.0f);
    for (int i = 0; i < 1500; ++i) {
        vec3 c(U(rng) * 9, U(rng) * 9, U(rng) * 9);
        switch (i % 3) {
            case 0: s.sphere(c, 0.05f + 0.4f * (U(rng) + 1)); break;
            case 1: {
                vec3 eu = 0.6f * vec3(U(rng), U(rng), U(rng)), ev = 0.6f * vec3(U(rng), U(rng), U(rng));
                if (i % 12 == 1) eu = vec3(0.7f, 0, 0), ev = vec3(0, 0.7f, 0);  // axis-aligned
                s.quad(c, eu, ev);
                break;
            }
            default: s.tri(c, c + 0.5f * vec3(U(rng), U(rng), U(rng)), c + 0.5f * vec3(U(rng), U(rng), U(rng)));
        }
    }
    check_all(s, 20000, 0.5f, /*with16=*/true);
}

TEST(BVH8, QuantisationIsConservativeFarFromOrigin) {
    // small triangles at large coordinates: the float decode p + q * step must still contain every child
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    Scene s;
    for (int i = 0; i < 4000; ++i) {
        vec3 c = vec3(1.0e5f, -3.0e4f, 7.0e3f) + vec3(U(rng), U(rng), U(rng)) * 50.0f;
        s.tri(c, c + 0.01f * vec3(U(rng), U(rng), U(rng)), c + 0.01f * vec3(U(rng), U(rng), U(rng)));
    }
    for (uint32_t ml : {1u, 4u}) {
        for (bool sah : {true, false}) {
            s.build(ml, true, sah);
            check_structure(s);
        }
    }
}

// SceneBuilder with WP_BVH_WIDTH=8 permutes the primitives into the wide tree's order (geometry, material,
// vertex attributes and the light's primitive index must all follow): the rendered image is the binary tree's,
// bit for bit (one light, so the light table's order cannot differ), in both schedules of the CPU backend.
TEST(BVH8, SceneBuilderWideTreeRendersTheBinaryTreesImage) {
    auto scene = [](const SceneBuildOptions& o) {
        SceneBuilder b;
        std::mt19937 rng(7);
        std::uniform_real_distribution<float> U(-1.0f, 1.0f);
        MatHandle red = b.lambert(vec3(0.8f, 0.2f, 0.2f)), metal = b.conductor(vec3(0.9f), 0.2f);
        MatHandle glass = b.dielectric(1.5f), green = b.principled(vec3(0.2f, 0.8f, 0.3f), 0.3f, 0.4f);
        b.quad(vec3(-3, -1, -3), vec3(0, 0, 6), vec3(6, 0, 0), red);
        for (int i = 0; i < 12; ++i)
            b.sphere(vec3(U(rng) * 2, U(rng) * 0.5f, U(rng) * 2), 0.15f + 0.1f * (U(rng) + 1), i % 2 ? metal : glass);
        for (int i = 0; i < 3000; ++i) {  // a cloud of smooth-shaded textured triangles
            vec3 c(U(rng) * 2, 0.5f + U(rng) * 0.8f, U(rng) * 2);
            TriAttr t;
            t.has_normals = true;
            for (int k = 0; k < 3; ++k) {
                t.n[k] = glm::normalize(vec3(U(rng), 1.0f, U(rng)));
                t.uv[k] = vec2(0.5f * (U(rng) + 1), 0.5f * (U(rng) + 1));
            }
            b.triangle(c, c + 0.12f * vec3(U(rng), U(rng), U(rng)), c + 0.12f * vec3(U(rng), U(rng), U(rng)),
                       i % 3 ? green : red, t);
        }
        b.quad(vec3(-0.5f, 2.5f, -0.5f), vec3(1, 0, 0), vec3(0, 0, 1), red, vec3(8.0f));
        b.set_camera(make_camera(vec3(0, 1.5f, 5), vec3(0, 0.3f, 0), vec3(0, 1, 0), 45.0f, 1.0f));
        return b.build(o);
    };
    SceneBuildOptions two, eight;
    two.width = 2;
    eight.width = 8;
    SceneData binary = scene(two);
    SceneData wide = scene(eight);
    ASSERT_FALSE(binary.nodes.empty());
    ASSERT_TRUE(binary.nodes8.empty());
    ASSERT_FALSE(wide.nodes8.empty());
    ASSERT_TRUE(wide.nodes.empty());
    ASSERT_EQ(wide.lights.size(), 1u);
    EXPECT_NE(wide.geom[3 * wide.lights[0].prim].x, binary.geom[3 * wide.lights[0].prim].x);  // the order differs
    RenderParams rp;
    rp.width = rp.height = 32;
    rp.spp = 4;
    rp.max_depth = 6;
    for (Mode mode : {Mode::Megakernel, Mode::Wavefront}) {
        Image a = render_cpu(binary, rp, mode), c = render_cpu(wide, rp, mode);
        EXPECT_EQ(a.rgb, c.rgb);
        double mean = 0;
        for (float v : a.rgb) mean += v;
        EXPECT_GT(mean / a.rgb.size(), 0.01);  // not an empty image
    }
}
