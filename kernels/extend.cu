// extend: closest-hit BVH traversal of every path's ray.
#include "kernels/gpu_stages.h"
#include "kernels/persistent.h"

namespace wp {

// W: the tree width compiled in (2 or 8); the launcher picks the scene's.
template <int W>
__global__ void WP_TRAVERSAL_BOUNDS extend(SceneView s, WavefrontQueues q, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t m = q.iter ? q.iter->n : n;  // n: the launch bound
    if (i < m) {
        stage::extend<W>(s, q, i);
    } else if (i < n && q.material_key) {  // dead slot within the sorted bound: sorts last
        q.material_key[i] = kDeadKey;
        q.order_iota[i] = i;
    }
}

#if defined(WP_BVH2_WHILE_WHILE) && WP_BVH2_WHILE_WHILE
#define WP_PERSISTENT_TRAVERSAL 1
// extend with persistent threads (binary tree, while-while traversal): as many warps as fit on the GPU take the
// paths from q.counters[kFetch]; a warp refills its idle lanes once q.refill of them are idle.
__global__ void WP_TRAVERSAL_BOUNDS extend_persistent(SceneView s, WavefrontQueues q, uint32_t n) {
    const uint32_t m = q.iter ? q.iter->n : n;
    if (q.material_key)  // dead slots within the sorted bound sort last
        for (uint32_t i = m + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
            q.material_key[i] = kDeadKey;
            q.order_iota[i] = i;
        }
    traverse_ww_persistent(
        s, m, FetchCounters{q.counters + kFetch, q.counters + kFetchDone}, q.refill,
        [&](uint32_t i, Ray& r, float& tmin, float& tmax) {
            r = stage::extend_ray(q, i);
            tmin = 0.0f;
            tmax = kInf;
        },
        [&](uint32_t i, const Hit& h) { stage::extend_done(s, q, i, h); });
}
#endif

unsigned resident_blocks(const void* fn) {
    int sms = 0, dev = 0, per_sm = 0;
    WP_CUDA(cudaGetDevice(&dev));
    WP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    WP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, kStageBlock, 0));
    return unsigned(std::max(1, sms * per_sm));
}

void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n, const char* name) {
#if defined(WP_PERSISTENT_TRAVERSAL)
    if (q.refill > 0 && !s.nodes8) {
        static const unsigned resident = resident_blocks(reinterpret_cast<const void*>(extend_persistent));
        L.launch(name, dim3(std::min(blocks_for(n), resident)), dim3(kStageBlock), extend_persistent, s, q, n);
        return;
    }
#endif
    L.launch(name, dim3(blocks_for(n)), dim3(kStageBlock), s.nodes8 ? extend<8> : extend<2>, s, q, n);
}
KernelAttr attr_extend(int width) {
    return kernel_attr("extend", reinterpret_cast<const void*>(width == 8 ? extend<8> : extend<2>), kStageBlock);
}
KernelAttr attr_extend_persistent() {
#if defined(WP_PERSISTENT_TRAVERSAL)
    return kernel_attr("extend_persistent", reinterpret_cast<const void*>(extend_persistent), kStageBlock);
#else
    return attr_extend(2);
#endif
}

}  // namespace wp
