// The split render's driver and its CPU worker (see host/render/multi_device.h); the GPU worker is in
// host/render/render_gpu.cpp.
#include "host/render/multi_device.h"
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace wp {

namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
void add_histogram(std::vector<unsigned long long>& to, const std::vector<unsigned long long>& from) {
    if (to.size() < from.size()) to.resize(from.size());
    for (size_t d = 0; d < from.size(); ++d) to[d] += from[d];
}

// A worker's film added to the split render's (moved in when it is the first): fixed point, so exact in any order.
void add_film(std::vector<unsigned long long>& sum, std::vector<unsigned long long>& film) {
    if (film.empty()) return;
    if (sum.empty()) {
        sum = std::move(film);
        return;
    }
    if (film.size() != sum.size()) throw std::logic_error("split render: workers' films differ in size");
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += film[i];
}

// The device in words: "2 x NVIDIA H200 (devices 0,1)", or the names one after another.
std::string devices_in_words(const std::vector<DeviceStat>& devices, unsigned n) {
    bool same = true;
    std::string list;
    for (const DeviceStat& d : devices) {
        same &= d.name == devices[0].name;
        list += (list.empty() ? "" : ",") + (d.device >= 0 ? std::to_string(d.device) : std::string("cpu"));
    }
    if (same) return std::to_string(n) + " x " + devices[0].name + " (devices " + list + ")";
    std::string words;
    for (const DeviceStat& d : devices)
        words += (words.empty() ? "" : " + ") + d.name + " (" +
                 (d.device >= 0 ? std::to_string(d.device) : std::string("cpu")) + ")";
    return words;
}
}  // namespace

uint64_t split_batch_size(uint64_t samples, unsigned workers) {
    if (workers <= 1 || samples == 0) return std::max<uint64_t>(samples, 1);
    const uint64_t share = (samples + 8ull * workers - 1) / (8ull * workers);
    const uint64_t rounded = (share + 0xffff) & ~uint64_t(0xffff);
    return std::clamp<uint64_t>(rounded, kMinSplitBatch, kMaxSplitBatch);
}

uint64_t split_batch(const RenderOptions& opt, uint64_t samples, unsigned workers) {
    if (workers <= 1) return std::max<uint64_t>(samples, 1);
    return opt.split_batch ? opt.split_batch : split_batch_size(samples, workers);
}

void add_kernel_rows(std::vector<KernelRow>& to, const std::vector<KernelRow>& from) {
    for (const KernelRow& k : from) {
        auto it = std::find_if(to.begin(), to.end(), [&](const KernelRow& r) { return r.name == k.name; });
        if (it == to.end()) {
            to.push_back(k);
        } else {
            it->launches += k.launches;
            it->ms += k.ms;
        }
    }
}

namespace {
// One worker's statistics added to the split render's: the first worker's names, the others' counts summed, lists
// joined, the largest capacity and setup.
void add_worker_stats(RenderStats& all, const RenderStats& w, double setup_ms) {
    if (all.backend.empty()) {
        all.backend = w.backend;
        all.mode = w.mode;
        all.feature_set = w.feature_set;
        all.sorted = w.sorted;
    }
    all.extension_rays += w.extension_rays;
    all.shadow_rays += w.shadow_rays;
    all.drained += w.drained;
    add_histogram(all.family_paths, w.family_paths);
    all.capacity = std::max(all.capacity, w.capacity);
    all.device_bytes += w.device_bytes;
    all.setup_ms = std::max(all.setup_ms, setup_ms);
    add_kernel_rows(all.kernels, w.kernels);
    all.iterations.insert(all.iterations.end(), w.iterations.begin(), w.iterations.end());
    add_histogram(all.paths_at_depth, w.paths_at_depth);
    add_histogram(all.shadow_at_depth, w.shadow_at_depth);
}
}  // namespace

Image render_split(const RenderParams& rp, const RenderOptions& opt, unsigned n, const WorkerFactory& make,
                   RenderStats& st) {
    if (n == 0) throw std::invalid_argument("a split render needs at least one worker");
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);
    const uint64_t batch = split_batch(opt, end - begin, n);
    struct Slot {
        std::unique_ptr<BatchWorker> worker;
        WorkerFilm film;
        DeviceStat row;
        Clock::time_point first, last;
        bool ran = false;
        std::exception_ptr error;
        uint64_t in_batch = 0;  // samples of its current batch done (progress)
    };
    std::vector<Slot> slots(n);
    std::atomic<uint64_t> next{begin};
    std::atomic<uint64_t> done_end{begin};  // one worker: the end of what its only batch took (it may stop early)
    std::atomic<bool> failed{false};
    std::mutex progress_lock;
    uint64_t completed = 0;  // samples of finished batches (under progress_lock)
    auto report = [&](unsigned k, uint64_t d, uint64_t finished) {
        if (!opt.progress) return;
        std::lock_guard<std::mutex> g(progress_lock);
        completed += finished;
        slots[k].in_batch = finished ? 0 : d;
        uint64_t sum = completed;
        for (const Slot& s : slots) sum += s.in_batch;
        opt.progress(std::min(sum, end - begin), end - begin);
    };
    auto cancelled = [&] { return opt.cancel && opt.cancel->load(); };
    auto work = [&](unsigned k) {
        Slot& s = slots[k];
        try {
            const Clock::time_point t0 = Clock::now();
            s.worker = make(k);
            s.row.setup_ms = ms_between(t0, Clock::now());
            while (!failed.load() && !cancelled()) {
                const uint64_t b = next.fetch_add(batch);
                if (b >= end) break;
                const uint64_t e = std::min(end, b + batch);
                const Clock::time_point tb = Clock::now();
                if (!s.ran) s.first = tb;
                s.ran = true;
                const uint64_t took =
                    s.worker->render(b, e, n == 1 ? opt.cancel : nullptr, [&](uint64_t d) { report(k, d, 0); });
                s.last = Clock::now();
                s.row.busy_ms += ms_between(tb, s.last);
                s.row.batches++;
                s.row.samples += took - b;
                if (n == 1) done_end = took;
                report(k, 0, took - b);
                if (took < e) break;  // (one worker, cancelled inside its batch)
            }
            s.film = s.worker->film();
        } catch (...) {
            s.error = std::current_exception();
            failed = true;
        }
    };
    {
        std::vector<std::thread> threads;
        threads.reserve(n);
        for (unsigned k = 0; k < n; ++k) threads.emplace_back(work, k);
        for (std::thread& t : threads) t.join();
    }
    for (const Slot& s : slots)
        if (s.error) std::rethrow_exception(s.error);
    // Every batch taken was rendered whole, and batches are handed out in order: the samples done are [begin, done).
    const uint64_t done = n == 1 ? done_end.load() : std::min(end, next.load());

    std::vector<unsigned long long> sum;
    unsigned long long nonfinite = 0, clamped = 0;
    uint32_t first_bad = 0xffffffffu;
    RenderStats all;
    all.samples = done - begin;
    all.split_batch = batch;
    Clock::time_point t_first{}, t_last{};
    bool any = false;
    for (Slot& s : slots) {
        WorkerFilm& f = s.film;
        add_film(sum, f.sum);
        nonfinite += f.nonfinite;
        clamped += f.clamped;
        first_bad = std::min(first_bad, f.first_nonfinite_pixel);
        const RenderStats& w = f.stats;
        add_worker_stats(all, w, s.row.setup_ms);
        s.row.device = f.device;
        s.row.name = w.device;
        s.row.device_bytes = w.device_bytes;
        all.devices.push_back(s.row);
        if (s.ran) {
            t_first = any ? std::min(t_first, s.first) : s.first;
            t_last = any ? std::max(t_last, s.last) : s.last;
            any = true;
        }
    }
    if (sum.empty()) sum.assign(3ull * rp.film_pixels(), 0ull);  // (nothing rendered: cancelled before any batch)
    const RenderParams prepared = rp.prepared();
    Image img = film_to_image(std::move(sum), prepared, begin, done);
    img.nonfinite = nonfinite;
    img.clamped = clamped;
    img.first_nonfinite_pixel = first_bad == 0xffffffffu ? first_bad : first_bad % rp.num_pixels();
    img.interrupted = done < end;
    if (opt.aovs && slots[0].worker) {  // the AOV pass on the first worker, over the samples done
        slots[0].worker->aovs(img, begin, done, all);
        aov_images(img, prepared, {{begin, done}});
        if (any) t_last = std::max(t_last, Clock::now());
    }
    all.render_ms = any ? ms_between(t_first, t_last) : 0.0;
    all.device = devices_in_words(all.devices, n);
    slots.clear();  // the workers freed here, on the caller's thread
    st = std::move(all);
    return img;
}

namespace {

// render_cpu over each batch, the sums added into this worker's film.
class CpuWorker final : public BatchWorker {
public:
    CpuWorker(const SceneData& sd, const RenderParams& rp, Mode mode, const RenderOptions& opt)
        : sd_(sd), rp_(rp), mode_(mode), opt_(opt), aovs_(opt.aovs) {
        opt_.aovs = 0;
        opt_.progress = nullptr;
        opt_.cancel = nullptr;
        opt_.devices.clear();
    }
    uint64_t render(uint64_t b, uint64_t e, const std::atomic<bool>* cancel,
                    const std::function<void(uint64_t)>& progress) override {
        RenderOptions o = opt_;
        o.cancel = cancel;
        if (progress) o.progress = [&](uint64_t d, uint64_t) { progress(d); };
        RenderStats s;
        Image img = render_cpu_batch(sd_, rp_, mode_, o, b, e, s);
        if (film_.sum.empty())
            film_.sum = std::move(img.sum);
        else
            for (size_t i = 0; i < film_.sum.size(); ++i) film_.sum[i] += img.sum[i];
        film_.nonfinite += img.nonfinite;
        film_.clamped += img.clamped;
        film_.first_nonfinite_pixel = std::min(film_.first_nonfinite_pixel, img.first_nonfinite_pixel);
        RenderStats& t = film_.stats;
        t.backend = s.backend;
        t.device = s.device;
        t.mode = s.mode;
        t.sorted = s.sorted;
        t.capacity = std::max(t.capacity, s.capacity);
        t.device_bytes = std::max(t.device_bytes, s.device_bytes);
        t.extension_rays += s.extension_rays;
        t.shadow_rays += s.shadow_rays;
        t.drained += s.drained;
        add_histogram(t.family_paths, s.family_paths);
        add_kernel_rows(t.kernels, s.kernels);
        t.iterations.insert(t.iterations.end(), s.iterations.begin(), s.iterations.end());
        add_histogram(t.paths_at_depth, s.paths_at_depth);
        add_histogram(t.shadow_at_depth, s.shadow_at_depth);
        return img.first + img.samples;
    }
    WorkerFilm film() override {
        if (film_.stats.backend.empty()) {  // (took no batch)
            film_.stats.backend = "cpu";
            film_.stats.mode = mode_;
            film_.stats.device =
                std::to_string(opt_.threads ? opt_.threads : std::max(1u, std::thread::hardware_concurrency())) +
                " threads";
        }
        return std::move(film_);
    }
    void aovs(Image& img, uint64_t begin, uint64_t end, RenderStats& st) override {
        RenderOptions o = opt_;
        o.aovs = aovs_;
        render_cpu_aovs(sd_, rp_, o, begin, end, img, st);
    }

private:
    const SceneData& sd_;
    RenderParams rp_;
    Mode mode_;
    RenderOptions opt_;
    uint32_t aovs_;
    WorkerFilm film_;
};

}  // namespace

std::unique_ptr<BatchWorker> make_cpu_worker(const SceneData& scene, const RenderParams& rp, Mode mode,
                                             const RenderOptions& opt) {
    return std::make_unique<CpuWorker>(scene, rp, mode, opt);
}

Image render_cpu_split(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt,
                       unsigned workers, RenderStats* stats) {
    RenderOptions o = opt;
    o.devices.clear();
    RenderStats st;
    Image img = render_split(
        rp, o, workers, [&](unsigned) { return make_cpu_worker(scene, rp, mode, o); }, st);
    if (stats) *stats = std::move(st);
    return img;
}

}  // namespace wp
