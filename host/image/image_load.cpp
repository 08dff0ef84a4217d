#include "host/image/image_load.h"
#include <stb/stb_image.h>
#include <tinyexr.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include "host/image/input_file.h"

namespace wp {
namespace {
constexpr uint64_t kMaxImageTexels = 1ull << 28;
std::string lower_ext(const std::string& p) {
    size_t d = p.find_last_of('.');
    std::string e = d == std::string::npos ? "" : p.substr(d + 1);
    for (char& c : e) c = char(std::tolower((unsigned char)c));
    return e;
}
LoadedImage read_pfm(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ImageError("cannot open '" + path + "'");
    std::string magic;
    long w = 0, h = 0;
    double scale = 0;
    f >> magic >> w >> h >> scale;
    if (!f || (magic != "PF" && magic != "Pf") || w <= 0 || h <= 0 || w > 65536 || h > 65536 || scale == 0)
        throw ImageError(path + ": not a PFM image (bad header)");
    f.get();
    int ch = magic == "PF" ? 3 : 1;
    // the header's size against the bytes after it, before the pixels are allocated
    const std::streamoff at = f.tellg();
    f.seekg(0, std::ios::end);
    const std::streamoff end = f.tellg();
    f.seekg(at);
    const uint64_t need = uint64_t(w) * uint64_t(h) * uint64_t(ch) * 4;
    if (at < 0 || end < at || uint64_t(end - at) < need)
        throw ImageError(path + ": truncated PFM data (its header's " + std::to_string(w) + "x" + std::to_string(h) +
                         " need " + std::to_string(need) + " bytes, the file has " +
                         std::to_string(at < 0 || end < at ? 0 : uint64_t(end - at)) + ")");
    std::vector<float> px(size_t(w) * h * ch);
    f.read(reinterpret_cast<char*>(px.data()), std::streamsize(px.size() * sizeof(float)));
    if (!f) throw ImageError(path + ": truncated PFM data");
    if (scale > 0)  // big-endian
        for (float& v : px) {
            uint32_t u;
            std::memcpy(&u, &v, 4);
            u = __builtin_bswap32(u);
            std::memcpy(&v, &u, 4);
        }
    LoadedImage im;
    im.width = uint32_t(w);
    im.height = uint32_t(h);
    im.texels.resize(size_t(w) * h);
    for (long y = 0; y < h; ++y)  // PFM rows go bottom to top
        for (long x = 0; x < w; ++x) {
            const float* s = &px[(size_t(h - 1 - y) * w + x) * ch];
            im.texels[size_t(y) * w + x] = ch == 3 ? F4{s[0], s[1], s[2], 1.0f} : F4{s[0], s[0], s[0], 1.0f};
        }
    return im;
}
// An EXR's data window from its header, before LoadEXR allocates the pixels: at most 2^28 texels.
void check_exr_size(const std::string& path) {
    EXRVersion version;
    if (ParseEXRVersionFromFile(&version, path.c_str()) != TINYEXR_SUCCESS) return;  // (LoadEXR says what is wrong)
    EXRHeader header;
    InitEXRHeader(&header);
    const char* err = nullptr;
    if (ParseEXRHeaderFromFile(&header, &version, path.c_str(), &err) != TINYEXR_SUCCESS) {
        if (err) FreeEXRErrorMessage(err);
        return;
    }
    const int64_t w = int64_t(header.data_window.max_x) - header.data_window.min_x + 1,
                  h = int64_t(header.data_window.max_y) - header.data_window.min_y + 1;
    FreeEXRHeader(&header);
    if (w > 0 && h > 0 && uint64_t(w) * uint64_t(h) > kMaxImageTexels)
        throw ImageError(path + ": its header's data window is " + std::to_string(w) + "x" + std::to_string(h) +
                         " pixels, more than an image may have (2^28)");
}
}  // namespace

float srgb_to_linear(float c) { return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f); }

LoadedImage load_image(const std::string& path, bool srgb) {
    if (std::string why = input_file_problem(path, "an image file"); !why.empty()) throw ImageError(why);
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe) throw ImageError("cannot open '" + path + "'");
    }
    std::string ext = lower_ext(path);
    // the size a PNG, JPEG, TGA, BMP or HDR header says, before it is decoded (a forged header of 65535x65535 would
    // allocate 16 GiB first): at most 2^28 texels
    int iw = 0, ih = 0, in = 0;
    if (ext != "pfm" && ext != "exr" && stbi_info(path.c_str(), &iw, &ih, &in) &&
        uint64_t(iw) * uint64_t(ih) > kMaxImageTexels)
        throw ImageError(path + ": its header says " + std::to_string(iw) + "x" + std::to_string(ih) +
                         " pixels, more than an image may have (2^28)");
    LoadedImage im;
    if (ext == "pfm") {
        im = read_pfm(path);
    } else if (ext == "exr") {
        check_exr_size(path);
        float* rgba = nullptr;
        int w = 0, h = 0;
        const char* err = nullptr;
        if (LoadEXR(&rgba, &w, &h, path.c_str(), &err) != TINYEXR_SUCCESS) {
            std::string m = err ? err : "cannot read";
            if (err) FreeEXRErrorMessage(err);
            throw ImageError(path + ": " + m);
        }
        im.width = uint32_t(w);
        im.height = uint32_t(h);
        im.texels.resize(size_t(w) * h);
        for (size_t i = 0; i < im.texels.size(); ++i)
            im.texels[i] = F4{rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2], rgba[4 * i + 3]};
        free(rgba);
    } else if (ext == "hdr") {
        int w = 0, h = 0, n = 0;
        float* px = stbi_loadf(path.c_str(), &w, &h, &n, 4);
        if (!px) throw ImageError(path + ": " + (stbi_failure_reason() ? stbi_failure_reason() : "cannot read"));
        im.width = uint32_t(w);
        im.height = uint32_t(h);
        im.texels.resize(size_t(w) * h);
        for (size_t i = 0; i < im.texels.size(); ++i)
            im.texels[i] = F4{px[4 * i], px[4 * i + 1], px[4 * i + 2], px[4 * i + 3]};
        stbi_image_free(px);
    } else {
        int w = 0, h = 0, n = 0;
        unsigned char* px = stbi_load(path.c_str(), &w, &h, &n, 4);
        if (!px) throw ImageError(path + ": " + (stbi_failure_reason() ? stbi_failure_reason() : "cannot read"));
        im.width = uint32_t(w);
        im.height = uint32_t(h);
        im.texels.resize(size_t(w) * h);
        float lut[256];
        for (int i = 0; i < 256; ++i) lut[i] = srgb ? srgb_to_linear(i / 255.0f) : i / 255.0f;
        for (size_t i = 0; i < im.texels.size(); ++i)
            im.texels[i] = F4{lut[px[4 * i]], lut[px[4 * i + 1]], lut[px[4 * i + 2]], px[4 * i + 3] / 255.0f};
        stbi_image_free(px);
    }
    if (im.width == 0 || im.height == 0) throw ImageError(path + ": empty image");
    for (const F4& t : im.texels)
        if (!(std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z)))
            throw ImageError(path + ": non-finite pixel values");
    return im;
}

}  // namespace wp
