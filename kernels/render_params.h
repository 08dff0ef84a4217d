// The per-render settings, declared once (in the spirit of Cycles' NODE_DEFINE/SOCKET_* and pbrt-v4's options.h):
// WP_RENDER_SETTINGS below names every setting with its kind, RenderParams member, name, the struct's initial value,
// the default a scene file that does not give it gets, its range, the command-line flag and the help text. From it
// come RenderParams' members (here) and, through host/scene/render_settings.cpp (each setting kind's text and JSON
// forms, range, equality and copy, coded once), the command line's options and --set, the scene overrides
// (host/app/render_setup.h), the render block of a native scene file and of a film header (one reader,
// read_render_block), the image metadata, the film's settings a resume takes where the command line gives none, and
// docs/OPTIONS.md (a test compares it with `wavepath settings --markdown`). A new setting is one line of the list and
// its use.
//
// Columns: S(KIND, member, name, init, def, lo, hi, note, flag, help)
//   KIND   WHOLE (uint32_t), FLAG (uint32_t 0 or 1; true/false in a scene file), REAL (float), FILTER (custom
//          parsing: the reconstruction filter's three members, "TYPE[:RADIUS]" on the command line; lo/hi: radius)
//          or CROP (four members, "x0,y0,x1,y1" or "none"; lo/hi: each coordinate's) or CHOICE (uint32_t lo..hi, named:
//          note holds the values' names, space-separated, lo's first; the name in a scene file, --set and the film
//          header)
//   member the RenderParams member; name: the setting's name, its native scene file key (render.NAME), its film
//          header key and its --set name; init: RenderParams{}'s value (code that fills a struct itself); def: a
//          native scene file's default; lo, hi: the accepted range, inclusive; note: said with the range ("0: off")
// Header-only, no host library: the kernels include it (kernels/scene_view.h).
#pragma once
#include <cstddef>
#include "common.h"
#include "rng.h"

namespace wp {

// The render limits: also the ranges of the list (the packing of path state relies on them).
constexpr uint32_t kMaxImageSide = 32768;
constexpr uint64_t kMaxPixels = 1ull << 28;
constexpr uint32_t kMaxSpp = 1u << 24;
constexpr uint64_t kMaxSamples = 1ull << 40;
constexpr uint32_t kMaxDepthLimit = 1024;
constexpr float kMaxFilterRadius = 8.0f;

// The list is in three parts because RenderParams, the kernels' parameter, holds the divisions generate uses
// (FastDiv) and the film's colour transform between them: the members keep the offsets they had before the list
// (static_assert below), and a setting added since goes at the end.
#define WP_RENDER_SETTINGS_HEAD(S)                                                                                 \
    S(WHOLE, width, width, 0, 512, 1, kMaxImageSide, "", "--width", "image width in pixels")                       \
    S(WHOLE, height, height, 0, 512, 1, kMaxImageSide, "", "--height", "image height in pixels")                   \
    S(WHOLE, spp, spp, 1, 16, 1, kMaxSpp, "", "--spp", "samples per pixel")                                        \
    S(WHOLE, max_depth, max_depth, 1, 16, 1, kMaxDepthLimit, "", "--max-depth",                                    \
      "longest path, in segments (Mitsuba's max_depth; Tungsten's max_bounces + 1)")                               \
    S(WHOLE, rr_depth, rr_depth, 5, 5, 1, kMaxDepthLimit, "", "--rr-depth",                                        \
      "Russian roulette from this many segments on (1: from the first bounce, as the public RTIOW megakernels; a " \
      "different estimator's noise)")                                                                              \
    S(WHOLE, seed, seed, 0, 0, 0, 0xffffffffu, "", "--seed", "random seed")                                        \
    S(FLAG, light_sampling, light_sampling, 1, 1, 0, 1, "", "--light-sampling",                                    \
      "a light sample at every vertex, weighed by MIS (0: BSDF sampling alone, the Ray Tracing in One Weekend "    \
      "estimator)")
#define WP_RENDER_SETTINGS_TAIL(S)                                                                                    \
    S(FILTER, filter, filter, 0, 0, 0, kMaxFilterRadius, "", "--filter",                                              \
      "reconstruction filter TYPE or TYPE:RADIUS (pixels): box (0.5), tent (1), gaussian (1.5, sigma 0.5), mitchell " \
      "(2); a scene file's may also be {\"type\", \"radius\", \"sigma\"}")                                            \
    S(REAL, clamp_indirect, clamp, 0.0f, 0.0f, 0.0, 1e30, "0: off", "--clamp",                                        \
      "clamp indirect light (Cycles'): every contribution after the first bounce scaled to at most this value per "   \
      "component; biased (fewer fireflies)")
#define WP_RENDER_SETTINGS_END(S)                                                                                      \
    S(CROP, crop, crop, 0, 0, 0, kMaxImageSide, "", "--crop",                                                          \
      "render only this rectangle of the width x height image, in pixels, half-open (a scene file's: [x0, y0, x1, "    \
      "y1]): the output is the crop's size, as pbrt-v4's pixelbounds, its pixels the whole image's bit for bit")       \
    S(CHOICE, sampler, sampler, kSamplerSobol, kSamplerSobol, kSamplerIndependent, kSamplerSobol, "independent sobol", \
      "--sampler",                                                                                                     \
      "the random numbers (kernels/rng.h): sobol, Owen-scrambled Sobol points padded in 2-D groups per bounce "        \
      "(Burley 2020, as Cycles and pbrt-v4's paddedsobol: the error falls faster than 1/N where the integrand is "     \
      "smooth), or independent, a hash per number (white noise; films made before this setting)")
#define WP_RENDER_SETTINGS(S) WP_RENDER_SETTINGS_HEAD(S) WP_RENDER_SETTINGS_TAIL(S) WP_RENDER_SETTINGS_END(S)

// The members of a list line, by kind.
#define WP_RENDER_MEMBER(K, member, name, init, ...) WP_RENDER_MEMBER_##K(member, init)
#define WP_RENDER_MEMBER_WHOLE(member, init) uint32_t member = init;
#define WP_RENDER_MEMBER_FLAG(member, init) uint32_t member = init;
#define WP_RENDER_MEMBER_REAL(member, init) float member = init;
#define WP_RENDER_MEMBER_CHOICE(member, init) uint32_t member = init;
// FilterType (kernels/filter.h), the radius in pixels, the Gaussian's standard deviation. The default,
// kFilterPixelBox, is generate_path's original one-pixel box.
#define WP_RENDER_MEMBER_FILTER(member, init) \
    uint32_t member = init;                   \
    float member##_radius = 0.5f, member##_sigma = 0.5f;

// The crop's rectangle, x1 == 0: none (the whole image).
#define WP_RENDER_MEMBER_CROP(member, init) \
    uint32_t member##_x0 = init, member##_y0 = init, member##_x1 = init, member##_y1 = init;

// Division by a run-time constant d as a multiply-high, add and shift (Granlund and Montgomery 1994, Fig. 4.1:
// m = floor(2^32 (2^l - d) / d) + 1 with l = ceil(log2 d); exact for every 32-bit n). A 32-bit integer division
// compiles to ~20 instructions on the GPU; generate does two per camera path (docs/DECISIONS.md: fast-div).
struct FastDiv {
    uint32_t d = 0, m = 0, l = 0;  // d == 0: not set up
    WP_HD static FastDiv make(uint32_t d) {
        FastDiv f;
        if (d == 0) return f;
        f.d = d;
        while (f.l < 32 && (1ull << f.l) < d) ++f.l;
        f.m = uint32_t(((1ull << 32) * ((1ull << f.l) - d)) / d + 1);
        return f;
    }
    WP_HD uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
        const uint32_t t = __umulhi(n, m);
#else
        const uint32_t t = uint32_t((uint64_t(n) * m) >> 32);
#endif
        return uint32_t((uint64_t(t) + n) >> l);
    }
};

struct RenderParams {
    WP_RENDER_SETTINGS_HEAD(WP_RENDER_MEMBER)
    WP_HD uint32_t num_pixels() const { return width * height; }
    // Film pixels: num_pixels(), twice that with the Mitchell filter, whose samples of negative weight add to a
    // second film of their own (pixel + num_pixels(); kernels/filter.h), subtracted when the image is made.
    WP_HD uint32_t film_pixels() const { return num_pixels() * (filter == 4u ? 2u : 1u); }  // 4: kFilterMitchell

    // Divisions generate does per camera path, set up once per render by prepared(); each is used only while its
    // divisor matches the current size (a copy whose width or height changed divides the slow way).
    FastDiv div_pixels, div_tiles_x;
    // (after the fields above, whose offsets in the kernels' parameters they leave as they were)
    WP_RENDER_SETTINGS_TAIL(WP_RENDER_MEMBER)
    // The film's colour transform when the image is made (host only: film_to_image; the kernels never read it):
    // rgb' = film_matrix * rgb, row-major, for pbrt-v4's imaging ratio, white balance and camera sensor (see
    // host/scene/scene_pbrt.cpp). film_transform 0: none, the image as the film's means.
    uint32_t film_transform = 0;
    float film_matrix[9] = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
    WP_RENDER_SETTINGS_END(WP_RENDER_MEMBER)
    // A crop as the renderers take it (host/scene/render_settings.h crop_for_render): full_width > 0, and width x
    // height is the crop's, at (crop_x0, crop_y0) of a full_width x full_height image. The camera and the random
    // numbers see the full image's pixel (camera_width, key_pixel), so that a crop's pixels are the full render's
    // bit for bit; the film and the image are the crop's. Without a crop, 0 (and key_pixel the film's pixel).
    uint32_t full_width = 0, full_height = 0;
    WP_HD uint32_t camera_width() const { return full_width ? full_width : width; }
    WP_HD uint32_t camera_height() const { return full_width ? full_height : height; }
    // The pixel that keys the random numbers of film pixel p: the full image's (Mitchell's second film, p >=
    // num_pixels(), keyed as the full render keys it: its pixel plus the full image's pixel count).
    WP_HD uint32_t key_pixel(uint32_t p) const {
        if (full_width == 0) return p;
        const uint32_t np = num_pixels(), second = p >= np ? full_width * full_height : 0u;
        if (p >= np) p -= np;
        return second + (p / width + crop_y0) * full_width + p % width + crop_x0;
    }
    RenderParams prepared() const {
        RenderParams r = *this;
        r.div_pixels = FastDiv::make(num_pixels());
        r.div_tiles_x = FastDiv::make(width / kTileW);
        return r;
    }

    // The order in which a sample pass visits the pixels: path index i is sample i / num_pixels() of pixel
    // pixel_of_rank(i % num_pixels()). Tiles of 8x4 pixels, one warp's worth, in row-major order of tiles, each tile
    // row-major inside; the pixels the whole tiles leave over (a right strip narrower than 8, a bottom strip lower
    // than 4) follow row by row. A warp's 32 camera rays then cover an 8x4 block instead of a 32x1 strip, so they
    // visit fewer distinct BVH nodes, and so do their first bounces. The random numbers are keyed by pixel and
    // sample (kernels/rng.h), so the order changes which thread computes a sample, never its value.
    static constexpr uint32_t kTileW = 8, kTileH = 4;
    // The split of the image both directions of the order share: tx x ty whole tiles (their `full` pixels first),
    // then a right strip rw wide (`right` pixels), then the bottom rows.
    struct TileSplit {
        uint32_t tx, ty, full, rw, right;
    };
    WP_HD TileSplit tile_split() const {
        TileSplit t;
        t.tx = width / kTileW;
        t.ty = height / kTileH;
        t.full = t.tx * t.ty * kTileW * kTileH;
        t.rw = width - t.tx * kTileW;
        t.right = t.ty * kTileH * t.rw;
        return t;
    }
    // The pixel's column x and row y (one division by a run-time value on the tiles' path, as generate needs them).
    WP_HD void pixel_xy_of_rank(uint32_t k, uint32_t& x, uint32_t& y) const {
        const TileSplit ts = tile_split();
        const uint32_t tx = ts.tx, ty = ts.ty, full = ts.full, rw = ts.rw, right = ts.right;
        if (k < full) {
            const uint32_t t = k / (kTileW * kTileH), j = k % (kTileW * kTileH);
            const uint32_t trow = div_tiles_x.d == tx ? div_tiles_x.div(t) : t / tx;
            x = (t - trow * tx) * kTileW + j % kTileW;
            y = trow * kTileH + j / kTileW;
            return;
        }
        k -= full;
        if (k < right) {  // the right strip
            y = k / rw;
            x = tx * kTileW + (k - y * rw);
            return;
        }
        k -= right;  // the bottom strip, full rows
        y = ty * kTileH + k / width;
        x = k % width;
    }
    WP_HD uint32_t pixel_of_rank(uint32_t k) const {
        uint32_t x, y;
        pixel_xy_of_rank(k, x, y);
        return y * width + x;
    }
    // The inverse of pixel_of_rank.
    WP_HD uint32_t rank_of_pixel(uint32_t p) const {
        const uint32_t x = p % width, y = p / width;
        const TileSplit ts = tile_split();
        const uint32_t tx = ts.tx, ty = ts.ty, full = ts.full, rw = ts.rw, right = ts.right;
        if (y < ty * kTileH) {
            if (x < tx * kTileW)
                return ((y / kTileH) * tx + x / kTileW) * (kTileW * kTileH) + (y % kTileH) * kTileW + x % kTileW;
            return full + y * rw + (x - tx * kTileW);
        }
        return full + right + (p - ty * kTileH * width);
    }
};

// The layout the kernels were compiled against before the list (x86-64 and the GPU alike).
static_assert(offsetof(RenderParams, width) == 0 && offsetof(RenderParams, light_sampling) == 24 &&
                  offsetof(RenderParams, div_pixels) == 28 && offsetof(RenderParams, filter) == 52 &&
                  offsetof(RenderParams, filter_radius) == 56 && offsetof(RenderParams, filter_sigma) == 60 &&
                  offsetof(RenderParams, clamp_indirect) == 64 && offsetof(RenderParams, film_transform) == 68 &&
                  offsetof(RenderParams, film_matrix) == 72 && offsetof(RenderParams, crop_x0) == 108,
              "RenderParams' layout changed: the kernels' parameter must stay as it was");

}  // namespace wp
