// shadow: any-hit occlusion of the shadow queue; unoccluded contributions go to the film.
#include <cstdlib>
#include "kernels/gpu_stages.h"

namespace wp {

// Launched over an upper bound of the queue's length; the length itself is on the device.
template <int W>
__global__ void WP_TRAVERSAL_BOUNDS shadow(SceneView s, FilmView film, WavefrontQueues q, uint32_t n_max) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_max && i < q.counters[kShadowCount]) stage::shadow<W>(s, film, q, i);
}

// Threads per block (experiment: WP_SHADOW_BLOCK=32..1024 overrides kStageBlock; a block holds its SM slots until
// its slowest ray ends, so smaller blocks may keep more warps busy).
static unsigned shadow_block() {
    static const unsigned b = [] {
        const char* e = std::getenv("WP_SHADOW_BLOCK");
        unsigned v = e ? unsigned(std::atoi(e)) : kStageBlock;
        return v >= 32 && v <= 1024 && v % 32 == 0 ? v : kStageBlock;
    }();
    return b;
}

void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max) {
    const unsigned block = shadow_block();
    L.launch("shadow", dim3(blocks_for(n_max, block)), dim3(block), s.nodes8 ? shadow<8> : shadow<2>, s, film, q,
             n_max);
}

KernelAttr attr_shadow(int width) {
    return kernel_attr("shadow", reinterpret_cast<const void*>(width == 8 ? shadow<8> : shadow<2>), kStageBlock);
}

}  // namespace wp
