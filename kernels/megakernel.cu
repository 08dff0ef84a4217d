// megakernel: whole paths, the stage bodies called in a loop, with path regeneration: a lane whose path ends starts
// the next sample at once instead of idling until its warp's longest path ends (Novak, Havran, Dachsbacher 2010;
// Laine, Karras, Aila 2013 section 3). Persistent threads (kernels/persistent.h): as many warps as fit on the GPU,
// each taking 32 consecutive samples at a time from a counter.
#include "kernels/gpu_stages.h"
#include "kernels/persistent.h"
#include "kernels/stages.h"

namespace wp {

// W: the tree width compiled in (2 or 8); the launcher picks the scene's. Samples [begin, end); the extension and
// shadow rays traced are added to rays[0..1].
template <int W>
__global__ void WP_MEGAKERNEL_BOUNDS megakernel(SceneView s, RenderParams rp, FilmView film, uint64_t begin,
                                                uint64_t end, unsigned long long* rays, FetchCounters c) {
    const uint32_t lane = threadIdx.x & 31u;
    uint32_t ext = 0, shadow = 0;
    run_paths_persistent<W>(
        s, rp, film, uint32_t(end - begin), c, [&](uint32_t i) { return generate_path(s, rp, begin + i); },
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

void launch_megakernel(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t begin,
                       uint64_t end, unsigned long long* rays, uint32_t* counters) {
    static const unsigned resident2 = resident_blocks(reinterpret_cast<const void*>(megakernel<2>));
    static const unsigned resident8 = resident_blocks(reinterpret_cast<const void*>(megakernel<8>));
    uint64_t n = end - begin;
    unsigned blocks = unsigned(std::min<uint64_t>(blocks_for(n), s.nodes8 ? resident8 : resident2));
    L.launch("megakernel", dim3(blocks), dim3(kStageBlock), s.nodes8 ? megakernel<8> : megakernel<2>, s, rp, film,
             begin, end, rays, FetchCounters{counters, counters + 1});
}

KernelAttr attr_megakernel(int width) {
    return kernel_attr("megakernel", reinterpret_cast<const void*>(width == 8 ? megakernel<8> : megakernel<2>),
                       kStageBlock);
}

}  // namespace wp
