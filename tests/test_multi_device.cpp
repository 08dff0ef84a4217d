// The split render (--devices) on the CPU (what CI has in place of several GPUs): the driver of
// host/render/multi_device.h over CPU workers gives the single render's film bit for bit in both schedules, over a
// sample range, with Mitchell's two films and with AOVs; a cancel leaves an exact prefix of whole batches; a slow
// worker takes fewer batches; a worker's error reaches the caller; and `--devices` is parsed against the GPUs there
// are. The GPU worker's tests are in tests/test_gpu.cpp (GpuDevices.*).
#include <gtest/gtest.h>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include "host/app/cli_support.h"
#include "host/render/multi_device.h"
#include "host/scene/render_limits.h"
#include "kernels/aov.h"
#include "tests/cornell_scene.h"
#include "tests/shard_checks.h"
using namespace wp_test;

namespace {
void expect_same_film(const Image& a, const Image& b, const char* what) {
    EXPECT_EQ(a.first, b.first) << what;
    EXPECT_EQ(a.samples, b.samples) << what;
    expect_same_pixels(a, b, what);
}
double lit(const Image& img) {
    double s = 0;
    for (float v : img.rgb) s += v;
    return s;
}
RenderOptions small_opts() {
    RenderOptions o;
    o.threads = 1;        // each worker one thread: the workers are the parallelism
    o.capacity = 300;     // wavefront: several iterations and regeneration within a batch
    o.split_batch = 333;  // not a pass (660 pixels), not a queue: batches start and end anywhere
    return o;
}
uint64_t batches_taken(const RenderStats& st) {
    uint64_t n = 0;
    for (const DeviceStat& d : st.devices) n += d.batches;
    return n;
}
}  // namespace

TEST(SplitRender, BatchSizeIsAnEighthOfAShareWithinItsBounds) {
    EXPECT_EQ(split_batch_size(1000, 1), 1000u);  // one worker: the whole range at once
    EXPECT_EQ(split_batch_size(1000, 4), kMinSplitBatch);
    EXPECT_EQ(split_batch_size(1ull << 40, 2), kMaxSplitBatch);
    const uint64_t b = split_batch_size(1ull << 30, 4);  // 2^30 / 32 = 32M: at the top
    EXPECT_EQ(b, 1ull << 25);
    const uint64_t c = split_batch_size(3ull << 27, 3);  // 384M / 24 = 16M
    EXPECT_EQ(c, 1ull << 24);
    const uint64_t d = split_batch_size(100000000, 2);  // 6.25M rounded up to 64K
    EXPECT_EQ(d % 65536, 0u);
    EXPECT_GE(d, 100000000u / 16);
    EXPECT_LT(d, 100000000u / 16 + 65536);
    RenderOptions o;
    o.split_batch = 777;
    EXPECT_EQ(split_batch(o, 5000, 3), 777u);
    EXPECT_EQ(split_batch(o, 5000, 1), 5000u);  // (one worker ignores it)
}

// Three CPU workers, batches of 333 samples: the single render's sums and pixels, rays and depth histograms.
TEST(SplitRender, ThreeWorkersEqualTheSingleRenderInBothModes) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        RenderOptions o = small_opts();
        RenderStats s1, s3;
        const Image one = render_cpu(sd, rp, m, o, &s1);
        ASSERT_GT(lit(one), 0.0);
        const Image three = render_cpu_split(sd, rp, m, o, 3, &s3);
        expect_same_film(three, one, mode_name(m));
        EXPECT_FALSE(three.interrupted);
        EXPECT_EQ(three.samples, all);
        EXPECT_EQ(s3.samples, all);
        EXPECT_EQ(s3.extension_rays, s1.extension_rays) << mode_name(m);
        EXPECT_EQ(s3.shadow_rays, s1.shadow_rays) << mode_name(m);
        EXPECT_EQ(s3.paths_at_depth, s1.paths_at_depth) << mode_name(m);
        ASSERT_EQ(s3.devices.size(), 3u);
        EXPECT_EQ(s3.split_batch, 333u);
        EXPECT_EQ(batches_taken(s3), (all + 332) / 333);
        uint64_t samples = 0;
        for (const DeviceStat& d : s3.devices) {
            samples += d.samples;
            EXPECT_EQ(d.device, -1);
            EXPECT_EQ(d.name, "1 threads");
            EXPECT_GE(d.busy_ms, 0.0);
        }
        EXPECT_EQ(samples, all);
        EXPECT_NE(s3.device.find("3 x 1 threads"), std::string::npos) << s3.device;
        EXPECT_GT(s3.render_ms, 0.0);
        uint64_t launches = 0;  // the kernel rows of every worker's batches, summed
        for (const KernelRow& k : s3.kernels)
            launches += k.name == (m == Mode::Megakernel ? "megakernel" : "generate") ? k.launches : 0;
        EXPECT_GE(launches, batches_taken(s3)) << mode_name(m);
    }
}

// A range that starts and ends mid-pass (a shard, a resume), split: the single render of that range.
TEST(SplitRender, ASampleRangeSplitEqualsItsSingleRender) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    const uint64_t np = rp.num_pixels();
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        RenderOptions o = small_opts();
        o.sample_begin = 2 * np + 17;
        o.sample_end = 6 * np - 5;
        const Image one = render_cpu(sd, rp, m, o);
        RenderStats st;
        const Image split = render_cpu_split(sd, rp, m, o, 3, &st);
        expect_same_film(split, one, mode_name(m));
        EXPECT_EQ(split.first, 2 * np + 17);
        EXPECT_EQ(split.samples, 4 * np - 22);
        EXPECT_EQ(batches_taken(st), (4 * np - 22 + 332) / 333);
        RenderOptions whole = small_opts();
        EXPECT_NE(split.sum, render_cpu(sd, rp, m, whole).sum);  // (the range is not the whole)
    }
}

// Mitchell's two films (the signed weights) and the AOVs (on the first worker, after the beauty) split as well.
TEST(SplitRender, MitchellAndAovsSplitLikeTheSingleRender) {
    SceneData sd = cornell();
    RenderParams rp = shard_params();
    ASSERT_EQ(set_filter(rp, "mitchell"), "");
    RenderOptions o = small_opts();
    const Image one = render_cpu(sd, rp, Mode::Megakernel, o);
    ASSERT_EQ(one.sum.size(), 6ull * rp.num_pixels());
    expect_same_film(render_cpu_split(sd, rp, Mode::Megakernel, o, 2), one, "mitchell");
    RenderParams box = shard_params();
    o.aovs = kAovAlbedo | kAovNormal | kAovDepth;
    RenderStats st;
    const Image a = render_cpu(sd, box, Mode::Wavefront, o), b = render_cpu_split(sd, box, Mode::Wavefront, o, 3, &st);
    expect_same_film(b, a, "with AOVs");
    ASSERT_FALSE(a.albedo.empty());
    EXPECT_EQ(b.albedo, a.albedo);
    EXPECT_EQ(b.normal, a.normal);
    EXPECT_EQ(b.depth, a.depth);
    EXPECT_TRUE(b.position.empty());
    bool aov_row = false;
    for (const KernelRow& k : st.kernels) aov_row |= k.name == "aov" && k.launches == 1;
    EXPECT_TRUE(aov_row);
}

// A cancel (from the progress callback, a worker's thread) stops the handing out of batches; the batches taken are
// finished, so the image holds an exact prefix of whole batches: a single render of that prefix, bit for bit.
TEST(SplitRender, CancelLeavesAnExactPrefixOfWholeBatches) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    for (Mode m : {Mode::Megakernel, Mode::Wavefront}) {
        std::atomic<bool> cancel{false};
        RenderOptions o = small_opts();
        o.split_batch = 1000;  // a few of the megakernel's chunks of 256 and of the wavefront's queue of 300
        o.cancel = &cancel;
        std::vector<uint64_t> seen;
        o.progress = [&](uint64_t d, uint64_t t) {
            EXPECT_EQ(t, all);
            seen.push_back(d);  // (the driver calls it under its lock)
            if (d > all / 4) cancel = true;
        };
        RenderStats st;
        const Image cut = render_cpu_split(sd, rp, m, o, 3, &st);
        ASSERT_TRUE(cut.interrupted) << mode_name(m);
        ASSERT_GT(cut.samples, all / 4);
        ASSERT_LT(cut.samples, all);
        EXPECT_EQ(cut.samples % 1000, 0u);  // whole batches
        EXPECT_EQ(batches_taken(st), cut.samples / 1000);
        EXPECT_EQ(st.samples, cut.samples);
        for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1], seen[i]) << "progress went back";
        RenderOptions prefix = small_opts();
        prefix.sample_end = cut.samples;
        expect_same_film(cut, render_cpu(sd, rp, m, prefix), mode_name(m));
    }
    std::atomic<bool> early{true};  // cancelled before it starts: nothing rendered, an empty image
    RenderOptions o = small_opts();
    o.cancel = &early;
    const Image none = render_cpu_split(sd, rp, Mode::Megakernel, o, 2);
    EXPECT_TRUE(none.interrupted);
    EXPECT_EQ(none.samples, 0u);
    EXPECT_EQ(lit(none), 0.0);
    ASSERT_EQ(none.sum.size(), 3ull * rp.num_pixels());
}

namespace {
// A CPU worker that runs `before` ahead of each of its batches (a slower or busier device: it waits there), or
// throws on its n-th batch (setting *thrown first); it counts the batches it finished in `finished`.
class SlowWorker final : public BatchWorker {
public:
    SlowWorker(std::unique_ptr<BatchWorker> w, std::function<void()> before, std::atomic<int>& finished,
               int throw_on = 0, std::atomic<bool>* thrown = nullptr)
        : w_(std::move(w)), before_(std::move(before)), finished_(finished), throw_on_(throw_on), thrown_(thrown) {}
    uint64_t render(uint64_t b, uint64_t e, const std::atomic<bool>* c,
                    const std::function<void(uint64_t)>& p) override {
        if (++batches_ == throw_on_) {
            if (thrown_) *thrown_ = true;
            throw std::runtime_error("worker failed on purpose");
        }
        if (before_) before_();
        const uint64_t took = w_->render(b, e, c, p);
        finished_++;
        return took;
    }
    WorkerFilm film() override { return w_->film(); }
    void aovs(Image& img, uint64_t begin, uint64_t end, RenderStats& st) override { w_->aovs(img, begin, end, st); }

private:
    std::unique_ptr<BatchWorker> w_;
    std::function<void()> before_;
    std::atomic<int>& finished_;
    int throw_on_, batches_ = 0;
    std::atomic<bool>* thrown_;
};

// Waits until done() (polling), at most two minutes: a safety net against a hang, not a bound the test relies on.
template <class F>
void wait_until(F&& done) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!done() && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
}  // namespace

// Dynamic balance: a worker that holds its first batch until the two others have finished every other batch (a
// device slower than they are, however loaded this machine is: counted in batches, not timed) renders that one
// batch and no more of the 27; the image is the same.
TEST(SplitRender, ASlowWorkerTakesFewerBatchesAndTheImageIsTheSame) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    RenderOptions o = small_opts();
    o.split_batch = 200;
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    const int total = int((all + 199) / 200);
    std::atomic<int> slow_done{0}, fast_done{0};
    RenderStats st;
    const Image img = render_split(
        rp, o, 3,
        [&](unsigned k) {
            std::function<void()> before;
            if (k == 0) before = [&] { wait_until([&] { return fast_done.load() >= total - 1; }); };
            return std::make_unique<SlowWorker>(make_cpu_worker(sd, rp, Mode::Megakernel, o), before,
                                                k == 0 ? slow_done : fast_done);
        },
        st);
    expect_same_film(img, render_cpu(sd, rp, Mode::Megakernel, o), "slow worker");
    ASSERT_EQ(st.devices.size(), 3u);
    EXPECT_EQ(batches_taken(st), uint64_t(total));
    EXPECT_LE(st.devices[0].batches, 1u);
    EXPECT_EQ(st.devices[0].batches, uint64_t(slow_done.load()));
    EXPECT_EQ(st.devices[1].batches + st.devices[2].batches, uint64_t(total) - st.devices[0].batches);
    std::printf("batches taken: slow %llu, others %llu and %llu\n", (unsigned long long)st.devices[0].batches,
                (unsigned long long)st.devices[1].batches, (unsigned long long)st.devices[2].batches);
}

// A worker's error stops the others after their batches and reaches the caller (no hang, no image). The others
// hold their first batch until it has failed (on its second batch), so it gets its two batches whatever the load.
TEST(SplitRender, AWorkersErrorReachesTheCaller) {
    SceneData sd = cornell();
    const RenderParams rp = shard_params();
    RenderOptions o = small_opts();
    o.split_batch = 100;
    RenderStats st;
    std::atomic<int> done{0};
    std::atomic<bool> thrown{false};
    try {
        render_split(
            rp, o, 3,
            [&](unsigned k) -> std::unique_ptr<BatchWorker> {
                if (k == 1)
                    return std::make_unique<SlowWorker>(make_cpu_worker(sd, rp, Mode::Wavefront, o), nullptr, done, 2,
                                                        &thrown);
                return std::make_unique<SlowWorker>(
                    make_cpu_worker(sd, rp, Mode::Wavefront, o), [&] { wait_until([&] { return thrown.load(); }); },
                    done);
            },
            st);
        ADD_FAILURE() << "a failing worker's render returned";
    } catch (const std::runtime_error& e) { EXPECT_STREQ(e.what(), "worker failed on purpose"); }
    EXPECT_TRUE(thrown.load());
    try {  // a worker that cannot be made (a GPU's out-of-memory check)
        render_split(
            rp, o, 2,
            [&](unsigned k) -> std::unique_ptr<BatchWorker> {
                if (k == 1) throw std::runtime_error("no room on device 1");
                return make_cpu_worker(sd, rp, Mode::Megakernel, o);
            },
            st);
        ADD_FAILURE() << "rendered without its second worker";
    } catch (const std::runtime_error& e) { EXPECT_STREQ(e.what(), "no room on device 1"); }
    RenderOptions d;
    d.devices = {0};
    EXPECT_THROW(render_cpu(sd, rp, Mode::Megakernel, d), std::invalid_argument);  // devices are GPUs
}

TEST(SplitRender, DevicesOptionParsedAgainstTheGpusThere) {
    std::vector<int> v;
    EXPECT_EQ(parse_devices("all", 3, v), "");
    EXPECT_EQ(v, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(parse_devices("0,0", 1, v), "");  // two workers on one GPU
    EXPECT_EQ(v, (std::vector<int>{0, 0}));
    EXPECT_EQ(parse_devices("1,0", 2, v), "");
    EXPECT_EQ(v, (std::vector<int>{1, 0}));
    EXPECT_EQ(parse_devices("2", 2, v), "--devices: device 2 does not exist: 2 CUDA GPUs are visible (0 to 1)");
    EXPECT_EQ(parse_devices("0", 0, v), "--devices: device 0 does not exist: no CUDA GPU is visible");
    EXPECT_EQ(parse_devices("all", 0, v), "--devices all: no CUDA GPU is visible");
    EXPECT_NE(parse_devices("0,x", 0, v).find("give 'all'"), std::string::npos);  // the form before the count
    for (const char* bad : {"", "x", "0,", ",0", "0,,1", "-1", "1.5", "0 1", "99999"})
        EXPECT_NE(parse_devices(bad, 8, v).find("give 'all' or CUDA device indices"), std::string::npos) << bad;
}
