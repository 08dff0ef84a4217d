#include <gtest/gtest.h>
#include <atomic>
#include "host/render/render.h"
#include "host/scene/render_limits.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"
#include "kernels/bvh.h"
#include "kernels/filter.h"
#include "kernels/stages.h"
#include "tests/cornell_scene.h"
#include "tests/shard_checks.h"
using namespace wp;

// White furnace: a white Lambert sphere inside a sphere that emits 1 on its inside. Every path sees
// radiance 1 whatever it hits, so every pixel converges to 1 (NEE, MIS, roulette and the camera all matter).
TEST(RenderCpu, WhiteFurnaceEveryPixelEqualsEmission) {
    SceneBuilder b;
    MatHandle white = b.lambert(vec3(1.0f));
    MatHandle black = b.lambert(vec3(0.0f));
    b.sphere(vec3(0), 1.0f, white);
    b.sphere(vec3(0), 10.0f, black, vec3(1.0f), /*two_sided=*/true);
    b.set_camera(make_camera(vec3(0, 0, 4), vec3(0), vec3(0, 1, 0), 40.0f, 1.0f));
    SceneData sd = b.build();
    RenderParams rp;
    rp.width = rp.height = 16;
    rp.spp = 8192;
    rp.max_depth = 1000;
    rp.rr_depth = 5;
    rp.seed = 7;
    Image img = render_cpu_megakernel(sd, rp);
    EXPECT_EQ(img.nonfinite, 0u);
    int hits_sphere = 0;
    double mean = 0;
    for (size_t i = 0; i < img.rgb.size(); ++i) {
        EXPECT_NEAR(img.rgb[i], 1.0f, 0.01f) << "value " << i;
        mean += img.rgb[i];
    }
    EXPECT_NEAR(mean / img.rgb.size(), 1.0, 0.002);
    // The sphere must be in view (else the test would only check the emitter): the centre pixel hits it.
    SceneView s = sd.view();
    Ray r{vec3(0, 0, 4), vec3(0, 0, -1)};
    if (intersect_closest(s, r).t < 4.0f) ++hits_sphere;
    EXPECT_EQ(hits_sphere, 1);
}

namespace {
// A red floor, a rough metal sphere on it and a small lamp above: a small scene with every kind of bounce.
SceneData floor_sphere_lamp() {
    SceneBuilder b;
    MatHandle red = b.lambert(vec3(0.8f, 0.2f, 0.2f));
    b.quad(vec3(-2, -1, -2), vec3(0, 0, 4), vec3(4, 0, 0), red);
    b.sphere(vec3(0, 0, 0), 0.8f, b.conductor(vec3(0.9f), 0.2f));
    b.quad(vec3(-0.5f, 2, -0.5f), vec3(1, 0, 0), vec3(0, 0, 1), red, vec3(5.0f));
    b.set_camera(make_camera(vec3(0, 1, 5), vec3(0), vec3(0, 1, 0), 40.0f, 1.0f));
    return b.build();
}
}  // namespace

// Same seed, same image, bit for bit, whatever the thread count.
TEST(RenderCpu, DeterministicAcrossThreadCounts) {
    SceneData sd = floor_sphere_lamp();
    RenderParams rp;
    rp.width = rp.height = 24;
    rp.spp = 8;
    rp.max_depth = 8;
    Image a = render_cpu_megakernel(sd, rp, 1), c = render_cpu_megakernel(sd, rp, 2);
    EXPECT_EQ(a.rgb, c.rgb);
    double mean = 0;
    for (float v : a.rgb) mean += v;
    EXPECT_GT(mean / a.rgb.size(), 0.01);  // not an empty image
}

// A convex surface under a uniform sky sees only the sky: a Lambert surface of albedo a has radiance exactly a.
// With the RTIOW ground (a sphere of radius 1000) this fails when the sphere test loses precision far from the
// sphere's centre: rays leaving the ground hit it again and the ground comes out too dark, in rings.
TEST(RenderCpu, HugeSphereUnderUniformSkyHasRadianceAlbedo) {
    SceneBuilder b;
    b.sphere(vec3(0, -1000, 0), 1000.0f, b.lambert(vec3(0.5f)));
    b.set_background(vec3(1.0f));
    b.set_camera(make_camera(vec3(0, 1, 0), vec3(0, 0, -1), vec3(0, 1, 0), 40.0f, 1.0f));
    RenderParams rp;
    rp.width = rp.height = 32;
    rp.spp = 512;
    rp.max_depth = 50;
    rp.seed = 3;
    Image img = render_cpu_megakernel(b.build(), rp);
    double mean = 0;
    for (size_t i = 0; i < img.rgb.size(); ++i) {
        EXPECT_NEAR(img.rgb[i], 0.5f, 0.02f) << "value " << i;  // every pixel sees the ground (fov 40, looking down)
        mean += img.rgb[i];
    }
    EXPECT_NEAR(mean / img.rgb.size(), 0.5, 0.002);
}

// The same for spheres on both sides of the float/double switch of the sphere test (kSphereFloatMaxRadius), near
// and far from the world origin: the float path must not self-intersect either (every pixel sees the sphere).
TEST(RenderCpu, SpheresOfFloatAndDoublePathsUnderUniformSkyHaveRadianceAlbedo) {
    struct Case {
        vec3 c;
        float radius;
    };
    for (Case k : {Case{vec3(10.0f, 0.2f, -3.0f), 0.2f}, Case{vec3(-4.0f, 1.0f, 0.0f), 1.0f},
                   Case{vec3(0.0f, -kSphereFloatMaxRadius, 0.0f), kSphereFloatMaxRadius},
                   Case{vec3(300.0f, 4.0f, 0.0f), 4.0f}, Case{vec3(0.0f, -4.5f, 0.0f), 4.5f}}) {
        SceneBuilder b;
        b.sphere(k.c, k.radius, b.lambert(vec3(0.5f)));
        b.set_background(vec3(1.0f));
        // from 1.2 radii above the centre, looking down: the sphere fills the 40-degree view
        b.set_camera(make_camera(k.c + vec3(0, 1.2f * k.radius, 0), k.c, vec3(0, 0, 1), 40.0f, 1.0f));
        RenderParams rp;
        rp.width = rp.height = 16;
        rp.spp = 1024;
        rp.max_depth = 50;
        rp.seed = 5;
        rp.light_sampling = 0;  // BSDF sampling alone: each path's estimate is then exactly the albedo
        Image img = render_cpu_megakernel(b.build(), rp);
        double mean = 0;
        for (size_t i = 0; i < img.rgb.size(); ++i) {
            // cosine sampling of a Lambert surface under a uniform sky: no noise for a self-hit to hide in
            ASSERT_NEAR(img.rgb[i], 0.5f, 2e-3f) << "radius " << k.radius << " value " << i;
            mean += img.rgb[i];
        }
        EXPECT_NEAR(mean / img.rgb.size(), 0.5, 5e-4) << "radius " << k.radius;
    }
}

// Kernel feature sets (kernels/features.h): what each shipped kind of scene uses, the set its kernels run as, and the
// stage bodies compiled for the "spheres" set tracing the same paths as the general ones, bit for bit (the same
// check on the GPU: Gpu.SpecialisedKernelsMatchTheGeneralOnesBitForBit).
TEST(RenderCpu, FeatureSetsOfScenesAndSpecialisedStagesBitForBit) {
    LoadedScene rt = load_scene_json(wp_test::source_dir() + "/scenes/rtiow.json");
    EXPECT_EQ(rt.data.features(), kFeatSpheres | kFeatLambert | kFeatConductor | kFeatDielectric);
    EXPECT_EQ(render_features(rt.data.view(), rt.params), rt.data.features());  // light sampling off in the scene
    EXPECT_EQ(feature_set_for(rt.data.features()), kFeaturesSpheres);
    LoadedScene cb = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    const uint32_t fc = render_features(cb.data.view(), cb.params);
    EXPECT_TRUE(fc & kFeatTriangles);
    EXPECT_TRUE(fc & kFeatEmitters);
    EXPECT_TRUE(fc & kFeatLightSampling);
    EXPECT_FALSE(fc & kFeatSpheres);
    EXPECT_EQ(feature_set_for(fc), kFeaturesGeneral);
    EXPECT_EQ(feature_set_for(kFeatSpheres), kFeaturesSpheres);
    EXPECT_EQ(feature_set_for(kFeatSpheres | kFeatTextures), kFeaturesGeneral);
    // coated materials: the layered set, which nothing else needs
    EXPECT_EQ(feature_set_for(fc | kFeatLayered), kFeaturesLayered);
    // diffuse transmission: everything but bump mapping (the coated scenes without it keep their kernels)
    EXPECT_EQ(feature_set_for(fc | kFeatDiffuseTransmission), kFeaturesTransmission);
    EXPECT_EQ(feature_set_for(fc | kFeatLayered | kFeatDiffuseTransmission), kFeaturesTransmission);
    // bump mapping: the set that holds everything, whatever else the scene has (the others keep their kernels)
    EXPECT_EQ(feature_set_for(fc | kFeatBump), kFeaturesAll);
    EXPECT_EQ(feature_set_for(fc | kFeatLayered | kFeatBump), kFeaturesAll);
    EXPECT_EQ(feature_set_for(fc | kFeatLayered | kFeatDiffuseTransmission | kFeatBump), kFeaturesAll);
    for (uint32_t set : {kFeaturesSpheres, kFeaturesGeneral, kFeaturesLayered, kFeaturesTransmission})
        EXPECT_FALSE(set & kFeatBump);
    EXPECT_STREQ(feature_set_name(kFeaturesGeneral), "general");
    EXPECT_STREQ(feature_set_name(kFeaturesLayered), "layered");
    EXPECT_STREQ(feature_set_name(kFeaturesTransmission), "layered+transmission");
    EXPECT_STREQ(feature_set_name(kFeaturesAll), "all");

    RenderParams rp = rt.params;
    rp.width = 64;
    rp.height = 36;
    rp.spp = 2;
    rp = rp.prepared();
    const SceneView s = rt.data.view();
    const size_t n = size_t(rp.num_pixels()) * 3;
    std::vector<unsigned long long> sum_a(n, 0), sum_b(n, 0), bad(2, 0);
    std::vector<unsigned int> first(2, ~0u);
    FilmView fa{sum_a.data(), &bad[0], &first[0]}, fb{sum_b.data(), &bad[1], &first[1]};
    uint32_t ext_a = 0, ext_b = 0, sh_a = 0, sh_b = 0;
    for (uint64_t i = 0; i < uint64_t(rp.num_pixels()) * rp.spp; ++i) {
        PathState pa = generate_path(s, rp, i), pb = pa;
        while (path_segment<true, kFeaturesSpheres>(s, rp, fa, pa, NoSegmentStats{}, ext_a, sh_a)) {}
        while (path_segment<true, kFeaturesAll>(s, rp, fb, pb, NoSegmentStats{}, ext_b, sh_b)) {}
    }
    EXPECT_EQ(ext_a, ext_b);
    EXPECT_GT(ext_a, uint32_t(rp.num_pixels()) * rp.spp);  // bounces beyond the camera rays
    EXPECT_EQ(sh_a, 0u);
    EXPECT_TRUE(sum_a == sum_b);
    unsigned long long total = 0;
    for (unsigned long long v : sum_a) total += v;
    EXPECT_GT(total, 0u);
}

// An interrupted CPU megakernel render stops mid-pass (the cancel flag is read before every chunk of 256 paths, not
// between whole-image passes) and its image holds exactly the samples [0, samples). The cancel comes from the
// render's own chunk hook once the chunk holding sample K is taken, so the test counts work rather than time (a
// timer cannot say how much a loaded machine rendered meanwhile): the chunk that set it is finished, and each other
// thread finishes at most the one chunk it took before it saw the flag. Cut in the first pass: the pixels of the
// first `samples` ranks equal a 1-spp render's bit for bit, the others are empty; in any pass: the film's sums equal
// those of an uninterrupted render of [0, samples).
TEST(RenderCpu, CancelStopsMidPassAndKeepsAnExactPrefix) {
    SceneData sd = floor_sphere_lamp();
    RenderParams rp;
    rp.width = rp.height = 128;
    rp.spp = 64;
    rp.max_depth = 8;
    const uint64_t np = rp.num_pixels(), chunk = 256;
    const unsigned threads = 4;  // more threads than this machine may have cores: chunks in flight at the cancel
    for (const uint64_t K : {np / 2 + 5 * chunk, 2 * np + np / 4 + 3 * chunk}) {
        SCOPED_TRACE("cancel once the chunk of sample " + std::to_string(K) + " is taken");
        std::atomic<bool> cancel{false};
        std::atomic<uint64_t> chunks_after{0};
        RenderOptions opt;
        opt.threads = threads;
        opt.cancel = &cancel;
        opt.on_chunk = [&](uint64_t first) {
            if (cancel.load()) chunks_after.fetch_add(1);
            if (first <= K && K < first + chunk) cancel = true;
        };
        Image cut = render_cpu(sd, rp, Mode::Megakernel, opt);
        ASSERT_TRUE(cut.interrupted);
        EXPECT_EQ(cut.first, 0u);
        EXPECT_GE(cut.samples, K / chunk * chunk + chunk);            // the chunk that cancelled, finished
        EXPECT_LE(cut.samples, K / chunk * chunk + threads * chunk);  // at most one more chunk per other thread
        EXPECT_LT(chunks_after.load(), threads);
        EXPECT_NE(cut.samples % np, 0u);  // stopped mid-pass, not at the end of a pass over the pixels
        RenderOptions upto;
        upto.threads = threads;
        upto.sample_end = cut.samples;
        Image ref = render_cpu(sd, rp, Mode::Megakernel, upto);
        ASSERT_FALSE(ref.interrupted);
        ASSERT_EQ(ref.samples, cut.samples);
        EXPECT_TRUE(cut.sum == ref.sum) << "the cut film is not the render of [0, " << cut.samples << ")";
        EXPECT_TRUE(cut.rgb == ref.rgb);
        if (cut.samples >= np) continue;
        RenderParams one = rp;
        one.spp = 1;
        Image full = render_cpu(sd, one, Mode::Megakernel);
        const RenderParams prepared = rp.prepared();
        size_t lit = 0;
        for (uint32_t p = 0; p < np; ++p) {
            const bool in = prepared.rank_of_pixel(p) < cut.samples;
            for (int c = 0; c < 3; ++c) {
                if (in)
                    ASSERT_EQ(cut.rgb[3 * p + c], full.rgb[3 * p + c]) << "pixel " << p;
                else
                    ASSERT_EQ(cut.rgb[3 * p + c], 0.0f) << "pixel " << p;
                lit += in && cut.rgb[3 * p + c] > 0.0f;
            }
        }
        EXPECT_GT(lit, 0u);
    }
}

// Russian roulette from the first bounce (render.rr_depth 1, `--rr-depth 1`, as the public RTIOW megakernels) is
// another unbiased estimator: fewer rays, the same mean within its noise. The default stays 5 (scenes without the
// key), and an out-of-range value is an error naming the key.
TEST(RenderCpu, RouletteDepthIsAnOptionWithTheSameMean) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/rtiow.json");
    EXPECT_EQ(ls.params.rr_depth, 5u);
    RenderParams rp = ls.params;
    rp.width = 64;
    rp.height = 36;
    rp.spp = 64;
    RenderParams r1 = rp;
    r1.rr_depth = 1;
    RenderOptions o;
    RenderStats s5, s1;
    Image a = render_cpu(ls.data, rp, Mode::Megakernel, o, &s5), b = render_cpu(ls.data, r1, Mode::Megakernel, o, &s1);
    EXPECT_LT(double(s1.extension_rays), 0.95 * double(s5.extension_rays));
    double ma = 0, mb = 0;
    for (size_t k = 0; k < a.rgb.size(); ++k) {
        ma += a.rgb[k];
        mb += b.rgb[k];
    }
    ma /= double(a.rgb.size());
    mb /= double(b.rgb.size());
    EXPECT_GT(ma, 0.1);
    EXPECT_NEAR(mb, ma, 0.01 * ma);
    EXPECT_EQ(render_limits_problem(r1), "");
    RenderParams bad = rp;
    bad.rr_depth = 0;
    EXPECT_NE(render_limits_problem(bad).find("rr_depth 0 out of range"), std::string::npos);
}

// Issues 22 and 23: Mitchell's two films and the AOVs over sample ranges. Shards 0:2 and 2:2 (and a split mid-pass)
// merged through their .wpfilm files, and an interrupted render resumed, equal the single 4-spp render bit for bit,
// in both schedules (tests/shard_checks.h; the GPU's in tests/test_gpu.cpp).
namespace {
Image cpu2(const SceneData& s, const RenderParams& rp, Mode m, const RenderOptions& o) {
    RenderOptions x = o;
    x.threads = 2;
    return render_cpu(s, rp, m, x);
}
}  // namespace
TEST(RenderCpu, MitchellShardsMergeBitIdentical) {
    for (Mode m : {Mode::Megakernel, Mode::Wavefront})
        wp_test::check_range_merge_bit_identical(cpu2, m, wp_test::range_params(true), 0);
}
TEST(RenderCpu, MitchellResumeBitIdentical) {
    for (Mode m : {Mode::Megakernel, Mode::Wavefront})
        wp_test::check_resume_bit_identical(cpu2, m, wp_test::range_params(true));
}
TEST(RenderCpu, AovShardsMergeBitIdentical) {
    for (Mode m : {Mode::Megakernel, Mode::Wavefront})
        wp_test::check_range_merge_bit_identical(cpu2, m, wp_test::range_params(false), wp_test::kAllAovs);
}
TEST(RenderCpu, AovResumeBitIdentical) {
    for (Mode m : {Mode::Megakernel, Mode::Wavefront})
        wp_test::check_resume_bit_identical(cpu2, m, wp_test::range_params(false), wp_test::kAllAovs);
}
// Both at once: Mitchell's beauty with the AOVs, shards and resume.
TEST(RenderCpu, MitchellWithAovsOverRangesBitIdentical) {
    wp_test::check_range_merge_bit_identical(cpu2, Mode::Wavefront, wp_test::range_params(true), wp_test::kAllAovs);
    wp_test::check_resume_bit_identical(cpu2, Mode::Megakernel, wp_test::range_params(true), wp_test::kAovNormal);
}
// `render --resume FILM --spp N`: a film of 3 spp continued to 4 equals the 4-spp render bit for bit, with Mitchell's
// two films and with the AOVs.
TEST(RenderCpu, ResumeWithMoreSppEqualsTheLargerRender) {
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        wp_test::check_more_spp_bit_identical(cpu2, m, wp_test::range_params(false), 3);
        wp_test::check_more_spp_bit_identical(cpu2, m, wp_test::range_params(true), 3, wp_test::kAllAovs);
    }
}
// The AOV pass covers the render's own range: a shard's AOVs are the mean of its samples alone (a single sample per
// pixel here: sample 1 alone, not samples 0 and 1).
TEST(RenderCpu, AovPassCoversTheRangeRendered) {
    const RenderParams rp = wp_test::range_params(false);
    SceneData sd = wp_test::cornell();
    const uint64_t np = rp.num_pixels();
    RenderOptions o;
    o.threads = 2;
    o.aovs = kAovNormal | kAovDepth;
    o.sample_begin = np;
    o.sample_end = 2 * np;
    Image shard = render_cpu(sd, rp, Mode::Megakernel, o);
    const RenderParams prepared = rp.prepared();
    ASSERT_EQ(shard.depth.size(), np);
    for (uint32_t p = 0; p < np; p += 37) {
        AovSample a = aov_sample(sd.view(), prepared, np + prepared.rank_of_pixel(p));
        EXPECT_NEAR(shard.depth[p], a.depth, 1e-6f * std::max(1.0f, a.depth)) << "pixel " << p;
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(shard.normal[3 * p + c], a.normal[c], 1e-6f) << "pixel " << p;
    }
}
