// compaction: the indices of live paths by CUB DeviceSelect::Flagged (compact_select), then a gather of
// those paths, every SoA field, into the next queue (compact).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "kernels/gpu_stages.h"

namespace wp {

__global__ void compact(PathSoA out, PathSoA in, const uint32_t* selected, const uint32_t* live, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i < *live) stage::compact(out, in, selected, i);
}

size_t compact_temp_bytes(uint32_t capacity) {
    size_t bytes = 0;
    WP_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, thrust::counting_iterator<uint32_t>(0), (const uint8_t*)nullptr,
                                       (uint32_t*)nullptr, (uint32_t*)nullptr, capacity));
    return bytes;
}

void launch_compact(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t* selected,
                    const PathSoA& out, uint32_t n) {
    uint32_t* live = q.counters + kLiveCount;
    L.region("compact_select", [&] {
        WP_CUDA(cub::DeviceSelect::Flagged(temp, temp_bytes, thrust::counting_iterator<uint32_t>(0), q.alive, selected,
                                           live, n, L.stream()));
    });
    L.launch("compact", dim3(blocks_for(n)), dim3(kStageBlock), compact, out, q.paths, (const uint32_t*)selected,
             (const uint32_t*)live, n);
}

KernelAttr attr_compact() { return kernel_attr("compact", reinterpret_cast<const void*>(compact), kStageBlock); }

}  // namespace wp
