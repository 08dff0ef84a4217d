// extend: closest-hit BVH traversal of every path's ray.
#include "kernels/gpu_stages.h"

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

void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n, const char* name) {
    L.launch(name, dim3(blocks_for(n)), dim3(kStageBlock), s.nodes8 ? extend<8> : extend<2>, s, q, n);
}
KernelAttr attr_extend(int width) {
    return kernel_attr("extend", reinterpret_cast<const void*>(width == 8 ? extend<8> : extend<2>), kStageBlock);
}

}  // namespace wp
