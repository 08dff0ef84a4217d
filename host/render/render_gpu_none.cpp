// GPU entry points of a build without CUDA: no GPU is ever available.
#include <stdexcept>
#include "host/render/render.h"

namespace wp {

bool gpu_available(std::string*) { return false; }
int gpu_device_count() { return 0; }
std::string gpu_device_name(int) { throw std::runtime_error("wavepath was built without CUDA: no GPU backend"); }
Image render_gpu(const SceneData&, const RenderParams&, Mode, const RenderOptions&, RenderStats*) {
    throw std::runtime_error("wavepath was built without CUDA: no GPU backend");
}

RaycastStats raycast_gpu(const SceneData&, const RenderParams&, const RenderOptions&) {
    throw std::runtime_error("wavepath was built without CUDA: no GPU backend");
}
std::vector<KernelAttr> gpu_kernel_attrs(uint32_t) { return {}; }

}  // namespace wp
