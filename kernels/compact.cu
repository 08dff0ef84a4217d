// compaction, two ways:
//  gather: the indices of live paths by CUB DeviceSelect::Flagged (compact_select), then a gather of those paths,
//          every SoA field, into the next queue (compact);
//  index:  the paths stay in their slots; CUB DevicePartition::Flagged splits the iteration's slot list into the
//          live slots (in order, the next iteration's first items) and the freed ones (after them, reversed),
//          which the next generate fills (compact_partition). Nothing but 4-byte indices moves.
#include <algorithm>
#include <cub/device/device_partition.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "kernels/gpu_stages.h"

namespace wp {

__global__ void compact(PathSoA out, PathSoA in, const uint32_t* selected, const uint32_t* live, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && i < *live) stage::compact(out, in, selected, i);
}

size_t compact_temp_bytes(uint32_t capacity) {
    size_t bytes = 0, pbytes = 0;
    WP_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, thrust::counting_iterator<uint32_t>(0), (const uint8_t*)nullptr,
                                       (uint32_t*)nullptr, (uint32_t*)nullptr, capacity));
    WP_CUDA(cub::DevicePartition::Flagged(nullptr, pbytes, (const uint32_t*)nullptr, (const uint8_t*)nullptr,
                                          (uint32_t*)nullptr, (uint32_t*)nullptr, capacity));
    return std::max(bytes, pbytes);
}

__global__ void init_slots(uint32_t* slots, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) slots[i] = i;
}

void launch_init_slots(Launcher& L, uint32_t* slots, uint32_t n) {
    L.launch("init_slots", dim3(blocks_for(n)), dim3(kStageBlock), init_slots, slots, n);
}

void launch_partition(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t* out,
                      uint32_t n) {
    uint32_t* live = q.counters + kLiveCount;
    L.region("compact_partition", [&] {
        WP_CUDA(cub::DevicePartition::Flagged(temp, temp_bytes, q.slots, q.alive, out, live, n, L.stream()));
    });
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
