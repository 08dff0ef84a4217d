// Partial films: the exact 64-bit fixed-point sums of a range of a render's samples (kernels/film.h), with the scene's
// fingerprint, the render settings and the range, in a .wpfilm file. Because the film is order-independent integer
// sums and the random numbers are keyed by (pixel, sample), the sums of disjoint ranges add up to the whole render's
// bit for bit: `wavepath render --samples START:COUNT` writes shards, `wavepath merge` adds them, `render --resume`
// continues an interrupted render (host/app/main.cpp; docs/CLI.md "Renders split across processes and machines").
//
// File layout: the line "WPFILM 1", one line of JSON (the header below), then the sums as little-endian unsigned
// 64-bit words: the beauty's, 3 per pixel in pixel order (R, G, B), and with the Mitchell filter ("filter" mitchell) a
// second film of as many after it, the samples of negative weight (kernels/filter.h: 6 words per pixel in all);
// then, where the header's "aovs" lists AOVs (kernels/aov.h: "albedo", "normal", "depth", "position"; absent or
// empty: none, as in films written before AOVs were kept), their signed fixed-point sums (two's complement, 2^24 per
// unit), one block per AOV in that order, pixel after pixel: albedo, normal and position 3 words per pixel, depth 1.
// Every word is an exact sum of its pixel's samples, so merge and resume add them in any order.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>
#include "host/render/render.h"
#include "host/scene/scene_build.h"

namespace wp {

// A film file that cannot be read, or films that do not belong together: an input error (exit code 1).
struct FilmError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The render's settings are the film's RenderParams (every setting of the list, kernels/render_params.h, and the
// film's colour transform at image time, film_transform and film_matrix): the header records them, merge and resume
// compare them (film_settings_difference). The divisions (div_pixels, div_tiles_x) are not part of a film.
struct PartialFilm : RenderParams {
    std::string scene;        // the scene file as the render named it (for messages)
    uint64_t scene_hash = 0;  // scene_fingerprint of the scene rendered
    // The global sample indices held, [begin, end), of the range asked for, [begin, target_end) (less when the render
    // was interrupted: render --resume continues it to target_end). Samples START:COUNT of every pixel are
    // [START * pixels, (START + COUNT) * pixels).
    uint64_t begin = 0, end = 0, target_end = 0;
    std::string backend, mode;  // what rendered it (informational: merge accepts any)
    unsigned long long nonfinite = 0;
    uint32_t first_nonfinite_pixel = 0xffffffffu;
    unsigned long long clamped = 0;       // samples clamped at kFilmMaxSample (the header's "clamped"; absent: 0)
    std::vector<unsigned long long> sum;  // 3 per pixel (6 with Mitchell: film_words)
    // the AOVs' sums (AovBits; Image::aov_sum: kernels/aov.h aov_view's layout), aov_channels(aovs) per pixel
    uint32_t aovs = 0;
    std::vector<unsigned long long> aov_sum;
    uint64_t pixels() const { return uint64_t(width) * height; }
    uint64_t film_words() const;  // sum's size: 3 per film pixel (RenderParams::film_pixels)
};

// 64-bit fingerprint of what a scene renders: every array of kernels/scene_tables.h (geometry, tree, materials,
// lights and their CDF, textures, environment and its CDFs), the environment's scalars and the camera.
uint64_t scene_fingerprint(const SceneData& scene);

// The render settings a film must share with another to be merged or resumed, from a render's parameters.
void set_film_settings(PartialFilm& f, const RenderParams& rp);
RenderParams film_params(const PartialFilm& f);  // the inverse (prepared() not called)
// "" when b's scene and settings are a's; otherwise what differs, in words ("spp 64 and 32").
std::string film_settings_difference(const PartialFilm& a, const PartialFilm& b);

// Atomic write: to PATH.tmp-<pid>, then renamed. Throws std::runtime_error naming the file.
void write_film(const std::string& path, const PartialFilm& f);
// Throws FilmError naming the file: "part.wpfilm: not a wavepath film (no WPFILM header)". Every header field is
// checked for its type and range, a bad one named: "part.wpfilm: bad film header: \"spp\": -4 is out of range (an
// integer from 1 to 16777216)".
PartialFilm read_film(const std::string& path);

// "albedo,normal" (the --aov list) of AovBits, "none" for 0.
std::string aov_names(uint32_t bits);

// "samples 32:16" when [begin, end) is whole passes over the pixels (START:COUNT as --samples takes it), else
// "sample indices [begin, end)".
std::string range_text(uint64_t begin, uint64_t end, uint64_t pixels);

// The parts added into one film. Throws FilmError when a part's scene, settings or AOVs differ from the first's, or
// two parts' ranges overlap (naming both). `missing` gets the ranges of [0, pixels * spp) that no part holds; the merged
// film's [begin, end) is then only meaningful as a whole when missing is empty (merged.begin = 0, end = target_end =
// pixels * spp). names: the parts' file names for the messages.
PartialFilm merge_films(const std::vector<PartialFilm>& parts, const std::vector<std::string>& names,
                        std::vector<std::pair<uint64_t, uint64_t>>& missing);

// The image of a film: each pixel divided by its own sample count over `ranges` (default: the film's [begin, end)),
// as film_to_image (Mitchell's two films) and aov_images (the AOVs) make a render's.
Image film_image(const PartialFilm& f, const std::vector<std::pair<uint64_t, uint64_t>>& ranges = {});

// A render's result as a film of the range [img.first, img.first + img.samples), asked for up to target_end.
PartialFilm film_of(const Image& img, const RenderParams& rp, uint64_t scene_hash, const std::string& scene,
                    uint64_t target_end);

// Resume with more samples per pixel: the film of a render of f.spp becomes the same film of a render of `spp`, whose
// first f.spp samples of every pixel it holds (the random numbers are keyed by pixel and sample, not by the count),
// its target_end the new render's end. Throws FilmError naming `name` for fewer samples than the film's render, and
// for a shard that does not reach the end of its render (its range is what it was asked for).
void raise_film_spp(PartialFilm& f, uint32_t spp, const std::string& name);

// Resume: the render of [f.end, ...) (img.first must be f.end, with f's AOVs) added to f; f.end moves to the end of
// img's samples.
void append_render(PartialFilm& f, const Image& img);

}  // namespace wp
