// GPU-labelled tests: skip with a message where no GPU is present.
#include <gtest/gtest.h>
#include <tinyexr.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <chrono>
#include "host/app/render_setup.h"
#include "host/image/denoise.h"
#include "host/image/image_stats.h"
#include "host/render/render.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_pbrt.h"
#include "kernels/aov.h"
#include "kernels/gpu_stages.h"
#include "host/scene/render_limits.h"
#include "tests/cornell_reference.h"
#include "tests/cornell_scene.h"
#include "tests/shard_checks.h"
using namespace wp_test;

#define REQUIRE_GPU()                                                             \
    do {                                                                          \
        if (!wp::gpu_available()) GTEST_SKIP() << "no CUDA GPU present: skipped"; \
    } while (0)

namespace {
SceneData furnace() {
    SceneBuilder b;
    MatHandle white = b.lambert(vec3(1.0f));
    MatHandle black = b.lambert(vec3(0.0f));
    b.sphere(vec3(0), 1.0f, white);
    b.sphere(vec3(0), 10.0f, black, vec3(1.0f), true);
    b.set_camera(make_camera(vec3(0, 0, 4), vec3(0), vec3(0, 1, 0), 40.0f, 1.0f));
    return b.build();
}
double channel_mean(const Image& img, int c) {
    double m = 0;
    size_t np = size_t(img.width) * img.height;
    for (size_t i = 0; i < np; ++i) m += img.rgb[3 * i + c] / double(np);
    return m;
}
// Device buffers and a stream for the tests that call launchers directly; freed when the test ends (also after a
// failed ASSERT).
struct DeviceScratch {
    std::vector<void*> owned;
    cudaStream_t stream = nullptr;
    DeviceScratch() { WP_CUDA(cudaStreamCreate(&stream)); }
    ~DeviceScratch() {
        cudaStreamDestroy(stream);
        for (void* p : owned) cudaFree(p);
    }
    template <class T = void>
    T* alloc(size_t bytes) {
        void* p = nullptr;
        WP_CUDA(cudaMalloc(&p, bytes));
        owned.push_back(p);
        return static_cast<T*>(p);
    }
};
// Pixel channels of y that differ from x by more than rounding (1e-4 relative, 1e-6 absolute): the megakernel,
// compiled with contraction, and the wavefront's kernels, compiled without (CMakeLists.txt), round the same path's
// arithmetic differently, so its contribution may differ in its last bits.
size_t channels_off_by_more_than_rounding(const Image& x, const Image& y) {
    EXPECT_EQ(x.rgb.size(), y.rgb.size());
    size_t off = 0;
    for (size_t k = 0; k < std::min(x.rgb.size(), y.rgb.size()); ++k)
        off += std::fabs(x.rgb[k] - y.rgb[k]) > 1e-4 * std::fabs(x.rgb[k]) + 1e-6;
    return off;
}
// A scene of scenes/ at 128x128 (square camera), 16 spp: the size of the schedule-comparison tests.
LoadedScene small_gpu_scene(const std::string& name) {
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/" + name);
    ls.params.width = ls.params.height = 128;
    ls.params.spp = 16;
    ls.data.camera.aspect = 1.0f;
    return ls;
}
void print_stats(const char* what, const RenderStats& st) {
    std::printf("%s on %s: %.1f ms, %.1f Msamples/s, %.1f Mrays/s\n", what, st.device.c_str(), st.render_ms,
                st.msamples_per_s(), st.mrays_per_s());
    for (const KernelRow& k : st.kernels)
        std::printf("    %-16s %6llu launches %10.3f ms\n", k.name.c_str(), (unsigned long long)k.launches, k.ms);
}
}  // namespace

TEST(Gpu, WhiteFurnaceBothModes) {
    REQUIRE_GPU();
    RenderParams rp;
    rp.width = rp.height = 64;
    rp.spp = 8192;
    rp.max_depth = 1000;
    rp.seed = 7;
    SceneData sd = furnace();
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        Image img = render_gpu(sd, rp, m);
        EXPECT_EQ(img.nonfinite, 0u);
        double mean = 0;
        int off = 0;
        for (size_t i = 0; i < img.rgb.size(); ++i) {
            off += std::fabs(img.rgb[i] - 1.0f) > 0.01f;
            mean += img.rgb[i];
        }
        EXPECT_EQ(off, 0) << mode_name(m);
        EXPECT_NEAR(mean / img.rgb.size(), 1.0, 0.002) << mode_name(m);
    }
}

TEST(Gpu, CornellBothModesMatchMitsuba) {
    REQUIRE_GPU();
    float* ref = nullptr;
    int w = 0, h = 0;
    const char* err = nullptr;
    std::string path = source_dir() + "/tests/data/cornell-reference-mitsuba.exr";
    ASSERT_EQ(LoadEXR(&ref, &w, &h, path.c_str(), &err), TINYEXR_SUCCESS) << (err ? err : "");
    double rmean[3] = {0, 0, 0};
    for (int i = 0; i < w * h; ++i)
        for (int c = 0; c < 3; ++c) rmean[c] += ref[4 * i + c] / (double(w) * h);
    free(ref);
    SceneData sd = cornell();
    RenderParams rp;
    rp.width = rp.height = 1024;
    rp.spp = 64;
    rp.max_depth = 65;
    rp.seed = 1;
    render_gpu(sd, rp, Mode::Megakernel);  // warm-up
    RenderStats sm, sw, ss;
    Image mk = render_gpu(sd, rp, Mode::Megakernel, {}, &sm);
    Image wf = render_gpu(sd, rp, Mode::Wavefront, {}, &sw);
    RenderOptions sorted;
    sorted.sort_materials = true;
    Image so = render_gpu(sd, rp, Mode::Wavefront, sorted, &ss);
    for (const Image* img : {&mk, &wf, &so}) {
        EXPECT_EQ(img->nonfinite, 0u);
        for (int c = 0; c < 3; ++c) {
            double m = channel_mean(*img, c);
            std::printf("channel %d: wavepath-gpu %.5f  mitsuba %.5f  (%+.2f%%)\n", c, m, rmean[c],
                        100 * (m / rmean[c] - 1));
            EXPECT_NEAR(m, rmean[c], 0.02 * rmean[c]);
        }
    }
    print_stats("cornell 1024x1024 64spp megakernel", sm);
    print_stats("cornell 1024x1024 64spp wavefront", sw);
    print_stats("cornell 1024x1024 64spp wavefront sorted", ss);
    ImageDiff d = compare_images(wf, mk);
    std::printf("wavefront vs megakernel, same seed: %.4f%% pixels identical, RMSE %.3g; rays %llu+%llu vs %llu+%llu\n",
                100 * d.identical, d.rmse, (unsigned long long)sw.extension_rays, (unsigned long long)sw.shadow_rays,
                (unsigned long long)sm.extension_rays, (unsigned long long)sm.shadow_rays);
    EXPECT_EQ(wf.rgb, so.rgb);  // sorting changes the order of shading, not its result
    EXPECT_EQ(sw.extension_rays, ss.extension_rays);
    Image again = render_gpu(sd, rp, Mode::Wavefront);
    EXPECT_EQ(wf.rgb, again.rgb);  // fixed-point film: bit-identical rerun
    EXPECT_NEAR(double(sw.extension_rays), double(sm.extension_rays), 1e-3 * double(sm.extension_rays));
}

// Independent seeds, as in the CPU test: wavefront and megakernel estimate the same image.
TEST(Gpu, WavefrontAgreesWithMegakernelStatistically) {
    REQUIRE_GPU();
    struct Case {
        const char* name;
        uint32_t spp, max_depth;
    };
    for (Case c : {Case{"cornell-box.json", 64, 65}, Case{"glossy-glass.json", 256, 12}}) {
        LoadedScene ls = load_scene_json(source_dir() + "/scenes/" + c.name);
        RenderParams rp = ls.params;
        rp.width = rp.height = 128;
        ls.data.camera.aspect = 1.0f;
        rp.spp = c.spp;
        rp.max_depth = c.max_depth;
        std::vector<Image> a, b, biased;
        for (int k = 0; k < 8; ++k) {
            rp.seed = 1000 + k;
            a.push_back(render_gpu(ls.data, rp, Mode::Megakernel));
            rp.seed = 2000 + k;
            RenderOptions o;
            o.capacity = 1u << 18;  // regeneration within each render
            o.sort_materials = k % 2 == 1;
            b.push_back(render_gpu(ls.data, rp, Mode::Wavefront, o));
            biased.push_back(b.back());
            for (float& v : biased.back().rgb) v *= 1.03f;
        }
        Agreement g = agreement(a, b), bad = agreement(a, biased);
        std::printf("%s: %zu tile tests, mean z^2 %.3f, max |z| %.2f; 3%% biased: mean z^2 %.2f\n", c.name, g.tests,
                    g.z2_mean, g.z_max, bad.z2_mean);
        EXPECT_LT(g.z2_mean, 2.0) << c.name;
        EXPECT_LT(g.z_max, 6.0) << c.name;
        EXPECT_GT(bad.z2_mean, 3.0) << c.name;
    }
}

// CUB compaction on the device: random masks, every live path kept once, in order, with its fields.
TEST(Gpu, CompactionKeepsEveryLiveItemOnce) {
    REQUIRE_GPU();
    const uint32_t n = 1000003;
    DeviceScratch dev;
    PathSoA in, out;
    in.visit([&](void** p, size_t b, const char*) { *p = dev.alloc(b * n); });
    out.visit([&](void** p, size_t b, const char*) { *p = dev.alloc(b * n); });
    std::vector<U1> ids(n);
    std::vector<F4> beta(n);
    for (uint32_t i = 0; i < n; ++i) {
        ids[i] = i;
        beta[i] = F4{float(i), 0, 0, bits_float(3 * i)};
    }
    WP_CUDA(cudaMemcpy(in.depth_flags, ids.data(), n * sizeof(U1), cudaMemcpyHostToDevice));
    WP_CUDA(cudaMemcpy(in.beta_sample, beta.data(), n * sizeof(F4), cudaMemcpyHostToDevice));
    WavefrontQueues q;
    q.paths = in;
    q.next = out;
    q.alive = dev.alloc<uint8_t>(n);
    q.counters = dev.alloc<uint32_t>(kNumCounters * 4);
    q.selected = dev.alloc<uint32_t>(4ull * n);
    size_t tb = compact_temp_bytes(n);
    void* temp = dev.alloc(tb);
    cudaStream_t s = dev.stream;
    std::mt19937 rng(5);
    for (double density : {0.0, 0.003, 0.5, 0.97, 1.0}) {
        std::vector<uint8_t> alive(n);
        std::bernoulli_distribution bd(density);
        uint32_t expect = 0;
        for (auto& a : alive) expect += (a = bd(rng) ? 1 : 0);
        WP_CUDA(cudaMemcpy(q.alive, alive.data(), n, cudaMemcpyHostToDevice));
        {
            Launcher L(s);
            launch_compact(L, temp, tb, q, n);
            WP_CUDA(cudaStreamSynchronize(s));
            L.collect();
        }
        uint32_t live = 0;
        WP_CUDA(cudaMemcpy(&live, q.counters + kLiveCount, 4, cudaMemcpyDeviceToHost));
        ASSERT_EQ(live, expect) << density;
        std::vector<U1> got(live);
        std::vector<F4> gb(live);
        if (live) {
            WP_CUDA(cudaMemcpy(got.data(), out.depth_flags, live * sizeof(U1), cudaMemcpyDeviceToHost));
            WP_CUDA(cudaMemcpy(gb.data(), out.beta_sample, live * sizeof(F4), cudaMemcpyDeviceToHost));
        }
        size_t bad = 0;
        for (uint32_t i = 0; i < live; ++i) {
            uint32_t k = got[i];
            bool ok =
                k < n && alive[k] && float_bits(gb[i].w) == 3 * k && gb[i].x == float(k) && (i == 0 || k > got[i - 1]);
            bad += ok ? 0 : 1;
        }
        EXPECT_EQ(bad, 0u) << density;  // increasing indices: no duplicates; all live (count matches): none lost
    }
}

// Materials and the environment on the GPU: spheres of white Lambert (through environment MIS) and of glass in a
// uniform sky are invisible; an environment map rendered with MIS and with BSDF sampling alone agree.
TEST(Gpu, FurnacesAndEnvironmentMisWavefront) {
    REQUIRE_GPU();
    for (int k = 0; k < 2; ++k) {
        SceneBuilder b;
        b.sphere(vec3(0), 1.0f, k == 0 ? b.lambert(vec3(1.0f)) : b.dielectric(1.5f, 0.0f));
        b.set_background(vec3(1.0f));
        b.set_camera(make_camera(vec3(0, 0, 10), vec3(0), vec3(0, 1, 0), 14.0f, 1.0f));
        RenderParams rp;
        rp.width = rp.height = 64;
        rp.spp = 4096;
        rp.max_depth = 200;
        rp.seed = 3;
        rp.light_sampling = k == 0;
        Image img = render_gpu(b.build(), rp, Mode::Wavefront);
        int off = 0;
        double mean = 0;
        for (float v : img.rgb) {
            off += std::fabs(v - 1.0f) > 0.03f;
            mean += v / img.rgb.size();
        }
        EXPECT_EQ(off, 0) << k;
        EXPECT_NEAR(mean, 1.0, 0.003) << k;
    }
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/materials.json");
    RenderParams rp = ls.params;
    rp.width = 128;
    rp.height = 64;
    ls.data.camera.aspect = 2.0f;
    rp.spp = 64;
    rp.max_depth = 8;
    std::vector<Image> a, bs, biased;
    for (int k = 0; k < 8; ++k) {
        rp.seed = 300 + k;
        rp.light_sampling = 1;
        a.push_back(render_gpu(ls.data, rp, Mode::Wavefront));
        rp.seed = 400 + k;
        rp.light_sampling = 0;
        bs.push_back(render_gpu(ls.data, rp, Mode::Megakernel));
        biased.push_back(bs.back());
        for (float& v : biased.back().rgb) v *= 1.05f;
    }
    Agreement g = agreement(a, bs), bad = agreement(a, biased);
    std::printf(
        "materials.json, MIS wavefront vs BSDF-only megakernel: %zu tests, mean z^2 %.3f, max |z| %.2f; 5%% biased "
        "%.2f\n",
        g.tests, g.z2_mean, g.z_max, bad.z2_mean);
    EXPECT_LT(g.z2_mean, 2.0);
    EXPECT_LT(g.z_max, 6.0);
    EXPECT_GT(bad.z2_mean, 3.0);
}

// Out of memory is caught before allocating: the message says how much the render needs and how much is free.
TEST(Gpu, SceneThatDoesNotFitFailsWithNeededAndFreeMemory) {
    REQUIRE_GPU();
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/cornell-box.json");
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        RenderOptions o;
        o.device_memory_limit = 1u << 20;  // 1 MiB: the 512x512 film alone needs 6 MiB
        try {
            render_gpu(ls.data, ls.params, m, o);
            ADD_FAILURE() << "rendered within 1 MiB";
        } catch (const std::runtime_error& e) {
            std::string msg = e.what();
            std::printf("%s: %s\n", mode_name(m), msg.c_str());
            // megakernel: scene and film; wavefront: also the minimal queue (64K paths)
            EXPECT_NE(msg.find(m == Mode::Megakernel ? "does not fit in GPU memory: it needs 6.0 MiB"
                                                     : "of path queues) and"),
                      std::string::npos)
                << msg;
            EXPECT_NE(msg.find("has 1.0 MiB free"), std::string::npos) << msg;
        }
    }
    RenderOptions ok;
    ok.device_memory_limit = 64u << 20;  // enough: the queue shrinks to fit
    RenderParams rp = ls.params;
    rp.spp = 2;
    RenderStats st;
    Image img = render_gpu(ls.data, rp, Mode::Wavefront, ok, &st);
    EXPECT_LE(st.device_bytes, 64u << 20);
    EXPECT_EQ(img.samples, uint64_t(rp.num_pixels()) * rp.spp);
}

// Same scene, seed, mode and backend: bit-identical images on rerun (fixed-point film, keyed random numbers).
TEST(Gpu, RerunIsBitIdentical) {
    REQUIRE_GPU();
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/glossy-glass.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 128;
    rp.spp = 16;
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        Image a = render_gpu(ls.data, rp, m), b = render_gpu(ls.data, rp, m);
        EXPECT_TRUE(a.rgb == b.rgb) << mode_name(m);
        double sum = 0;
        for (float v : a.rgb) sum += v;
        EXPECT_GT(sum, 0.0);
    }
}

// Kernels compiled for a feature set (kernels/features.h) against the general ones: RTIOW (spheres, Lambert, conductor,
// dielectric, constant sky, no light sampling) runs the "spheres" set, with fewer registers. Its paths are the general
// kernels' to rounding (the FMA contraction of the float arithmetic follows the code around it, as between the
// megakernel and the wavefront): the same rays but for a few paths that rounding sends elsewhere, the same mean, and
// reruns of the set bit for bit. A scene with light sampling runs the general set.
TEST(Gpu, SpecialisedKernelsAgreeWithTheGeneralOnes) {
    REQUIRE_GPU();
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/rtiow.json");
    EXPECT_EQ(ls.data.features(), kFeatSpheres | kFeatLambert | kFeatConductor | kFeatDielectric);
    RenderParams rp = ls.params;
    rp.width = 320;
    rp.height = 180;
    rp.spp = 16;
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        RenderOptions general;
        general.general_kernels = true;
        RenderStats sa, sb;
        Image a = render_gpu(ls.data, rp, m, {}, &sa), b = render_gpu(ls.data, rp, m, general, &sb);
        Image a2 = render_gpu(ls.data, rp, m);
        EXPECT_TRUE(a.rgb == a2.rgb) << mode_name(m) << ": a rerun of the set, bit for bit";
        EXPECT_EQ(sa.feature_set, "spheres") << mode_name(m);
        EXPECT_EQ(sb.feature_set, "general") << mode_name(m);
        const double dr = std::fabs(double(sa.extension_rays) - double(sb.extension_rays));
        EXPECT_LE(dr, 1e-4 * double(sb.extension_rays)) << mode_name(m);
        EXPECT_LE(channels_off_by_more_than_rounding(a, b), a.rgb.size() / 1000) << mode_name(m);
        double suma = 0, sumb = 0;
        for (size_t k = 0; k < a.rgb.size(); ++k) {
            suma += a.rgb[k];
            sumb += b.rgb[k];
        }
        EXPECT_GT(suma / double(a.rgb.size()), 0.05) << mode_name(m);  // not an empty image
        EXPECT_NEAR(suma, sumb, 1e-4 * sumb) << mode_name(m);
    }
    std::vector<KernelAttr> sph = gpu_kernel_attrs(kFeaturesSpheres), all = gpu_kernel_attrs(kFeaturesAll);
    for (const KernelAttr& k : sph) {
        const auto a = std::find_if(all.begin(), all.end(), [&](const KernelAttr& x) { return x.name == k.name; });
        ASSERT_NE(a, all.end()) << k.name;  // the spheres set's kernels (and families) are all's too
        std::printf("%-16s registers: spheres %3d, all %3d\n", k.name.c_str(), k.registers, a->registers);
        // the kernels that shed features (extend keeps its traversal: ptxas gives the sphere test 55 registers
        // against 48, and it is faster, LOG entry 43)
        if (k.name == "megakernel" || k.name == "shade" || k.name == "drain")
            EXPECT_LT(k.registers, a->registers) << k.name;
    }
    // light sampling on a scene of spheres: the general kernels
    LoadedScene gg = load_scene_json(source_dir() + "/scenes/glossy-glass.json");
    RenderParams rg = gg.params;
    rg.width = rg.height = 32;
    rg.spp = 2;
    RenderStats st;
    render_gpu(gg.data, rg, Mode::Megakernel, {}, &st);
    EXPECT_EQ(st.feature_set, "general");
}

// The bench's GPU parts: kernel attributes and the ray-cast-only pass against the CPU's.
TEST(Gpu, KernelAttributesAndRaycastPass) {
    REQUIRE_GPU();
    std::vector<KernelAttr> ks = gpu_kernel_attrs();
    // megakernel, generate, extend (the persistent instance), shade, shadow, compact, diffuse_bounce, drain, aov,
    // sort_rays, and shade's material families (all of them in the set that holds everything)
    ASSERT_EQ(ks.size(), 10u + kNumFamilies);
    for (uint32_t f = 0; f < kNumFamilies; ++f) EXPECT_EQ(ks[10 + f].name, kFamilyStageNames[f]);
    EXPECT_EQ(ks[9].name, "sort_rays");
    EXPECT_EQ(ks[8].name, "aov");
    EXPECT_EQ(ks[7].name, "drain");
    EXPECT_EQ(ks[2].name, "extend");
    EXPECT_LE(ks[2].local_bytes, 512u) << "binary-tree extend";  // while-while: 8-byte entries (node or leaf range)
    for (const KernelAttr& k : ks) {
        std::printf("%-16s regs %3d local %4zu B  blocks/SM %2d  occupancy %.0f%%\n", k.name.c_str(), k.registers,
                    k.local_bytes, k.blocks_per_sm, 100 * k.occupancy);
        EXPECT_GT(k.registers, 0) << k.name;
        EXPECT_GT(k.occupancy, 0.0) << k.name;
        EXPECT_LE(k.occupancy, 1.0) << k.name;
    }
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/cornell-box.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 256;
    rp.spp = 4;
    RaycastStats g = raycast_gpu(ls.data, rp), c = raycast_cpu(ls.data, rp);
    std::printf("raycast gpu: primary %.2f Grays/s, diffuse %.2f Grays/s\n", g.primary_grays_per_s(),
                g.diffuse_grays_per_s());
    EXPECT_EQ(g.primary_rays, uint64_t(rp.num_pixels()) * rp.spp);
    EXPECT_EQ(g.primary_rays, c.primary_rays);
    EXPECT_NEAR(double(g.diffuse_rays), double(c.diffuse_rays), 1e-3 * double(c.diffuse_rays));
    EXPECT_GT(g.primary_ms, 0.0);
    EXPECT_GT(g.diffuse_ms, 0.0);
}

// Rays traced in key order (kernels/ray_order.h) change no pixel and no ray count: a path's result does not depend
// on the order it is traced in. Sorted from the first iteration (1) and only in large ones (a threshold above the
// later iterations' size), on a triangle scene, a sphere scene and an area-lit glossy one.
TEST(Gpu, RaySortingChangesNoPixel) {
    REQUIRE_GPU();
    for (const char* name : {"sponza.json", "rtiow.json", "glossy-glass.json"}) {
        LoadedScene ls = load_scene_json(source_dir() + "/scenes/" + name);
        RenderParams rp = ls.params;
        rp.width = 160;
        rp.height = 120;
        rp.spp = 8;
        RenderOptions base;
        base.capacity = 60000;
        RenderStats s0;
        const Image ref = render_gpu(ls.data, rp, Mode::Wavefront, base, &s0);
        double mean = 0;
        for (float v : ref.rgb) mean += v;
        EXPECT_GT(mean / double(ref.rgb.size()), 1e-3) << name;  // not an empty image
        {
            for (uint32_t min : {1u, 50000u}) {
                RenderOptions o = base;
                o.sort_rays = min;
                RenderStats st;
                const Image img = render_gpu(ls.data, rp, Mode::Wavefront, o, &st);
                size_t differ = 0;
                for (size_t k = 0; k < img.rgb.size(); ++k) differ += img.rgb[k] != ref.rgb[k];
                EXPECT_EQ(differ, 0u) << name << ", sorted from " << min;
                EXPECT_EQ(st.extension_rays, s0.extension_rays) << name;
                EXPECT_EQ(st.shadow_rays, s0.shadow_rays) << name;
                bool sorted = false;
                for (const KernelRow& k : st.kernels) sorted |= k.name == "sort_rays" && k.launches > 0;
                EXPECT_TRUE(sorted) << name << ": no sort_rays row";
            }
        }
        // the ray-cast pass: its bounces sorted first, the same rays traced
        RenderOptions so;
        so.sort_rays = 1;
        const RaycastStats a = raycast_gpu(ls.data, rp), b = raycast_gpu(ls.data, rp, so);
        EXPECT_EQ(a.diffuse_rays, b.diffuse_rays) << name;
        EXPECT_EQ(a.diffuse_sort_ms, 0.0);
        EXPECT_GT(b.diffuse_sort_ms, 0.0) << name;
    }
}

// A crop on the GPU: its pixels the whole render's bit for bit in both schedules (the crop runs the kernels compiled
// with the clamp, where the crop's key pixel is: kernels/stages.h path_key_pixel), on two scenes of the general set.
TEST(Gpu, CropPixelsAreTheWholeRendersBitForBit) {
    REQUIRE_GPU();
    for (const char* name : {"/scenes/cornell-box.json", "/scenes/sponza.json"}) {
        const std::string scene = source_dir() + name;
        SceneOverrides whole;
        whole.width = 96, whole.height = 64, whole.spp = 4;
        SceneOverrides cropped = whole;
        cropped.crop = "10,6,70,50";
        const LoadedScene a = load_render_scene(scene, whole), b = load_render_scene(scene, cropped);
        ASSERT_EQ(b.params.width, 60u);
        for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
            const Image full = render_gpu(a.data, a.params, m), crop = render_gpu(b.data, b.params, m);
            ASSERT_EQ(crop.rgb.size(), 3u * 60 * 44);
            EXPECT_EQ(crop.samples, 4u * 60 * 44);
            int differ = 0;
            for (uint32_t y = 0; y < 44; ++y)
                for (uint32_t x = 0; x < 60; ++x)
                    for (int k = 0; k < 3; ++k)
                        differ +=
                            crop.rgb[3 * (size_t(y) * 60 + x) + k] != full.rgb[3 * (size_t(y + 6) * 96 + x + 10) + k];
            EXPECT_EQ(differ, 0) << name << " " << mode_name(m);
        }
    }
}

// The sampler other than the default runs in the options' instances (kernels/stages.h path_sampler; the default
// kernels are compiled for Sobol alone): an independent-sampler render is the same image bit for bit as one that
// takes those instances for a clamp that never acts (so every launcher chose them for the sampler), and another
// image than the Sobol render's (the sampler is honoured).
TEST(Gpu, IndependentSamplerRunsTheOptionsInstances) {
    REQUIRE_GPU();
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/cornell-box.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 64;
    rp.spp = 4;
    RenderParams indep = rp, indep_clamped = rp;
    indep.sampler = indep_clamped.sampler = kSamplerIndependent;
    indep_clamped.clamp_indirect = 1e30f;  // scales no contribution: only the instance changes
    for (Mode m : {Mode::Wavefront, Mode::Megakernel}) {
        const Image a = render_gpu(ls.data, indep, m), b = render_gpu(ls.data, indep_clamped, m);
        const Image sobol = render_gpu(ls.data, rp, m);
        EXPECT_TRUE(a.rgb == b.rgb) << mode_name(m);
        EXPECT_FALSE(a.rgb == sobol.rgb) << mode_name(m);
        EXPECT_GT(channel_mean(a, 0), 0.01) << mode_name(m);  // not an empty image
    }
}

// Compaction by push (CUB block scan in shade) against CUB select and gather, on the GPU; and a cancel.
TEST(Gpu, PushCompactionMatchesSelectAndCancels) {
    REQUIRE_GPU();
    LoadedScene ls = load_scene_json(source_dir() + "/scenes/glossy-glass.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 128;
    rp.spp = 16;
    // compaction by push (CUB block scan in shade) against CUB select and gather: the same paths in another order,
    // so the same image bit for bit; with and without the drain, and sorted by material (variant 3: push against
    // push, a rerun)
    for (int variant = 0; variant < 4; ++variant) {
        RenderOptions a, b;
        a.capacity = b.capacity = 50000;
        a.drain_below = b.drain_below = variant == 1 ? RenderOptions::kDefaultDrainBelow : 0u;
        a.push_compaction = variant == 3;
        b.push_compaction = true;
        a.sort_materials = b.sort_materials = variant == 2;
        RenderStats sa, sb;
        Image x = render_gpu(ls.data, rp, Mode::Wavefront, a, &sa),
              y = render_gpu(ls.data, rp, Mode::Wavefront, b, &sb);
        size_t differ = 0;
        double worst = 0;
        for (size_t k = 0; k < x.rgb.size(); ++k)
            if (x.rgb[k] != y.rgb[k]) {
                ++differ;
                worst = std::max(worst, double(std::fabs(x.rgb[k] - y.rgb[k])));
            }
        EXPECT_EQ(differ, 0u) << "push compaction, variant " << variant << ": largest difference " << worst;
        EXPECT_EQ(sa.extension_rays, sb.extension_rays) << variant;
        EXPECT_EQ(sa.shadow_rays, sb.shadow_rays) << variant;
        EXPECT_EQ(sa.paths_at_depth, sb.paths_at_depth) << variant;
        EXPECT_EQ(sa.drained, sb.drained) << variant;
        EXPECT_EQ(sa.iterations.size(), sb.iterations.size()) << variant;
        std::printf("push variant %d: %zu of %zu pixel channels differ, largest difference %g\n", variant, differ,
                    x.rgb.size(), worst);
        bool gathered = false;
        for (const KernelRow& k : sb.kernels) gathered |= k.name == "compact" || k.name == "compact_select";
        EXPECT_FALSE(gathered) << "push compaction launched the CUB select or the gather, variant " << variant;
        std::printf("push variant %d: %.2f ms, select and gather %.2f ms, %zu iterations, %llu drained\n", variant,
                    sb.render_ms, sa.render_ms, sb.iterations.size(), (unsigned long long)sb.drained);
    }
    {  // cancel a quarter of the way: the image so far, fewer samples
        std::atomic<bool> cancel{false};
        RenderOptions c;
        c.capacity = 50000;
        c.cancel = &cancel;
        uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
        c.progress = [&](uint64_t d, uint64_t) {
            if (d > all / 4) cancel = true;
        };
        Image img = render_gpu(ls.data, rp, Mode::Wavefront, c);
        EXPECT_TRUE(img.interrupted);
        EXPECT_GT(img.samples, all / 4);
        EXPECT_LT(img.samples, all);
        for (float v : img.rgb) ASSERT_TRUE(std::isfinite(v));
    }
}

// The wavefront's tail drain (each of the last live paths run to its end by one thread) against the iterations it
// replaces: the same rays and the same image up to rounding, fewer iterations, every path counted once in the
// depth histograms; with two queue sizes (the drain starting right after generation, or with many paths left).
// Bit for bit, as on the CPU (tests/test_wavefront.cpp): the drain and the stage kernels are compiled without
// floating-point contraction (CMakeLists.txt), so the drain's loop rounds a path's arithmetic as shade does.
TEST(Gpu, DrainMatchesIterationsBitForBit) {
    REQUIRE_GPU();
    for (const char* name : {"cornell-box.json", "glossy-glass.json"}) {
        LoadedScene ls = small_gpu_scene(name);
        RenderParams rp = ls.params;
        for (uint32_t cap : {20000u, 200000u}) {
            RenderOptions a, b;
            a.capacity = b.capacity = cap;
            a.drain_below = 0;
            b.drain_below = 1u << 16;
            RenderStats sa, sb;
            Image x = render_gpu(ls.data, rp, Mode::Wavefront, a, &sa),
                  y = render_gpu(ls.data, rp, Mode::Wavefront, b, &sb);
            // same paths: every pixel within rounding (1e-4 relative, 1e-6 absolute), and the totals closer still
            ASSERT_EQ(x.rgb.size(), y.rgb.size());
            double sx = 0, sy = 0;
            for (size_t k = 0; k < x.rgb.size(); ++k) {
                sx += x.rgb[k];
                sy += y.rgb[k];
            }
            EXPECT_TRUE(x.sum == y.sum) << name << " capacity " << cap << ": film sums differ";
            EXPECT_EQ(channels_off_by_more_than_rounding(x, y), 0u)
                << name << " capacity " << cap << ": pixels off by more than rounding";
            EXPECT_NEAR(sx, sy, 1e-6 * sx) << name;
            EXPECT_EQ(sa.extension_rays, sb.extension_rays) << name;
            EXPECT_EQ(sa.shadow_rays, sb.shadow_rays) << name;
            EXPECT_EQ(sa.drained, 0u);
            EXPECT_GT(sb.drained, 0u) << name;
            EXPECT_LE(sb.drained, uint64_t(b.drain_below));
            EXPECT_LT(sb.iterations.size(), sa.iterations.size()) << name;
            EXPECT_EQ(sa.paths_at_depth, sb.paths_at_depth) << name;
            EXPECT_EQ(sa.shadow_at_depth, sb.shadow_at_depth) << name;
            bool has_drain_row = false;
            for (const KernelRow& k : sb.kernels) has_drain_row |= k.name == "drain" && k.launches == 1 && k.ms > 0.0;
            EXPECT_TRUE(has_drain_row) << name;
            double mean = 0;
            for (float v : y.rgb) mean += v;
            EXPECT_GT(mean / double(y.rgb.size()), 0.01) << name;  // not an empty image
            std::printf("%s capacity %u: %zu iterations %.2f ms; drained %llu paths after %zu iterations %.2f ms\n",
                        name, cap, sa.iterations.size(), sa.render_ms, (unsigned long long)sb.drained,
                        sb.iterations.size(), sb.render_ms);
        }
    }
}

// pbrt-v4's coated materials (kernels/layered.h, the "layered" kernel instances): a white furnace through a smooth
// coating stays 1 in both schedules; rough coatings, a scattering medium and a conductor base agree with the CPU's
// image (means within noise); the wavefront's drain runs the walks to the same film bit for bit.
// Renders ls at 256 spp on the CPU and on the GPU in both schedules: the GPU's images finite, each channel's mean
// within 1% of the CPU's (each CPU mean above min_mean: not a dark image), and the feature set the GPU chose is
// `set` (unless empty).
namespace {
void expect_gpu_means_match_cpu(const LoadedScene& ls, const std::string& set, const std::string& what,
                                double min_mean) {
    RenderParams rp = ls.params;
    rp.spp = 256;
    Image cpu = render_cpu(ls.data, rp, Mode::Megakernel);
    RenderStats st;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        Image gpu = render_gpu(ls.data, rp, m, {}, &st);
        EXPECT_EQ(gpu.nonfinite, 0u) << what;
        if (!set.empty()) EXPECT_EQ(st.feature_set, set) << what;
        for (int c = 0; c < 3; ++c) {
            const double g = channel_mean(gpu, c), h = channel_mean(cpu, c);
            EXPECT_GT(h, min_mean) << what;
            EXPECT_NEAR(g, h, 0.01 * h) << what << " " << mode_name(m) << " channel " << c;
        }
    }
}
}  // namespace

TEST(Gpu, LayeredMaterialsMatchTheCpuAndTheDrainIsBitIdentical) {
    REQUIRE_GPU();
    LoadedScene furnace = load_pbrt_string(R"(
        LookAt 0 0 5  0 0 0  0 1 0
        Camera "perspective" "float fov" 30
        Film "rgb" "integer xresolution" 48 "integer yresolution" 48
        Integrator "path" "integer maxdepth" 100
        WorldBegin
        LightSource "infinite" "rgb L" [1 1 1]
        Material "coateddiffuse" "rgb reflectance" [1 1 1] "float roughness" 0 "float thickness" 0 "integer maxdepth" 200
        Shape "sphere" "float radius" 1.2
    )",
                                           "furnace.pbrt", true);
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        RenderParams rp = furnace.params;
        rp.spp = 256;
        Image img = render_gpu(furnace.data, rp, m);
        EXPECT_EQ(img.nonfinite, 0u);
        EXPECT_NEAR(channel_mean(img, 1), 1.0, 0.003) << mode_name(m);
    }
    LoadedScene ls = load_pbrt_string(R"(
        LookAt 0 1.2 4  0 0.4 0  0 1 0
        Camera "perspective" "float fov" 35
        Film "rgb" "integer xresolution" 64 "integer yresolution" 48
        Integrator "path" "integer maxdepth" 8
        WorldBegin
        LightSource "infinite" "rgb L" [0.6 0.7 0.9]
        AttributeBegin
          AreaLightSource "diffuse" "rgb L" [8 7 6]
          Translate 1.5 3 1.5
          Shape "sphere" "float radius" 0.4
        AttributeEnd
        Material "coateddiffuse" "rgb reflectance" [0.7 0.3 0.2] "float roughness" 0.1 "float thickness" 0.2
                 "rgb albedo" [0.5 0.8 0.9] "float g" 0.3
        Shape "trianglemesh" "integer indices" [0 1 2 0 2 3] "point3 P" [-5 0 -5  5 0 -5  5 0 5  -5 0 5]
        Material "coatedconductor" "float interface.roughness" 0.05 "float conductor.roughness" 0.2
        AttributeBegin
          Translate -0.6 0.5 0
          Shape "sphere" "float radius" 0.5
        AttributeEnd
        Material "coatedconductor" "rgb reflectance" [0.9 0.6 0.3]
        AttributeBegin
          Translate 0.7 0.5 0
          Shape "sphere" "float radius" 0.5
        AttributeEnd
    )",
                                      "coated.pbrt", true);
    expect_gpu_means_match_cpu(ls, "layered", "coated.pbrt", 0.05);
    RenderParams rp = ls.params;
    rp.spp = 256;
    RenderOptions a, b;
    a.capacity = b.capacity = 20000;
    a.drain_below = 0;
    b.drain_below = 1u << 16;
    RenderStats sb;
    Image x = render_gpu(ls.data, rp, Mode::Wavefront, a), y = render_gpu(ls.data, rp, Mode::Wavefront, b, &sb);
    EXPECT_GT(sb.drained, 0u);
    EXPECT_TRUE(x.sum == y.sum) << "the drain's walks differ from the shade kernel's";
}

// The parity suite's bump-mapping scene (pbrt-v4's material displacement: the kernels of the bump set) and its
// conductor whose eta and k come from .spd files, on the GPU in both schedules against the CPU: the same image in
// the mean (1%, 256 spp) and the bump set chosen for the bumped scene.
TEST(Gpu, BumpMappingAndSpectrumFilesMatchTheCpu) {
    REQUIRE_GPU();
    const std::string dir = source_dir() + "/tests/parity/scenes/";
    expect_gpu_means_match_cpu(load_pbrt_scene(dir + "tex_bump.pbrt"), "all", "tex_bump", 0.05);
    expect_gpu_means_match_cpu(load_pbrt_scene(dir + "mat_conductor_spd.pbrt"), "", "mat_conductor_spd", 0.05);
}

// Shade by material family (kernels/features.h, kernels/shade.cu), which the coated scenes take (LOG entry 66): the
// family kernels, each over the queue extend filled, give the image of the one kernel of the whole set (run when the
// materials are sorted) bit for bit, with the bump set's and the diffuse transmission's families among them, with
// and without the indirect clamp's instances; each family the scene has is a row of the kernel table, and the whole
// set's kernel is not run. A scene of several families without coated materials (glossy-glass) runs the whole set's
// kernel, as before, and equals its sorted run too.
TEST(Gpu, ShadeByFamilyMatchesTheWholeSetKernelBitForBit) {
    REQUIRE_GPU();
    const std::string dir = source_dir() + "/tests/parity/scenes/";
    auto coat = [&](const std::string& file, const std::string& material, const std::string& by) {
        std::ifstream in(dir + file);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t at = text.find(material);
        EXPECT_NE(at, std::string::npos) << file;
        if (at != std::string::npos) text.replace(at, material.size(), by);
        return load_pbrt_string(text, dir + "coated_" + file);
    };
    std::vector<std::pair<std::string, LoadedScene>> scenes;
    scenes.emplace_back("glossy-glass", small_gpu_scene("glossy-glass.json"));
    // tex_bump with its wall coated and bumped too: the bump set's Lambert and layered families
    scenes.emplace_back(
        "tex_bump, coated wall",
        coat("tex_bump.pbrt", R"(Material "diffuse" "rgb reflectance" [0.6 0.35 0.25])",
             R"(Material "coateddiffuse" "rgb reflectance" [0.6 0.35 0.25] "texture displacement" "b")"));
    // diffuse transmission beside a coated wall: the layered+transmission set's families
    scenes.emplace_back("mat_diffusetransmission, coated wall",
                        coat("mat_diffusetransmission.pbrt", R"(Material "diffuse" "rgb reflectance" [0.6 0.35 0.25])",
                             R"(Material "coateddiffuse" "rgb reflectance" [0.6 0.35 0.25])"));
    scenes.emplace_back("mat_coatedconductor_rough", load_pbrt_scene(dir + "mat_coatedconductor_rough.pbrt"));
    for (auto& [name, ls] : scenes) {
        const SceneView v = ls.data.view();
        const bool by_family = shade_by_family(ls.data.features());
        EXPECT_EQ(by_family, name != "glossy-glass") << name;
        for (float clamp : {0.0f, 4.0f}) {
            RenderParams rp = ls.params;
            rp.spp = 64;
            rp.clamp_indirect = clamp;
            RenderOptions fam, whole;
            fam.capacity = whole.capacity = 1u << 16;  // several iterations and a drain
            whole.sort_materials = true;
            RenderStats sa, sb;
            Image a = render_gpu(ls.data, rp, Mode::Wavefront, fam, &sa);
            Image b = render_gpu(ls.data, rp, Mode::Wavefront, whole, &sb);
            EXPECT_GT(channel_mean(a, 1), 0.01) << name;
            EXPECT_TRUE(a.sum == b.sum) << name << " clamp " << clamp;
            auto launches = [](const RenderStats& st, const std::string& row) {
                for (const KernelRow& k : st.kernels)
                    if (k.name == row) return k.launches;
                return uint64_t(0);
            };
            for (uint32_t f = 0; f < kNumFamilies; ++f)
                EXPECT_EQ(launches(sa, kFamilyStageNames[f]) > 0, by_family && bool(families_of(v.features) >> f & 1u))
                    << name << " " << kFamilyStageNames[f];
            EXPECT_EQ(launches(sa, "shade") > 0, !by_family) << name;
            EXPECT_GT(launches(sb, "shade"), 0u) << name;
        }
    }
}

// The persistent extend kernel (warps refill idle lanes; kernels/persistent.h) against one thread per ray: the
// same rays and depth histograms and the same film bit for bit (the primitive tests' multiply-adds are explicit
// fused operations, so neither kernel's code around them changes how a hit rounds), at several refill thresholds
// (the fetch counters go back to zero after every launch, or the later iterations would find no work). And the
// persistent megakernel (path regeneration), over several launches, against the wavefront: the same paths, so the
// same rays within a few paths that rounding sends elsewhere, and the same mean.
TEST(Gpu, PersistentTraversalMatchesOneThreadPerRay) {
    REQUIRE_GPU();
    for (const char* name : {"cornell-box.json", "glossy-glass.json"}) {
        LoadedScene ls = small_gpu_scene(name);
        RenderParams rp = ls.params;
        RenderOptions base;
        base.refill = 0;
        base.capacity = 50000;
        RenderStats s0;
        Image x = render_gpu(ls.data, rp, Mode::Wavefront, base, &s0);
        double sx = 0;
        for (float v : x.rgb) sx += v;
        EXPECT_GT(sx / double(x.rgb.size()), 0.01) << name;  // not an empty image
        for (uint32_t refill : {1u, 16u, 32u}) {
            RenderOptions o = base;
            o.refill = refill;
            RenderStats st;
            Image y = render_gpu(ls.data, rp, Mode::Wavefront, o, &st);
            ASSERT_EQ(x.rgb.size(), y.rgb.size());
            double sy = 0;
            for (float v : y.rgb) sy += v;
            EXPECT_TRUE(x.sum == y.sum) << name << " refill " << refill << ": film sums differ";
            EXPECT_EQ(channels_off_by_more_than_rounding(x, y), 0u)
                << name << " refill " << refill << ": pixels off by more than rounding";
            EXPECT_NEAR(sx, sy, 1e-6 * sx) << name << " refill " << refill;
            EXPECT_EQ(s0.extension_rays, st.extension_rays) << name << " refill " << refill;
            EXPECT_EQ(s0.shadow_rays, st.shadow_rays) << name << " refill " << refill;
            EXPECT_EQ(s0.paths_at_depth, st.paths_at_depth) << name << " refill " << refill;
            EXPECT_GT(st.iterations.size(), 3u);
        }
        {  // without the depth histograms (counted per block in shared memory): the same image, no histograms
            RenderOptions o = base;
            o.queue_stats = false;
            RenderStats st;
            Image y = render_gpu(ls.data, rp, Mode::Wavefront, o, &st);
            EXPECT_TRUE(x.rgb == y.rgb) << name;
            EXPECT_TRUE(st.paths_at_depth.empty());
            EXPECT_EQ(s0.extension_rays, st.extension_rays);
            uint64_t segs = 0;
            for (unsigned long long c : s0.paths_at_depth) segs += c;
            EXPECT_EQ(segs, s0.extension_rays) << name;  // every segment counted once, by shade or the drain
        }
        // the megakernel over three launches (at least 2M samples each)
        rp.spp = 300;
        RenderStats sw, sm;
        Image w = render_gpu(ls.data, rp, Mode::Wavefront, RenderOptions{}, &sw);
        Image m = render_gpu(ls.data, rp, Mode::Megakernel, RenderOptions{}, &sm);
        EXPECT_EQ(sm.samples, uint64_t(rp.num_pixels()) * rp.spp);
        EXPECT_NEAR(double(sm.extension_rays), double(sw.extension_rays), 1e-5 * double(sw.extension_rays)) << name;
        EXPECT_NEAR(double(sm.shadow_rays), double(sw.shadow_rays), 1e-5 * double(sw.shadow_rays)) << name;
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(channel_mean(m, c), channel_mean(w, c), 1e-4 * channel_mean(w, c) + 1e-7) << name << " " << c;
        std::printf("%s: megakernel %.2f ms, wavefront %.2f ms, %llu extension rays\n", name, sm.render_ms,
                    sw.render_ms, (unsigned long long)sm.extension_rays);
    }
}

// Shards on the GPU: shards of sample ranges (whole passes and a split mid-pass) merged, and an interrupted render
// resumed from its exact prefix, equal the single render's film and image bit for bit, in both schedules
// (tests/shard_checks.h, as on the CPU in tests/test_film_file.cpp).
namespace {
Image gpu_render(const SceneData& s, const RenderParams& rp, Mode m, const RenderOptions& o) {
    return render_gpu(s, rp, m, o);
}
RenderParams gpu_resume_params() {  // 4 megakernel launches of 2M samples: progress (and the cancel) after the second
    RenderParams rp = wp_test::shard_params();
    rp.width = rp.height = 256;
    rp.spp = 128;
    return rp;
}
// The same samples and the same film and image, bit for bit.
void expect_same_film(const Image& a, const Image& b, const std::string& what) {
    EXPECT_EQ(a.first, b.first) << what;
    EXPECT_EQ(a.samples, b.samples) << what;
    wp_test::expect_same_pixels(a, b, what.c_str());
}
}  // namespace
TEST(GpuShards, MegakernelMergeIsBitIdentical) {
    REQUIRE_GPU();
    wp_test::check_shards_merge_bit_identical(gpu_render, Mode::Megakernel);
}
TEST(GpuShards, WavefrontMergeIsBitIdentical) {
    REQUIRE_GPU();
    wp_test::check_shards_merge_bit_identical(gpu_render, Mode::Wavefront);
}
TEST(GpuShards, MegakernelResumeIsBitIdentical) {
    REQUIRE_GPU();
    wp_test::check_resume_bit_identical(gpu_render, Mode::Megakernel, gpu_resume_params());
}
TEST(GpuShards, WavefrontResumeIsBitIdentical) {
    REQUIRE_GPU();
    wp_test::check_resume_bit_identical(gpu_render, Mode::Wavefront);
}
// Shards with the wavefront's default drain: each shard ends with a drain of its own, so other paths reach the
// drain kernel than in the single render; without contraction in the wavefront's kernels (CMakeLists.txt) the merge
// is still the single render bit for bit, and both equal the render without the drain.
TEST(GpuShards, WavefrontMergeWithTheDrainIsBitIdentical) {
    REQUIRE_GPU();
    for (const char* name : {"cornell-box.json", "glossy-glass.json", "rtiow.json"}) {
        LoadedScene ls = small_gpu_scene(name);
        ls.params.spp = 32;
        const RenderParams& rp = ls.params;
        const uint64_t np = rp.num_pixels(), all = np * rp.spp, h = scene_fingerprint(ls.data);
        RenderOptions o;  // every default: the drain below 524288 paths
        RenderStats sf;
        const Image full = render_gpu(ls.data, rp, Mode::Wavefront, o, &sf);
        ASSERT_GT(sf.drained, 0u) << name;
        RenderOptions nd = o;
        nd.drain_below = 0;
        expect_same_film(render_gpu(ls.data, rp, Mode::Wavefront, nd), full, std::string(name) + ": --drain 0");
        for (uint64_t cut : {13 * np, 13 * np + 4321}) {
            std::vector<PartialFilm> parts;
            for (auto [b, e] : {std::pair<uint64_t, uint64_t>{0, cut}, {cut, all}}) {
                RenderOptions p = o;
                p.sample_begin = b;
                p.sample_end = e;
                RenderStats sp;
                const Image img = render_gpu(ls.data, rp, Mode::Wavefront, p, &sp);
                EXPECT_GT(sp.drained, 0u) << name;
                EXPECT_NE(img.sum, full.sum);
                parts.push_back(film_of(img, rp, h, name, e));
            }
            std::vector<std::pair<uint64_t, uint64_t>> missing;
            const Image merged = film_image(merge_films(parts, {"a.wpfilm", "b.wpfilm"}, missing));
            EXPECT_TRUE(missing.empty());
            expect_same_film(merged, full,
                             std::string(name) + (cut % np ? ": split mid-pass" : ": shards 0:13 + 13:19"));
        }
    }
}

// Issues 22 and 23 on the GPU: Mitchell's two films and the AOVs over sample ranges (shards 0:2 + 2:2 and a split
// mid-pass, through the .wpfilm; an interrupted render resumed) equal the single 4-spp render bit for bit, both
// schedules (the wavefront with its default drain, each range with a tail of its own).
TEST(GpuShards, MitchellMergeAndResumeAreBitIdentical) {
    REQUIRE_GPU();
    RenderParams big = gpu_resume_params();
    big.filter = kFilterMitchell;
    big.filter_radius = 2.0f;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        wp_test::check_range_merge_bit_identical(gpu_render, m, wp_test::range_params(true), 0);
        if (m == Mode::Megakernel)
            wp_test::check_resume_bit_identical(gpu_render, m, big);
        else
            wp_test::check_resume_bit_identical(gpu_render, m, wp_test::range_params(true));
    }
}
TEST(GpuShards, AovMergeAndResumeAreBitIdentical) {
    REQUIRE_GPU();
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        wp_test::check_range_merge_bit_identical(gpu_render, m, wp_test::range_params(false), wp_test::kAllAovs);
        if (m == Mode::Megakernel)
            wp_test::check_resume_bit_identical(gpu_render, m, gpu_resume_params(), wp_test::kAllAovs);
        else
            wp_test::check_resume_bit_identical(gpu_render, m, wp_test::range_params(false), wp_test::kAllAovs);
    }
}

// AOVs on the GPU: the AOV pass (stage "aov") gives the known answers of a Lambert quad in both schedules and
// agrees with the CPU's; the beauty is the same with and without it.
TEST(Gpu, AovsOfALambertQuadMatchTheCpu) {
    REQUIRE_GPU();
    SceneBuilder b;
    MatHandle m = b.lambert(vec3(0.2f, 0.5f, 0.7f));
    b.quad(vec3(-50, -50, -3.5f), vec3(100, 0, 0), vec3(0, 100, 0), m);
    b.set_camera(make_camera(vec3(0, 0, 0), vec3(0, 0, -1), vec3(0, 1, 0), 40.0f, 1.0f));
    SceneData sc = b.build();
    RenderParams rp;
    rp.width = rp.height = 32;
    rp.spp = 4;
    rp.max_depth = 4;
    RenderOptions o;
    o.aovs = kAovAlbedo | kAovNormal | kAovDepth;
    Image mk = render_gpu(sc, rp, Mode::Megakernel, o), wf = render_gpu(sc, rp, Mode::Wavefront, o);
    Image cpu = render_cpu(sc, rp, Mode::Megakernel, o);
    Image plain = render_gpu(sc, rp, Mode::Megakernel, RenderOptions{});
    EXPECT_EQ(plain.rgb, mk.rgb);
    EXPECT_EQ(mk.albedo, wf.albedo);
    EXPECT_EQ(mk.depth, wf.depth);
    for (uint32_t p = 0; p < rp.num_pixels(); ++p) {
        EXPECT_NEAR(mk.albedo[3 * p + 1], 0.5f, 1e-5f);
        EXPECT_NEAR(mk.normal[3 * p + 2], 1.0f, 1e-4f);
        EXPECT_NEAR(mk.depth[p], 3.5f, 1e-3f);
        EXPECT_NEAR(mk.depth[p], cpu.depth[p], 1e-3f);
    }
}

// Filters and the clamp on the GPU: a tent's image mean as the CPU's; a clamp never reached leaves the image bit
// for bit; a small one bounds the indirect part (see Clamp.BoundsTheIndirectPartAndIsOffByDefault).
TEST(Gpu, FilterAndClampAgreeWithTheCpu) {
    REQUIRE_GPU();
    SceneData sc = cornell();
    RenderParams rp;
    rp.width = rp.height = 64;
    rp.spp = 64;
    rp.max_depth = 8;
    RenderParams rt = rp;
    ASSERT_EQ(set_filter(rt, "tent"), "");
    Image g = render_gpu(sc, rt, Mode::Wavefront), c = render_cpu(sc, rt, Mode::Megakernel);
    double mg = 0, mc = 0;
    for (size_t i = 0; i < g.rgb.size(); ++i) mg += g.rgb[i], mc += c.rgb[i];
    EXPECT_NEAR(mg, mc, 0.01 * mc);
    RenderParams r3 = rp;
    r3.max_depth = 3;
    Image off = render_gpu(sc, r3, Mode::Megakernel);
    RenderParams huge = r3;
    huge.clamp_indirect = 1e5f;
    EXPECT_EQ(render_gpu(sc, huge, Mode::Megakernel).rgb, off.rgb);
    RenderParams direct = r3;
    direct.max_depth = 2;
    Image d = render_gpu(sc, direct, Mode::Megakernel);
    RenderParams cl = r3;
    cl.clamp_indirect = 0.02f;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        Image ci = render_gpu(sc, cl, m);
        float mx = 0;
        for (size_t i = 0; i < ci.rgb.size(); ++i) mx = std::max(mx, ci.rgb[i] - d.rgb[i]);
        EXPECT_LE(mx, 0.04f + 1e-4f) << mode_name(m);
    }
}

// Mitchell's signed weights on the GPU (the second film, kernels/filter.h): a constant radiance of 1 comes out as 1 on
// average, in both schedules.
TEST(Gpu, MitchellSignedWeightsAreUnbiased) {
    REQUIRE_GPU();
    SceneBuilder b;
    MatHandle m = b.lambert(vec3(0.0f));
    b.quad(vec3(-50, -50, -2), vec3(100, 0, 0), vec3(0, 100, 0), m, vec3(1.0f));
    b.set_camera(make_camera(vec3(0, 0, 0), vec3(0, 0, -1), vec3(0, 1, 0), 40.0f, 1.0f));
    SceneData sc = b.build();
    RenderParams rp;
    rp.width = rp.height = 32;
    rp.spp = 256;
    rp.max_depth = 1;
    ASSERT_EQ(set_filter(rp, "mitchell"), "");
    for (Mode mode : {Mode::Megakernel, Mode::Wavefront}) {
        Image img = render_gpu(sc, rp, mode);
        double mean = 0;
        for (float v : img.rgb) mean += v;
        EXPECT_NEAR(mean / double(img.rgb.size()), 1.0, 0.01) << mode_name(mode);
    }
}

// --devices on one GPU: a render split over RenderOptions::devices (host/render/multi_device.h). `{0}` is one worker
// taking the whole range; `{0, 0}` two logical workers on GPU 0, each with its own thread, stream, scene copy, film
// and queues, taking batches from the shared counter. Both give the default single-GPU render's film bit for bit:
// the megakernel, and the wavefront with and without its drain: the paths that reach the drain depend on where the
// batches end (every batch ends with a tail of its own), and the drain rounds a path as the stage kernels do
// (no contraction: Gpu.DrainMatchesIterationsBitForBit).
namespace {
uint64_t batches_taken(const RenderStats& st) {
    uint64_t n = 0;
    for (const DeviceStat& d : st.devices) n += d.batches;
    return n;
}
}  // namespace

TEST(GpuDevices, OneAndTwoWorkersEqualTheSingleGpuRenderInBothModes) {
    REQUIRE_GPU();
    LoadedScene glossy = small_gpu_scene("glossy-glass.json");
    SceneData box = cornell();
    RenderParams rb;
    rb.width = rb.height = 256;
    rb.spp = 64;
    rb.max_depth = 8;
    rb.seed = 3;
    for (int scene = 0; scene < 2; ++scene) {
        const SceneData& sd = scene ? glossy.data : box;
        const RenderParams& rp = scene ? glossy.params : rb;
        const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
        for (int variant = 0; variant < 3; ++variant) {  // megakernel, wavefront without and with the drain
            const Mode m = variant ? Mode::Wavefront : Mode::Megakernel;
            const bool drain = variant == 2;
            const std::string what =
                std::string(scene ? "glossy-glass " : "cornell ") + mode_name(m) + (variant == 1 ? " --drain 0" : "");
            RenderOptions base;
            base.drain_below = drain ? RenderOptions::kDefaultDrainBelow : 0u;
            RenderStats s0, s1, s2;
            const Image single = render_gpu(sd, rp, m, base, &s0);
            double lit = 0;
            for (float v : single.rgb) lit += v;
            ASSERT_GT(lit, 0.0) << what;
            RenderOptions one = base;
            one.devices = {0};
            expect_same_film(render_gpu(sd, rp, m, one, &s1), single, what + ", devices 0");  // (even with the drain)
            ASSERT_EQ(s1.devices.size(), 1u);
            EXPECT_EQ(s1.devices[0].batches, 1u);  // one worker: the whole range at once
            EXPECT_EQ(s1.devices[0].samples, all);
            EXPECT_EQ(s1.devices[0].device, 0);
            RenderOptions two = base;
            two.devices = {0, 0};
            two.split_batch = all / 32 + 1;  // 32 batches
            const Image split = render_gpu(sd, rp, m, two, &s2);
            size_t differ = 0;
            for (size_t k = 0; k < split.rgb.size(); ++k) differ += split.rgb[k] != single.rgb[k];
            expect_same_film(split, single, what + ", devices 0,0");  // (with the drain too: no contraction)
            if (drain) EXPECT_GT(s2.drained, 0u);
            std::printf("%s, devices 0,0: %zu of %zu pixel channels differ from the single render\n", what.c_str(),
                        differ, split.rgb.size());
            ASSERT_EQ(s2.devices.size(), 2u);
            EXPECT_EQ(batches_taken(s2), 32u);
            EXPECT_GE(s2.devices[0].batches, 1u) << what;
            EXPECT_GE(s2.devices[1].batches, 1u) << what;
            EXPECT_EQ(s2.devices[0].samples + s2.devices[1].samples, all);
            EXPECT_EQ(s2.extension_rays, s0.extension_rays) << what;
            EXPECT_EQ(s2.shadow_rays, s0.shadow_rays) << what;
            EXPECT_EQ(s2.paths_at_depth, s0.paths_at_depth) << what;
            EXPECT_NE(s2.device.find("2 x "), std::string::npos) << s2.device;
            EXPECT_GT(s2.render_ms, 0.0);
            EXPECT_GT(s2.devices[0].busy_ms, 0.0);
            EXPECT_EQ(s2.backend, "gpu");
            std::printf("%s: single %.2f ms; devices 0,0: %.2f ms, batches %llu + %llu, busy %.2f + %.2f ms\n",
                        what.c_str(), s0.render_ms, s2.render_ms, (unsigned long long)s2.devices[0].batches,
                        (unsigned long long)s2.devices[1].batches, s2.devices[0].busy_ms, s2.devices[1].busy_ms);
        }
    }
}

// A sample range starting and ending mid-pass (a shard, a resume) over two workers; Mitchell's two films; AOVs on the
// first worker after the beauty. (The wavefront with its default drain: see above.)
TEST(GpuDevices, RangesMitchellAndAovsOverTwoWorkers) {
    REQUIRE_GPU();
    SceneData sd = cornell();
    RenderParams rp;
    rp.width = rp.height = 128;
    rp.spp = 64;
    rp.max_depth = 8;
    const uint64_t np = rp.num_pixels();
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        RenderOptions r;
        r.sample_begin = 3 * np + 123;
        r.sample_end = 40 * np - 7;
        const Image single = render_gpu(sd, rp, m, r);
        r.devices = {0, 0};
        r.split_batch = 50000;
        RenderStats st;
        const Image split = render_gpu(sd, rp, m, r, &st);
        expect_same_film(split, single, std::string("range, ") + mode_name(m));
        EXPECT_EQ(split.first, 3 * np + 123);
        EXPECT_EQ(batches_taken(st), (r.sample_end - r.sample_begin + 49999) / 50000);
        RenderParams mr = rp;
        ASSERT_EQ(set_filter(mr, "mitchell"), "");
        RenderOptions plain;
        RenderOptions two = plain;
        two.devices = {0, 0};
        two.split_batch = 100000;
        expect_same_film(render_gpu(sd, mr, m, two), render_gpu(sd, mr, m, plain),
                         std::string("mitchell, ") + mode_name(m));
        RenderOptions a = plain;
        a.aovs = kAovAlbedo | kAovNormal | kAovDepth;
        const Image with = render_gpu(sd, rp, m, a);
        a.devices = {0, 0};
        a.split_batch = 100000;
        const Image split_aov = render_gpu(sd, rp, m, a);
        expect_same_film(split_aov, with, std::string("with AOVs, ") + mode_name(m));
        ASSERT_FALSE(with.albedo.empty());
        EXPECT_EQ(split_aov.albedo, with.albedo);
        EXPECT_EQ(split_aov.normal, with.normal);
        EXPECT_EQ(split_aov.depth, with.depth);
    }
}

// A cancel stops the handing out of batches; the workers finish the batches they took: an exact prefix of whole
// batches, the single render of that prefix bit for bit. And the errors: a device that is not there, memory.
TEST(GpuDevices, CancelLeavesAPrefixOfWholeBatchesAndErrorsAreClear) {
    REQUIRE_GPU();
    SceneData sd = cornell();
    RenderParams rp;
    rp.width = rp.height = 512;
    rp.spp = 64;
    rp.max_depth = 8;
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp, batch = 1u << 20;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        std::atomic<bool> cancel{false};
        RenderOptions o;
        o.devices = {0, 0};
        o.split_batch = batch;
        o.cancel = &cancel;
        o.progress = [&](uint64_t d, uint64_t t) {
            EXPECT_EQ(t, all);
            if (d > all / 4) cancel = true;
        };
        RenderStats st;
        const Image cut = render_gpu(sd, rp, m, o, &st);
        ASSERT_TRUE(cut.interrupted) << mode_name(m);
        ASSERT_GT(cut.samples, all / 4);
        ASSERT_LT(cut.samples, all);
        EXPECT_EQ(cut.samples % batch, 0u);
        EXPECT_EQ(batches_taken(st), cut.samples / batch);
        RenderOptions prefix;
        prefix.sample_end = cut.samples;
        expect_same_film(cut, render_gpu(sd, rp, m, prefix), std::string("cancelled, ") + mode_name(m));
    }
    RenderOptions bad;
    bad.devices = {0, gpu_device_count()};
    try {
        render_gpu(sd, rp, Mode::Megakernel, bad);
        ADD_FAILURE() << "rendered on a device that is not there";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("is not a CUDA device here"), std::string::npos) << e.what();
    }
    RenderOptions tight;
    tight.devices = {0, 0};
    tight.device_memory_limit = 1u << 20;
    try {
        render_gpu(sd, rp, Mode::Wavefront, tight);
        ADD_FAILURE() << "rendered within 1 MiB";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("(device 0, shared by 2 workers) has 0.5 MiB free"), std::string::npos)
            << e.what();
    }
    int current = -1;
    WP_CUDA(cudaGetDevice(&current));
    EXPECT_EQ(current, 0);  // the caller's device as it was
}

// The denoiser on the GPU: Open Image Denoise's CUDA device denoises a 16-spp GPU render of the Cornell
// box (256x256, albedo and normal AOVs) at least threefold closer to the Mitsuba reference (averaged over 4x4
// blocks) in relative MSE, and agrees with OIDN's CPU device on the same input to well within that gain.
TEST(Gpu, DenoiserOnTheCudaDeviceLowersRelMseThreefoldAndAgreesWithTheCpu) {
    REQUIRE_GPU();
    ASSERT_EQ(resolve_denoise_device(DenoiseDevice::Auto, true, 0), DenoiseDevice::Cuda)
        << denoiser_problem(DenoiseDevice::Cuda, 0);
    Reference ref = load_reference();
    ASSERT_EQ(ref.w, 1024);
    const int W = 256;
    const std::vector<float> small = reference_blocks(ref, W);
    const DenoiseCase dc = denoise_case(W);
    Image raw = render_gpu(cornell(), dc.rp, Mode::Wavefront, dc.o);
    ASSERT_EQ(raw.albedo.size(), raw.rgb.size());
    denoise_image(raw, DenoiseDevice::Cuda, 0);  // warm-up: the CUDA device loads its kernels
    const auto t0 = std::chrono::steady_clock::now();
    Image gpu = denoise_image(raw, DenoiseDevice::Cuda, 0);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    Image cpu = denoise_image(raw, DenoiseDevice::Cpu, 0);
    ASSERT_EQ(gpu.rgb.size(), raw.rgb.size());
    const double a = relmse(raw.rgb, small), b = relmse(gpu.rgb, small), c = relmse(cpu.rgb, small);
    const double between = relmse(gpu.rgb, cpu.rgb);
    std::printf("relMSE: 16 spp %.5f, CUDA-denoised %.5f (%.1fx lower, %.1f ms), CPU-denoised %.5f; CUDA vs CPU %.6f\n",
                a, b, a / b, ms, c, between);
    EXPECT_GT(a, 3 * b);
    EXPECT_LT(between, 0.1 * b);
}

// An emission of 1e38 is added clamped at 1e6 per sample (kernels/film.h) and every clamped sample counted, on the
// GPU as on the CPU (tests/test_bad_input.cpp): both schedules count about what the CPU counts (paths graze the
// sphere's silhouette differently in the last bits), and a pixel that sees only the emitter holds 1e6.
TEST(Gpu, ClampedSamplesCountedLikeTheCpu) {
    REQUIRE_GPU();
    const std::string p = temp_dir() + "gpu-bright.json";
    std::ofstream(p) << R"({"render": {"width": 16, "height": 16, "spp": 2},
      "camera": {"position": [0, 0, 5], "target": [0, 0, 0], "fov": 30},
      "materials": {"m": {"type": "lambert"}},
      "objects": [{"type": "sphere", "material": "m", "radius": 1, "emission": 1e38}]})";
    LoadedScene ls = load_scene_json(p);
    const Image cpu = render_cpu(ls.data, ls.params, Mode::Megakernel);
    ASSERT_GT(cpu.clamped, 0u);
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        const Image gpu = render_gpu(ls.data, ls.params, m);
        EXPECT_NEAR(double(gpu.clamped), double(cpu.clamped), 0.02 * double(cpu.clamped)) << mode_name(m);
        EXPECT_EQ(gpu.nonfinite, 0u) << mode_name(m);
        EXPECT_FLOAT_EQ(gpu.rgb[3 * (8 * 16 + 8)], 1e6f) << mode_name(m);
    }
}
