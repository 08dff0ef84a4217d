// LOG entry 38's experiment: node visits and primitive tests per ray of a scene's camera rays (one sample per
// pixel) and of their cosine-distributed first bounces (as the ray-cast benchmark's diffuse_bounce), counted on the
// host with the binary tree's while-while logic (leaves intersected as soon as the ray holds one: no speculative
// traversal, so the GPU visits a few more nodes). From the repository root with a CPU build in build-cpu/:
//     g++ -std=c++17 -O2 -I. -isystem /usr/local/cuda/include \
//         profiling/experiments/traversal_counts.cpp build-cpu/libwp_app.a build-cpu/libwp_host.a \
//         -ltinyobjloader -ltinyexr -lstb -lpthread -o /tmp/traversal_counts && /tmp/traversal_counts scenes/sponza.json
// (the tree's knobs, e.g. WP_BVH_MAX_LEAF=2, apply, read as the command line reads them: LOG entry 43 counts
// RTIOW's leaf sizes)
#include <cstdio>
#include "host/app/cli_support.h"
#include "host/scene/scene_json.h"
#include "kernels/stages.h"
using namespace wp;

struct Counts {
    double nodes = 0, prims = 0, rays = 0, hits = 0;
};

// traverse_ww's round without the warp: a copy of ww_round (kernels/bvh.h) with counters.
static Hit counted(const SceneView& s, const Ray& r, Counts& c) {
    Hit hit{kInf, kInvalid, 0.0f, 0.0f};
    const RayBoxPre q = ray_box_pre(r);
    BVH2Ref stack[kBVHStackSize];
    stack[0] = BVH2Ref{kBVH2Done, 0u};
    int sp = 0;
    BVH2Ref node{0u, 0u}, leaf{0u, 0u};
    while (node.idx != kBVH2Done) {
        const float tc = cull_t(hit.t);
        while (node.count == 0 && node.idx != kBVH2Done) {
            float t0, t1;
            bool hit0, hit1;
            U4 d;
            node_children(s.nodes, node.idx, q, 0.0f, tc, t0, t1, hit0, hit1, d);
            c.nodes += 1;
            if (!hit0 && !hit1) {
                node = stack[sp--];
            } else {
                node = hit0 ? BVH2Ref{d.x, d.z} : BVH2Ref{d.y, d.w};
                if (hit0 && hit1) {
                    BVH2Ref far{d.y, d.w};
                    if (t1 < t0) {
                        far = node;
                        node = BVH2Ref{d.y, d.w};
                    }
                    stack[++sp] = far;
                }
            }
            if (node.count > 0 && leaf.count == 0) {
                leaf = node;
                node = stack[sp--];
            }
            if (leaf.count > 0) break;
        }
        while (leaf.count > 0) {
            for (uint32_t i = leaf.idx; i < leaf.idx + leaf.count; ++i) {
                intersect_prim(s.prims, i, r, 0.0f, hit);
                c.prims += 1;
            }
            leaf = node;
            if (node.count > 0) node = stack[sp--];
        }
    }
    c.rays += 1;
    c.hits += hit.prim != kInvalid;
    return hit;
}

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    LoadedScene ls = load_scene_json(argv[1], load_options_from_env());
    SceneView s = ls.data.view();
    const RenderParams& rp = ls.params;
    Counts cam, bounce;
    for (uint32_t i = 0; i < rp.num_pixels(); ++i) {
        PathState p = generate_path(s, rp.prepared(), i);
        const Ray ray = path_ray(p);
        Hit h = counted(s, ray, cam);
        if (h.prim == kInvalid) continue;
        SurfacePoint sp = surface_point(s.prims, h, ray);
        vec3 ng = glm::dot(sp.ng, ray.d) > 0.0f ? -sp.ng : sp.ng;
        uint32_t key = path_key(p.pixel, p.sample, rp.seed);
        vec3 wi = Frame::from_normal(ng).to_world(
            sample_cosine_hemisphere(vec2(rand01(key, 1, kDimBsdfU), rand01(key, 1, kDimBsdfV))));
        counted(s, Ray{offset_ray_origin(sp.p, ng), wi}, bounce);
    }
    for (auto [name, c] : {std::pair{"camera", cam}, std::pair{"bounce", bounce}})
        std::printf("%s: %.0f rays, %.1f%% hit, %.1f node visits and %.1f primitive tests per ray\n", name, c.rays,
                    100.0 * c.hits / c.rays, c.nodes / c.rays, c.prims / c.rays);
}
