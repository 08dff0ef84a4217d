// shadow: any-hit occlusion of the shadow queue; unoccluded contributions go to the film.
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

// Launched over an upper bound of the queue's length; the length itself is on the device.
template <int W>
__global__ void WP_TRAVERSAL_BOUNDS shadow(SceneView s, FilmView film, WavefrontQueues q, uint32_t n_max) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_max && i < q.counters[kShadowCount]) stage::shadow<W>(s, film, q, i);
}

void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max) {
    L.launch("shadow", dim3(blocks_for(n_max)), dim3(kStageBlock), s.nodes8 ? shadow<8> : shadow<2>, s, film, q, n_max);
}

KernelAttr attr_shadow(int width) {
    return kernel_attr("shadow", reinterpret_cast<const void*>(width == 8 ? shadow<8> : shadow<2>), kStageBlock);
}

}  // namespace wp
