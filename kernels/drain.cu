// drain: the wavefront's tail. Once every camera path has been generated and few paths are left in the queue, each
// remaining path is run to its end by one thread (stage::drain: the megakernel's loop over the same stage
// functions) instead of one launch sequence per bounce for a handful of paths.
#include "kernels/gpu_stages.h"

namespace wp {

// W: the tree width compiled in (2 or 8); the launcher picks the scene's. Same register budget as the megakernel,
// whose loop it runs.
template <int W>
__global__ void WP_MEGAKERNEL_BOUNDS drain(SceneView s, RenderParams rp, FilmView film, WavefrontQueues q, uint32_t n,
                                           unsigned long long* rays) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t r = i < n ? stage::drain<W>(s, rp, film, q, i) : 0;
    // one atomic per warp and counter
    unsigned ext = __reduce_add_sync(0xffffffffu, unsigned(r & 0xffffffffu));
    unsigned shadow = __reduce_add_sync(0xffffffffu, unsigned(r >> 32));
    if ((threadIdx.x & 31u) == 0) {
        atomicAdd(&rays[0], (unsigned long long)ext);
        atomicAdd(&rays[1], (unsigned long long)shadow);
    }
}

void launch_drain(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n, unsigned long long* rays) {
    L.launch("drain", dim3(blocks_for(n)), dim3(kStageBlock), s.nodes8 ? drain<8> : drain<2>, s, rp, film, q, n, rays);
}

KernelAttr attr_drain(int width) {
    return kernel_attr("drain", reinterpret_cast<const void*>(width == 8 ? drain<8> : drain<2>), kStageBlock);
}

}  // namespace wp
