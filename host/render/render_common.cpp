// What both backends share around a render: the film's sums to an image, the AOV images, the range of samples
// asked for, and the device-memory plan (the scene's and the film's bytes, the message when they do not fit). The
// CPU backend's schedules are in render_cpu.cpp, the GPU's in render_gpu.cpp.
#include "host/render/render_common.h"
#include <cstdio>
#include <stdexcept>
#include <string>
#include "host/render/render.h"
#include "kernels/aov.h"
#include "kernels/film.h"
#include "kernels/filter.h"

namespace wp {

namespace {
template <class T>
uint64_t vbytes(const std::vector<T>& v) {
    return uint64_t(v.size()) * sizeof(T);
}
std::string mib(uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / 1048576.0);
    return buf;
}
}  // namespace

uint64_t scene_device_bytes(const SceneData& sd, std::string* what) {
    // the arrays by category (kernels/scene_tables.h), every array counted where its row says
    uint64_t bvh = 0, primitives = 0, shading = 0, textures = 0, environment = 0;
#define WP_SCENE_BYTES(T, field, view, cat) cat += vbytes(sd.field);
    WP_SCENE_TABLES(WP_SCENE_BYTES)
#undef WP_SCENE_BYTES
    if (what)
        *what = "BVH " + mib(bvh) + ", primitives " + mib(primitives) + ", materials and lights " + mib(shading) +
                ", textures " + mib(textures) + ", environment " + mib(environment);
    return bvh + primitives + shading + textures + environment;
}

uint64_t film_device_bytes(const RenderParams& rp) { return 3ull * sizeof(unsigned long long) * rp.film_pixels() + 64; }

std::string device_memory_problem(uint64_t needed, uint64_t queue_min, uint64_t free_bytes, const std::string& what,
                                  const std::string& device) {
    if (needed + queue_min <= free_bytes) return "";
    return "the scene does not fit in GPU memory: it needs " + mib(needed + queue_min) + " (" + what + "; " +
           (queue_min ? "film and at least " + mib(queue_min) + " of path queues" : std::string("film")) + ") and " +
           device + " has " + mib(free_bytes) + " free";
}

void sample_range(const RenderParams& rp, const RenderOptions& opt, uint64_t& begin, uint64_t& end) {
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    begin = opt.sample_begin;
    end = opt.sample_end ? opt.sample_end : all;
    if (begin > end || end > all)
        throw std::invalid_argument("sample range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                    ") is not within the render's " + std::to_string(all) + " samples");
}

AovView alloc_aovs(Image& img, uint32_t bits) {
    const uint64_t np = uint64_t(img.width) * img.height;
    img.aov_bits = bits;
    img.aov_sum.assign(aov_channels(bits) * np, 0ull);
    return aov_view(img.aov_sum.data(), bits, np);
}

void aov_images(Image& img, const RenderParams& rp, const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
    const uint64_t np = rp.num_pixels();
    img.albedo.clear();
    img.normal.clear();
    img.depth.clear();
    img.position.clear();
    if (!img.aov_bits) return;
    if (img.aov_sum.size() != aov_channels(img.aov_bits) * np)
        throw std::logic_error("aov_images: the AOV sums have a wrong size");
    std::vector<uint64_t> n(np, 0);  // each pixel's own samples over the ranges
    for (uint64_t p = 0; p < np; ++p) {
        const uint64_t r = rp.rank_of_pixel(uint32_t(p));
        for (const auto& [b, e] : ranges) n[p] += samples_of_rank_before(e, np, r) - samples_of_rank_before(b, np, r);
    }
    const AovView v = aov_view(img.aov_sum.data(), img.aov_bits, np);
    auto put = [&](const unsigned long long* sum, std::vector<float>& out, int ch) {
        if (!sum) return;
        out.resize(size_t(ch) * np);
        for (uint64_t p = 0; p < np; ++p)
            for (int c = 0; c < ch; ++c)
                out[ch * p + c] =
                    n[p] ? float(double(static_cast<long long>(sum[ch * p + c])) / kAovScale / double(n[p])) : 0.0f;
    };
    put(v.albedo, img.albedo, 3);
    put(v.normal, img.normal, 3);
    put(v.depth, img.depth, 1);
    put(v.position, img.position, 3);
}

Image film_to_image(std::vector<unsigned long long> sum, const RenderParams& rp, uint64_t begin, uint64_t end) {
    return film_to_image(std::move(sum), rp, {{begin, end}});
}

Image film_to_image(std::vector<unsigned long long> sum, const RenderParams& rp,
                    const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
    Image img;
    img.width = rp.width;
    img.height = rp.height;
    img.first = ranges.empty() ? 0 : ranges.front().first;
    for (const auto& [b, e] : ranges) img.samples += e - b;
    img.interrupted = false;  // (the renderers set it: they know the range asked for)
    uint64_t np = rp.num_pixels();
    img.rgb.resize(3 * np);
    // Mitchell: the second film holds the samples of negative weight (kernels/filter.h)
    const bool signed_film = rp.film_pixels() != rp.num_pixels() && sum.size() == 6 * np;
    const double k = signed_film ? filter_weight_scale(rp.filter, rp.filter_radius, rp.filter_sigma) : 1.0;
    for (uint64_t p = 0; p < np; ++p) {
        // the partial passes at either end cover the ranks below their remainders (RenderParams::pixel_of_rank)
        const uint64_t r = rp.rank_of_pixel(uint32_t(p));
        uint64_t n = 0;
        for (const auto& [b, e] : ranges) n += samples_of_rank_before(e, np, r) - samples_of_rank_before(b, np, r);
        for (int c = 0; c < 3; ++c) {
            if (!signed_film)
                img.rgb[3 * p + c] = n ? film_value(sum[3 * p + c], uint32_t(n)) : 0.0f;
            else
                img.rgb[3 * p + c] =
                    n ? float(k * (double(sum[3 * p + c]) - double(sum[3 * (p + np) + c])) / kFilmScale / double(n))
                      : 0.0f;
        }
        if (rp.film_transform) {  // the film's colour transform (RenderParams::film_matrix), on the pixel's mean
            const float* m = rp.film_matrix;
            const float r = img.rgb[3 * p], g = img.rgb[3 * p + 1], b = img.rgb[3 * p + 2];
            for (int c = 0; c < 3; ++c) img.rgb[3 * p + c] = m[3 * c] * r + m[3 * c + 1] * g + m[3 * c + 2] * b;
        }
    }
    img.sum = std::move(sum);
    return img;
}

}  // namespace wp
