#include "host/image/image_io.h"
#include <stb/stb_image_write.h>
#include <tinyexr.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace wp {
namespace {
std::string ext_of(const std::string& p) {
    size_t d = p.find_last_of('.');
    std::string e = d == std::string::npos ? "" : p.substr(d + 1);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}
[[noreturn]] void fail(const std::string& path, const std::string& what) {
    throw std::runtime_error(path + ": " + what);
}
}  // namespace

float linear_to_srgb(float v) {
    if (!(v > 0.0f)) return 0.0f;
    if (v >= 1.0f) return 1.0f;
    return v <= 0.0031308f ? 12.92f * v : 1.055f * std::pow(v, 1.0f / 2.4f) - 0.055f;
}

void write_image(const std::string& path, const Image& img, const ImageMetadata& metadata) {
    if (img.width == 0 || img.height == 0 || img.rgb.size() != size_t(img.width) * img.height * 3)
        fail(path, "image has no pixels or a wrong buffer size");
    std::string e = ext_of(path);
    if (e == "png") {
        std::vector<unsigned char> px(img.rgb.size());
        for (size_t i = 0; i < px.size(); ++i) px[i] = (unsigned char)std::lround(255.0f * linear_to_srgb(img.rgb[i]));
        if (!stbi_write_png(path.c_str(), int(img.width), int(img.height), 3, px.data(), int(img.width) * 3))
            fail(path, "cannot write PNG");
    } else if (e == "exr") {
        // full tinyexr API: float RGB plus the AOVs the image holds (albedo.R/G/B, N.X/Y/Z, P.X/Y/Z, Z), channels in
        // the alphabetical order EXR readers expect, ZIP, and string attributes
        size_t n = size_t(img.width) * img.height;
        std::vector<std::pair<std::string, std::vector<float>>> planes_by_name;
        auto add = [&](const char* name, const std::vector<float>& v, int stride, int c) {
            if (v.size() != n * size_t(stride)) return;
            std::vector<float> ch(n);
            for (size_t i = 0; i < n; ++i) ch[i] = v[stride * i + c];
            planes_by_name.emplace_back(name, std::move(ch));
        };
        for (int c = 0; c < 3; ++c) add(&"R\0G\0B"[2 * c], img.rgb, 3, c);
        for (int c = 0; c < 3; ++c) add(&"albedo.R\0albedo.G\0albedo.B"[9 * c], img.albedo, 3, c);
        for (int c = 0; c < 3; ++c) add(&"N.X\0N.Y\0N.Z"[4 * c], img.normal, 3, c);
        for (int c = 0; c < 3; ++c) add(&"P.X\0P.Y\0P.Z"[4 * c], img.position, 3, c);
        add("Z", img.depth, 1, 0);
        std::sort(planes_by_name.begin(), planes_by_name.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        const int nch = int(planes_by_name.size());
        std::vector<float*> planes(nch);
        std::vector<EXRChannelInfo> channels(nch);
        std::vector<int> types(nch, TINYEXR_PIXELTYPE_FLOAT);
        for (int c = 0; c < nch; ++c) {
            planes[c] = planes_by_name[c].second.data();
            std::memset(&channels[c], 0, sizeof(EXRChannelInfo));
            std::snprintf(channels[c].name, sizeof(channels[c].name), "%s", planes_by_name[c].first.c_str());
        }
        EXRImage image;
        InitEXRImage(&image);
        image.num_channels = nch;
        image.images = reinterpret_cast<unsigned char**>(planes.data());
        image.width = int(img.width);
        image.height = int(img.height);
        EXRHeader header;
        InitEXRHeader(&header);
        header.num_channels = nch;
        header.channels = channels.data();
        header.pixel_types = types.data();
        header.requested_pixel_types = types.data();
        header.compression_type = TINYEXR_COMPRESSIONTYPE_ZIP;
        std::vector<EXRAttribute> attrs(metadata.size());
        for (size_t i = 0; i < metadata.size() && i < TINYEXR_MAX_CUSTOM_ATTRIBUTES; ++i) {
            std::memset(&attrs[i], 0, sizeof(EXRAttribute));
            std::snprintf(attrs[i].name, sizeof(attrs[i].name), "%s", metadata[i].first.c_str());
            std::strcpy(attrs[i].type, "string");
            attrs[i].value = reinterpret_cast<unsigned char*>(const_cast<char*>(metadata[i].second.c_str()));
            attrs[i].size = int(metadata[i].second.size());
        }
        header.num_custom_attributes = int(attrs.size());
        header.custom_attributes = attrs.empty() ? nullptr : attrs.data();
        const char* err = nullptr;
        if (SaveEXRImageToFile(&image, &header, path.c_str(), &err) != TINYEXR_SUCCESS) {
            std::string msg = err ? err : "unknown error";
            if (err) FreeEXRErrorMessage(err);
            fail(path, "cannot write EXR: " + msg);
        }
    } else if (e == "pfm") {
        std::ofstream f(path, std::ios::binary);
        if (!f) fail(path, "cannot open for writing");
        f << "PF\n" << img.width << " " << img.height << "\n-1.0\n";  // little-endian, rows bottom to top
        for (int y = int(img.height) - 1; y >= 0; --y)
            f.write(reinterpret_cast<const char*>(&img.rgb[size_t(y) * img.width * 3]),
                    std::streamsize(img.width) * 12);
        if (!f) fail(path, "write failed");
    } else {
        fail(path, "unknown image extension '." + e + "' (use .png, .exr or .pfm)");
    }
}

std::string aov_path(const std::string& path, const std::string& aov) {
    size_t d = path.find_last_of('.'), sl = path.find_last_of('/');
    if (d == std::string::npos || (sl != std::string::npos && d < sl)) return path + "." + aov;
    return path.substr(0, d) + "." + aov + path.substr(d);
}

std::vector<std::string> aov_files(const std::string& path, uint32_t bits) {
    std::vector<std::string> out;
    if (ext_of(path) == "exr") return out;
    if (bits & 1) out.push_back(aov_path(path, "albedo"));
    if (bits & 2) out.push_back(aov_path(path, "normal"));
    if (bits & 4) out.push_back(aov_path(path, "depth"));
    if (bits & 8) out.push_back(aov_path(path, "position"));
    return out;
}

std::vector<std::string> write_aov_files(const std::string& path, const Image& img) {
    std::vector<std::string> written;
    if (ext_of(path) == "exr") return written;
    const bool png = ext_of(path) == "png";
    const size_t n = size_t(img.width) * img.height;
    auto put = [&](const char* name, const std::vector<float>& v, int stride, float lo, float scale) {
        if (v.empty()) return;
        Image a;
        a.width = img.width;
        a.height = img.height;
        a.rgb.resize(3 * n);
        for (size_t i = 0; i < n; ++i)
            for (int c = 0; c < 3; ++c) a.rgb[3 * i + c] = (v[stride * i + (stride == 3 ? c : 0)] - lo) * scale;
        std::string f = aov_path(path, name);
        write_image(f, a);
        written.push_back(f);
    };
    float zmax = 0.0f;
    for (float z : img.depth) zmax = std::max(zmax, z);
    // PNG previews: normals mapped from [-1, 1] to [0, 1], depth divided by its maximum; PFM: the values as they are
    put("albedo", img.albedo, 3, 0.0f, 1.0f);
    put("normal", img.normal, 3, png ? -1.0f : 0.0f, png ? 0.5f : 1.0f);
    put("depth", img.depth, 1, 0.0f, png && zmax > 0.0f ? 1.0f / zmax : 1.0f);
    put("position", img.position, 3, 0.0f, 1.0f);
    return written;
}

Image read_pfm(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(path, "cannot open");
    std::string magic;
    Image img;
    float scale;
    f >> magic >> img.width >> img.height >> scale;
    f.get();
    if (magic != "PF" || !f || img.width == 0 || img.height == 0 || scale >= 0.0f)
        fail(path, "not a little-endian RGB PFM");
    img.rgb.resize(size_t(img.width) * img.height * 3);
    for (int y = int(img.height) - 1; y >= 0; --y)
        f.read(reinterpret_cast<char*>(&img.rgb[size_t(y) * img.width * 3]), std::streamsize(img.width) * 12);
    if (!f) fail(path, "truncated PFM");
    return img;
}

}  // namespace wp
