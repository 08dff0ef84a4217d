// LOG entry 36's experiment: how many rays aimed at the edges of an axis-aligned tiled floor miss in the while-while
// traversal but hit in brute force, with the slab test's exit distances widened by a factor WP_WIDEN. To run it,
// change the two `hi` lines of node_children (kernels/bvh.h) to
//     float hi0 = fminf(fminf(fminf(fmaxf(x0, x1), fmaxf(y0, y1)), fmaxf(z0, z1)) * WP_WIDEN, tmax);   (and hi1)
// then, from the repository root with a host build in build/:
//     g++ -std=c++17 -O2 -I. -DWP_WIDEN='(1.0f+1.0f/65536.0f)' -DWP_BVH2_WHILE_WHILE=1 \
//         profiling/experiments/slab_cracks.cpp build/libwp_host.a -o /tmp/slab_cracks && /tmp/slab_cracks
#include <array>
#include <cstdio>
#include <random>
#include <vector>
#include "host/accel/bvh_build.h"
#include "kernels/bvh.h"
using namespace wp;
int main() {
    const int n = 24;
    std::vector<vec3> v;
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            vec3 a(x, y, 0), b(x + 1, y, 0), c(x + 1, y + 1, 0), d(x, y + 1, 0);
            v.insert(v.end(), {a, b, c, a, c, d});
        }
    uint32_t nt = uint32_t(v.size() / 3);
    std::vector<AABB> boxes(nt);
    std::vector<std::array<vec3, 3>> tris(nt);
    for (uint32_t i = 0; i < nt; ++i)
        for (int k = 0; k < 3; ++k) {
            boxes[i].grow(v[3 * i + k]);
            tris[i][k] = v[3 * i + k];
        }
    for (uint32_t ml : {1u, 4u}) {
        BVHBuildOptions opt;
        opt.max_leaf = ml;
        BVHBuild bvh = build_bvh(boxes, opt, &tris);
        uint32_t m = uint32_t(bvh.order.size());
        std::vector<F4> geom(3 * m);
        std::vector<U4> info(m);
        for (uint32_t j = 0; j < m; ++j) {
            uint32_t i = bvh.order[j];
            vec3 a = v[3 * i], e1 = v[3 * i + 1] - a, e2 = v[3 * i + 2] - a;
            geom[3 * j] = F4{a.x, a.y, a.z, bits_float(uint32_t(ShapeType::Triangle))};
            geom[3 * j + 1] = F4{e1.x, e1.y, e1.z, 0};
            geom[3 * j + 2] = F4{e2.x, e2.y, e2.z, 0};
            info[j] = U4{uint32_t(ShapeType::Triangle), 0, kInvalid, kInvalid};
        }
        SceneView s;
        s.nodes = bvh.nodes.data();
        s.prims.geom = geom.data();
        s.prims.info = info.data();
        s.prims.count = m;
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> U(0.0f, 1.0f);
        int cracks = 0, far = 0;
        for (int r = 0; r < 200000; ++r) {
            float gx = float(int(U(rng) * n)), gy = float(int(U(rng) * n)), f = U(rng);
            vec3 target = r % 3 == 0 ? vec3(gx + f, gy, 0) : r % 3 == 1 ? vec3(gx + f, gy + f, 0) : vec3(gx, gy, 0);
            float scale = r % 2 ? 1.0f : 100.0f;  // near and far origins
            vec3 o(U(rng) * n, U(rng) * n, 0.5f + 40.0f * U(rng) * scale);
            Ray ray{o, glm::normalize(target - o)};
            Hit bf{kInf, kInvalid, 0, 0};
            for (uint32_t i = 0; i < m; ++i) intersect_prim(s.prims, i, ray, 0.0f, bf);
            Hit h = traverse_ww<false>(s, ray, 0.0f, kInf);
            if (bf.prim != kInvalid && h.prim == kInvalid) {
                ++cracks;
                if (scale > 1) ++far;
            }
        }
        std::printf("max_leaf %u: cracks %d (far origins %d)\n", ml, cracks, far);
    }
}
