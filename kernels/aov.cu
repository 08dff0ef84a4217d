// aov: the AOV pass (kernels/aov.h), one thread per pixel over the pixel's samples of the render's range (their fixed-point sums), after the beauty render.
#include "kernels/aov.h"
#include "kernels/gpu_stages.h"

namespace wp {

__global__ void aov(SceneView s, RenderParams rp, AovView out, uint64_t begin, uint64_t end, uint32_t bits) {
    const uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < rp.num_pixels()) aov_pixel(s, rp, p, begin, end, bits, out);
}

void launch_aov(Launcher& L, const SceneView& s, const RenderParams& rp, const AovView& out, uint64_t begin,
                uint64_t end, uint32_t bits) {
    L.launch("aov", dim3(blocks_for(rp.num_pixels())), dim3(kStageBlock), aov, s, rp, out, begin, end, bits);
}

KernelAttr attr_aov() { return kernel_attr("aov", reinterpret_cast<const void*>(aov), kStageBlock); }

}  // namespace wp
