// extend: closest-hit BVH traversal of every path's ray.
#include "kernels/gpu_stages.h"
#include "kernels/persistent.h"
#include "kernels/wavefront.h"

namespace wp {

// kPersistent: as many warps as fit on the GPU take the paths from q.counters[kFetch] and refill their idle lanes
// once q.refill of them are idle (the while-while traversal, kernels/persistent.h); otherwise one thread per ray.
// F: the feature set (kernels/features.h; extend uses its shapes).
template <bool kPersistent, uint32_t F>
__global__ void WP_TRAVERSAL_BOUNDS extend(SceneView s, WavefrontQueues q, uint32_t n) {
    if constexpr (kPersistent) {
        traverse_ww_persistent<F>(
            s, n, FetchCounters{q.counters + kFetch, q.counters + kFetchDone}, q.refill,
            [&](uint32_t i, Ray& r, float& tmin, float& tmax) {
                r = stage::extend_ray(q, i);
                tmin = 0.0f;
                tmax = kInf;
            },
            [&](uint32_t i, const Hit& h) { stage::extend_done(s, q, i, h); });
    } else {
        const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) stage::extend<F>(s, q, i);
    }
}

unsigned resident_blocks(const void* fn) {
    int sms = 0, dev = 0, per_sm = 0;
    WP_CUDA(cudaGetDevice(&dev));
    WP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    WP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, kStageBlock, 0));
    return unsigned(std::max(1, sms * per_sm));
}

namespace {
using ExtendKernel = void (*)(SceneView, WavefrontQueues, uint32_t);
// The instance: persistent when warps refill, for each set of kFeatureSets.
ExtendKernel extend_kernel(uint32_t refill, uint32_t set) {
    if (refill == 0) return extend<false, kFeaturesAll>;
    // traversal has no material code: the general and the layered sets share one instance
    return set == kFeaturesSpheres ? extend<true, kFeaturesSpheres> : extend<true, kFeaturesAll>;
}
}  // namespace

void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n) {
    const ExtendKernel k = extend_kernel(q.refill, feature_set_for(s.features));
    unsigned blocks = blocks_for(n);
    if (q.refill > 0) blocks = std::min(blocks, resident_blocks_cached(k));
    L.launch("extend", dim3(blocks), dim3(kStageBlock), k, s, q, n);
}
KernelAttr attr_extend(uint32_t refill, uint32_t set) {
    return kernel_attr("extend", reinterpret_cast<const void*>(extend_kernel(refill, set)), kStageBlock);
}

}  // namespace wp
