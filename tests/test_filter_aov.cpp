// Reconstruction filters (kernels/filter.h), the indirect clamp, the AOV pass (kernels/aov.h) and the
// denoiser (host/image/denoise.h), on the CPU backend.
#include <gtest/gtest.h>
#include <tinyexr.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include "host/image/denoise.h"
#include "host/render/render.h"
#include "host/scene/render_limits.h"
#include "host/scene/scene_json.h"
#include "kernels/aov.h"
#include "kernels/filter.h"
#include "tests/cornell_reference.h"
#include "tests/chi2.h"
#include "tests/cornell_scene.h"
using namespace wp;
using namespace wp_test;

namespace {

// Integral of |f1| over [a, b] by composite Simpson on the filter's own value (independent of its CDF code).
double integral_abs(uint32_t type, float r, float sigma, double a, double b, int n = 256) {
    double h = (b - a) / n, s = 0;
    for (int i = 0; i <= n; ++i) {
        double w = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
        s += w * std::fabs(filter_eval_1d(type, r, sigma, float(a + i * h)));
    }
    return s * h / 3;
}

struct FilterCase {
    const char* name;
    float radius, sigma;
};

}  // namespace

// Each filter's 2D sampled offsets against its analytic density |f(x)||f(y)| (Pearson chi-square over a grid whose
// expected counts integrate filter_eval_1d numerically), and the CDF's total against the same integral.
class FilterChi2 : public ::testing::TestWithParam<FilterCase> {};
TEST_P(FilterChi2, OffsetsFollowTheFilter) {
    RenderParams rp;
    ASSERT_EQ(set_filter(rp, GetParam().name, GetParam().radius, GetParam().sigma), "");
    const uint32_t t = rp.filter == kFilterPixelBox ? uint32_t(kFilterBox) : rp.filter;
    const float r = rp.filter_radius, sg = rp.filter_sigma;
    const double total = integral_abs(t, r, sg, -r, r, 4096);
    if (t != kFilterBox) EXPECT_NEAR(2 * filter_cdf_half(t, r, sg, r), total, 1e-4 * total);
    const int nb = 16, n = 400000;
    std::vector<double> p1(nb);
    for (int i = 0; i < nb; ++i)
        p1[i] = integral_abs(t, r, sg, -r + 2.0 * r * i / nb, -r + 2.0 * r * (i + 1) / nb) / total;
    std::vector<double> count(nb * nb, 0.0);
    for (int k = 0; k < n; ++k) {
        uint32_t key = path_key(uint32_t(k), 7, 11);
        vec2 o = filter_sample(t, r, sg, rand01(key, 0, kDimPixelX), rand01(key, 0, kDimPixelY));
        ASSERT_LE(std::fabs(o.x), r);
        ASSERT_LE(std::fabs(o.y), r);
        int bx = std::min(nb - 1, int((o.x + r) / (2 * r) * nb)), by = std::min(nb - 1, int((o.y + r) / (2 * r) * nb));
        count[by * nb + bx] += 1;
    }
    std::vector<double> expected(nb * nb);
    for (int y = 0; y < nb; ++y)
        for (int x = 0; x < nb; ++x) expected[y * nb + x] = p1[x] * p1[y] * n;
    const Chi2 c2 = pearson_chi2(count, expected, 0.0);
    const double stat = c2.stat;
    const int dof = c2.dof;
    std::printf("%s radius %g: chi2 %.1f, dof %d, critical %.1f\n", GetParam().name, r, stat, dof, chi2_crit(dof));
    EXPECT_LT(stat, chi2_crit(dof));
}
INSTANTIATE_TEST_SUITE_P(All, FilterChi2,
                         ::testing::Values(FilterCase{"box", 1.5f, 0}, FilterCase{"tent", 1.0f, 0},
                                           FilterCase{"tent", 2.0f, 0}, FilterCase{"gaussian", 1.5f, 0.5f},
                                           FilterCase{"gaussian", 2.0f, 0.8f}, FilterCase{"mitchell", 2.0f, 0}),
                         [](const auto& i) { return std::string(i.param.name) + std::to_string(int(i.index)); });

// A wrong sampler is caught: the tent's offsets against the box's density fail the same statistic.
TEST(Filter, Chi2RejectsTheWrongDensity) {
    const int nb = 16, n = 200000;
    std::vector<double> count(nb, 0.0);
    for (int k = 0; k < n; ++k)
        count[std::min(nb - 1, int((filter_sample_1d(kFilterTriangle, 1, 0, rand01(hash32(k), 0, 0)) + 1) / 2 * nb))] +=
            1;
    double stat = 0;
    for (double o : count) stat += (o - double(n) / nb) * (o - double(n) / nb) / (double(n) / nb);
    EXPECT_GT(stat, chi2_crit(nb - 1));
}

// The default filter is today's pixel box, bit for bit: a box of radius 0.5 maps to it, and a scene that names it
// renders the same image as one that does not.
TEST(Filter, BoxDefaultIsTheOriginalPixelBox) {
    RenderParams d;
    EXPECT_EQ(d.filter, uint32_t(kFilterPixelBox));
    RenderParams b;
    ASSERT_EQ(set_filter(b, "box"), "");
    EXPECT_EQ(b.filter, uint32_t(kFilterPixelBox));
    ASSERT_EQ(set_filter(b, "box", 1.0f), "");
    EXPECT_EQ(b.filter, uint32_t(kFilterBox));
    EXPECT_NE(set_filter(b, "sinc"), "");
    EXPECT_NE(set_filter_spec(b, "tent:-1"), "");
    ASSERT_EQ(set_filter_spec(b, "tent:1.5"), "");
    EXPECT_EQ(b.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(b.filter_radius, 1.5f);
    RenderParams rp;
    rp.width = rp.height = 24;
    rp.spp = 4;
    rp.max_depth = 8;
    RenderParams rb = rp;
    ASSERT_EQ(set_filter(rb, "box", 0.5f), "");
    Image a = render_cpu_megakernel(cornell(), rp, 2), c = render_cpu_megakernel(cornell(), rb, 2);
    EXPECT_EQ(a.rgb, c.rgb);
    // a tent changes the camera rays (not the same image) but not the mean much
    RenderParams rt = rp;
    ASSERT_EQ(set_filter(rt, "tent"), "");
    Image t = render_cpu_megakernel(cornell(), rt, 2);
    EXPECT_NE(a.rgb, t.rgb);
}

// render.filter in a native scene: a name or {type, radius, sigma}; a wrong one is a scene error naming the key.
TEST(Filter, NativeSceneKey) {
    std::ifstream in(source_dir() + "/scenes/cornell-box.json");
    nlohmann::json j = nlohmann::json::parse(in);
    auto load_with = [&](const nlohmann::json& f) {
        j["render"]["filter"] = f;
        const std::string path = temp_dir() + "filter-scene.json";
        std::ofstream(path) << j.dump();
        return load_scene_json(path);
    };
    LoadedScene t = load_with("tent");
    EXPECT_EQ(t.params.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(t.params.filter_radius, 1.0f);
    LoadedScene g = load_with({{"type", "gaussian"}, {"radius", 2}, {"sigma", 0.6}});
    EXPECT_EQ(g.params.filter, uint32_t(kFilterGaussian));
    EXPECT_EQ(g.params.filter_radius, 2.0f);
    EXPECT_FLOAT_EQ(g.params.filter_sigma, 0.6f);
    EXPECT_EQ(load_with("box").params.filter, uint32_t(kFilterPixelBox));
    for (const nlohmann::json& bad : {nlohmann::json("sinc"), nlohmann::json{{"type", "tent"}, {"radius", -1}},
                                      nlohmann::json{{"type", "tent"}, {"width", 1}}, nlohmann::json(3)}) {
        try {
            load_with(bad);
            ADD_FAILURE() << "accepted render.filter " << bad.dump();
        } catch (const SceneError& e) { EXPECT_NE(std::string(e.what()).find("/render/filter"), std::string::npos); }
    }
}

// Mitchell's negative lobes carried as a sign (kernels/filter.h): the samples of negative weight go to a second film
// and are subtracted, scaled by k = (integral |f| / integral f)^2, so a constant radiance comes out as itself on
// average (a box gives it exactly), in both schedules alike.
TEST(Filter, MitchellSignedWeightsAreUnbiased) {
    SceneBuilder b;
    MatHandle m = b.lambert(vec3(0.0f));
    b.quad(vec3(-50, -50, -2), vec3(100, 0, 0), vec3(0, 100, 0), m, vec3(1.0f));  // radiance 1 toward the camera
    b.set_camera(make_camera(vec3(0, 0, 0), vec3(0, 0, -1), vec3(0, 1, 0), 40.0f, 1.0f));
    SceneData sc = b.build();
    RenderParams rp;
    rp.width = rp.height = 16;
    rp.spp = 256;
    rp.max_depth = 1;
    ASSERT_EQ(set_filter(rp, "mitchell"), "");
    EXPECT_EQ(rp.film_pixels(), 2 * rp.num_pixels());
    const double k = filter_weight_scale(rp.filter, rp.filter_radius, rp.filter_sigma);
    EXPECT_GT(k, 1.0);
    EXPECT_LT(k, 1.5);
    Image mk = render_cpu_megakernel(sc, rp, 2);
    RenderOptions o;
    o.threads = 2;
    EXPECT_EQ(render_cpu(sc, rp, Mode::Wavefront, o).rgb, mk.rgb);
    double mean = 0;
    float lo = 1e9f, hi = -1e9f;
    for (float v : mk.rgb) {
        mean += v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    mean /= double(mk.rgb.size());
    std::printf("Mitchell, radiance 1: mean %.4f, pixels %.3f to %.3f (k %.4f)\n", mean, lo, hi, k);
    EXPECT_NEAR(mean, 1.0, 0.01);
    EXPECT_LT(lo, hi);  // some samples had negative weight: the pixels are not all 1
    EXPECT_GT(hi, 1.0f);
}

// The reference (Mitsuba 3, rendered with its tent filter, tests/data) at the light's edge: the pixels the light
// partly covers. A tent-filtered render is closer to it there than a box-filtered one. Only the camera segment is
// traced (max_depth 1: the light's own emission, which decides these pixels), at the reference's 1024x1024. Every
// sample is then either the light's radiance Le or 0, so a pixel's noise variance is known from its own mean m
// (Le^2 c(1-c)/(n-1), c = m/Le, unbiased): subtracted from the squared error it leaves the filter's squared bias,
// which is what the two filters differ in (the noise would otherwise swamp it at 16 spp).
TEST(Filter, TentMatchesTheReferenceAtTheLightsEdgeBetterThanBox) {
    Reference ref = load_reference();
    ASSERT_EQ(ref.w, 1024);
    RenderParams rp;
    rp.width = rp.height = 1024;
    rp.spp = 16;
    rp.max_depth = 1;
    rp.seed = 3;
    RenderParams rt = rp;
    ASSERT_EQ(set_filter(rt, "tent"), "");
    SceneData sc = cornell();
    Image box = render_cpu_megakernel(sc, rp), tent = render_cpu_megakernel(sc, rt);
    const float Le[3] = {17.0f, 12.0f, 4.0f};
    double eb = 0, et = 0, mb = 0, mt = 0;
    size_t n = 0;
    auto bias2 = [&](float m, float r, int c) {
        double q = std::clamp(double(m) / Le[c], 0.0, 1.0);
        return (double(m) - r) * (double(m) - r) - double(Le[c]) * Le[c] * q * (1 - q) / (rp.spp - 1);
    };
    for (size_t i = 0; i < size_t(ref.w) * ref.h; ++i) {
        float v = ref.rgb[3 * i];
        if (!(v > 0.05f * Le[0] && v < 0.95f * Le[0])) continue;  // partly covered by the light
        ++n;
        for (int c = 0; c < 3; ++c) {
            eb += bias2(box.rgb[3 * i + c], ref.rgb[3 * i + c], c);
            et += bias2(tent.rgb[3 * i + c], ref.rgb[3 * i + c], c);
            mb += std::pow(box.rgb[3 * i + c] - ref.rgb[3 * i + c], 2);
            mt += std::pow(tent.rgb[3 * i + c] - ref.rgb[3 * i + c], 2);
        }
    }
    std::printf("light's edge: %zu pixels; MSE box %.4f, tent %.4f; squared bias box %.4f, tent %.4f\n", n,
                mb / (3 * n), mt / (3 * n), eb / (3 * n), et / (3 * n));
    ASSERT_GT(n, 300u);
    EXPECT_LT(mt, mb);
    EXPECT_LT(et, 0.5 * eb);
}

// The indirect clamp: off by default; a limit never reached changes nothing (bit for bit); a small limit bounds
// what the clamped contributions add to a pixel: at max_depth 3 a sample's indirect part is one light sample from
// the second vertex and the emission found at the third, each at most L per component, so the image minus the
// direct-only one (max_depth 2, the same random numbers) is at most 2 L, which the unclamped render exceeds.
TEST(Clamp, BoundsTheIndirectPartAndIsOffByDefault) {
    EXPECT_EQ(RenderParams{}.clamp_indirect, 0.0f);
    SceneData sc = cornell();
    RenderParams rp;
    rp.width = rp.height = 32;
    rp.spp = 8;
    rp.max_depth = 3;
    rp.seed = 5;
    Image off = render_cpu_megakernel(sc, rp, 2);
    RenderParams huge = rp;
    huge.clamp_indirect = 1e5f;
    EXPECT_EQ(render_cpu_megakernel(sc, huge, 2).rgb, off.rgb);
    RenderParams direct = rp;
    direct.max_depth = 2;
    Image d = render_cpu_megakernel(sc, direct, 2);
    const float L = 0.02f;
    RenderParams cl = rp;
    cl.clamp_indirect = L;
    Image c = render_cpu_megakernel(sc, cl, 2);
    RenderOptions wo;
    wo.threads = 2;
    Image cw = render_cpu(sc, cl, Mode::Wavefront, wo);
    EXPECT_EQ(cw.rgb, c.rgb);  // both schedules clamp alike
    float max_clamped = 0, max_off = 0;
    for (size_t i = 0; i < c.rgb.size(); ++i) {
        max_clamped = std::max(max_clamped, c.rgb[i] - d.rgb[i]);
        max_off = std::max(max_off, off.rgb[i] - d.rgb[i]);
    }
    std::printf("indirect part: max %.4f clamped at %g, %.4f unclamped\n", max_clamped, L, max_off);
    EXPECT_LE(max_clamped, 2 * L + 1e-5f);
    EXPECT_GT(max_off, 2 * L);
    // the direct light is never clamped: the direct-only render is the same with and without
    RenderParams dc = direct;
    dc.clamp_indirect = L;
    EXPECT_EQ(render_cpu_megakernel(sc, dc, 2).rgb, d.rgb);
}

namespace {
// A Lambert quad of albedo (0.2, 0.5, 0.7) filling the view, facing the camera at distance d along -z.
SceneData quad_scene(float d, bool mirror_first = false) {
    SceneBuilder b;
    MatHandle m = b.lambert(vec3(0.2f, 0.5f, 0.7f));
    b.quad(vec3(-50, -50, -d), vec3(100, 0, 0), vec3(0, 100, 0), m);
    if (mirror_first) {  // a smooth mirror behind the camera would not be seen: this one is seen through nothing
    }
    b.set_camera(make_camera(vec3(0, 0, 0), vec3(0, 0, -1), vec3(0, 1, 0), 40.0f, 1.0f));
    return b.build();
}
}  // namespace

TEST(Aov, LambertQuadAlbedoNormalDepthInBothSchedules) {
    const float d = 3.5f;
    SceneData sc = quad_scene(d);
    RenderParams rp;
    rp.width = rp.height = 16;
    rp.spp = 4;
    rp.max_depth = 4;
    RenderOptions o;
    o.threads = 2;
    o.aovs = kAovAlbedo | kAovNormal | kAovDepth | kAovPosition;
    Image mk = render_cpu(sc, rp, Mode::Megakernel, o), wf = render_cpu(sc, rp, Mode::Wavefront, o);
    ASSERT_EQ(mk.albedo.size(), 3u * 256);
    ASSERT_EQ(mk.depth.size(), 256u);
    for (uint32_t p = 0; p < 256; ++p) {
        EXPECT_NEAR(mk.albedo[3 * p + 0], 0.2f, 1e-6f);
        EXPECT_NEAR(mk.albedo[3 * p + 1], 0.5f, 1e-6f);
        EXPECT_NEAR(mk.albedo[3 * p + 2], 0.7f, 1e-6f);
        EXPECT_NEAR(mk.normal[3 * p + 0], 0.0f, 1e-5f);
        EXPECT_NEAR(mk.normal[3 * p + 1], 0.0f, 1e-5f);
        EXPECT_NEAR(mk.normal[3 * p + 2], 1.0f, 1e-5f);  // facing the camera
        EXPECT_NEAR(mk.depth[p], d, 1e-4f);
        EXPECT_NEAR(mk.position[3 * p + 2], -d, 1e-4f);
    }
    EXPECT_EQ(mk.albedo, wf.albedo);
    EXPECT_EQ(mk.normal, wf.normal);
    EXPECT_EQ(mk.depth, wf.depth);
    EXPECT_EQ(mk.rgb, wf.rgb);  // the beauty as without AOVs in both schedules
    RenderOptions none;
    none.threads = 2;
    Image plain = render_cpu(sc, rp, Mode::Megakernel, none);
    EXPECT_EQ(plain.rgb, mk.rgb);  // the AOV pass leaves the beauty bit for bit
    EXPECT_TRUE(plain.albedo.empty());
}

// Through a smooth mirror the albedo and normal are the surface seen in it (times the mirror's colour), the depth
// the mirror's own.
TEST(Aov, FollowsSpecularBouncesToTheFirstDiffuseHit) {
    SceneBuilder b;
    MatHandle m = b.lambert(vec3(0.2f, 0.5f, 0.7f));
    MatHandle mirror = b.conductor(vec3(0.5f), 0.0f);
    b.quad(vec3(-50, -50, -2), vec3(100, 0, 0), vec3(0, 100, 0), mirror);  // facing +z, at z = -2
    b.quad(vec3(-50, 50, 4), vec3(100, 0, 0), vec3(0, -100, 0), m);        // behind the camera, facing -z
    b.set_camera(make_camera(vec3(0, 0, 0), vec3(0, 0, -1), vec3(0, 1, 0), 20.0f, 1.0f));
    SceneData sc = b.build();
    RenderParams rp;
    rp.width = rp.height = 8;
    rp.spp = 2;
    RenderOptions o;
    o.threads = 2;
    o.aovs = kAovAlbedo | kAovNormal | kAovDepth;
    Image img = render_cpu(sc, rp, Mode::Megakernel, o);
    for (uint32_t p = 0; p < 64; ++p) {
        EXPECT_NEAR(img.depth[p], 2.0f, 1e-4f);
        EXPECT_NEAR(img.normal[3 * p + 2], -1.0f, 1e-4f);  // the back quad's normal, toward the mirror
        EXPECT_NEAR(img.albedo[3 * p + 1], 0.5f * 0.5f, 0.02f);
        EXPECT_GT(img.albedo[3 * p + 2], img.albedo[3 * p]);
    }
}

// The denoiser: a 16-spp Cornell box (256x256) against the reference averaged over 4x4 blocks; Open Image Denoise
// with the albedo and normal AOVs lowers its relative MSE at least threefold.
TEST(Denoise, LowersTheRelMseOfA16sppCornellBoxThreefold) {
    const std::string why = denoiser_problem();
    ASSERT_EQ(why, "") << "scripts/install-deps.sh installs Open Image Denoise (pyoidn)";
    Reference ref = load_reference();
    ASSERT_EQ(ref.w, 1024);
    const int W = 256;
    const std::vector<float> small = reference_blocks(ref, W);
    const DenoiseCase c = denoise_case(W);
    Image raw = render_cpu(cornell(), c.rp, Mode::Megakernel, c.o);
    Image dn = denoise_image(raw);
    ASSERT_EQ(dn.rgb.size(), raw.rgb.size());
    const double a = relmse(raw.rgb, small), b = relmse(dn.rgb, small);
    std::printf("relMSE: 16 spp %.5f, denoised %.5f (%.1fx lower)\n", a, b, a / b);
    EXPECT_GT(a, 3 * b);
}

// The devices: a CPU render's auto is the CPU; the CUDA device asked for where there is no GPU is a clear error,
// from denoiser_problem (what `wavepath render --denoise` checks before any work) and from denoise_image, no crash.
TEST(Denoise, DeviceChoiceAndACudaDeviceWithoutAGpuIsAClearError) {
    ASSERT_EQ(denoiser_problem(DenoiseDevice::Cpu), "");
    EXPECT_EQ(resolve_denoise_device(DenoiseDevice::Auto, false), DenoiseDevice::Cpu);
    EXPECT_EQ(resolve_denoise_device(DenoiseDevice::Cpu, true), DenoiseDevice::Cpu);
    EXPECT_EQ(resolve_denoise_device(DenoiseDevice::Cuda, false), DenoiseDevice::Cuda);
    EXPECT_STREQ(denoise_device_name(DenoiseDevice::Cuda), "cuda");
    if (gpu_available()) GTEST_SKIP() << "a CUDA GPU is present: the no-GPU error is not reachable here";
    EXPECT_EQ(resolve_denoise_device(DenoiseDevice::Auto, true), DenoiseDevice::Cpu);  // no usable CUDA device
    const std::string why = denoiser_problem(DenoiseDevice::Cuda, 0);
    EXPECT_NE(why.find("no usable CUDA device 0"), std::string::npos) << why;
    Image img;
    img.width = img.height = 4;
    img.rgb.assign(48, 0.5f);
    try {
        denoise_image(img, DenoiseDevice::Cuda, 0);
        ADD_FAILURE() << "denoised on a CUDA device without a GPU";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
    }
    Image out = denoise_image(img, DenoiseDevice::Cpu);  // the CPU device still works after the failed CUDA one
    EXPECT_EQ(out.rgb.size(), img.rgb.size());
}
