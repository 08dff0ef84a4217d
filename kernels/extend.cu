// extend: closest-hit BVH traversal of every path's ray.
#include "kernels/gpu_stages.h"

namespace wp {

__global__ void extend(SceneView s, WavefrontQueues q, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage::extend(s, q, i);
}

void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n, const char* name) {
    L.launch(name, dim3(blocks_for(n)), dim3(kStageBlock), extend, s, q, n);
}
KernelAttr attr_extend() { return kernel_attr("extend", reinterpret_cast<const void*>(extend), kStageBlock); }

}  // namespace wp
