// The buffers of the wavefront schedule, allocated in one place for both backends: the path queue and the next
// one, hits, shadow rays, compaction's flags and selection, material sort keys, counters, depth histograms; and the
// queue-shaped device helpers (a warp-aggregated push, a histogram add).
#pragma once
#include <algorithm>
#include "kernels/features.h"
#include "kernels/path_queue.h"
#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace wp {

// Counters in one small array, read back together after each iteration. kFetch, kFetchDone: the persistent
// traversal kernels' work counters (kernels/persistent.h), back at zero after every launch.
// kFamilyCount + f: the length of material family f's queue (shade by family, below).
enum QueueCounter : uint32_t {
    kShadowCount = 0,
    kLiveCount = 1,
    kFetch = 2,
    kFetchDone = 3,
    kFamilyCount = 4,
    kNumCounters = kFamilyCount + kNumFamilies
};

constexpr uint32_t kStatDepths = 64;  // depth histogram bins; the last one collects deeper paths
WP_HD uint32_t depth_bin(uint32_t depth) { return depth < kStatDepths ? depth : kStatDepths - 1; }
// Shading order key: the hit's material family (stage::hit_family: 0 = miss, 1 + material type otherwise, a bump
// map's the wrapped material's).
constexpr int kMaterialKeyBits = 4;

// What the queues are for: their length, and which optional buffers the render needs.
struct QueueConfig {
    uint32_t capacity = 0;
    bool sort_materials = false;  // keys, their sorted copy, the identity and the shading order
    bool sort_rays = false;       // ray keys, their sorted copy, the identity and the tracing order
    bool push = true;             // compaction by push in shade; false: alive flags and the selected indices
    bool stats = false;           // depth histograms
    bool families = false;        // shade by material family: the family queues that extend fills
};

struct WavefrontQueues {
    PathSoA paths;     // this iteration's paths; shade updates them in place when not pushing
    PathSoA next;      // the next iteration's: push compaction's or the gather's target (swapped each iteration)
    HitSoA hits;       // closest hit of paths[i]
    ShadowSoA shadow;  // shadow rays pushed by shade (count kShadowCount)
    bool push = true;  // compaction by push: shade appends live paths to `next` (count kLiveCount); on the GPU in
                       // order within each block (CUB block scan, one atomic per block)
    uint8_t* alive = nullptr;          // select compaction: shade's verdict on paths[i]
    uint32_t* selected = nullptr;      // select compaction: the indices of the live paths, in order
    uint32_t* counters = nullptr;      // kNumCounters
    uint32_t* material_key = nullptr;  // sorting: written by extend
    uint32_t* keys_sorted = nullptr;   // sorting: the sort's copy of the keys
    uint32_t* order_iota = nullptr;    // sorting: order_iota[i] = i, sorted by key into order
    uint32_t* order = nullptr;         // sorting: shade item i shades path order[i]; null: item i is path i
    // Shade by material family (kernels/features.h): extend pushes the index of each path into the queue of its
    // hit's family, family f's at family_items + f * capacity, its length in counters[kFamilyCount + f]; the family's
    // shade kernel runs over it (order set to the queue, item_count to its length on the device).
    uint32_t* family_items = nullptr;
    const uint32_t* item_count = nullptr;
    // Ray sorting (kernels/ray_order.h): the keys of the rays about to be traced, the sort's copy, the identity and
    // the order it sorts into; extend_sorted: extend item i traces path ray_order[i]; shadow_sorted: shadow item i
    // traces shadow ray ray_order[i] (set by the schedule around the two launches).
    uint32_t* ray_key = nullptr;
    uint32_t* ray_key_sorted = nullptr;
    uint32_t* ray_iota = nullptr;
    uint32_t* ray_order = nullptr;
    bool extend_sorted = false, shadow_sorted = false;
    // GPU: the persistent extend kernel's warps refill their lanes once this many are idle (1-32; 0: one thread
    // per ray). See kernels/persistent.h.
    uint32_t refill = 0;
    unsigned long long* paths_at_depth = nullptr;  // optional statistics (kStatDepths bins each)
    unsigned long long* shadow_at_depth = nullptr;
    uint32_t capacity = 0;

    void swap() {
        PathSoA t = paths;
        paths = next;
        next = t;
    }
};

// Bytes per path slot of a configuration: two path queues, hits, shadow rays, and the optional buffers.
constexpr size_t queue_bytes_per_path(const QueueConfig& c) {
    return 2 * PathSoA::kBytesPerItem + HitSoA::kBytesPerItem + ShadowSoA::kBytesPerItem +
           (c.push ? 0 : 1 /*alive*/ + 4 /*selected*/) + (c.sort_materials ? 16 : 0) + (c.sort_rays ? 16 : 0) +
           (c.families ? 4 * kNumFamilies : 0);
}

// The queues of a configuration from an arena: A.template alloc<T>(n) returns n elements (16-byte aligned),
// A.template zeroed<T>(n) the same set to zero.
template <class Arena>
WavefrontQueues allocate_queues(Arena& A, const QueueConfig& c) {
    WavefrontQueues q;
    const size_t n = c.capacity;
    auto soa = [&](auto& s) {
        s.visit([&](void** p, size_t bytes, const char*) { *p = A.template alloc<unsigned char>(bytes * n); });
    };
    soa(q.paths);
    soa(q.next);
    soa(q.hits);
    soa(q.shadow);
    q.push = c.push;
    if (!c.push) {
        q.alive = A.template alloc<uint8_t>(n);
        q.selected = A.template alloc<uint32_t>(n);
    }
    q.counters = A.template zeroed<uint32_t>(kNumCounters);
    if (c.sort_materials) {
        q.material_key = A.template alloc<uint32_t>(n);
        q.keys_sorted = A.template alloc<uint32_t>(n);
        q.order_iota = A.template alloc<uint32_t>(n);
        q.order = A.template alloc<uint32_t>(n);
    }
    if (c.sort_rays) {
        q.ray_key = A.template alloc<uint32_t>(n);
        q.ray_key_sorted = A.template alloc<uint32_t>(n);
        q.ray_iota = A.template alloc<uint32_t>(n);
        q.ray_order = A.template alloc<uint32_t>(n);
    }
    if (c.families) q.family_items = A.template alloc<uint32_t>(n * kNumFamilies);
    if (c.stats) {
        q.paths_at_depth = A.template zeroed<unsigned long long>(kStatDepths);
        q.shadow_at_depth = A.template zeroed<unsigned long long>(kStatDepths);
    }
    q.capacity = c.capacity;
    return q;
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

// Slot for one push onto queue `key` of several, whose lengths are counters[key]. On the device the threads of a
// warp that push onto the same queue together take one atomic (the leader adds the group's size).
WP_HD uint32_t queue_push_keyed(uint32_t* counters, uint32_t key) {
#if defined(__CUDA_ARCH__)
    const unsigned mask = __activemask();
    const unsigned peers = __match_any_sync(mask, key);
    const uint32_t lane = threadIdx.x & 31u;
    const int leader = __ffs(peers) - 1;
    uint32_t base = 0;
    if (lane == uint32_t(leader)) base = atomicAdd(&counters[key], uint32_t(__popc(peers)));
    base = __shfl_sync(peers, base, leader);
    return base + uint32_t(__popc(peers & ((1u << lane) - 1u)));
#else
    return __atomic_fetch_add(&counters[key], 1u, __ATOMIC_RELAXED);
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

}  // namespace wp
