// megakernel: one thread per path sample, the stage bodies called in a loop (grid-stride over samples).
#include "kernels/gpu_stages.h"

namespace wp {

// W: the tree width compiled in (2 or 8); the launcher picks the scene's.
template <int W>
__global__ void WP_MEGAKERNEL_BOUNDS megakernel(SceneView s, RenderParams rp, FilmView film, uint64_t begin, uint64_t end,
                           unsigned long long* rays) {
    uint64_t ext = 0, shadow = 0;
    for (uint64_t i = begin + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < end;
         i += uint64_t(gridDim.x) * blockDim.x) {
        uint64_t r = trace_path<W>(s, rp, film, i);
        ext += r & 0xffffffffu;
        shadow += r >> 32;
    }
    // one atomic per warp and counter
    unsigned mask = __activemask();
    ext = __reduce_add_sync(mask, unsigned(ext));
    shadow = __reduce_add_sync(mask, unsigned(shadow));
    if ((threadIdx.x & 31u) == unsigned(__ffs(mask) - 1)) {
        atomicAdd(&rays[0], ext);
        atomicAdd(&rays[1], shadow);
    }
}

void launch_megakernel(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t begin,
                       uint64_t end, unsigned long long* rays) {
    int sms = 0;
    WP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    uint64_t n = end - begin;
    unsigned blocks = unsigned(std::min<uint64_t>(blocks_for(n), uint64_t(sms) * 64));
    L.launch("megakernel", dim3(blocks), dim3(kStageBlock), s.nodes8 ? megakernel<8> : megakernel<2>, s, rp,
             film, begin, end, rays);
}

KernelAttr attr_megakernel(int width) {
    return kernel_attr("megakernel", reinterpret_cast<const void*>(width == 8 ? megakernel<8> : megakernel<2>),
                       kStageBlock);
}

}  // namespace wp
