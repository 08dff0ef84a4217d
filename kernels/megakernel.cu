// megakernel: whole paths, the stage bodies called in a loop, with path regeneration: a lane whose path ends starts
// the next sample at once instead of idling until its warp's longest path ends (Novak, Havran, Dachsbacher 2010;
// Laine, Karras, Aila 2013 section 3). Persistent threads (kernels/persistent.h): as many warps as fit on the GPU,
// each taking 32 consecutive samples at a time from a counter.
#include "kernels/gpu_stages.h"
#include "kernels/kernel_variants.h"
#include "kernels/persistent.h"
#include "kernels/stages.h"

namespace wp {

// F: the feature set (kernels/features.h); the launcher picks the scene's.
// Samples [begin, end); the extension and shadow rays traced are added to rays[0..1].
template <uint32_t F>
__global__ void WP_MEGAKERNEL_BOUNDS(F) megakernel(SceneView s, RenderParams rp, FilmView film, uint64_t begin,
                                                   uint64_t end, unsigned long long* rays, FetchCounters c) {
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t ext = 0, shadow = 0;
    run_paths_persistent<F>(
        s, rp, film, uint32_t(end - begin), c, [&](uint32_t i) { return generate_path<F>(s, rp, begin + i); },
        NoSegmentStats{}, ext, shadow);
    // one atomic per warp and counter
    ext = __reduce_add_sync(kFullWarp, ext);
    shadow = __reduce_add_sync(kFullWarp, shadow);
    if (lane == 0) {
        atomicAdd(&rays[0], (unsigned long long)ext);
        atomicAdd(&rays[1], (unsigned long long)shadow);
    }
    persistent_block_done(c);
}

namespace {
using MegakernelFn = void (*)(SceneView, RenderParams, FilmView, uint64_t, uint64_t, unsigned long long*,
                              FetchCounters);
// Every set, and its options instance (kernels/kernel_variants.h) with the indirect clamp and a reconstruction
// filter (kWithClampCrop, kWithFilter, kernels/stages.h; a crop rides on them).
constexpr uint32_t kWithOptions = kWithClampCrop | kWithFilter;
WP_KERNEL_INSTANCES(MegakernelKernels, megakernel, MegakernelFn, set_masks<kWithOptions>());
MegakernelFn megakernel_fn(uint32_t mask) { return MegakernelKernels::fn(mask); }
}  // namespace

void launch_megakernel(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t begin,
                       uint64_t end, unsigned long long* rays, uint32_t* counters) {
    const MegakernelFn fn = megakernel_fn(
        kernel_mask(render_features(s, rp), needs_clamp_crop(rp) || rp.filter != kFilterPixelBox, kWithOptions));
    const unsigned blocks = unsigned(std::min<uint64_t>(blocks_for(end - begin), resident_blocks_cached(fn)));
    L.launch("megakernel", dim3(blocks), dim3(kStageBlock), fn, s, rp, film, begin, end, rays,
             FetchCounters{counters, counters + 1});
}

KernelAttr attr_megakernel(uint32_t set) {
    return kernel_attr("megakernel", reinterpret_cast<const void*>(megakernel_fn(set)), kStageBlock);
}

}  // namespace wp
