// A rendered image as the renderers return it and the image files, statistics and denoiser take it: the pixels,
// the samples they hold, and the film's exact sums behind them. Apart from host/render so that host/image, which
// writes, compares and denoises images, needs nothing of the renderers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace wp {

struct Image {
    uint32_t width = 0, height = 0;
    std::vector<float> rgb;  // linear, 3 per pixel
    unsigned long long nonfinite = 0;
    uint32_t first_nonfinite_pixel = 0xffffffffu;
    // finite samples with a component above kFilmMaxSample (1e6, kernels/film.h), added clamped to it
    unsigned long long clamped = 0;
    // Samples in the image: global sample indices [first, first + samples) (index = rank + pixels * sample pass,
    // RenderParams::pixel_of_rank), so each pixel holds the passes the range covers, one more where the range's
    // partial passes cover its rank. Fewer than the range asked for (RenderOptions::sample_end) if interrupted.
    uint64_t first = 0, samples = 0;
    bool interrupted = false;
    // The film's exact 64-bit fixed-point sums (kernels/film.h), 3 per pixel, that rgb was divided from: what a
    // partial film keeps (host/render/film_file.h) so that shards merge and renders resume bit for bit.
    std::vector<unsigned long long> sum;
    // AOVs (RenderOptions::aovs, kernels/aov.h), over the same samples as rgb; empty when not asked for:
    // albedo, normal and position 3 floats per pixel, depth 1.
    std::vector<float> albedo, normal, depth, position;
    // The AOVs' exact fixed-point sums that those were divided from (aov_images; kernels/aov.h: aov_view's layout,
    // aov_channels(aov_bits) words per pixel), what a partial film keeps beside the beauty's sums; aov_bits: AovBits.
    std::vector<unsigned long long> aov_sum;
    uint32_t aov_bits = 0;
    double spp() const { return width && height ? double(samples) / (double(width) * height) : 0.0; }
};

}  // namespace wp
