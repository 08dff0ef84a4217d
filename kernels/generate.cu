// generate: camera rays for the next pixel samples, into the free slots of the path queue.
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

__global__ void generate(SceneView s, RenderParams rp, WavefrontQueues q, uint32_t first_slot, uint64_t first_index,
                         uint32_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage::generate(s, rp, q, first_slot + i, first_index + i);
}

void launch_generate(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                     uint32_t first_slot, uint64_t first_index, uint32_t n) {
    L.launch("generate", dim3(blocks_for(n)), dim3(kStageBlock), generate, s, rp, q, first_slot, first_index, n);
}

KernelAttr attr_generate() { return kernel_attr("generate", reinterpret_cast<const void*>(generate), kStageBlock); }

}  // namespace wp
