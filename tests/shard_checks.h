// Shards, merge and resume, bit for bit, written once for both backends (tests/test_film_file.cpp on the CPU,
// tests/test_gpu.cpp on the GPU): renders of disjoint sample ranges added together equal the whole render's film
// and image exactly, in both schedules, and an interrupted render continued from its exact prefix does too.
#pragma once
#include <gtest/gtest.h>
#include <atomic>
#include <cstring>
#include <functional>
#include "host/render/film_file.h"
#include "kernels/aov.h"
#include "kernels/filter.h"
#include "tests/cornell_scene.h"

namespace wp_test {

using RenderFn = std::function<Image(const SceneData&, const RenderParams&, Mode, const RenderOptions&)>;

inline RenderParams shard_params() {
    RenderParams rp;
    rp.width = 30;  // not whole 8x4 tiles: the pixel order's strips too (RenderParams::pixel_of_rank)
    rp.height = 22;
    rp.spp = 8;
    rp.max_depth = 6;
    rp.seed = 7;
    return rp;
}

inline void expect_same_pixels(const Image& a, const Image& b, const char* what) {
    ASSERT_EQ(a.sum.size(), b.sum.size()) << what;
    ASSERT_EQ(a.rgb.size(), b.rgb.size()) << what;
    EXPECT_EQ(a.sum, b.sum) << what << ": film sums differ";
    EXPECT_EQ(std::memcmp(a.rgb.data(), b.rgb.data(), a.rgb.size() * sizeof(float)), 0) << what << ": pixels differ";
}

// The AOVs (over sample ranges): the same exact sums and the same images.
inline void expect_same_aovs(const Image& a, const Image& b, const char* what) {
    EXPECT_EQ(a.aov_bits, b.aov_bits) << what;
    EXPECT_EQ(a.aov_sum, b.aov_sum) << what << ": AOV sums differ";
    auto same = [&](const std::vector<float>& x, const std::vector<float>& y, const char* aov) {
        ASSERT_EQ(x.size(), y.size()) << what << ": " << aov;
        EXPECT_EQ(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)), 0) << what << ": " << aov << " differs";
    };
    same(a.albedo, b.albedo, "albedo");
    same(a.normal, b.normal, "normal");
    same(a.depth, b.depth, "depth");
    same(a.position, b.position, "position");
}

constexpr uint32_t kAllAovs = kAovAlbedo | kAovNormal | kAovDepth | kAovPosition;

// A 4-spp render for issues 22 and 23 over sample ranges: the pixel box, or Mitchell (radius 2: its negative lobes
// reach the neighbours).
inline RenderParams range_params(bool mitchell) {
    RenderParams rp = shard_params();
    rp.spp = 4;
    if (mitchell) {
        rp.filter = kFilterMitchell;
        rp.filter_radius = 2.0f;
    }
    return rp;
}

// The parts [cut, all) and [0, cut) of rp's render (in that order, on purpose) rendered with options o, each
// through a .wpfilm as `wavepath merge` reads it, and merged: the merged film's image (every sample in it).
inline Image render_parts_and_merge(const RenderFn& render, const SceneData& sd, const RenderParams& rp, Mode m,
                                    const RenderOptions& o, uint64_t cut, const char* tag) {
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp, h = scene_fingerprint(sd);
    std::vector<PartialFilm> parts;
    for (auto [b, e] : {std::pair<uint64_t, uint64_t>{cut, all}, {0, cut}}) {
        RenderOptions p = o;
        p.sample_begin = b;
        p.sample_end = e;
        Image img = render(sd, rp, m, p);
        EXPECT_EQ(img.first, b);
        EXPECT_EQ(img.samples, e - b);
        EXPECT_FALSE(img.interrupted);
        const std::string path =
            temp_dir() + tag + "-" + mode_name(m) + "-" + std::to_string(cut) + "-" + std::to_string(b) + ".wpfilm";
        write_film(path, film_of(img, rp, h, "cornell", e));
        parts.push_back(read_film(path));
        EXPECT_EQ(parts.back().aovs, o.aovs);
    }
    std::vector<std::pair<uint64_t, uint64_t>> missing;
    PartialFilm merged = merge_films(parts, {"b.wpfilm", "a.wpfilm"}, missing);
    EXPECT_TRUE(missing.empty());
    for (const PartialFilm& f : parts) EXPECT_NE(f.sum, merged.sum) << "a part alone is not the whole";
    if (o.aovs)
        for (const PartialFilm& f : parts) EXPECT_NE(f.aov_sum, merged.aov_sum);
    Image img = film_image(merged);
    EXPECT_EQ(img.samples, all);
    return img;
}

// Shards 0:2 and 2:2 (and a split mid-pass), through the .wpfilm and merged, against the single render of rp with
// the AOVs `aovs`: the beauty (Mitchell's two films) and the AOVs bit for bit.
inline void check_range_merge_bit_identical(const RenderFn& render, Mode m, const RenderParams& rp, uint32_t aovs) {
    SceneData sd = cornell();
    const uint64_t np = rp.num_pixels(), all = np * rp.spp;
    RenderOptions o;
    o.capacity = 300;  // (the default drain: each range ends with a tail of its own, rounded as the iterations)
    o.aovs = aovs;
    const Image full = render(sd, rp, m, o);
    ASSERT_EQ(full.samples, all);
    ASSERT_EQ(full.sum.size(), 3 * uint64_t(rp.film_pixels()));
    if (rp.film_pixels() != np) {  // Mitchell: samples of negative weight in the second film
        unsigned long long neg = 0;
        for (uint64_t k = 3 * np; k < full.sum.size(); ++k) neg |= full.sum[k];
        ASSERT_NE(neg, 0u);
    }
    ASSERT_EQ(full.aov_sum.size(), aov_channels(aovs) * np);
    if (aovs & kAovAlbedo) {
        double a = 0;
        for (float v : full.albedo) a += v;
        ASSERT_GT(a, 0.0);
    }
    for (uint64_t cut : {2 * np, 2 * np + 123}) {
        const Image img = render_parts_and_merge(render, sd, rp, m, o, cut, "range");
        const char* what = cut % np ? "split mid-pass" : "shards 0:2 + 2:2";
        expect_same_pixels(img, full, what);
        expect_same_aovs(img, full, what);
    }
}

// Shards 0:3 and 3:5 (whole passes) and a split in the middle of a pass, merged, against the 8-spp render.
inline void check_shards_merge_bit_identical(const RenderFn& render, Mode m) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    const uint64_t np = rp.num_pixels(), all = np * rp.spp;
    RenderOptions full_opt;
    full_opt.capacity = 300;  // wavefront: several iterations and regeneration within a pass
    const Image full = render(sd, rp, m, full_opt);
    ASSERT_EQ(full.samples, all);
    double lit = 0;
    for (float v : full.rgb) lit += v;
    ASSERT_GT(lit, 0.0);
    for (uint64_t cut : {3 * np, 3 * np + 123})
        expect_same_pixels(render_parts_and_merge(render, sd, rp, m, full_opt, cut, "shards"), full,
                           cut % np ? "split mid-pass" : "shards 0:3 + 3:5");
}

// An interrupted render (cancelled from its progress callback) continued from the exact prefix it holds. rp: large
// enough that the render reports progress before its end (the GPU megakernel: after its second launch of 2M samples);
// aovs: the AOVs rendered (their sums resumed as the beauty's).
inline void check_resume_bit_identical(const RenderFn& render, Mode m, const RenderParams& rp = shard_params(),
                                       uint32_t aovs = 0) {
    SceneData sd = cornell();
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    RenderOptions o;
    o.capacity = 300;
    o.aovs = aovs;
    const Image full = render(sd, rp, m, o);
    ASSERT_EQ(full.aov_sum.size(), aov_channels(aovs) * uint64_t(rp.num_pixels()));
    std::atomic<bool> cancel{false};
    RenderOptions oc = o;
    oc.cancel = &cancel;
    oc.progress = [&](uint64_t done, uint64_t) {
        if (done > 0) cancel = true;
    };
    const Image cut = render(sd, rp, m, oc);
    ASSERT_TRUE(cut.interrupted);
    ASSERT_GT(cut.samples, 0u);
    ASSERT_LT(cut.samples, all);
    PartialFilm f = film_of(cut, rp, scene_fingerprint(sd), "cornell", all);
    const std::string path = temp_dir() + "resume-" + mode_name(m) + "-" + std::to_string(aovs) + "-" +
                             std::to_string(rp.filter) + ".wpfilm";
    write_film(path, f);  // through the file, as `render --resume` reads it
    PartialFilm back = read_film(path);
    EXPECT_EQ(back.end, cut.samples);
    EXPECT_EQ(back.target_end, all);
    EXPECT_EQ(back.aovs, aovs);
    RenderOptions rest = o;
    rest.sample_begin = back.end;
    rest.sample_end = back.target_end;
    append_render(back, render(sd, rp, m, rest));
    EXPECT_EQ(back.end, all);
    const Image resumed = film_image(back);
    expect_same_pixels(resumed, full, "resumed");
    expect_same_aovs(resumed, full, "resumed");
}

// A finished film of `less` spp resumed with rp.spp (more: raise_film_spp, as `render --resume FILM --spp N`): the
// samples it lacks rendered, its image rp.spp's render bit for bit (the random numbers are keyed by pixel and sample,
// not by the count); fewer spp, and a shard that stops short of its render's end, refused.
inline void check_more_spp_bit_identical(const RenderFn& render, Mode m, const RenderParams& rp, uint32_t less,
                                         uint32_t aovs = 0) {
    SceneData sd = cornell();
    const uint64_t np = rp.num_pixels(), all = np * rp.spp;
    RenderOptions o;
    o.capacity = 300;
    o.aovs = aovs;
    const Image full = render(sd, rp, m, o);
    RenderParams lp = rp;
    lp.spp = less;
    PartialFilm f = film_of(render(sd, lp, m, o), lp, scene_fingerprint(sd), "cornell", np * less);
    PartialFilm shard = f;
    shard.end = shard.target_end = np * (less - 1);
    try {
        raise_film_spp(shard, rp.spp, "shard.wpfilm");
        ADD_FAILURE() << "a shard short of its end took a larger spp";
    } catch (const FilmError& e) {
        EXPECT_NE(std::string(e.what()).find("shard.wpfilm is a shard"), std::string::npos);
    }
    try {
        raise_film_spp(f, less - 1, "part.wpfilm");
        ADD_FAILURE() << "a resume took fewer spp";
    } catch (const FilmError& e) {
        EXPECT_NE(std::string(e.what()).find("is a render of " + std::to_string(less) + " spp: --spp " +
                                             std::to_string(less - 1) + " is fewer"),
                  std::string::npos)
            << e.what();
    }
    raise_film_spp(f, rp.spp, "part.wpfilm");
    EXPECT_EQ(f.spp, rp.spp);
    EXPECT_EQ(f.end, np * less);
    EXPECT_EQ(f.target_end, all);
    PartialFilm here;
    here.scene_hash = scene_fingerprint(sd);
    set_film_settings(here, rp);
    EXPECT_EQ(film_settings_difference(f, here), "");
    RenderOptions rest = o;
    rest.sample_begin = f.end;
    rest.sample_end = f.target_end;
    append_render(f, render(sd, rp, m, rest));
    EXPECT_EQ(f.end, all);
    const Image more = film_image(f);
    expect_same_pixels(more, full, "resumed with more spp");
    expect_same_aovs(more, full, "resumed with more spp");
}

}  // namespace wp_test
