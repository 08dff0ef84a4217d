// The wavefront stages over one queue item each. Every body is the per-path stage function of stages.h that
// the megakernel calls (generate_path, extend_path, shade_path, shadow_trace), plus the queue reads and writes
// around it. The GPU launchers (kernels/<stage>.cu) and the CPU launchers (host/render/render_cpu.cpp) run these same
// functions, so the two backends and the two schedules differ only in scheduling.
#pragma once
#include "kernels/stages.h"
#include "queues/path_queue.h"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace wp {

// ---- packing between the queues' items and the stages' structs ----
WP_HD PathItem pack(const PathState& p) {
    PathItem it;
    it.o_pdf = F4{p.ray.o.x, p.ray.o.y, p.ray.o.z, p.pdf_prev};
    it.dir_pixel = F4{p.ray.d.x, p.ray.d.y, p.ray.d.z, bits_float(p.pixel)};
    it.beta_sample = F4{p.beta.x, p.beta.y, p.beta.z, bits_float(p.sample)};
    it.depth_flags = (p.depth & 0xffffu) | (p.flags << 16);  // depth <= 1024 (render_limits_problem)
    return it;
}
WP_HD PathState unpack(const PathItem& it) {
    PathState p;
    p.ray = Ray{xyz(it.o_pdf), xyz(it.dir_pixel)};
    p.pdf_prev = it.o_pdf.w;
    p.beta = xyz(it.beta_sample);
    p.pixel = float_bits(it.dir_pixel.w);
    p.sample = float_bits(it.beta_sample.w);
    p.depth = it.depth_flags & 0xffffu;
    p.flags = it.depth_flags >> 16;
    return p;
}
WP_HD HitItem pack(const Hit& h) { return HitItem{F4{h.t, bits_float(h.prim), h.u, h.v}}; }
WP_HD Hit unpack(const HitItem& it) { return Hit{it.tpuv.x, float_bits(it.tpuv.y), it.tpuv.z, it.tpuv.w}; }
WP_HD ShadowItem pack(const ShadowRay& s) {
    return ShadowItem{F4{s.ray.o.x, s.ray.o.y, s.ray.o.z, s.tmax},
                      F4{s.ray.d.x, s.ray.d.y, s.ray.d.z, bits_float(s.pixel)},
                      F4{s.contrib.x, s.contrib.y, s.contrib.z, 0.0f}};
}
WP_HD ShadowRay unpack(const ShadowItem& it) {
    ShadowRay s;
    s.ray = Ray{xyz(it.o_tmax), xyz(it.d_pixel)};
    s.tmax = it.o_tmax.w;
    s.pixel = float_bits(it.d_pixel.w);
    s.contrib = xyz(it.contrib);
    return s;
}

// Slot for one push onto a queue whose length is *counter. On the device the threads of a warp that push
// together take one atomic (the leader adds the group's size); on the host, one relaxed atomic each.
WP_HD uint32_t queue_push(uint32_t* counter) {
#if defined(__CUDA_ARCH__)
    namespace cg = cooperative_groups;
    cg::coalesced_group g = cg::coalesced_threads();
    uint32_t base = 0;
    if (g.thread_rank() == 0) base = atomicAdd(counter, uint32_t(g.size()));
    return g.shfl(base, 0) + g.thread_rank();
#else
    return __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
#endif
}

// Adds 1 to hist[bin]; on the device, threads of a warp with the same bin add together.
WP_HD void histogram_add(unsigned long long* hist, uint32_t bin) {
#if defined(__CUDA_ARCH__)
    unsigned mask = __activemask();
    unsigned peers = __match_any_sync(mask, bin);
    if ((threadIdx.x & 31u) == uint32_t(__ffs(peers) - 1)) atomicAdd(&hist[bin], (unsigned long long)__popc(peers));
#else
    __atomic_fetch_add(&hist[bin], 1ull, __ATOMIC_RELAXED);
#endif
}

constexpr uint32_t kStatDepths = 64;  // depth histogram bins; the last one collects deeper paths
WP_HD uint32_t depth_bin(uint32_t depth) { return depth < kStatDepths ? depth : kStatDepths - 1; }
// Shading order key: 0 = miss, 1 + material type otherwise; kDeadKey for slots past the queue's length (the GPU
// sorts an upper bound of the length: dead slots sort last).
constexpr int kMaterialKeyBits = 4;
constexpr uint32_t kDeadKey = (1u << kMaterialKeyBits) - 1;

// The GPU schedule keeps each iteration's counts on the device, so the host never waits for them: `prepare`
// (one thread) computes them from the previous compaction's count, and the stage kernels, launched over host
// upper bounds, read them. IterRecord is what the host learns of an iteration, later, through mapped memory.
struct IterCounts {
    unsigned long long gen_first;  // global sample index of the first new camera path
    uint32_t gen_base, gen_count;  // new paths go to slots [gen_base, gen_base + gen_count)
    uint32_t n, pad;               // paths in flight this iteration
};
struct IterRecord {
    unsigned long long next;  // samples taken so far
    uint32_t generated, extended, shadow, live;
};

// Counters in one small device array, read back together after each iteration.
// kFetch, kFetchDone: the persistent traversal kernels' work counters (kernels/persistent.h), back at zero after
// every launch.
enum QueueCounter : uint32_t { kShadowCount = 0, kLiveCount = 1, kFetch = 2, kFetchDone = 3, kNumCounters = 4 };

// The buffers of one wavefront iteration (device pointers on the GPU, host pointers on the CPU).
// Queue items and path slots: item i of an iteration is the path in slot slots[i] of `paths` (index compaction:
// paths stay in their slots, and compaction only partitions the slot indices), or in slot i when slots is null
// (gather compaction: the live paths are copied to the front of the other path array). Hits, alive flags,
// material keys and shading order are per item.
struct WavefrontQueues {
    PathSoA paths;             // paths in flight; shade updates them in place
    const uint32_t* slots = nullptr;  // index compaction: the slot of each item (null: item i is slot i)
    HitSoA hits;               // closest hit of paths[i]
    ShadowSoA shadow;          // shadow rays pushed by shade
    uint8_t* alive = nullptr;  // set by shade: paths[i] goes on
    bool push = false;  // compaction by push: shade appends live paths to `next` (count kLiveCount); on the GPU
                        // in order within each block (CUB block scan, one atomic per block)
    PathSoA next;
    uint32_t* counters = nullptr;
    uint32_t* material_key = nullptr;  // optional: written by extend when shading is sorted
    uint32_t* order_iota = nullptr;    // optional: order_iota[i] = i, sorted by key into order
    const uint32_t* order = nullptr;   // optional: shade item i shades path order[i]
    const IterCounts* iter = nullptr;  // GPU: this iteration's counts on the device (kernels launched over bounds)
    // GPU: a persistent extend kernel whose warps refill their lanes once this many are idle (1-32; 0: one thread
    // per ray). See kernels/persistent.h.
    uint32_t refill = 0;
    unsigned long long* paths_at_depth = nullptr;   // optional statistics (kStatDepths bins each)
    unsigned long long* shadow_at_depth = nullptr;
    WP_HD uint32_t slot(uint32_t item) const { return slots ? slots[item] : item; }
};

namespace stage {

// generate: the camera path of global sample `index` as item `item` (into its slot).
WP_HD void generate(const SceneView& s, const RenderParams& rp, const WavefrontQueues& q, uint32_t item,
                    uint64_t index) {
    q.paths.store(q.slot(item), pack(generate_path(s, rp, index)));
}

// extend: closest hit of path i's ray; with sorting, its material key. extend_ray and extend_done are its two
// halves, for the persistent GPU kernel that runs the traversal between them (kernels/persistent.h).
WP_HD Ray extend_ray(const WavefrontQueues& q, uint32_t i) {
    const uint32_t slot = q.slot(i);
    F4 o = load4(q.paths.o_pdf + slot), d = load4(q.paths.dir_pixel + slot);
    return Ray{xyz(o), xyz(d)};
}
WP_HD void extend_done(const SceneView& s, const WavefrontQueues& q, uint32_t i, const Hit& h) {
    q.hits.store(i, pack(h));
    if (q.material_key) {
        q.material_key[i] = h.prim == kInvalid ? 0u : 1u + (load4(&s.prims.info[h.prim]).y >> 28);
        q.order_iota[i] = i;
    }
}
template <int W = 0>
WP_HD void extend(const SceneView& s, const WavefrontQueues& q, uint32_t i) {
    PathState p;
    p.ray = extend_ray(q, i);
    extend_done(s, q, i, extend_path<W>(s, p));
}

// shade: item order[i] (or i): emission, one light sample pushed to the shadow queue, BSDF sample and roulette.
// shade_item does all but the store of the path that goes on: returns whether it does, with its new state in p (the
// GPU's block-scan push stores it; kernels/shade.cu).
WP_HD bool shade_item(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                      uint32_t i, PathState& p) {
    const uint32_t j = q.order ? q.order[i] : i;
    p = unpack(q.paths.load(q.slot(j)));
    Hit h = unpack(q.hits.load(j));
    uint32_t depth = p.depth;
    if (q.paths_at_depth) histogram_add(q.paths_at_depth, depth_bin(depth));
    ShadowRay sh;
    bool has_shadow = false;
    bool alive = shade_path(s, rp, film, p, h, sh, has_shadow);
    if (has_shadow) {
        q.shadow.store(queue_push(&q.counters[kShadowCount]), pack(sh));
        if (q.shadow_at_depth) histogram_add(q.shadow_at_depth, depth_bin(depth));
    }
    return alive;
}
// Without push: the alive flag of item i for the select step, and the path that goes on back in its slot.
WP_HD void shade_store_in_place(const WavefrontQueues& q, uint32_t i, bool alive, const PathState& p) {
    const uint32_t j = q.order ? q.order[i] : i;
    q.alive[j] = alive ? 1 : 0;
    if (alive) q.paths.store(q.slot(j), pack(p));
}
WP_HD void shade(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                 uint32_t i) {
    PathState p;
    const bool alive = shade_item(s, rp, film, q, i, p);
    if (q.push) {  // compaction by push: the live path goes straight to the next queue
        if (alive) q.next.store(queue_push(&q.counters[kLiveCount]), pack(p));
    } else {
        shade_store_in_place(q, i, alive, p);
    }
}

// shadow: shadow ray i; unoccluded light reaches its pixel. shadow_ray and shadow_done are its two halves, for the
// persistent GPU kernel (kernels/persistent.h).
template <int W = 0>
WP_HD void shadow(const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t i) {
    shadow_trace<W>(s, film, unpack(q.shadow.load(i)));
}
WP_HD Ray shadow_ray(const WavefrontQueues& q, uint32_t i, float& tmax) {
    F4 o = load4(q.shadow.o_tmax + i), d = load4(q.shadow.d_pixel + i);
    tmax = o.w;
    return Ray{xyz(o), xyz(d)};
}
WP_HD void shadow_done(const FilmView& film, const WavefrontQueues& q, uint32_t i, const Hit& h) {
    if (h.prim == kInvalid) film_add(film, float_bits(load4(q.shadow.d_pixel + i).w), xyz(load4(q.shadow.contrib + i)));
}

// drain: path i of the queue run to its end by one thread (finish_path, the megakernel's loop over the same
// stage functions). The wavefront's tail: once every camera path is generated and few paths are left, the
// iterations would cost a launch sequence each for a handful of paths. Counts its segments in the depth
// histograms as shade and shadow would. Returns the rays traced (as trace_path).
template <int W = 0>
WP_HD uint64_t drain(const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                     uint32_t i) {
    PathState p = unpack(q.paths.load(q.slot(i)));
    auto stats = [&q](uint32_t depth, bool has_shadow) {
        if (q.paths_at_depth) histogram_add(q.paths_at_depth, depth_bin(depth));
        if (has_shadow && q.shadow_at_depth) histogram_add(q.shadow_at_depth, depth_bin(depth));
    };
    return finish_path<W>(s, rp, film, p, stats);
}

// compact: the i-th live path (selected[i], found by the select step) into slot i of the next queue.
WP_HD void compact(const PathSoA& out, const PathSoA& in, const uint32_t* selected, uint32_t i) {
    out.copy(i, in, selected[i]);
}

// diffuse_bounce (ray-cast-only benchmark): path i's closest hit becomes a cosine-distributed bounce ray about
// the geometric normal on the side the ray came from (the incoherent rays of a diffuse scene); alive[i] says
// whether path i hit anything. Random numbers keyed like the path tracer's first bounce.
WP_HD void diffuse_bounce(const SceneView& s, const RenderParams& rp, const WavefrontQueues& q, uint32_t i) {
    PathState p = unpack(q.paths.load(i));
    Hit h = unpack(q.hits.load(i));
    if (h.prim == kInvalid) {
        q.alive[i] = 0;
        return;
    }
    SurfacePoint sp = surface_point(s.prims, h, p.ray);
    vec3 ng = glm::dot(sp.ng, p.ray.d) > 0.0f ? -sp.ng : sp.ng;
    uint32_t key = path_key(p.pixel, p.sample, rp.seed);
    vec3 wi = Frame::from_normal(ng).to_world(
        sample_cosine_hemisphere(vec2(rand01(key, 1, kDimBsdfU), rand01(key, 1, kDimBsdfV))));
    p.ray = Ray{offset_ray_origin(sp.p, ng), wi};
    p.depth = 1;
    q.paths.store(i, pack(p));
    q.alive[i] = 1;
}

}  // namespace stage
}  // namespace wp
