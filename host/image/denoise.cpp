#include "host/image/denoise.h"
#include <dlfcn.h>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#ifndef WP_OIDN_LIB_DIR
#define WP_OIDN_LIB_DIR ""
#endif

namespace wp {
namespace {

// The subset of OIDN 2.x's C API (include/OpenImageDenoise/oidn.h) used here.
using OIDNDevice = struct OIDNDeviceImpl*;
using OIDNFilter = struct OIDNFilterImpl*;
using OIDNBuffer = struct OIDNBufferImpl*;
using CudaStream = struct CUstream_st*;
constexpr int kOidnDeviceCpu = 1;  // OIDN_DEVICE_TYPE_CPU
constexpr int kOidnFormatFloat3 = 3;

struct Oidn {
    OIDNDevice (*newDevice)(int) = nullptr;
    OIDNDevice (*newCUDADevice)(const int*, const CudaStream*, int) = nullptr;
    bool (*isCPUDeviceSupported)() = nullptr;
    bool (*isCUDADeviceSupported)(int) = nullptr;
    void (*commitDevice)(OIDNDevice) = nullptr;
    int (*getDeviceError)(OIDNDevice, const char**) = nullptr;
    void (*releaseDevice)(OIDNDevice) = nullptr;
    OIDNBuffer (*newBuffer)(OIDNDevice, size_t) = nullptr;
    void (*writeBuffer)(OIDNBuffer, size_t, size_t, const void*) = nullptr;
    void (*readBuffer)(OIDNBuffer, size_t, size_t, void*) = nullptr;
    void (*releaseBuffer)(OIDNBuffer) = nullptr;
    OIDNFilter (*newFilter)(OIDNDevice, const char*) = nullptr;
    void (*setFilterImage)(OIDNFilter, const char*, OIDNBuffer, int, size_t, size_t, size_t, size_t, size_t) = nullptr;
    void (*setFilterBool)(OIDNFilter, const char*, bool) = nullptr;
    void (*commitFilter)(OIDNFilter) = nullptr;
    void (*executeFilter)(OIDNFilter) = nullptr;
    void (*releaseFilter)(OIDNFilter) = nullptr;
    std::string problem;  // "" once loaded
};

const Oidn& oidn() {
    static Oidn o;
    static std::once_flag once;
    std::call_once(once, [] {
        std::string tried;
        void* h = nullptr;
        std::string candidates[3];
        if (const char* e = std::getenv("WAVEPATH_OIDN_LIBRARY")) candidates[0] = e;
        if (*WP_OIDN_LIB_DIR) candidates[1] = std::string(WP_OIDN_LIB_DIR) + "/libOpenImageDenoise.so.2";
        candidates[2] = "libOpenImageDenoise.so.2";
        for (const std::string& c : candidates) {
            if (c.empty()) continue;
            h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (h) break;
            const char* err = dlerror();
            tried += (tried.empty() ? "" : "; ") + (err ? std::string(err) : c);
        }
        if (!h) {
            o.problem =
                "Open Image Denoise not found (install it with scripts/install-deps.sh, the pyoidn wheel, "
                "or set WAVEPATH_OIDN_LIBRARY): " +
                tried;
            return;
        }
        auto sym = [&](auto& f, const char* name) {
            f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(h, name));
            if (!f && o.problem.empty())
                o.problem = std::string("Open Image Denoise lacks ") + name + " (wavepath needs OIDN 2.1 or later)";
        };
        sym(o.newDevice, "oidnNewDevice");
        sym(o.newCUDADevice, "oidnNewCUDADevice");
        sym(o.isCPUDeviceSupported, "oidnIsCPUDeviceSupported");
        sym(o.isCUDADeviceSupported, "oidnIsCUDADeviceSupported");
        sym(o.commitDevice, "oidnCommitDevice");
        sym(o.getDeviceError, "oidnGetDeviceError");
        sym(o.releaseDevice, "oidnReleaseDevice");
        sym(o.newBuffer, "oidnNewBuffer");
        sym(o.writeBuffer, "oidnWriteBuffer");
        sym(o.readBuffer, "oidnReadBuffer");
        sym(o.releaseBuffer, "oidnReleaseBuffer");
        sym(o.newFilter, "oidnNewFilter");
        sym(o.setFilterImage, "oidnSetFilterImage");
        sym(o.setFilterBool, "oidnSetFilterBool");
        sym(o.commitFilter, "oidnCommitFilter");
        sym(o.executeFilter, "oidnExecuteFilter");
        sym(o.releaseFilter, "oidnReleaseFilter");
    });
    return o;
}

// OIDN's pending error for device d (nullptr: why a device creation failed), or "" when none.
std::string take_error(const Oidn& o, OIDNDevice d) {
    const char* msg = nullptr;
    if (o.getDeviceError(d, &msg) == 0) return "";
    return msg && *msg ? msg : "error";
}

// A committed device of the kind asked for (Cpu or Cuda on cuda_id), or throws saying why.
struct Device {
    const Oidn& o;
    OIDNDevice d = nullptr;
    Device(const Oidn& lib, DenoiseDevice kind, int cuda_id) : o(lib) {
        if (kind == DenoiseDevice::Cuda) {
            if (!o.isCUDADeviceSupported(cuda_id)) {
                std::string e = take_error(o, nullptr);
                throw std::runtime_error("Open Image Denoise has no usable CUDA device " + std::to_string(cuda_id) +
                                         " (no NVIDIA GPU or driver here, or its CUDA module did not load" +
                                         (e.empty() ? std::string(")") : "): " + e));
            }
            const CudaStream stream = nullptr;  // the device's default stream
            d = o.newCUDADevice(&cuda_id, &stream, 1);
        } else {
            if (!o.isCPUDeviceSupported())
                throw std::runtime_error("Open Image Denoise: this CPU is not supported (its CPU device needs SSE4.1)");
            d = o.newDevice(kOidnDeviceCpu);
        }
        const char* what = kind == DenoiseDevice::Cuda ? "CUDA device" : "CPU device";
        if (!d) {
            std::string e = take_error(o, nullptr);
            throw std::runtime_error(std::string("Open Image Denoise: no ") + what + (e.empty() ? "" : ": " + e));
        }
        o.commitDevice(d);
        check(what);
    }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    ~Device() {
        if (d) o.releaseDevice(d);
    }
    void check(const char* what) const {
        std::string e = take_error(o, d);
        if (!e.empty()) throw std::runtime_error(std::string("Open Image Denoise (") + what + "): " + e);
    }
};

// An OIDN buffer (on the device's memory for the CUDA device), released with its owner.
struct Buffer {
    const Oidn& o;
    OIDNBuffer b = nullptr;
    Buffer(const Device& dev, size_t bytes) : o(dev.o) {
        b = o.newBuffer(dev.d, bytes);
        dev.check("buffer");
        if (!b) throw std::runtime_error("Open Image Denoise: no buffer of " + std::to_string(bytes) + " bytes");
    }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() {
        if (b) o.releaseBuffer(b);
    }
};

struct Filter {
    const Oidn& o;
    OIDNFilter f = nullptr;
    Filter(const Device& dev, const char* type) : o(dev.o) {
        f = o.newFilter(dev.d, type);
        dev.check("filter");
        if (!f) throw std::runtime_error(std::string("Open Image Denoise: no \"") + type + "\" filter");
    }
    Filter(const Filter&) = delete;
    Filter& operator=(const Filter&) = delete;
    ~Filter() {
        if (f) o.releaseFilter(f);
    }
};

}  // namespace

const char* denoise_device_name(DenoiseDevice d) {
    return d == DenoiseDevice::Cpu ? "cpu" : d == DenoiseDevice::Cuda ? "cuda" : "auto";
}

DenoiseDevice resolve_denoise_device(DenoiseDevice requested, bool gpu_render, int cuda_id) {
    if (requested != DenoiseDevice::Auto) return requested;
    if (!gpu_render) return DenoiseDevice::Cpu;
    const Oidn& o = oidn();
    if (!o.problem.empty()) return DenoiseDevice::Cpu;
    return o.isCUDADeviceSupported(cuda_id) ? DenoiseDevice::Cuda : DenoiseDevice::Cpu;
}

std::string denoiser_problem(DenoiseDevice d, int cuda_id) {
    const Oidn& o = oidn();
    if (!o.problem.empty()) return o.problem;
    try {
        Device dev(o, d == DenoiseDevice::Auto ? DenoiseDevice::Cpu : d, cuda_id);
    } catch (const std::exception& e) { return e.what(); }
    return "";
}

Image denoise_image(const Image& img, DenoiseDevice d, int cuda_id) {
    const Oidn& o = oidn();
    if (!o.problem.empty()) throw std::runtime_error(o.problem);
    const size_t n = size_t(img.width) * img.height;
    if (n == 0 || img.rgb.size() != 3 * n) throw std::runtime_error("denoise: the image has no pixels");
    if (d == DenoiseDevice::Auto) d = DenoiseDevice::Cpu;
    Device dev(o, d, cuda_id);
    const size_t bytes = 3 * n * sizeof(float);
    const bool albedo = img.albedo.size() == 3 * n, normal = albedo && img.normal.size() == 3 * n;
    // color, output, then the guides: OIDN takes a normal only with an albedo
    Buffer color(dev, bytes), output(dev, bytes);
    o.writeBuffer(color.b, 0, bytes, img.rgb.data());
    Filter f(dev, "RT");
    o.setFilterImage(f.f, "color", color.b, kOidnFormatFloat3, img.width, img.height, 0, 0, 0);
    o.setFilterImage(f.f, "output", output.b, kOidnFormatFloat3, img.width, img.height, 0, 0, 0);
    std::unique_ptr<Buffer> alb, nrm;
    if (albedo) {
        alb = std::make_unique<Buffer>(dev, bytes);
        o.writeBuffer(alb->b, 0, bytes, img.albedo.data());
        o.setFilterImage(f.f, "albedo", alb->b, kOidnFormatFloat3, img.width, img.height, 0, 0, 0);
    }
    if (normal) {
        nrm = std::make_unique<Buffer>(dev, bytes);
        o.writeBuffer(nrm->b, 0, bytes, img.normal.data());
        o.setFilterImage(f.f, "normal", nrm->b, kOidnFormatFloat3, img.width, img.height, 0, 0, 0);
    }
    o.setFilterBool(f.f, "hdr", true);
    o.commitFilter(f.f);
    dev.check("filter");
    o.executeFilter(f.f);
    dev.check("execute");
    Image out = img;
    out.albedo.clear();
    out.normal.clear();
    out.depth.clear();
    out.position.clear();
    o.readBuffer(output.b, 0, bytes, out.rgb.data());
    dev.check("read");
    return out;
}

}  // namespace wp
