#include "host/image/denoise.h"
#include <dlfcn.h>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

#ifndef WP_OIDN_LIB_DIR
#define WP_OIDN_LIB_DIR ""
#endif

namespace wp {
namespace {

// The subset of OIDN 2.x's C API (include/OpenImageDenoise/oidn.h) used here.
using OIDNDevice = struct OIDNDeviceImpl*;
using OIDNFilter = struct OIDNFilterImpl*;
constexpr int kOidnDeviceCpu = 1;
constexpr int kOidnFormatFloat3 = 3;

struct Oidn {
    OIDNDevice (*newDevice)(int) = nullptr;
    void (*commitDevice)(OIDNDevice) = nullptr;
    int (*getDeviceError)(OIDNDevice, const char**) = nullptr;
    void (*releaseDevice)(OIDNDevice) = nullptr;
    OIDNFilter (*newFilter)(OIDNDevice, const char*) = nullptr;
    void (*setSharedFilterImage)(OIDNFilter, const char*, void*, int, size_t, size_t, size_t, size_t, size_t) = nullptr;
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
            if (!f && o.problem.empty()) o.problem = std::string("Open Image Denoise lacks ") + name;
        };
        sym(o.newDevice, "oidnNewDevice");
        sym(o.commitDevice, "oidnCommitDevice");
        sym(o.getDeviceError, "oidnGetDeviceError");
        sym(o.releaseDevice, "oidnReleaseDevice");
        sym(o.newFilter, "oidnNewFilter");
        sym(o.setSharedFilterImage, "oidnSetSharedFilterImage");
        sym(o.setFilterBool, "oidnSetFilterBool");
        sym(o.commitFilter, "oidnCommitFilter");
        sym(o.executeFilter, "oidnExecuteFilter");
        sym(o.releaseFilter, "oidnReleaseFilter");
    });
    return o;
}

// A committed CPU device, or throws with OIDN's message.
struct Device {
    const Oidn& o;
    OIDNDevice d = nullptr;
    explicit Device(const Oidn& lib) : o(lib) {
        d = o.newDevice(kOidnDeviceCpu);
        if (!d) throw std::runtime_error("Open Image Denoise: no CPU device");
        o.commitDevice(d);
        check("device");
    }
    ~Device() {
        if (d) o.releaseDevice(d);
    }
    void check(const char* what) const {
        const char* msg = nullptr;
        if (o.getDeviceError(d, &msg) != 0)
            throw std::runtime_error(std::string("Open Image Denoise (") + what + "): " + (msg ? msg : "error"));
    }
};

}  // namespace

std::string denoiser_problem() {
    const Oidn& o = oidn();
    if (!o.problem.empty()) return o.problem;
    try {
        Device dev(o);
    } catch (const std::exception& e) { return e.what(); }
    return "";
}

Image denoise_image(const Image& img) {
    const Oidn& o = oidn();
    if (!o.problem.empty()) throw std::runtime_error(o.problem);
    const size_t n = size_t(img.width) * img.height;
    if (n == 0 || img.rgb.size() != 3 * n) throw std::runtime_error("denoise: the image has no pixels");
    Device dev(o);
    Image out = img;
    out.albedo.clear();
    out.normal.clear();
    out.depth.clear();
    out.position.clear();
    OIDNFilter f = o.newFilter(dev.d, "RT");
    auto set = [&](const char* name, const std::vector<float>& v) {
        o.setSharedFilterImage(f, name, const_cast<float*>(v.data()), kOidnFormatFloat3, img.width, img.height, 0, 0,
                               0);
    };
    set("color", img.rgb);
    set("output", out.rgb);
    const bool albedo = img.albedo.size() == 3 * n, normal = img.normal.size() == 3 * n;
    if (albedo) set("albedo", img.albedo);
    if (albedo && normal) set("normal", img.normal);  // OIDN takes a normal only with an albedo
    o.setFilterBool(f, "hdr", true);
    o.commitFilter(f);
    try {
        dev.check("filter");
        o.executeFilter(f);
        dev.check("execute");
    } catch (...) {
        o.releaseFilter(f);
        throw;
    }
    o.releaseFilter(f);
    return out;
}

}  // namespace wp
