// shadow: any-hit occlusion of the shadow queue; unoccluded contributions go to the film.
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

// Launched over an upper bound of the queue's length; the length itself is on the device. kSorted: the rays in
// q.ray_order's order (an instance of its own, so that the unsorted kernel carries no index load: its registers
// cost an occupancy step; docs/DECISIONS.md: shadow-sorted-instance).
template <bool kSorted>
__global__ void WP_TRAVERSAL_BOUNDS shadow(SceneView s, FilmView film, WavefrontQueues q, uint32_t n_max) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_max && i < q.counters[kShadowCount]) stage::shadow(s, film, q, kSorted ? q.ray_order[i] : i);
}

void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max) {
    const auto k = q.shadow_sorted ? shadow<true> : shadow<false>;
    L.launch("shadow", dim3(blocks_for(n_max)), dim3(kStageBlock), k, s, film, q, n_max);
}

KernelAttr attr_shadow() { return kernel_attr("shadow", reinterpret_cast<const void*>(shadow<false>), kStageBlock); }

}  // namespace wp
