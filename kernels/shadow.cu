// shadow: any-hit occlusion of the shadow queue; unoccluded contributions go to the film.
#include "kernels/gpu_stages.h"
#include "kernels/persistent.h"

namespace wp {

// Launched over an upper bound of the queue's length; the length itself is on the device.
template <int W>
__global__ void WP_TRAVERSAL_BOUNDS shadow(SceneView s, FilmView film, WavefrontQueues q, uint32_t n_max) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_max && i < q.counters[kShadowCount]) stage::shadow<W>(s, film, q, i);
}

#if defined(WP_BVH2_WHILE_WHILE) && WP_BVH2_WHILE_WHILE
#define WP_PERSISTENT_TRAVERSAL 1
// shadow with persistent threads (binary tree): the single-loop any-hit traversal, a lane that finds an occluder
// taking the next shadow ray at its warp's next refill (once q.refill_shadow lanes are idle). (The while-while
// traversal made persistent was slower here: Cornell's shadow 2.14 -> 3.24 ms, the dragon's 15.8 -> 16.8; LOG 26.)
__global__ void WP_TRAVERSAL_BOUNDS shadow_persistent(SceneView s, FilmView film, WavefrontQueues q, uint32_t n_max) {
    const uint32_t n = min(n_max, q.counters[kShadowCount]);
    traverse_persistent<true>(
        s, n, FetchCounters{q.counters + kFetch, q.counters + kFetchDone}, q.refill_shadow,
        [&](uint32_t i, Ray& r, float& tmin, float& tmax) {
            r = stage::shadow_ray(q, i, tmax);
            tmin = 0.0f;
        },
        [&](uint32_t i, const Hit& h) { stage::shadow_done(film, q, i, h); });
}
#endif

unsigned resident_blocks(const void* fn);  // extend.cu

void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max) {
#if defined(WP_PERSISTENT_TRAVERSAL)
    if (q.refill_shadow > 0 && !s.nodes8) {
        static const unsigned resident = resident_blocks(reinterpret_cast<const void*>(shadow_persistent));
        L.launch("shadow", dim3(std::min(blocks_for(n_max), resident)), dim3(kStageBlock), shadow_persistent, s, film,
                 q, n_max);
        return;
    }
#endif
    L.launch("shadow", dim3(blocks_for(n_max)), dim3(kStageBlock), s.nodes8 ? shadow<8> : shadow<2>, s, film, q,
             n_max);
}

KernelAttr attr_shadow(int width) {
    return kernel_attr("shadow", reinterpret_cast<const void*>(width == 8 ? shadow<8> : shadow<2>), kStageBlock);
}
KernelAttr attr_shadow_persistent() {
#if defined(WP_PERSISTENT_TRAVERSAL)
    return kernel_attr("shadow_persistent", reinterpret_cast<const void*>(shadow_persistent), kStageBlock);
#else
    return attr_shadow(2);
#endif
}

}  // namespace wp
