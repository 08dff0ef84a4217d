// The wavefront schedule on the CPU backend: compaction, determinism against the megakernel, statistical
// agreement with independent seeds (with a negative control), and the statistics it reports.
#include <gtest/gtest.h>
#include <algorithm>
#include <new>
#include <random>
#include <set>
#include "host/image/image_stats.h"
#include "host/render/render.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_pbrt.h"
#include "kernels/kernel_variants.h"
#include "kernels/wavefront.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
LoadedScene scene(const char* name) { return load_scene_json(wp_test::source_dir() + "/scenes/" + name); }
// The scene at 32x32 pixels (square camera) and 8 spp: 8192 samples, for the schedule-against-schedule tests.
LoadedScene small_scene(const char* name) {
    LoadedScene ls = scene(name);
    ls.params.width = ls.params.height = 32;
    ls.data.camera.aspect = 1.0f;
    ls.params.spp = 8;
    return ls;
}

struct SoAHost {  // host arrays for one PathSoA
    PathSoA q;
    std::vector<void*> owned;
    explicit SoAHost(size_t n) {
        q.visit([&](void** p, size_t bytes, const char*) {
            *p = ::operator new(bytes* n, std::align_val_t(16));
            owned.push_back(*p);
        });
    }
    ~SoAHost() {
        for (void* p : owned) ::operator delete(p, std::align_val_t(16));
    }
};
}  // namespace

TEST(Wavefront, SoAFieldsListedOnce) {
    EXPECT_EQ(PathSoA::kBytesPerItem, 3 * 16u + 4u);
    EXPECT_EQ(HitSoA::kBytesPerItem, 16u);
    EXPECT_EQ(ShadowSoA::kBytesPerItem, 3 * 16u);
    size_t fields = 0;
    PathSoA q;
    q.visit([&](void**, size_t bytes, const char*) { fields += bytes == 16 || bytes == 4 ? 1 : 0; });
    EXPECT_EQ(fields, 4u);
    // store/load round trip through the arrays
    SoAHost h(2);
    auto roundtrip = [&](const PathState& x) {
        h.q.store(1, x);
        return h.q.load(1);
    };
    PathState p;
    p.origin = vec3(1, 2, 3);
    p.dir = vec3(0, 0.6f, 0.8f);
    p.beta = vec3(0.5f, 0.25f, 0.125f);
    p.pixel = 77;
    p.sample = 5;
    p.depth = 3;
    p.pdf_prev = 0.3f;
    p.flags = kPrevDelta;
    PathState r = roundtrip(p);
    EXPECT_EQ(r.origin, p.origin);
    EXPECT_EQ(r.dir, p.dir);
    EXPECT_EQ(r.beta, p.beta);
    EXPECT_EQ(r.pixel, 77u);
    EXPECT_EQ(r.sample, 5u);
    EXPECT_EQ(r.depth, 3u);
    EXPECT_EQ(r.pdf_prev, 0.3f);
    EXPECT_EQ(r.flags, uint32_t(kPrevDelta));
    // the largest pixel, sample and depth the render limits allow (2^28 pixels, 2^24 spp, depth 1024) keep their
    // bits in the float lanes and the 16-bit depth field
    p.pixel = (1u << 28) - 1;
    p.sample = (1u << 24) - 1;
    p.depth = 1024;
    p.flags = 0;
    r = roundtrip(p);
    EXPECT_EQ(r.pixel, p.pixel);
    EXPECT_EQ(r.sample, p.sample);
    EXPECT_EQ(r.depth, 1024u);
    EXPECT_EQ(r.flags, 0u);
    Hit miss{kInf, kInvalid, 0.25f, 0.5f};
    alignas(16) F4 rec[1];
    HitSoA hq;
    hq.tpuv = rec;
    hq.store(0, miss);
    EXPECT_EQ(hq.load(0).prim, kInvalid);
    EXPECT_EQ(hq.load(0).t, kInf);
    EXPECT_EQ(hq.load(0).v, 0.5f);
}

// Random alive masks of several densities: every live item is kept once, in order, with all its fields.
TEST(Wavefront, CompactionKeepsEveryLiveItemOnce) {
    std::mt19937 rng(3);
    const uint32_t n = 10007;
    SoAHost in(n), out(n);
    WavefrontQueues q;
    q.paths = in.q;
    q.next = out.q;
    for (uint32_t i = 0; i < n; ++i) {
        PathState p{};
        p.origin = vec3(float(i), 1, 2);
        p.dir = vec3(0, 0, 1);
        p.beta = vec3(float(i) * 0.5f);
        p.pixel = i;
        p.sample = 2 * i;
        in.q.store(i, p);
    }
    for (double density : {0.0, 0.01, 0.5, 0.93, 1.0}) {
        std::vector<uint8_t> alive(n);
        std::bernoulli_distribution bd(density);
        uint32_t expect = 0;
        for (auto& a : alive) expect += (a = bd(rng) ? 1 : 0);
        std::vector<uint32_t> sel(n);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (alive[i]) sel[m++] = i;
        ASSERT_EQ(m, expect) << density;
        q.selected = sel.data();
        for (uint32_t i = 0; i < m; ++i) stage::compact(q, i);
        std::set<uint32_t> seen;
        for (uint32_t i = 0; i < m; ++i) {
            PathState p = out.q.load(i);
            ASSERT_LT(p.pixel, n);
            EXPECT_TRUE(alive[p.pixel]) << "dead item kept";
            EXPECT_TRUE(seen.insert(p.pixel).second) << "duplicate";
            if (i > 0) EXPECT_GT(p.pixel, out.q.load(i - 1).pixel);  // order kept
            EXPECT_EQ(p.sample, 2 * p.pixel);
            EXPECT_EQ(p.origin.x, float(p.pixel));
            EXPECT_EQ(p.beta.y, float(p.pixel) * 0.5f);
        }
        EXPECT_EQ(seen.size(), size_t(expect));
    }
}

// The ray sort's key: the direction's octant above the Morton code of the origin's cell on a 128^3 grid of the
// scene's box.
TEST(Wavefront, RaySortKeyIsOctantThenMortonOrderOfTheOrigin) {
    SceneView s;
    s.bounds_lo = vec3(-1.0f);
    s.bounds_hi = vec3(1.0f);
    const vec3 up(0.0f, 1.0f, 0.0f);
    EXPECT_EQ(ray_sort_key(s, vec3(-1.0f), up), 0u);             // the first cell, octant 0
    EXPECT_EQ(ray_sort_key(s, vec3(1.0f), up), (1u << 21) - 1);  // the last cell
    // cell (1, 0, 0) is Morton 1, (0, 1, 0) 2, (0, 0, 1) 4, (1, 1, 1) 7, (2, 0, 0) 8
    const float c = 2.0f / 128.0f;  // a cell's size
    auto cell = [&](int x, int y, int z) { return vec3(-1.0f) + c * (vec3(float(x), float(y), float(z)) + 0.5f); };
    EXPECT_EQ(ray_sort_key(s, cell(1, 0, 0), up), 1u);
    EXPECT_EQ(ray_sort_key(s, cell(0, 1, 0), up), 2u);
    EXPECT_EQ(ray_sort_key(s, cell(0, 0, 1), up), 4u);
    EXPECT_EQ(ray_sort_key(s, cell(1, 1, 1), up), 7u);
    EXPECT_EQ(ray_sort_key(s, cell(2, 0, 0), up), 8u);
    // the octant above: -x is 1, -y 2, -z 4
    EXPECT_EQ(ray_sort_key(s, cell(0, 0, 0), vec3(-1.0f, 1.0f, 1.0f)), 1u << 21);
    EXPECT_EQ(ray_sort_key(s, cell(0, 0, 0), vec3(1.0f, -1.0f, -1.0f)), 6u << 21);
    // outside the box: clamped to its cells
    EXPECT_EQ(ray_sort_key(s, vec3(5.0f, -1.0f, -1.0f), up), ray_sort_key(s, cell(127, 0, 0), up));
    // Empty shadow slots take the largest key, which the last cell's rays of octant 7 share: they sort after every
    // ray only because the sort is stable and they follow every ray in the queue; every key fits the sorted bits.
    EXPECT_EQ(ray_sort_key(s, vec3(1.0f), vec3(-1.0f)), kRayKeyNone);
    EXPECT_EQ(kRayKeyNone >> kRayKeySortBits, 0u);
}

// The bench's per-ray work figures: every counted camera ray visits at least the root and a closed box's rays all
// hit, so each bounce is counted too; counting changes no hit.
TEST(Wavefront, TraversalCountedPerRayOfTheRayCastPass) {
    LoadedScene ls = small_scene("cornell-box.json");
    RenderParams rp = ls.params;
    const TraversalFigures f = count_traversal(ls.data, rp, 1000, 2);
    const uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    EXPECT_EQ(f.primary_rays, total / std::max<uint64_t>(1, total / 1000));
    EXPECT_GE(f.primary_nodes, 1.0);
    EXPECT_GT(f.primary_prims, 0.0);
    EXPECT_GT(f.diffuse_rays, f.primary_rays / 2);  // the camera sees the box's inside almost everywhere
    EXPECT_LE(f.diffuse_rays, f.primary_rays);
    EXPECT_GE(f.diffuse_nodes, 1.0);
    const SceneView s = ls.data.view();
    const RenderParams pp = rp.prepared();
    for (uint64_t i = 0; i < 64; ++i) {
        const Ray r = path_ray(generate_path(s, pp, i * 97));
        TraversalCount c;
        const Hit a = traverse_ww<false>(s, r, 0.0f, kInf, &c), b = traverse_ww<false>(s, r, 0.0f, kInf);
        EXPECT_EQ(a.prim, b.prim);
        EXPECT_EQ(a.t, b.t);
        EXPECT_GE(c.nodes, 1u);
    }
}

// Same seed: both schedules draw the same random numbers for the same path and the film sums in fixed point,
// so the images agree bit for bit, and so do the ray counts. Small capacities force regeneration.
TEST(Wavefront, SameSeedMatchesMegakernelBitForBit) {
    for (const char* name : {"cornell-box.json", "glossy-glass.json"}) {
        LoadedScene ls = small_scene(name);
        RenderParams rp = ls.params;
        RenderStats sm, sw, ss;
        Image mk = render_cpu(ls.data, rp, Mode::Megakernel, {}, &sm);
        RenderOptions small;
        small.capacity = 1000;  // 8192 samples through a queue of 1000
        Image wf = render_cpu(ls.data, rp, Mode::Wavefront, small, &sw);
        small.sort_materials = true;
        Image so = render_cpu(ls.data, rp, Mode::Wavefront, small, &ss);
        // rays traced in key order in the iterations of at least 500 paths (the full ones and some of the tail)
        RenderOptions ray_sorted;
        ray_sorted.capacity = 1000;
        ray_sorted.sort_rays = 500;
        RenderStats sr;
        Image ro = render_cpu(ls.data, rp, Mode::Wavefront, ray_sorted, &sr);
        EXPECT_EQ(mk.rgb, wf.rgb) << name;
        EXPECT_EQ(mk.rgb, so.rgb) << name << " (sorted)";
        EXPECT_EQ(mk.rgb, ro.rgb) << name << " (rays sorted)";
        EXPECT_EQ(sr.extension_rays, sw.extension_rays) << name;
        EXPECT_EQ(sr.shadow_rays, sw.shadow_rays) << name;
        bool sorted = false;
        for (const KernelRow& k : sr.kernels) sorted |= k.name == "sort_rays" && k.launches > 0;
        EXPECT_TRUE(sorted) << name;
        // the ray-cast pass with its bounces sorted: the same rays
        const RaycastStats ra = raycast_cpu(ls.data, rp, small), rb = raycast_cpu(ls.data, rp, ray_sorted);
        EXPECT_EQ(ra.diffuse_rays, rb.diffuse_rays) << name;
        EXPECT_GT(rb.diffuse_sort_ms, 0.0) << name;
        EXPECT_EQ(sm.extension_rays, sw.extension_rays) << name;
        EXPECT_EQ(sm.shadow_rays, sw.shadow_rays) << name;
        EXPECT_GT(sw.iterations.size(), 8u);
        double mean = 0;
        for (float v : wf.rgb) mean += v;
        EXPECT_GT(mean / wf.rgb.size(), 0.01) << name;  // not an empty image
        // statistics add up
        unsigned long long paths = 0, shadows = 0;
        for (auto v : sw.paths_at_depth) paths += v;
        for (auto v : sw.shadow_at_depth) shadows += v;
        EXPECT_EQ(paths, sw.extension_rays);
        EXPECT_EQ(shadows, sw.shadow_rays);
        EXPECT_EQ(sw.paths_at_depth[0], uint64_t(rp.num_pixels()) * rp.spp);
        uint64_t generated = 0;
        for (const IterationStat& it : sw.iterations) {
            generated += it.generated;
            EXPECT_LE(it.extended, 1000u);
            EXPECT_LE(it.live, it.extended);
        }
        EXPECT_EQ(generated, uint64_t(rp.num_pixels()) * rp.spp);
        EXPECT_EQ(sw.iterations.back().live, sw.drained);  // the tail drain (default) finishes what is left
    }
}

// The tail drain (RenderOptions::drain_below): the last live paths run to their ends one per thread, after the
// iterations that generated every camera path. The same image bit for bit as the iterations it replaces and as the
// megakernel, the same rays, every segment in the depth histograms once; and a negative control: shorter paths
// must not match.
TEST(Wavefront, DrainMatchesIterationsBitForBit) {
    for (const char* name : {"cornell-box.json", "glossy-glass.json"}) {
        LoadedScene ls = small_scene(name);
        RenderParams rp = ls.params;
        RenderOptions a, b;
        a.capacity = b.capacity = 1000;
        a.drain_below = 0;
        b.drain_below = 600;  // below the queue size: the drain waits for the queue to shrink
        RenderStats sa, sb, sm;
        Image x = render_cpu(ls.data, rp, Mode::Wavefront, a, &sa),
              y = render_cpu(ls.data, rp, Mode::Wavefront, b, &sb);
        Image mk = render_cpu(ls.data, rp, Mode::Megakernel, {}, &sm);
        EXPECT_EQ(x.rgb, y.rgb) << name;
        EXPECT_EQ(mk.rgb, y.rgb) << name;
        EXPECT_EQ(sa.extension_rays, sb.extension_rays) << name;
        EXPECT_EQ(sa.shadow_rays, sb.shadow_rays) << name;
        EXPECT_EQ(sm.extension_rays, sb.extension_rays) << name;
        EXPECT_EQ(sa.drained, 0u);
        EXPECT_GT(sb.drained, 0u) << name;
        EXPECT_LE(sb.drained, 600u) << name;
        EXPECT_LT(sb.iterations.size(), sa.iterations.size()) << name;
        EXPECT_EQ(sa.paths_at_depth, sb.paths_at_depth) << name;
        EXPECT_EQ(sa.shadow_at_depth, sb.shadow_at_depth) << name;
        uint64_t generated = 0;
        for (const IterationStat& it : sb.iterations) generated += it.generated;
        EXPECT_EQ(generated, uint64_t(rp.num_pixels()) * rp.spp);
        EXPECT_EQ(y.samples, uint64_t(rp.num_pixels()) * rp.spp);
        double mean = 0;
        for (float v : y.rgb) mean += v;
        EXPECT_GT(mean / y.rgb.size(), 0.01) << name;  // not an empty image
        // negative control: paths cut at three segments change the image (the comparison above can fail)
        RenderParams shorter = rp;
        shorter.max_depth = 3;
        Image z = render_cpu(ls.data, shorter, Mode::Wavefront, b);
        EXPECT_NE(z.rgb, y.rgb) << name;
    }
}

// Independent seeds: M renders per schedule, per 16x16 tile and channel a Welch t of the tile means. The same
// expectation gives mean z^2 near 1; a 3% brightness error in one schedule (the negative control) must fail.
TEST(Wavefront, AgreesWithMegakernelStatistically) {
    struct Case {
        const char* name;
        uint32_t spp, max_depth;
    };
    for (Case c : {Case{"cornell-box.json", 16, 65}, Case{"glossy-glass.json", 64, 12}}) {
        LoadedScene ls = scene(c.name);
        RenderParams rp = ls.params;
        rp.width = rp.height = 64;
        ls.data.camera.aspect = 1.0f;
        rp.spp = c.spp;
        rp.max_depth = c.max_depth;
        const int M = 8;
        std::vector<Image> a, b, b_biased;
        for (int k = 0; k < M; ++k) {
            rp.seed = 100 + k;
            a.push_back(render_cpu(ls.data, rp, Mode::Megakernel));
            rp.seed = 200 + k;
            RenderOptions o;
            o.capacity = 3000;
            o.sort_materials = k % 2 == 1;
            b.push_back(render_cpu(ls.data, rp, Mode::Wavefront, o));
            b_biased.push_back(b.back());
            for (float& v : b_biased.back().rgb) v *= 1.03f;
        }
        Agreement g = agreement(a, b), bad = agreement(a, b_biased);
        std::printf("%s: %zu tile tests, mean z^2 %.3f, max |z| %.2f; 3%% biased: mean z^2 %.2f\n", c.name, g.tests,
                    g.z2_mean, g.z_max, bad.z2_mean);
        EXPECT_EQ(g.tests, 48u);
        EXPECT_LT(g.z2_mean, 2.0) << c.name;
        EXPECT_LT(g.z_max, 6.0) << c.name;
        EXPECT_GT(bad.z2_mean, 3.0) << c.name << ": the test cannot see a 3% error";
    }
}

// Compare_images on identical and different images.
TEST(Wavefront, CompareImages) {
    Image a;
    a.width = a.height = 32;
    a.rgb.assign(3 * 32 * 32, 0.0f);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (float& v : a.rgb) v = u(rng);
    ImageDiff same = compare_images(a, a);
    EXPECT_EQ(same.identical, 1.0);
    EXPECT_EQ(same.rmse, 0.0);
    EXPECT_EQ(same.z_max, 0.0);
    Image b = a;
    for (float& v : b.rgb) v += 0.2f;
    ImageDiff d = compare_images(a, b);
    EXPECT_EQ(d.identical, 0.0);
    EXPECT_NEAR(d.rmse, 0.2, 1e-5);
    EXPECT_GT(d.z2_mean, 10.0);  // 0.2 against a per-pixel std of 0.29 over 256 pixels: z about 7
}

// Interruption: once `cancel` turns true the render takes no new samples, finishes the paths in flight, and the
// image holds exactly the samples [0, n), each pixel divided by its own count. Inside an emitting sphere of
// black material every sample is exactly the emission, so every pixel with a sample is exactly 1.
TEST(Wavefront, CancelKeepsTheSamplesSoFar) {
    SceneBuilder b;
    b.sphere(vec3(0), 5.0f, b.lambert(vec3(0.0f)), vec3(1.0f), true);
    b.set_camera(make_camera(vec3(0), vec3(0, 0, -1), vec3(0, 1, 0), 60.0f, 1.0f));
    SceneData sd = b.build();
    RenderParams rp;
    rp.width = 42;  // 1554 pixels: tiles of 8x4, a right strip 2 wide and a bottom row (RenderParams::pixel_of_rank)
    rp.height = 37;
    rp.spp = 50;
    rp.max_depth = 4;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        std::atomic<bool> cancel{false};
        RenderOptions o;
        o.capacity = 1000;
        o.cancel = &cancel;
        int calls = 0;
        o.progress = [&](uint64_t, uint64_t) {
            if (++calls == 3) cancel = true;
        };
        Image img = render_cpu(sd, rp, m, o);
        EXPECT_TRUE(img.interrupted) << mode_name(m);
        uint64_t expect = m == Mode::Megakernel ? 3 * 1554 : 3000;  // three batches / three queue fills
        EXPECT_EQ(img.samples, expect) << mode_name(m);
        size_t lit = 0;
        for (uint32_t p = 0; p < 1554; ++p) {
            float v = img.rgb[3 * p];
            if (v != 0.0f) {
                EXPECT_EQ(v, 1.0f) << p;
                ++lit;
            }
        }
        EXPECT_EQ(lit, std::min<uint64_t>(expect, 1554));
    }
    Image full = render_cpu(sd, rp, Mode::Wavefront);
    EXPECT_FALSE(full.interrupted);
    EXPECT_EQ(full.samples, 1554u * 50u);
}

// The order a sample pass visits the pixels in: every pixel once (a bijection with its inverse), the first 32
// ranks one 8x4 block, and the pixels outside whole tiles (right and bottom strips) in row order after them.
TEST(Wavefront, PixelOrderVisitsEveryPixelOnceInTiles) {
    const uint32_t sizes[][2] = {{1, 1}, {7, 3}, {8, 4}, {13, 9}, {33, 5}, {42, 37}, {768, 575}, {1280, 720}};
    for (const auto& wh : sizes) {
        RenderParams rp;
        rp.width = wh[0];
        rp.height = wh[1];
        const uint32_t np = rp.num_pixels();
        std::vector<int> seen(np, 0);
        for (uint32_t k = 0; k < np; ++k) {
            const uint32_t p = rp.pixel_of_rank(k);
            ASSERT_LT(p, np) << wh[0] << "x" << wh[1] << " rank " << k;
            ++seen[p];
            ASSERT_EQ(rp.rank_of_pixel(p), k) << wh[0] << "x" << wh[1] << " pixel " << p;
        }
        for (uint32_t p = 0; p < np; ++p) ASSERT_EQ(seen[p], 1) << wh[0] << "x" << wh[1] << " pixel " << p;
        if (rp.width >= 8 && rp.height >= 4)
            for (uint32_t k = 0; k < 32; ++k) EXPECT_EQ(rp.pixel_of_rank(k), (k / 8) * rp.width + k % 8) << k;
        // the last pixel of the order is the last pixel of the image whenever a strip is left over
        if (rp.width % 8 != 0 || rp.height % 4 != 0) EXPECT_EQ(rp.pixel_of_rank(np - 1), np - 1);
        // generate_path splits a path index into (sample, rank) with a 32-bit division below 2^32, a 64-bit one above
        // (divisions by multiply-high once prepared, plain ones before: both)
        SceneView s{};
        const RenderParams fast = rp.prepared();
        for (uint64_t index :
             std::initializer_list<uint64_t>{0, uint64_t(np) - 1, uint64_t(np), uint64_t(np) * 7 + 3, (1ull << 32) - 1,
                                             1ull << 32, (1ull << 32) + 12345, (1ull << 40) - 1})
            for (const RenderParams* r : std::initializer_list<const RenderParams*>{&rp, &fast}) {
                const PathState p = generate_path(s, *r, index);
                EXPECT_EQ(p.sample, uint32_t(index / np)) << index;
                EXPECT_EQ(p.pixel, rp.pixel_of_rank(uint32_t(index % np))) << index;
            }
        for (uint32_t k = 0; k < np; ++k) ASSERT_EQ(fast.pixel_of_rank(k), rp.pixel_of_rank(k)) << k;
    }
}

// FastDiv (generate's divisions by the pixel count and the tiles per row) is exact for every 32-bit dividend:
// divisors of every size, dividends at and around multiples of them and at the ends of the range.
TEST(Wavefront, FastDivIsExact) {
    std::mt19937 rng(11);
    std::vector<uint32_t> divisors = {1,
                                      2,
                                      3,
                                      5,
                                      7,
                                      8,
                                      96,
                                      160,
                                      641,
                                      1554,
                                      921600,
                                      6700417,
                                      (1u << 28) - 1,
                                      1u << 31,
                                      (1u << 31) + 1,
                                      0xfffffffeu,
                                      0xffffffffu};
    for (int i = 0; i < 200; ++i) divisors.push_back(rng() >> (rng() % 32));
    for (uint32_t d : divisors) {
        if (d == 0) continue;
        const FastDiv f = FastDiv::make(d);
        std::vector<uint32_t> ns = {0, 1, d - 1, d, 0xffffffffu, 0xfffffffeu, 0x80000000u};
        for (uint64_t q : std::initializer_list<uint64_t>{1, 2, 3, 0xffffffffull / d, 0xffffffffull / d - 1})
            for (int64_t e : {-1, 0, 1}) {
                const int64_t n = int64_t(q * d) + e;
                if (n >= 0 && n <= 0xffffffffll) ns.push_back(uint32_t(n));
            }
        for (int i = 0; i < 300; ++i) ns.push_back(rng());
        for (uint32_t n : ns) ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
    EXPECT_EQ(FastDiv::make(0).d, 0u);  // not set up: generate divides the slow way
}

// Compaction by push (shade appends survivors to the next queue, in a nondeterministic order across threads)
// gives the select-and-gather wavefront's image bit for bit, with the same rays.
TEST(Wavefront, PushCompactionMatchesSelectAndGather) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/glossy-glass.json");
    RenderParams rp = ls.params;
    rp.width = rp.height = 48;
    rp.spp = 4;
    RenderOptions a, b;
    a.threads = b.threads = 2;
    a.capacity = b.capacity = 1000;
    a.push_compaction = false;
    b.push_compaction = true;
    RenderStats sa, sb;
    Image x = render_cpu(ls.data, rp, Mode::Wavefront, a, &sa), y = render_cpu(ls.data, rp, Mode::Wavefront, b, &sb);
    EXPECT_TRUE(x.rgb == y.rgb);
    EXPECT_EQ(sa.extension_rays, sb.extension_rays);
    EXPECT_EQ(sa.shadow_rays, sb.shadow_rays);
    for (const KernelRow& k : sb.kernels) EXPECT_TRUE(k.name != "compact" && k.name != "compact_select") << k.name;
    bool select_rows = false;
    for (const KernelRow& k : sa.kernels) select_rows |= k.name == "compact_select";
    EXPECT_TRUE(select_rows);
    RenderOptions d;  // the defaults: push
    EXPECT_TRUE(d.push_compaction);
    // without the per-depth counts (--no-queue-stats): the same image, no histograms; with them, every segment
    // counted once
    RenderOptions c = b;
    c.queue_stats = false;
    RenderStats sc;
    Image z = render_cpu(ls.data, rp, Mode::Wavefront, c, &sc);
    EXPECT_TRUE(z.rgb == y.rgb);
    EXPECT_TRUE(sc.paths_at_depth.empty());
    uint64_t segs = 0;
    for (unsigned long long v : sb.paths_at_depth) segs += v;
    EXPECT_EQ(segs, sb.extension_rays);
}

// Shade by material family (kernels/features.h): each family's kernel is compiled with its own material and no
// other, keeps the options' bits, and every family of every set (and of its options instance) is among the
// instances shade compiles (kernels/kernel_variants.h); a scene shades by family where it has two families or more.
TEST(Wavefront, FamilyKernelsHoldTheirOwnMaterialOnly) {
    const auto masks = family_masks<kWithClampCrop>();
    auto compiled = [&](uint32_t m) { return std::find(masks.v, masks.v + masks.n, m) != masks.v + masks.n; };
    for (uint32_t set : kFeatureSets) {
        for (uint32_t o : {0u, uint32_t(kWithClampCrop)}) {
            const uint32_t mask = o ? options_set(set) | o : set;
            EXPECT_TRUE(compiled(mask)) << feature_set_name(set);
            for (uint32_t f = 0; f < kNumFamilies; ++f) {
                if (!(families_of(mask) >> f & 1u)) continue;
                const uint32_t ff = family_features(mask, f);
                EXPECT_EQ(ff & kMaterialFeatures, kFamilyBits[f]) << kFamilyNames[f];
                EXPECT_EQ(ff & ~kFeaturesAll, o) << kFamilyNames[f];  // the options' bits kept
                EXPECT_EQ(ff & ~mask, 0u) << "a family's kernel holds no feature its set lacks";
                EXPECT_TRUE(compiled(ff)) << feature_set_name(set) << " " << kFamilyNames[f];
                if (f != kFamilyMiss) EXPECT_EQ(ff & ~kMaterialFeatures, mask & ~kMaterialFeatures);
            }
        }
    }
    EXPECT_FALSE(shade_by_family(kFeatTriangles | kFeatLambert));
    EXPECT_EQ(shade_single_family(kFeatTriangles | kFeatLambert), uint32_t(kFamilyLambert));
    EXPECT_TRUE(shade_by_family(kFeatTriangles | kFeatLambert | kFeatLayered));
    // (only the coated scenes: the others measured slower by family, LOG entry 66)
    EXPECT_FALSE(shade_by_family(kFeatSpheres | kFeatLambert | kFeatConductor | kFeatDielectric));
    EXPECT_FALSE(shade_by_family(kFeatTriangles | kFeatLayered));
    EXPECT_EQ(shade_single_family(kFeatTriangles | kFeatLambert | kFeatLayered), uint32_t(kFamilyMiss));
    EXPECT_EQ(shade_single_family(kFeatTriangles | kFeatBump | kFeatLayered), uint32_t(kFamilyLayered));
    EXPECT_STREQ(kFamilyStageNames[kFamilyDiffuseTransmission], "shade_diffuse_transmission");
}

// extend's push into the family queues: after an extend over n paths, every path is in exactly one queue, the queue
// of its hit's family (a miss in family 0's), and the counts add up to n.
TEST(Wavefront, ExtendPutsEveryPathInItsFamilysQueueOnce) {
    LoadedScene ls = small_scene("glossy-glass.json");
    const SceneView s = ls.data.view();
    ASSERT_GE(__builtin_popcount(families_of(s.features)), 3) << "the scene must have several material families";
    const uint32_t n = 4096;
    SoAHost paths(n);
    WavefrontQueues q;
    q.paths = paths.q;
    std::vector<void*> owned;
    q.hits.visit([&](void** p, size_t bytes, const char*) {
        *p = ::operator new(bytes* n, std::align_val_t(16));
        owned.push_back(*p);
    });
    std::vector<uint32_t> counters(kNumCounters, 0), items(size_t(n) * kNumFamilies, kInvalid);
    q.counters = counters.data();
    q.family_items = items.data();
    q.capacity = n;
    for (uint32_t i = 0; i < n; ++i) stage::generate(s, ls.params, q, i, uint64_t(i) * 7);
    for (uint32_t i = 0; i < n; ++i) stage::extend(s, q, i);
    std::vector<int> seen(n, 0);
    uint32_t total = 0, nonempty = 0;
    for (uint32_t f = 0; f < kNumFamilies; ++f) {
        const uint32_t c = counters[kFamilyCount + f];
        total += c;
        nonempty += c > 0;
        for (uint32_t k = 0; k < c; ++k) {
            const uint32_t j = items[size_t(f) * n + k];
            ASSERT_LT(j, n);
            seen[j]++;
            EXPECT_EQ(stage::hit_family(s, q.hits.load(j)), f);
        }
    }
    EXPECT_EQ(total, n);
    EXPECT_GE(nonempty, 3u);  // misses and at least two materials
    for (uint32_t j = 0; j < n; ++j) EXPECT_EQ(seen[j], 1) << "path " << j;
    for (void* p : owned) ::operator delete(p, std::align_val_t(16));
}

// Shade by family end to end on the CPU (the coated scenes shade so, LOG entry 66): the wavefront's family bodies
// over the queues extend filled give the megakernel's image bit for bit, through a small queue (many iterations and
// the drain), each family the scene has shading paths; with the materials sorted the whole set's body runs instead.
TEST(Wavefront, ShadeByFamilyMatchesMegakernelBitForBit) {
    const std::string dir = wp_test::source_dir() + "/tests/parity/scenes/";
    for (const char* name : {"mat_coatedconductor_rough.pbrt", "mat_coateddiffuse_albedo.pbrt"}) {
        LoadedScene ls = load_pbrt_scene(dir + name);
        ASSERT_TRUE(shade_by_family(ls.data.features())) << name;
        RenderParams rp = ls.params;
        rp.spp = 4;
        Image mk = render_cpu(ls.data, rp, Mode::Megakernel);
        RenderOptions o;
        o.capacity = 1000;
        RenderStats st, ss;
        Image wf = render_cpu(ls.data, rp, Mode::Wavefront, o, &st);
        o.sort_materials = true;
        Image so = render_cpu(ls.data, rp, Mode::Wavefront, o, &ss);
        EXPECT_EQ(mk.rgb, wf.rgb) << name;
        EXPECT_EQ(mk.rgb, so.rgb) << name << " (sorted)";
        double mean = 0;
        for (float v : wf.rgb) mean += v;
        EXPECT_GT(mean / wf.rgb.size(), 0.01) << name;
        ASSERT_EQ(st.family_paths.size(), size_t(kNumFamilies)) << name;
        const uint32_t fams = families_of(ls.data.features());
        for (uint32_t f = 1; f < kNumFamilies; ++f)  // (misses: where the scene lets paths escape)
            EXPECT_EQ(st.family_paths[f] > 0, bool(fams >> f & 1u)) << name << " " << kFamilyNames[f];
        bool whole = false;
        for (const KernelRow& k : ss.kernels) whole |= k.name == "shade";
        EXPECT_TRUE(whole) << name;
        EXPECT_TRUE(ss.family_paths.empty()) << name;
    }
}
