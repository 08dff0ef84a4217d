// drain: the wavefront's tail. Once every camera path has been generated and few paths are left in the queue, the
// remaining paths are run to their ends in one kernel (the megakernel's loop over the same stage functions) instead
// of one launch sequence per bounce for a handful of paths. Persistent, with path regeneration as the megakernel
// (kernels/persistent.h): a lane whose path ends takes the next queued one.
#include "kernels/gpu_stages.h"
#include "kernels/kernel_variants.h"
#include "kernels/persistent.h"
#include "kernels/wavefront.h"

namespace wp {

// F: the feature set (kernels/features.h); the launcher picks the scene's.
// Register budget: drain_min_blocks (kernels/gpu_stages.h).
template <uint32_t F>
__global__ void WP_DRAIN_BOUNDS(F)
    drain(SceneView s, RenderParams rp, FilmView film, WavefrontQueues q, uint32_t n, unsigned long long* rays) {
    uint32_t ext = 0, shadow = 0;
    // the segments in the depth histograms, as shade and shadow would count them (stage::drain on the CPU); per block
    // in shared memory, added to the global ones at the end (as in shade)
    __shared__ unsigned long long hist[2 * kStatDepths];
    for (uint32_t b = threadIdx.x; b < 2 * kStatDepths; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    auto stats = [&](uint32_t depth, bool has_shadow) {
        if (q.paths_at_depth) histogram_add(hist, depth_bin(depth));
        if (has_shadow && q.shadow_at_depth) histogram_add(hist + kStatDepths, depth_bin(depth));
    };
    run_paths_persistent<F>(
        s, rp, film, n, FetchCounters{q.counters + kFetch, q.counters + kFetchDone},
        [&](uint32_t i) { return q.paths.load(i); }, stats, ext, shadow);
    // one atomic per warp and counter
    ext = __reduce_add_sync(kFullWarp, ext);
    shadow = __reduce_add_sync(kFullWarp, shadow);
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&rays[0], (unsigned long long)ext);
        atomicAdd(&rays[1], (unsigned long long)shadow);
    }
    persistent_block_done(FetchCounters{q.counters + kFetch, q.counters + kFetchDone});  // syncs the block
    for (uint32_t b = threadIdx.x; b < 2 * kStatDepths; b += blockDim.x)
        if (hist[b]) atomicAdd(b < kStatDepths ? &q.paths_at_depth[b] : &q.shadow_at_depth[b - kStatDepths], hist[b]);
}

namespace {
using DrainFn = void (*)(SceneView, RenderParams, FilmView, WavefrontQueues, uint32_t, unsigned long long*);
// Every set, and its options instance (kernels/kernel_variants.h) with the indirect clamp (kWithClampCrop,
// kernels/stages.h; a crop rides on it).
WP_KERNEL_INSTANCES(DrainKernels, drain, DrainFn, set_masks<kWithClampCrop>());
DrainFn drain_fn(uint32_t mask) { return DrainKernels::fn(mask); }
}  // namespace

void launch_drain(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n, unsigned long long* rays) {
    const DrainFn fn = drain_fn(kernel_mask(render_features(s, rp), needs_clamp_crop(rp), kWithClampCrop));
    const unsigned blocks = std::min(blocks_for(n), resident_blocks_cached(fn));
    L.launch("drain", dim3(blocks), dim3(kStageBlock), fn, s, rp, film, q, n, rays);
}

KernelAttr attr_drain(uint32_t set) {
    return kernel_attr("drain", reinterpret_cast<const void*>(drain_fn(set)), kStageBlock);
}

}  // namespace wp
