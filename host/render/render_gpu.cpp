// GPU backend drivers: scene and film upload, the megakernel schedule, and the wavefront schedule (the loop of
// host/render/wavefront_loop.h over CUDA launches), and the ray-cast benchmark.
// Host C++ only: the kernels are launched through the stage launchers of kernels/gpu_stages.h.
#include <algorithm>
#include <chrono>
#include <memory>
#include "host/render/multi_device.h"
#include "host/render/render.h"
#include "host/render/wavefront_loop.h"
#include "kernels/aov.h"
#include "kernels/gpu_stages.h"
#include "kernels/stages.h"

namespace wp {

bool gpu_available(std::string* name) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        cudaGetLastError();
        return false;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return false;
    if (name) *name = p.name;
    return true;
}

int gpu_device_count() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

std::string gpu_device_name(int device) {
    cudaDeviceProp p;
    WP_CUDA(cudaGetDeviceProperties(&p, device));
    return p.name;
}

namespace {

// Device allocations freed together.
class DeviceArena {
public:
    DeviceArena() = default;
    DeviceArena(const DeviceArena&) = delete;
    ~DeviceArena() {
        for (void* p : owned_) cudaFree(p);
    }
    template <class T>
    T* alloc(size_t n) {
        if (n == 0) return nullptr;
        void* d = nullptr;
        WP_CUDA(cudaMalloc(&d, n * sizeof(T)));
        owned_.push_back(d);
        bytes_ += n * sizeof(T);
        return static_cast<T*>(d);
    }
    template <class T>
    T* zeroed(size_t n) {
        T* d = alloc<T>(n);
        if (d) WP_CUDA(cudaMemset(d, 0, n * sizeof(T)));
        return d;
    }
    template <class T>
    const T* upload(const std::vector<T>& v) {
        T* d = alloc<T>(v.size());
        if (d) WP_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
        return d;
    }

    size_t bytes() const { return bytes_; }

private:
    std::vector<void*> owned_;
    size_t bytes_ = 0;
};

// NVTX range for the scope: "render" around a render, "raycast" around the ray-cast benchmark, "batch" per
// megakernel launch; the stage ranges (the kernels' names) nest inside, opened by the Launcher.
struct NvtxRange {
    explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
    ~NvtxRange() { nvtxRangePop(); }
};

// The host view with every array of kernels/scene_tables.h replaced by its device copy (null when empty).
SceneView upload_scene(const SceneData& sd, DeviceArena& A) {
    SceneView s = sd.view();
#define WP_SCENE_UPLOAD(T, field, view, cat) s.view = A.upload(sd.field);
    WP_SCENE_TABLES(WP_SCENE_UPLOAD)
#undef WP_SCENE_UPLOAD
    return s;
}

FilmView make_film(uint32_t np, DeviceArena& A) {
    FilmView film;
    film.sum = A.alloc<unsigned long long>(3ull * np);
    film.bad_count = A.alloc<unsigned long long>(1);
    film.bad_first_pixel = A.alloc<unsigned int>(1);
    film.clamp_count = A.alloc<unsigned long long>(1);
    WP_CUDA(cudaMemset(film.sum, 0, 3ull * np * sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_count, 0, sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.clamp_count, 0, sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_first_pixel, 0xff, sizeof(unsigned int)));
    return film;
}

// The film's sums, non-finite count, lowest non-finite film pixel and clamp count, read back.
WorkerFilm read_sums(const FilmView& film, const RenderParams& rp) {
    WorkerFilm f;
    f.sum.resize(3ull * rp.film_pixels());  // (two films with Mitchell's signed weights)
    unsigned int first = 0;
    WP_CUDA(cudaMemcpy(f.sum.data(), film.sum, f.sum.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&f.nonfinite, film.bad_count, sizeof(f.nonfinite), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&first, film.bad_first_pixel, sizeof(first), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&f.clamped, film.clamp_count, sizeof(f.clamped), cudaMemcpyDeviceToHost));
    f.first_nonfinite_pixel = first;
    return f;
}

Image read_film(const FilmView& film, const RenderParams& rp, uint64_t begin, uint64_t done) {
    WorkerFilm f = read_sums(film, rp);
    Image img = film_to_image(std::move(f.sum), rp, begin, done);
    img.nonfinite = f.nonfinite;
    img.clamped = f.clamped;
    const uint32_t first = f.first_nonfinite_pixel;
    img.first_nonfinite_pixel = first == 0xffffffffu ? first : first % rp.num_pixels();
    return img;
}

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { WP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s); }
};
// Pinned host words for the queue counters' read-back.
struct PinnedCounters {
    uint32_t* p = nullptr;
    PinnedCounters() { WP_CUDA(cudaMallocHost(&p, kNumCounters * sizeof(uint32_t))); }
    PinnedCounters(const PinnedCounters&) = delete;
    ~PinnedCounters() { cudaFreeHost(p); }
};

struct Event {
    cudaEvent_t e = nullptr;
    Event() { WP_CUDA(cudaEventCreate(&e)); }
    ~Event() { cudaEventDestroy(e); }
};

// The start of a frame's timing. A schedule calls it once its setup (device and pinned allocations, zeroing) is
// queued: it records the frame's first event there, so the frame runs from the first launch to the last result in
// both schedules (the wavefront's queues and pinned read-back buffers outside it: docs/DECISIONS.md: pipelined), and
// measures the setup on the host clock.
struct FrameStart {
    cudaEvent_t t0;
    cudaStream_t stream;
    std::chrono::steady_clock::time_point begin = std::chrono::steady_clock::now();
    double setup_ms = 0.0;
    bool recorded = false;
    void operator()() {
        if (recorded) return;
        setup_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
        WP_CUDA(cudaEventRecord(t0, stream));
        recorded = true;
    }
};

// Device bytes per wavefront path slot: the queues, and roughly what CUB's temporary storage takes.
size_t wavefront_bytes_per_path(const QueueConfig& c) { return queue_bytes_per_path(c) + 8; }

// features: the scene's (kernels/features.h), which decide whether shade runs by family.
QueueConfig queue_config(const RenderOptions& opt, uint32_t capacity, uint32_t features) {
    QueueConfig c;
    c.capacity = capacity;
    c.sort_materials = opt.sort_materials;
    c.families = !opt.sort_materials && shade_by_family(features);
    c.sort_rays = opt.sort_rays > 0;
    c.push = opt.push_compaction;
    c.stats = opt.queue_stats;
    return c;
}

// The wavefront's stages as CUDA launches (the backend of wavefront_render, host/render/wavefront_loop.h), all on
// one stream; counts() is the iteration's one host round trip.
struct GpuStages {
    Launcher& L;
    const SceneView& s;
    const RenderParams& rp;
    const FilmView& film;
    WavefrontQueues& q;
    void* temp;  // CUB's temporary storage (sort, select)
    size_t temp_bytes;
    uint32_t* h_counters;              // pinned: the counters read back after each iteration
    unsigned long long* d_drain_rays;  // the drain's ray counts

    void generate(uint32_t first_slot, uint64_t first, uint32_t n) {
        launch_generate(L, s, rp, q, first_slot, first, n);
    }
    void clear_counts() { WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), L.stream())); }
    void extend(uint32_t n) { launch_extend(L, s, q, n); }
    void sort_materials(uint32_t n) { launch_sort_materials(L, temp, temp_bytes, q, n); }
    void sort_rays(uint32_t n) { launch_sort_rays(L, temp, temp_bytes, s, q, n); }
    void sort_shadow(uint32_t n) { launch_sort_shadow(L, temp, temp_bytes, s, q, n); }
    void shade(uint32_t n) { launch_shade(L, s, rp, film, q, n); }
    void shadow(uint32_t n) { launch_shadow(L, s, film, q, n); }
    void compact(uint32_t n) { launch_compact(L, temp, temp_bytes, q, n); }
    IterationCounts counts() {
        WP_CUDA(cudaMemcpyAsync(h_counters, q.counters, kNumCounters * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                L.stream()));
        WP_CUDA(cudaStreamSynchronize(L.stream()));
        L.collect();
        return IterationCounts{h_counters[kShadowCount], h_counters[kLiveCount],
                               q.family_items ? h_counters + kFamilyCount : nullptr};
    }
    DrainRays drain(uint32_t n) {
        WP_CUDA(cudaMemsetAsync(d_drain_rays, 0, 2 * sizeof(unsigned long long), L.stream()));
        launch_drain(L, s, rp, film, q, n, d_drain_rays);
        unsigned long long h[2];
        WP_CUDA(cudaMemcpyAsync(h, d_drain_rays, sizeof(h), cudaMemcpyDeviceToHost, L.stream()));
        WP_CUDA(cudaStreamSynchronize(L.stream()));
        L.collect();
        return DrainRays{h[0], h[1]};
    }
};

// One GPU's share of a render: the device selected on the calling thread (device >= 0), the memory check, the
// scene, the film, a stream, a Launcher and the schedule's buffers (the megakernel's counters; the wavefront's
// queues), all made once; then any number of runs over ranges of samples into the same film. The single-GPU
// render (RenderOptions::devices empty) is one worker on the current device with one run over the whole range;
// a split render (host/render/multi_device.h) has one per listed device, each run a batch.
class GpuWorker final : public BatchWorker {
public:
    // rp prepared; `sharing`: the workers on this device (each plans with its share of the free memory);
    // `max_batch`: the most samples one run covers (the wavefront's queue is at most that).
    GpuWorker(const SceneData& sd, const RenderParams& rp, Mode mode, const RenderOptions& opt, int device,
              unsigned sharing, uint64_t max_batch)
        : selected_(device >= 0),
          device_(select_device(device)),
          rp_(rp),
          mode_(mode),
          opt_(opt),
          L_(stream_.s, opt.kernel_timing) {
        st_.backend = "gpu";
        st_.mode = mode;
        st_.device = gpu_device_name(device_);
        opt_.progress = nullptr;
        opt_.cancel = nullptr;
        // Out of memory is found before anything is allocated: scene, film and (wavefront) a minimal queue against
        // the free device memory (or the caller's limit); the wavefront queue then takes what is left, up to its size.
        size_t free_b = 0, total_b = 0;
        WP_CUDA(cudaMemGetInfo(&free_b, &total_b));
        uint64_t avail = opt.device_memory_limit ? std::min<uint64_t>(opt.device_memory_limit, free_b) : free_b;
        avail /= std::max(1u, sharing);
        std::string what;
        // the AOV arrays (kernels/aov.h) count with the film: the wavefront queue takes what is left
        const uint64_t aov_words = uint64_t(rp.num_pixels()) * aov_channels(opt.aovs);
        const uint64_t needed =
            scene_device_bytes(sd, &what) + film_device_bytes(rp) + aov_words * sizeof(unsigned long long);
        const uint64_t queue_min = mode == Mode::Wavefront
                                       ? uint64_t(std::min<uint64_t>(max_batch, 1u << 16)) *
                                             wavefront_bytes_per_path(queue_config(opt, 0, kFeaturesAll))
                                       : 0;
        const std::string where =
            !selected_ ? st_.device
                       : st_.device + " (device " + std::to_string(device_) +
                             (sharing > 1 ? ", shared by " + std::to_string(sharing) + " workers)" : ")");
        if (std::string why = device_memory_problem(needed, queue_min, avail, what, where); !why.empty())
            throw std::runtime_error(why);
        opt_.device_memory_limit = avail - needed;
        s_ = upload_scene(sd, A_);
        // the kernels' feature set (kernels/features.h): the scene's features and light sampling, or the general
        // kernels
        s_.features = opt.general_kernels
                          ? kFeaturesGeneral | (s_.features & (kFeatLayered | kFeatDiffuseTransmission | kFeatBump))
                          : render_features(s_, rp);
        st_.feature_set = feature_set_name(feature_set_for(s_.features));
        film_ = make_film(rp.film_pixels(), A_);
        WP_CUDA(cudaDeviceSynchronize());
        frame_start_ = FrameStart{t0_.e, stream_.s};  // recorded by the first run once the setup below is queued
        if (mode == Mode::Megakernel)
            setup_megakernel();
        else
            setup_wavefront(max_batch);
    }
    ~GpuWorker() override {
        if (selected_) cudaSetDevice(device_);  // (the members are freed on their device)
    }

    // The samples [b, e) into the film (cancel: no new samples once set; returns the end of those taken).
    uint64_t run(uint64_t b, uint64_t e, const std::atomic<bool>* cancel,
                 const std::function<void(uint64_t, uint64_t)>& progress) {
        return mode_ == Mode::Megakernel ? run_megakernel(b, e, cancel, progress)
                                         : run_wavefront(b, e, cancel, progress);
    }
    // The AOV pass over the samples [begin, end), queued after the beauty (kernels/aov.h: each pixel's fixed-point
    // sums, written whole by its thread); fetched by read_aovs.
    void launch_aovs(uint64_t begin, uint64_t end, uint32_t bits) {
        const uint64_t np = rp_.num_pixels();
        aov_words_ = aov_channels(bits) * np;
        aov_sum_ = A_.alloc<unsigned long long>(aov_words_);
        launch_aov(L_, s_, rp_, aov_view(aov_sum_, bits, np), begin, end, bits);
    }
    // The sums into img.aov_sum (aov_images makes the AOV images).
    void read_aovs(Image& img, uint32_t bits) {
        alloc_aovs(img, bits);
        if (aov_words_)
            WP_CUDA(cudaMemcpy(img.aov_sum.data(), aov_sum_, aov_words_ * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost));
    }
    // The frame's end: its last event recorded, the stream drained, the kernel table and the frame time (the first
    // run's first launch to here) into the statistics.
    void end_frame() {
        frame_start_();  // (a run that returned before its first launch)
        st_.setup_ms = frame_start_.setup_ms;
        WP_CUDA(cudaEventRecord(t1_.e, stream_.s));
        WP_CUDA(cudaStreamSynchronize(stream_.s));
        L_.collect();
        float ms = 0;
        WP_CUDA(cudaEventElapsedTime(&ms, t0_.e, t1_.e));
        st_.render_ms = ms;
        st_.kernels.clear();
        for (const KernelStat& k : L_.table()) st_.kernels.push_back(KernelRow{k.name, k.launches, k.total_ms});
        st_.device_bytes = A_.bytes();
    }
    Image read_image(uint64_t begin, uint64_t done) { return read_film(film_, rp_, begin, done); }
    RenderStats& stats() { return st_; }

    // BatchWorker (a split render's worker, on its own thread)
    uint64_t render(uint64_t b, uint64_t e, const std::atomic<bool>* cancel,
                    const std::function<void(uint64_t)>& progress) override {
        ran_ = true;
        if (!progress) return run(b, e, cancel, nullptr);
        return run(b, e, cancel, [&](uint64_t d, uint64_t) { progress(d); });
    }
    WorkerFilm film() override {
        end_frame();
        WorkerFilm f;
        if (ran_) f = read_sums(film_, rp_);
        f.stats = st_;
        f.device = device_;
        return f;
    }
    void aovs(Image& img, uint64_t begin, uint64_t end, RenderStats& st) override {
        if (selected_) WP_CUDA(cudaSetDevice(device_));
        launch_aovs(begin, end, opt_.aovs);
        WP_CUDA(cudaStreamSynchronize(stream_.s));
        L_.collect();
        read_aovs(img, opt_.aovs);
        for (const KernelStat& k : L_.table())
            if (k.name == "aov") add_kernel_rows(st.kernels, {KernelRow{k.name, k.launches, k.total_ms}});
        st.device_bytes += uint64_t(img.aov_sum.size()) * sizeof(unsigned long long);
    }

private:
    // The device (>= 0) made current on this thread; -1: the current one. Returns the device's index.
    static int select_device(int device) {
        if (device >= 0) WP_CUDA(cudaSetDevice(device));
        int d = 0;
        WP_CUDA(cudaGetDevice(&d));
        return d;
    }

    void setup_megakernel() {
        rays_ = A_.alloc<unsigned long long>(2);
        WP_CUDA(cudaMemsetAsync(rays_, 0, 2 * sizeof(unsigned long long), L_.stream()));
        counters_ = A_.alloc<uint32_t>(2);  // the persistent threads' work counters, zero after every launch
        WP_CUDA(cudaMemsetAsync(counters_, 0, 2 * sizeof(uint32_t), L_.stream()));
    }
    uint64_t run_megakernel(uint64_t begin, uint64_t total, const std::atomic<bool>* cancel,
                            const std::function<void(uint64_t, uint64_t)>& progress) {
        // Samples per launch: a pass over the pixels, at least 2M (the persistent megakernel's tail, where lanes run
        // out of samples, comes once per launch), at most 16M, so that a cancel (checked between launches, two in
        // flight) stops a large image within a second even on a heavy scene (Sponza's 228 Msamples/s: 74 ms a
        // launch); the benchmark scenes' launches (a pass of at most 1M pixels, so 2M samples) are unchanged
        const uint64_t batch = std::min<uint64_t>(std::max<uint64_t>(rp_.num_pixels(), 1u << 21), 1u << 24);
        // at most two batches in flight: the host waits for batch k-1 (to report progress) while k runs
        uint64_t k = 0;
        uint64_t done = begin;
        frame_start_();
        for (uint64_t b = begin; b < total && !(cancel && *cancel); b += batch, ++k) {
            uint64_t e = std::min(total, b + batch);
            done = e;
            NvtxRange batch_range("batch");
            launch_megakernel(L_, s_, rp_, film_, b, e, rays_, counters_);
            WP_CUDA(cudaEventRecord(batch_end_[k & 1].e, L_.stream()));
            if (k > 0) {
                WP_CUDA(cudaEventSynchronize(batch_end_[(k - 1) & 1].e));
                if (progress) progress(b - begin, total - begin);
            }
        }
        WP_CUDA(cudaStreamSynchronize(L_.stream()));
        unsigned long long h[2];
        WP_CUDA(cudaMemcpy(h, rays_, sizeof(h), cudaMemcpyDeviceToHost));
        st_.extension_rays = h[0];  // (the counters add up over the runs)
        st_.shadow_rays = h[1];
        if (progress) progress(done - begin, total - begin);
        return done;
    }

    void setup_wavefront(uint64_t total) {
        // Queue capacity: the request (default kDefaultGpuCapacity paths), at most the samples of a run, and within
        // 60% of the free memory left after the scene and film (the constructor checked that a minimal queue fits).
        const size_t per_path = wavefront_bytes_per_path(queue_config(opt_, 0, s_.features));
        uint64_t cap = opt_.capacity ? opt_.capacity : kDefaultGpuCapacity;
        cap = std::min<uint64_t>(cap, std::max<uint64_t>(total, 1));
        cap = std::min<uint64_t>(cap, std::max<uint64_t>(uint64_t(0.6 * double(opt_.device_memory_limit)) / per_path,
                                                         std::min<uint64_t>(total, 1u << 16)));
        cap = std::min<uint64_t>(cap, 0x7fffffffu);
        st_.capacity = uint32_t(cap);
        st_.sorted = opt_.sort_materials;
        q_ = allocate_queues(A_, queue_config(opt_, uint32_t(cap), s_.features));
        q_.refill = opt_.refill;
        const size_t temp_bytes = std::max({opt_.sort_materials ? sort_materials_temp_bytes(uint32_t(cap)) : size_t(0),
                                            opt_.sort_rays > 0 ? sort_rays_temp_bytes(uint32_t(cap)) : size_t(0),
                                            opt_.push_compaction ? size_t(0) : compact_temp_bytes(uint32_t(cap))});
        pinned_ = std::make_unique<PinnedCounters>();
        x_ = std::make_unique<GpuStages>(GpuStages{L_, s_, rp_, film_, q_, A_.alloc<unsigned char>(temp_bytes),
                                                   temp_bytes, pinned_->p, A_.alloc<unsigned long long>(2)});
        lights_ = samples_lights(s_, rp_);
    }
    uint64_t run_wavefront(uint64_t begin, uint64_t end, const std::atomic<bool>* cancel,
                           const std::function<void(uint64_t, uint64_t)>& progress) {
        RenderOptions o = opt_;
        o.cancel = cancel;
        o.progress = progress;
        frame_start_();
        const uint64_t done = wavefront_render(*x_, begin, end, o, lights_, st_);
        if (opt_.queue_stats) {  // (the device's histograms add up over the runs)
            st_.paths_at_depth.resize(kStatDepths);
            st_.shadow_at_depth.resize(kStatDepths);
            WP_CUDA(cudaMemcpy(st_.paths_at_depth.data(), q_.paths_at_depth, kStatDepths * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost));
            WP_CUDA(cudaMemcpy(st_.shadow_at_depth.data(), q_.shadow_at_depth, kStatDepths * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost));
        }
        return done;
    }

    const bool selected_;  // a device of the list, selected on each thread that uses it (else the current one)
    const int device_;
    const RenderParams rp_;
    const Mode mode_;
    RenderOptions opt_;  // device_memory_limit: what is left for the queues
    RenderStats st_;
    DeviceArena A_;
    SceneView s_;
    FilmView film_;
    unsigned long long* aov_sum_ = nullptr;  // the AOV pass's sums (aov_view's layout), aov_words_ of them
    uint64_t aov_words_ = 0;
    Stream stream_;
    Launcher L_;
    Event t0_, t1_, batch_end_[2];
    FrameStart frame_start_{nullptr, nullptr};
    bool ran_ = false;
    // megakernel
    unsigned long long* rays_ = nullptr;
    uint32_t* counters_ = nullptr;
    // wavefront
    WavefrontQueues q_;
    std::unique_ptr<PinnedCounters> pinned_;
    std::unique_ptr<GpuStages> x_;
    bool lights_ = false;
};

// The render split over RenderOptions::devices (host/render/multi_device.h): one GpuWorker per entry, each on its
// own thread; the caller's current device is left as it was.
Image render_gpu_devices(const SceneData& sd, const RenderParams& rp, Mode mode, const RenderOptions& opt,
                         RenderStats* stats) {
    const int count = gpu_device_count();
    for (int d : opt.devices)
        if (d < 0 || d >= count)
            throw std::invalid_argument("device " + std::to_string(d) +
                                        " is not a CUDA device here: " + std::to_string(count) + " visible" +
                                        (count ? " (0 to " + std::to_string(count - 1) + ")" : std::string()));
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);  // (throws on a range outside the render, before anything is allocated)
    const unsigned n = unsigned(opt.devices.size());
    const uint64_t batch = split_batch(opt, end - begin, n);
    int caller = 0;
    WP_CUDA(cudaGetDevice(&caller));
    NvtxRange render_range("render");
    RenderStats st;
    Image img;
    try {
        img = render_split(
            rp, opt, n,
            [&](unsigned k) {
                const int d = opt.devices[k];
                const unsigned sharing = unsigned(std::count(opt.devices.begin(), opt.devices.end(), d));
                return std::make_unique<GpuWorker>(sd, rp, mode, opt, d, sharing, batch);
            },
            st);
    } catch (...) {
        cudaSetDevice(caller);
        throw;
    }
    WP_CUDA(cudaSetDevice(caller));
    st.backend = "gpu";
    if (stats) *stats = std::move(st);
    return img;
}

}  // namespace

Image render_gpu(const SceneData& sd, const RenderParams& rp_in, Mode mode, const RenderOptions& opt,
                 RenderStats* stats) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    if (!gpu_available()) throw std::runtime_error("no CUDA GPU present");
    if (!opt.devices.empty()) return render_gpu_devices(sd, rp, mode, opt, stats);
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);  // (throws on a range outside the render, before anything is allocated)
    NvtxRange render_range("render");
    // one worker on the current device, the whole range in one run (cancel and progress inside it)
    GpuWorker w(sd, rp, mode, opt, -1, 1, end - begin);
    const uint64_t done = w.run(begin, end, opt.cancel, opt.progress);
    if (opt.aovs) w.launch_aovs(begin, done, opt.aovs);  // the AOV pass over the samples done, after the beauty
    w.end_frame();
    Image img = w.read_image(begin, done);
    img.interrupted = done < end;
    RenderStats& st = w.stats();
    st.samples = done - begin;
    if (opt.aovs) {
        w.read_aovs(img, opt.aovs);
        aov_images(img, rp, {{begin, done}});
    }
    if (stats) *stats = std::move(st);
    return img;
}

RaycastStats raycast_gpu(const SceneData& sd, const RenderParams& rp_in, const RenderOptions& opt) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    RaycastStats st;
    st.backend = "gpu";
    if (!gpu_available(&st.device)) throw std::runtime_error("no CUDA GPU present");
    NvtxRange range("raycast");
    DeviceArena A;
    SceneView s = upload_scene(sd, A);
    Stream stream;
    Launcher primary(stream.s), diffuse(stream.s);  // the two passes, timed apart (each its own table)
    const uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    QueueConfig qc;
    qc.capacity =
        uint32_t(std::min<uint64_t>(opt.capacity ? opt.capacity : kDefaultGpuCapacity, std::max<uint64_t>(total, 1)));
    qc.push = false;  // alive flags and the selection
    qc.sort_rays = opt.sort_rays > 0;
    WavefrontQueues q = allocate_queues(A, qc);
    q.refill = opt.refill;
    const size_t temp_bytes =
        std::max(compact_temp_bytes(qc.capacity), qc.sort_rays ? sort_rays_temp_bytes(qc.capacity) : size_t(0));
    void* temp = A.alloc<unsigned char>(temp_bytes);
    PinnedCounters pinned;
    WP_CUDA(cudaDeviceSynchronize());
    for (uint64_t next = 0; next < total;) {
        const uint32_t n = uint32_t(std::min<uint64_t>(qc.capacity, total - next));
        WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), stream.s));
        launch_generate(primary, s, rp, q, 0, next, n);
        launch_extend(primary, s, q, n);
        launch_diffuse_bounce(primary, s, rp, q, n);
        launch_compact(primary, temp, temp_bytes, q, n);
        WP_CUDA(
            cudaMemcpyAsync(pinned.p, q.counters, kNumCounters * sizeof(uint32_t), cudaMemcpyDeviceToHost, stream.s));
        WP_CUDA(cudaStreamSynchronize(stream.s));
        const uint32_t live = pinned.p[kLiveCount];
        q.swap();
        // the bounces traced in key order when --sort-rays asks for a queue this large (as the path tracer's)
        q.extend_sorted = opt.sort_rays > 0 && live >= opt.sort_rays;
        if (q.extend_sorted) launch_sort_rays(diffuse, temp, temp_bytes, s, q, live);
        launch_extend(diffuse, s, q, live);
        q.extend_sorted = false;
        q.swap();
        WP_CUDA(cudaStreamSynchronize(stream.s));
        st.primary_rays += n;
        st.diffuse_rays += live;
        next += n;
    }
    primary.collect();
    diffuse.collect();
    for (const KernelStat& k : primary.table())
        if (k.name == "extend") st.primary_ms = k.total_ms;
    for (const KernelStat& k : diffuse.table()) {
        if (k.name == "extend") st.diffuse_ms = k.total_ms;
        if (k.name == "sort_rays") st.diffuse_sort_ms = k.total_ms;
    }
    return st;
}

std::vector<KernelAttr> gpu_kernel_attrs(uint32_t feature_set) {
    if (!gpu_available()) return {};
    const uint32_t set = feature_set_for(feature_set);
    std::vector<KernelAttr> v = {
        attr_megakernel(set),  attr_generate(), attr_extend(RenderOptions::kDefaultRefill, set),
        attr_shade(set),       attr_shadow(),   attr_compact(),
        attr_diffuse_bounce(), attr_drain(set), attr_aov(),
        attr_sort_rays()};
    for (KernelAttr& a : attr_shade_families(set)) v.push_back(std::move(a));
    return v;
}

}  // namespace wp
