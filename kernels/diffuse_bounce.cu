// diffuse_bounce: the ray-cast-only benchmark's second pass (first hits -> diffuse bounce rays).
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

__global__ void diffuse_bounce(SceneView s, RenderParams rp, WavefrontQueues q, uint32_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) stage::diffuse_bounce(s, rp, q, i);
}

void launch_diffuse_bounce(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                           uint32_t n) {
    L.launch("diffuse_bounce", dim3(blocks_for(n)), dim3(kStageBlock), diffuse_bounce, s, rp, q, n);
}
KernelAttr attr_diffuse_bounce() {
    return kernel_attr("diffuse_bounce", reinterpret_cast<const void*>(diffuse_bounce), kStageBlock);
}

}  // namespace wp
