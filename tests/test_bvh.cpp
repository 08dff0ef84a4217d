// BVH: the binned-SAH builder plus traversal against brute force.
#include <gtest/gtest.h>
#include <tiny_obj_loader.h>
#include <random>
#include <vector>
#include "host/bvh_build.h"
#include "kernels/bvh8.h"
using namespace wp;

#ifndef WP_SOURCE_DIR
#error "WP_SOURCE_DIR must name the source tree"
#endif

namespace {
struct TriScene {
    std::vector<vec3> v;  // 3 per triangle
    BVHBuild bvh;
    std::vector<F4> geom;
    std::vector<U4> info;
    SceneView view() const {
        SceneView s;
        s.nodes = bvh.nodes.data();
        s.prims.geom = geom.data();
        s.prims.info = info.data();
        s.prims.count = uint32_t(info.size());
        return s;
    }
    void build() {
        uint32_t n = uint32_t(v.size() / 3);
        std::vector<AABB> boxes(n);
        for (uint32_t i = 0; i < n; ++i)
            for (int k = 0; k < 3; ++k) boxes[i].grow(v[3 * i + k]);
        bvh = build_bvh(boxes);
        geom.resize(3 * n);
        info.resize(n);
        for (uint32_t j = 0; j < n; ++j) {
            uint32_t i = bvh.order[j];
            vec3 a = v[3 * i], e1 = v[3 * i + 1] - a, e2 = v[3 * i + 2] - a;
            geom[3 * j] = F4{a.x, a.y, a.z, bits_float(uint32_t(ShapeType::Triangle))};
            geom[3 * j + 1] = F4{e1.x, e1.y, e1.z, 0};
            geom[3 * j + 2] = F4{e2.x, e2.y, e2.z, 0};
            info[j] = U4{uint32_t(ShapeType::Triangle), 0, kInvalid, kInvalid};
        }
    }
};

// Compares traversal with brute force; returns the number of rays that hit.
int compare(const TriScene& ts, const std::vector<Ray>& rays) {
    SceneView s = ts.view();
    int hits = 0;
    for (size_t r = 0; r < rays.size(); ++r) {
        const Ray& ray = rays[r];
        Hit bf{kInf, kInvalid, 0, 0};
        for (uint32_t i = 0; i < s.prims.count; ++i) intersect_prim(s.prims, i, ray, 0.0f, bf);
        Hit h = intersect_closest(s, ray);
        EXPECT_EQ(h.prim == kInvalid, bf.prim == kInvalid) << "ray " << r;
        if (bf.prim == kInvalid || h.prim == kInvalid) continue;
        ++hits;
        // same primitive, or the same distance where two primitives share an edge
        if (h.prim != bf.prim) EXPECT_NEAR(h.t, bf.t, 1e-4f * bf.t) << "ray " << r;
        EXPECT_NEAR(h.t, bf.t, 1e-4f * bf.t) << "ray " << r;
        EXPECT_TRUE(occluded(s, ray, bf.t * 1.001f));
        EXPECT_FALSE(occluded(s, ray, bf.t * 0.999f));
    }
    return hits;
}
}  // namespace

TEST(BVH, BuilderKeepsEveryPrimitiveOnceAndBoundsContainChildren) {
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    std::vector<AABB> boxes(5000);
    for (auto& b : boxes) {
        vec3 c(U(rng) * 10, U(rng) * 10, U(rng));
        b.grow(c);
        b.grow(c + 0.1f * vec3(U(rng), U(rng), U(rng)));
    }
    BVHBuild b = build_bvh(boxes);
    std::vector<int> seen(boxes.size(), 0);
    for (uint32_t p : b.order) seen[p]++;
    for (int s : seen) ASSERT_EQ(s, 1);
    // every leaf box contains its primitives
    for (const BVHNode& n : b.nodes) {
        uint32_t child[2] = {n.d.x, n.d.y}, cnt[2] = {n.d.z, n.d.w};
        float lo[2][3] = {{n.a.x, n.a.z, n.c.x}, {n.b.x, n.b.z, n.c.z}};
        float hi[2][3] = {{n.a.y, n.a.w, n.c.y}, {n.b.y, n.b.w, n.c.w}};
        for (int k = 0; k < 2; ++k)
            for (uint32_t i = child[k]; i < child[k] + cnt[k]; ++i)
                for (int a = 0; a < 3; ++a) {
                    ASSERT_LE(lo[k][a], boxes[b.order[i]].lo[a]);
                    ASSERT_GE(hi[k][a], boxes[b.order[i]].hi[a]);
                }
    }
    EXPECT_LT(b.depth, kBVHStackSize);
    EXPECT_GT(b.nodes.size(), 5000u / 4 / 2);
}

TEST(BVH, RootThatIsOneLeaf) {
    TriScene ts;
    ts.v = {vec3(0, 0, 0), vec3(1, 0, 0), vec3(0, 1, 0)};
    ts.build();
    SceneView s = ts.view();
    EXPECT_NE(intersect_closest(s, Ray{vec3(0.2f, 0.2f, 1), vec3(0, 0, -1)}).prim, kInvalid);
    EXPECT_EQ(intersect_closest(s, Ray{vec3(2, 2, 1), vec3(0, 0, -1)}).prim, kInvalid);
}

TEST(BVH, RandomTrianglesMatchBruteForce) {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    TriScene ts;
    for (int i = 0; i < 3000; ++i) {
        vec3 c(U(rng) * 5, U(rng) * 5, U(rng) * 5);
        for (int k = 0; k < 3; ++k) ts.v.push_back(c + 0.3f * vec3(U(rng), U(rng), U(rng)));
    }
    ts.build();
    std::vector<Ray> rays;
    for (int r = 0; r < 10000; ++r) {
        vec3 o = vec3(U(rng), U(rng), U(rng)) * 8.0f;
        rays.push_back(Ray{o, glm::normalize(vec3(U(rng), U(rng), U(rng)) * 3.0f - o)});
    }
    EXPECT_GT(compare(ts, rays), 5000);
}

TEST(BVH, StanfordBunnyMatchesBruteForce) {
    std::string path = std::string(WP_SOURCE_DIR) + "/scenes/stanford/bunny.obj";
    tinyobj::ObjReader reader;
    ASSERT_TRUE(reader.ParseFromFile(path)) << reader.Error();
    const auto& att = reader.GetAttrib();
    TriScene ts;
    for (const auto& sh : reader.GetShapes())
        for (const auto& idx : sh.mesh.indices)
            ts.v.push_back(vec3(att.vertices[3 * idx.vertex_index], att.vertices[3 * idx.vertex_index + 1],
                                att.vertices[3 * idx.vertex_index + 2]));
    ASSERT_EQ(ts.v.size() / 3, 69451u);
    ts.build();
    AABB all;
    for (vec3 p : ts.v) all.grow(p);
    vec3 c = 0.5f * (all.lo + all.hi);
    float rad = glm::length(all.hi - all.lo);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> U(-1.0f, 1.0f);
    std::vector<Ray> rays;
    for (int r = 0; r < 10000; ++r) {
        // origins on a sphere around the bunny, aimed at points inside its bounds; some from inside
        vec3 o = r % 10 == 0 ? c + 0.2f * rad * vec3(U(rng), U(rng), U(rng))
                             : c + rad * glm::normalize(vec3(U(rng), U(rng), U(rng)));
        vec3 target = c + 0.5f * (all.hi - all.lo) * vec3(U(rng), U(rng), U(rng));
        rays.push_back(Ray{o, glm::normalize(target - o)});
    }
    EXPECT_GT(compare(ts, rays), 3000);
    EXPECT_LT(ts.bvh.depth, kBVHStackSize);
}
