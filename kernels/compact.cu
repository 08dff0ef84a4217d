// Select compaction (the textbook form; the default is the push in shade): the indices of the live paths by CUB
// DeviceSelect::Flagged (compact_select), then a gather of those paths, every array, into the next queue (compact).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

__global__ void compact(WavefrontQueues q, uint32_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i < q.counters[kLiveCount]) stage::compact(q, i);
}

size_t compact_temp_bytes(uint32_t capacity) {
    size_t bytes = 0;
    WP_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, thrust::counting_iterator<uint32_t>(0), (const uint8_t*)nullptr,
                                       (uint32_t*)nullptr, (uint32_t*)nullptr, capacity));
    return bytes;
}

void launch_compact(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t n) {
    L.region("compact_select", [&] {
        WP_CUDA(cub::DeviceSelect::Flagged(temp, temp_bytes, thrust::counting_iterator<uint32_t>(0), q.alive,
                                           q.selected, q.counters + kLiveCount, n, L.stream()));
    });
    L.launch("compact", dim3(blocks_for(n)), dim3(kStageBlock), compact, q, n);
}

KernelAttr attr_compact() { return kernel_attr("compact", reinterpret_cast<const void*>(compact), kStageBlock); }

}  // namespace wp
