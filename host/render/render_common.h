// What both backends share around a render (host/render/render_common.cpp): the film's sums to an image, the AOV
// images and the device-memory plan. (sample_range, which reads RenderOptions, is declared in render.h.)
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "host/image/image.h"
#include "host/scene/scene_build.h"
#include "kernels/scene_view.h"

namespace wp {

// Samples of pixel rank r among the global sample indices [0, x) of an image of np pixels.
inline uint64_t samples_of_rank_before(uint64_t x, uint64_t np, uint64_t r) { return x / np + (r < x % np ? 1 : 0); }

// Film sums to an image holding the sample indices [begin, end) (each pixel divided by its own sample count; with
// Mitchell's two films, 6 words per pixel, (positive - negative) * k: kernels/filter.h); the sums move into
// Image::sum.
Image film_to_image(std::vector<unsigned long long> sum, const RenderParams& rp, uint64_t begin, uint64_t end);
// The same over several disjoint ranges (a merge with gaps: each pixel divided by its samples in all of them).
Image film_to_image(std::vector<unsigned long long> sum, const RenderParams& rp,
                    const std::vector<std::pair<uint64_t, uint64_t>>& ranges);

// The image's AOV sums (Image::aov_sum, aov_bits) sized for the bits asked for (kernels/aov.h), zeroed, as the AOV
// pass's output view.
struct AovView;
AovView alloc_aovs(Image& img, uint32_t bits);
// The AOV images (Image::albedo, normal, depth, position) from img.aov_sum: each pixel's sums / kAovScale / its own
// sample count over `ranges` (the samples the sums hold), as float.
void aov_images(Image& img, const RenderParams& rp, const std::vector<std::pair<uint64_t, uint64_t>>& ranges);

// Device memory a render needs before its queues: the scene's arrays (BVH, primitives, materials, lights,
// textures, environment) and the film. `what` gets the breakdown in words.
uint64_t scene_device_bytes(const SceneData& scene, std::string* what = nullptr);
uint64_t film_device_bytes(const RenderParams& rp);
// "" when a render whose scene and film need `needed` bytes plus at least `queue_min` bytes of queues fits in
// `free_bytes`; otherwise the message: how much it needs (with the breakdown) and how much there is.
std::string device_memory_problem(uint64_t needed, uint64_t queue_min, uint64_t free_bytes, const std::string& what,
                                  const std::string& device);

}  // namespace wp
