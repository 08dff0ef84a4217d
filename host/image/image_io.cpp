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
        // full tinyexr API: float RGB (channels in EXR's B, G, R order), ZIP, and string attributes
        size_t n = size_t(img.width) * img.height;
        std::vector<float> ch[3];
        for (int c = 0; c < 3; ++c) {
            ch[c].resize(n);
            for (size_t i = 0; i < n; ++i) ch[c][i] = img.rgb[3 * i + c];
        }
        float* planes[3] = {ch[2].data(), ch[1].data(), ch[0].data()};
        EXRImage image;
        InitEXRImage(&image);
        image.num_channels = 3;
        image.images = reinterpret_cast<unsigned char**>(planes);
        image.width = int(img.width);
        image.height = int(img.height);
        EXRHeader header;
        InitEXRHeader(&header);
        EXRChannelInfo channels[3];
        std::memset(channels, 0, sizeof(channels));
        std::strcpy(channels[0].name, "B");
        std::strcpy(channels[1].name, "G");
        std::strcpy(channels[2].name, "R");
        int types[3] = {TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT};
        header.num_channels = 3;
        header.channels = channels;
        header.pixel_types = types;
        header.requested_pixel_types = types;
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
