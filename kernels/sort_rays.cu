// sort_rays, sort_shadow: the order rays are traced in (kernels/ray_order.h). A key kernel per queue, then CUB's
// radix sort of the keys carrying the identity into q.ray_order; both under the stage's row.
#include <cub/device/device_radix_sort.cuh>
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

__global__ void sort_rays(SceneView s, WavefrontQueues q, uint32_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage::sort_rays_key(s, q, i);
}
// Over an upper bound of the shadow queue's length; the length itself is on the device.
__global__ void sort_shadow(SceneView s, WavefrontQueues q, uint32_t n_max) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_max) stage::sort_shadow_key(s, q, i, q.counters[kShadowCount]);
}

size_t sort_rays_temp_bytes(uint32_t capacity) {
    size_t bytes = 0;
    WP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                            (const uint32_t*)nullptr, (uint32_t*)nullptr, capacity, 0,
                                            kRayKeySortBits));
    return bytes;
}

namespace {
void sort_keys(Launcher& L, const char* name, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t n) {
    L.region(name, [&] {
        WP_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, q.ray_key, q.ray_key_sorted, q.ray_iota, q.ray_order,
                                                n, 0, kRayKeySortBits, L.stream()));
    });
}
}  // namespace

void launch_sort_rays(Launcher& L, void* temp, size_t temp_bytes, const SceneView& s, const WavefrontQueues& q,
                      uint32_t n) {
    L.launch("sort_rays", dim3(blocks_for(n)), dim3(kStageBlock), sort_rays, s, q, n);
    sort_keys(L, "sort_rays", temp, temp_bytes, q, n);
}

void launch_sort_shadow(Launcher& L, void* temp, size_t temp_bytes, const SceneView& s, const WavefrontQueues& q,
                        uint32_t n_max) {
    L.launch("sort_shadow", dim3(blocks_for(n_max)), dim3(kStageBlock), sort_shadow, s, q, n_max);
    sort_keys(L, "sort_shadow", temp, temp_bytes, q, n_max);
}

KernelAttr attr_sort_rays() { return kernel_attr("sort_rays", reinterpret_cast<const void*>(sort_rays), kStageBlock); }

}  // namespace wp
