// Persistent threads with work refill (device only): the GPU's scheduling of the traversal kernels and the
// megakernel. A kernel launched with only as many warps as fit on the GPU at once takes its work items from a global
// counter; a lane whose item is done takes the next one while the other lanes of its warp go on, instead of idling
// until the warp's slowest item ends (Aila & Laine 2009, "Understanding the efficiency of ray traversal on GPUs",
// section 4: persistent threads and replacing terminated rays; Novak, Havran, Dachsbacher 2010, path regeneration).
// The items and what is done with each are the same stage bodies as the one-thread-per-item kernels: only the
// scheduling differs, so the results do too only where the tests allow (ties between equally distant hits).
#pragma once
#if defined(__CUDACC__)
#include "kernels/stages.h"

namespace wp {

constexpr unsigned kFullWarp = 0xffffffffu;

// Counters of one persistent launch: fetch (items handed out) and done (blocks finished). The last block to finish
// sets both back to zero, so the next launch over the same counters needs no memset. Zero them once when allocated.
struct FetchCounters {
    uint32_t* fetch = nullptr;
    uint32_t* done = nullptr;
};

// Called once by every thread of the block, after its last item.
__device__ inline void persistent_block_done(const FetchCounters& c) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(c.done, 1u) == gridDim.x - 1) {
            *c.fetch = 0;
            *c.done = 0;
            __threadfence();
        }
    }
}

// Lanes in `need` (a warp-uniform ballot) take consecutive items from *fetch, one atomic per warp; returns this
// lane's item, or n when it needs none or the items are used up; `exhausted` (warp-uniform) becomes true when they
// are. Called by all 32 lanes.
__device__ inline uint32_t warp_fetch(uint32_t* fetch, unsigned need, uint32_t n, bool& exhausted) {
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t k = uint32_t(__popc(need));
    const int leader = __ffs(need) - 1;
    uint32_t base = 0;
    if (int(lane) == leader) base = atomicAdd(fetch, k);
    base = __shfl_sync(kFullWarp, base, leader);
    if (base + k >= n || base + k < base) exhausted = true;
    if (!((need >> lane) & 1u)) return n;
    const uint32_t i = base + uint32_t(__popc(need & ((1u << lane) - 1u)));
    return i < n && i >= base ? i : n;
}

// The while-while closest-hit traversal of traverse_ww (kernels/bvh.h) over items [0, n) of a queue, persistent:
// ray_of(i, r, tmin, tmax) gives item i's ray, done(i, hit) takes its result. A warp refills when at least `refill`
// (1-32) of its lanes are idle. All 32 lanes of every warp must call it (block size a multiple of 32). (Closest-hit
// rays only: docs/DECISIONS.md: refill.)
template <uint32_t F, class RayOf, class Done>
__device__ void traverse_ww_persistent(const SceneView& s, uint32_t n, const FetchCounters& c, uint32_t refill,
                                       RayOf&& ray_of, Done&& done) {
    refill = refill < 1u ? 1u : (refill > 32u ? 32u : refill);
    uint32_t item = kInvalid;  // kInvalid: idle
    bool exhausted = n == 0;
    Ray r;
    RayBoxPre q;
    float tmin = 0.0f;
    Hit hit{};
    BVH2Ref stack[kBVHStackSize];
    stack[0] = BVH2Ref{kBVH2Done, 0u};
    int sp = 0;
    BVH2Ref node{kBVH2Done, 0u}, leaf{0u, 0u};
    while (true) {
        const bool idle = item == kInvalid;
        const unsigned idle_mask = __ballot_sync(kFullWarp, idle);
        if (!exhausted && uint32_t(__popc(idle_mask)) >= refill) {
            const uint32_t i = warp_fetch(c.fetch, idle_mask, n, exhausted);
            if (i < n) {
                item = i;
                float tmax;
                ray_of(i, r, tmin, tmax);
                hit = Hit{tmax, kInvalid, 0.0f, 0.0f};
                q = ray_box_pre(r);
                sp = 0;
                node = BVH2Ref{s.nodes ? 0u : kBVH2Done, 0u};
                leaf = BVH2Ref{0u, 0u};
            }
        }
        if (__all_sync(kFullWarp, item == kInvalid)) break;  // only once the items are used up
        if (item == kInvalid) continue;
        // One round of traverse_ww's outer loop: nodes until every active lane holds a leaf, then the leaves.
        ww_round<false, false, F>(s, r, q, tmin, hit, stack, sp, node, leaf);
        if (node.idx == kBVH2Done && leaf.count == 0) {
            done(item, hit);
            item = kInvalid;
        }
    }
    persistent_block_done(c);
}

// Whole paths, persistent, with path regeneration: items [0, n), each a path that start(i) returns (a camera path
// for the megakernel, a queued one for the wavefront's drain), run segment by segment (path_segment, the loop body
// of finish_path in kernels/stages.h). A lane whose path ends starts the next item at once; a warp takes 32
// consecutive items at a time. on_segment(depth, has_shadow) sees each segment; ext and shadow count the rays.
// (No refill of traversing lanes inside it: docs/DECISIONS.md: persistent-megakernel.) F: the features compiled in
// (kernels/features.h). All 32 lanes of every warp must call it.
template <uint32_t F, class Start, class OnSegment>
__device__ void run_paths_persistent(const SceneView& s, const RenderParams& rp, const FilmView& film, uint32_t n,
                                     const FetchCounters& c, Start&& start, OnSegment&& on_segment, uint32_t& ext,
                                     uint32_t& shadow) {
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t pool = 0, left = 0;  // warp-uniform: items [pool, pool + left) taken, not yet started
    bool exhausted = false;       // warp-uniform: the counter has passed n
    bool active = false;
    PathState p;
    while (true) {
        unsigned need = __ballot_sync(kFullWarp, !active);
        while (need != 0 && !(exhausted && left == 0)) {
            if (left == 0) {
                uint32_t b = 0;
                if (lane == 0) b = atomicAdd(c.fetch, 32u);
                b = __shfl_sync(kFullWarp, b, 0);
                if (b >= n) {
                    exhausted = true;
                    break;
                }
                pool = b;
                left = min(32u, n - b);
            }
            const uint32_t rank = uint32_t(__popc(need & ((1u << lane) - 1u)));
            const uint32_t take = min(uint32_t(__popc(need)), left);
            const bool mine = ((need >> lane) & 1u) && rank < take;
            if (mine) {
                p = start(pool + rank);
                active = true;
            }
            need &= ~__ballot_sync(kFullWarp, mine);
            pool += take;
            left -= take;
        }
        if (!__any_sync(kFullWarp, active)) break;
        if (active) active = path_segment<true, F>(s, rp, film, p, on_segment, ext, shadow);
    }
}

}  // namespace wp
#endif
