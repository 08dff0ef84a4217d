// The wavefront stages over one queue item each. Every body is the per-path stage function of stages.h that
// the megakernel calls (generate_path, extend_path, shade_path, shadow_trace), plus the queue reads and writes
// around it. The GPU launchers (kernels/<stage>.cu) and the CPU launchers (host/render/render_cpu.cpp) run these
// same functions, so the two backends and the two schedules differ only in scheduling.
#pragma once
#include "kernels/ray_order.h"
#include "kernels/stages.h"
#include "kernels/wavefront_queues.h"

namespace wp {
namespace stage {

// generate: the camera path of global sample `index` into slot `slot`.
WP_HD void generate(const SceneView& s, const RenderParams& rp, const WavefrontQueues& q, uint32_t slot,
                    uint64_t index) {
    q.paths.store(slot, generate_path(s, rp, index));
}

// extend: closest hit of item i's path (path i, or ray_order[i] when the rays are sorted); with material sorting, its
// material key. extend_ray and extend_done are its two halves, for the persistent GPU kernel that runs the traversal
// between them (kernels/persistent.h). Hits and keys are stored by path, so nothing after extend sees the order.
WP_HD uint32_t extend_path_index(const WavefrontQueues& q, uint32_t i) { return q.extend_sorted ? q.ray_order[i] : i; }
WP_HD Ray extend_ray(const WavefrontQueues& q, uint32_t i) { return path_ray(q.paths.load(extend_path_index(q, i))); }
// The material family of a hit (kernels/features.h): 0 for a miss, else 1 + its material's type, a bump map's the
// type of the material it wraps.
WP_HD uint32_t hit_family(const SceneView& s, const Hit& h) {
    if (h.prim == kInvalid) return kFamilyMiss;
    MatHandle m{load4(&s.prims.info[h.prim]).y};
    if (m.type() == MatType::Bumped) m = MatHandle{s.bump[m.index()].material};
    return 1u + uint32_t(m.type());
}
WP_HD void extend_done(const SceneView& s, const WavefrontQueues& q, uint32_t i, const Hit& h) {
    const uint32_t j = extend_path_index(q, i);
    q.hits.store(j, h);
    if (q.family_items) {  // shade by family: path j into its family's queue
        const uint32_t f = hit_family(s, h);
        q.family_items[f * q.capacity + queue_push_keyed(q.counters + kFamilyCount, f)] = j;
    }
    if (q.material_key) {  // the material sort's key: the same family
        q.material_key[j] = hit_family(s, h);
        q.order_iota[j] = j;
    }
}
template <uint32_t F = kFeaturesAll>
WP_HD void extend(const SceneView& s, const WavefrontQueues& q, uint32_t i) {
    extend_done(s, q, i, intersect_closest<F>(s, extend_ray(q, i)));
}

// shade: item order[i] (or i): emission, one light sample pushed to the shadow queue, BSDF sample and roulette.
// shade_item does all but the store of the path that goes on: returns whether it does, with its new state in p (the
// GPU's block-scan push stores it; kernels/shade.cu).
WP_HD uint32_t shade_path_index(const WavefrontQueues& q, uint32_t i) { return q.order ? q.order[i] : i; }
template <uint32_t F = kFeaturesHost>
WP_HD bool shade_item(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                      uint32_t i, PathState& p) {
    const uint32_t j = shade_path_index(q, i);
    p = q.paths.load(j);
    const Hit h = q.hits.load(j);
    const uint32_t depth = p.depth;
    if (q.paths_at_depth) histogram_add(q.paths_at_depth, depth_bin(depth));
    ShadowRay sh;
    bool has_shadow = false;
    bool alive = shade_path<F>(s, rp, film, p, h, sh, has_shadow);
    if (has_shadow) {
        q.shadow.store(queue_push(&q.counters[kShadowCount]), sh);
        if (q.shadow_at_depth) histogram_add(q.shadow_at_depth, depth_bin(depth));
    }
    return alive;
}
// Select compaction: the alive flag of item i for the select step, and the path that goes on back in its slot.
WP_HD void shade_store_in_place(const WavefrontQueues& q, uint32_t i, bool alive, const PathState& p) {
    const uint32_t j = shade_path_index(q, i);
    q.alive[j] = alive ? 1 : 0;
    if (alive) q.paths.store(j, p);
}
template <uint32_t F = kFeaturesHost>
WP_HD void shade(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                 uint32_t i) {
    PathState p;
    const bool alive = shade_item<F>(s, rp, film, q, i, p);
    if (q.push) {  // compaction by push: the live path goes straight to the next queue
        if (alive) q.next.store(queue_push(&q.counters[kLiveCount]), p);
    } else {
        shade_store_in_place(q, i, alive, p);
    }
}

// shadow: shadow ray j of the queue (the i-th traced is j = ray_order[i] when the rays are sorted: the launchers
// map it); unoccluded light reaches its pixel.
WP_HD void shadow(const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t j) {
    shadow_trace(s, film, q.shadow.load(j));
}

// sort_rays: the sort key of path i's ray (kernels/ray_order.h), and the identity the sort carries.
WP_HD void sort_rays_key(const SceneView& s, const WavefrontQueues& q, uint32_t i) {
    const F4 o = load_stream(&q.paths.o_pdf[i]), d = load_stream(&q.paths.dir_pixel[i]);
    q.ray_key[i] = ray_sort_key(s, xyz(o), xyz(d));
    q.ray_iota[i] = i;
}
// sort_shadow: the same for shadow ray i of the n_max slots that may hold one (kRayKeyNone past the queue's
// length: those sort last).
WP_HD void sort_shadow_key(const SceneView& s, const WavefrontQueues& q, uint32_t i, uint32_t count) {
    if (i < count) {
        const F4 o = load_stream(&q.shadow.o_tmax[i]), d = load_stream(&q.shadow.d_pixel[i]);
        q.ray_key[i] = ray_sort_key(s, xyz(o), xyz(d));
    } else {
        q.ray_key[i] = kRayKeyNone;
    }
    q.ray_iota[i] = i;
}

// drain: path i of the queue run to its end by one thread (finish_path, the megakernel's loop over the same
// stage functions). The wavefront's tail: once every camera path is generated and few paths are left, the
// iterations would cost a launch sequence each for a handful of paths. Counts its segments in the depth
// histograms as shade and shadow would. Returns the rays traced (as trace_path).
WP_HD uint64_t drain(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                     uint32_t i) {
    PathState p = q.paths.load(i);
    auto stats = [&q](uint32_t depth, bool has_shadow) {
        if (q.paths_at_depth) histogram_add(q.paths_at_depth, depth_bin(depth));
        if (has_shadow && q.shadow_at_depth) histogram_add(q.shadow_at_depth, depth_bin(depth));
    };
    return finish_path(s, rp, film, p, stats);
}

// compact: the i-th live path (q.selected[i], found by the select step) into slot i of the next queue.
WP_HD void compact(const WavefrontQueues& q, uint32_t i) { q.next.copy(i, q.paths, q.selected[i]); }

// diffuse_bounce (ray-cast-only benchmark): path i's closest hit becomes a cosine-distributed bounce ray about
// the geometric normal on the side the ray came from (the incoherent rays of a diffuse scene); alive[i] says
// whether path i hit anything. Random numbers keyed like the path tracer's first bounce.
// The ray-cast benchmark's bounce of path p's hit h (a hit, not a miss): cosine-distributed about the geometric normal
// on the side the ray came from; also the ray the bench's per-ray counts trace (count_traversal).
WP_HD Ray diffuse_bounce_ray(const SceneView& s, const RenderParams& rp, const PathState& p, const Hit& h) {
    SurfacePoint sp = surface_point(s.prims, h, path_ray(p));
    vec3 ng = glm::dot(sp.ng, p.dir) > 0.0f ? -sp.ng : sp.ng;
    uint32_t key = path_key(rp.key_pixel(p.pixel), p.sample, rp.seed);
    vec3 wi = Frame::from_normal(ng).to_world(
        sample_cosine_hemisphere(vec2(rand01(key, 1, kDimBsdfU), rand01(key, 1, kDimBsdfV))));
    return Ray{offset_ray_origin(sp.p, ng), wi};
}
WP_HD void diffuse_bounce(const SceneView& s, const RenderParams& rp, const WavefrontQueues& q, uint32_t i) {
    PathState p = q.paths.load(i);
    const Hit h = q.hits.load(i);
    if (h.prim == kInvalid) {
        q.alive[i] = 0;
        return;
    }
    set_path_ray(p, diffuse_bounce_ray(s, rp, p, h));
    p.depth = 1;
    q.paths.store(i, p);
    q.alive[i] = 1;
}

}  // namespace stage
}  // namespace wp
