// GPU backend drivers: scene and film upload, the megakernel schedule, and the wavefront schedule (the loop of
// host/render/wavefront_loop.h over CUDA launches), and the ray-cast benchmark.
// Host C++ only: the kernels are launched through the stage launchers of kernels/gpu_stages.h.
#include <algorithm>
#include <chrono>
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

SceneView upload_scene(const SceneData& sd, DeviceArena& A) {
    SceneView s = sd.view();
    s.nodes = A.upload(sd.nodes);
    s.nodes8 = A.upload(sd.nodes8);
    s.prims.geom = A.upload(sd.geom);
    s.prims.info = A.upload(sd.info);
    s.prims.attr = A.upload(sd.attr);
    s.lambert = A.upload(sd.lambert);
    s.conductor = A.upload(sd.conductor);
    s.dielectric = A.upload(sd.dielectric);
    s.principled = A.upload(sd.principled);
    s.lights = A.upload(sd.lights);
    s.light_cdf = A.upload(sd.light_cdf);
    if (s.env.texels) {
        s.env.texels = A.upload(sd.env_texels);
        s.env.marginal = A.upload(sd.env_marginal);
        s.env.conditional = A.upload(sd.env_conditional);
    }
    s.tex_texels = A.upload(sd.tex_texels);
    s.textures = A.upload(sd.textures);
    return s;
}

FilmView make_film(uint32_t np, DeviceArena& A) {
    FilmView film;
    film.sum = A.alloc<unsigned long long>(3ull * np);
    film.bad_count = A.alloc<unsigned long long>(1);
    film.bad_first_pixel = A.alloc<unsigned int>(1);
    WP_CUDA(cudaMemset(film.sum, 0, 3ull * np * sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_count, 0, sizeof(unsigned long long)));
    WP_CUDA(cudaMemset(film.bad_first_pixel, 0xff, sizeof(unsigned int)));
    return film;
}

Image read_film(const FilmView& film, const RenderParams& rp, uint64_t begin, uint64_t done) {
    uint32_t np = rp.film_pixels();  // (two films with Mitchell's signed weights)
    std::vector<unsigned long long> sum(3ull * np);
    unsigned long long bad = 0;
    unsigned int first = 0;
    WP_CUDA(cudaMemcpy(sum.data(), film.sum, sum.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&bad, film.bad_count, sizeof(bad), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&first, film.bad_first_pixel, sizeof(first), cudaMemcpyDeviceToHost));
    Image img = film_to_image(std::move(sum), rp, begin, done);
    img.nonfinite = bad;
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
// both schedules (the wavefront's queues, ~800 MB, and pinned read-back buffers were inside its frame before:
// profiling/LOG.md entry 32), and measures the setup on the host clock.
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

uint64_t megakernel_schedule(const SceneView& s, const RenderParams& rp, const FilmView& film, const RenderOptions& opt,
                             DeviceArena& A, Launcher& L, RenderStats& st, FrameStart& frame_start) {
    unsigned long long* rays = A.alloc<unsigned long long>(2);
    WP_CUDA(cudaMemsetAsync(rays, 0, 2 * sizeof(unsigned long long), L.stream()));
    uint32_t* counters = A.alloc<uint32_t>(2);  // the persistent threads' work counters, zero after every launch
    WP_CUDA(cudaMemsetAsync(counters, 0, 2 * sizeof(uint32_t), L.stream()));
    uint64_t begin = 0, total = 0;
    sample_range(rp, opt, begin, total);
    // Samples per launch: a pass over the pixels, at least 2M (the persistent megakernel's tail, where lanes run out of
    // samples, comes once per launch), at most 16M, so that a cancel (checked between launches, two in flight) stops
    // a large image within a second even on a heavy scene (Sponza's 228 Msamples/s: 74 ms a launch); the
    // benchmark scenes' launches (a pass of at most 1M pixels, so 2M samples) are unchanged
    const uint64_t batch = std::min<uint64_t>(std::max<uint64_t>(rp.num_pixels(), 1u << 21), 1u << 24);
    // at most two batches in flight: the host waits for batch k-1 (to report progress) while k runs
    Event batch_end[2];
    uint64_t k = 0;
    uint64_t done = begin;
    frame_start();
    for (uint64_t b = begin; b < total && !(opt.cancel && *opt.cancel); b += batch, ++k) {
        uint64_t e = std::min(total, b + batch);
        done = e;
        NvtxRange batch_range("batch");
        launch_megakernel(L, s, rp, film, b, e, rays, counters);
        WP_CUDA(cudaEventRecord(batch_end[k & 1].e, L.stream()));
        if (k > 0) {
            WP_CUDA(cudaEventSynchronize(batch_end[(k - 1) & 1].e));
            if (opt.progress) opt.progress(b - begin, total - begin);
        }
    }
    WP_CUDA(cudaStreamSynchronize(L.stream()));
    unsigned long long h[2];
    WP_CUDA(cudaMemcpy(h, rays, sizeof(h), cudaMemcpyDeviceToHost));
    st.extension_rays = h[0];
    st.shadow_rays = h[1];
    if (opt.progress) opt.progress(done - begin, total - begin);
    return done;
}

// Device bytes per wavefront path slot: the queues, and roughly what CUB's temporary storage takes.
size_t wavefront_bytes_per_path(const QueueConfig& c) { return queue_bytes_per_path(c) + 8; }

QueueConfig queue_config(const RenderOptions& opt, uint32_t capacity) {
    QueueConfig c;
    c.capacity = capacity;
    c.sort_materials = opt.sort_materials;
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
    void shade(uint32_t n) { launch_shade(L, s, rp, film, q, n); }
    void shadow(uint32_t n) { launch_shadow(L, s, film, q, n); }
    void compact(uint32_t n) { launch_compact(L, temp, temp_bytes, q, n); }
    IterationCounts counts() {
        WP_CUDA(cudaMemcpyAsync(h_counters, q.counters, kNumCounters * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                L.stream()));
        WP_CUDA(cudaStreamSynchronize(L.stream()));
        L.collect();
        return IterationCounts{h_counters[kShadowCount], h_counters[kLiveCount]};
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

uint64_t wavefront_schedule(const SceneView& s, const RenderParams& rp, const FilmView& film, const RenderOptions& opt,
                            DeviceArena& A, Launcher& L, RenderStats& st, FrameStart& frame_start) {
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);
    const uint64_t total = end - begin;
    // Queue capacity: the request (default kDefaultGpuCapacity paths), at most the samples to render, and within 60%
    // of the free memory left after the scene and film (render_gpu checked that a minimal queue fits).
    const size_t per_path = wavefront_bytes_per_path(queue_config(opt, 0));
    uint64_t cap = opt.capacity ? opt.capacity : kDefaultGpuCapacity;
    cap = std::min<uint64_t>(cap, std::max<uint64_t>(total, 1));
    cap = std::min<uint64_t>(cap, std::max<uint64_t>(uint64_t(0.6 * double(opt.device_memory_limit)) / per_path,
                                                     std::min<uint64_t>(total, 1u << 16)));
    cap = std::min<uint64_t>(cap, 0x7fffffffu);
    st.capacity = uint32_t(cap);
    st.sorted = opt.sort_materials;
    WavefrontQueues q = allocate_queues(A, queue_config(opt, uint32_t(cap)));
    q.refill = opt.refill;
    const size_t temp_bytes = std::max(opt.sort_materials ? sort_materials_temp_bytes(uint32_t(cap)) : size_t(0),
                                       opt.push_compaction ? size_t(0) : compact_temp_bytes(uint32_t(cap)));
    PinnedCounters pinned;
    GpuStages x{
        L, s, rp, film, q, A.alloc<unsigned char>(temp_bytes), temp_bytes, pinned.p, A.alloc<unsigned long long>(2)};
    frame_start();
    const uint64_t done = wavefront_render(x, begin, end, opt, samples_lights(s, rp), st);
    if (opt.queue_stats) {
        st.paths_at_depth.resize(kStatDepths);
        st.shadow_at_depth.resize(kStatDepths);
        WP_CUDA(cudaMemcpy(st.paths_at_depth.data(), q.paths_at_depth, kStatDepths * sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost));
        WP_CUDA(cudaMemcpy(st.shadow_at_depth.data(), q.shadow_at_depth, kStatDepths * sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost));
    }
    return done;
}

}  // namespace

Image render_gpu(const SceneData& sd, const RenderParams& rp_in, Mode mode, const RenderOptions& opt,
                 RenderStats* stats) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    RenderStats st;
    st.backend = "gpu";
    if (!gpu_available(&st.device)) throw std::runtime_error("no CUDA GPU present");
    st.mode = mode;
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);  // (throws on a range outside the render, before anything is allocated)
    st.samples = end - begin;
    NvtxRange render_range("render");
    // Out of memory is found before anything is allocated: scene, film and (wavefront) a minimal queue against the
    // free device memory (or the caller's limit); the wavefront queue then takes what is left, up to its size.
    size_t free_b = 0, total_b = 0;
    WP_CUDA(cudaMemGetInfo(&free_b, &total_b));
    uint64_t avail = opt.device_memory_limit ? std::min<uint64_t>(opt.device_memory_limit, free_b) : free_b;
    std::string what;
    // the AOV arrays (kernels/aov.h) count with the film: the wavefront queue takes what is left
    const uint64_t aov_floats =
        uint64_t(rp.num_pixels()) * (3 * ((opt.aovs & kAovAlbedo) != 0) + 3 * ((opt.aovs & kAovNormal) != 0) +
                                     ((opt.aovs & kAovDepth) != 0) + 3 * ((opt.aovs & kAovPosition) != 0));
    uint64_t needed = scene_device_bytes(sd, &what) + film_device_bytes(rp) + aov_floats * sizeof(float);
    uint64_t queue_min = mode == Mode::Wavefront ? uint64_t(std::min<uint64_t>(end - begin, 1u << 16)) *
                                                       wavefront_bytes_per_path(queue_config(opt, 0))
                                                 : 0;
    if (std::string why = device_memory_problem(needed, queue_min, avail, what, st.device); !why.empty())
        throw std::runtime_error(why);
    RenderOptions o2 = opt;
    o2.device_memory_limit = avail - needed;
    DeviceArena A;
    SceneView s = upload_scene(sd, A);
    // the kernels' feature set (kernels/features.h): the scene's features and light sampling, or the general kernels
    s.features = opt.general_kernels ? kFeaturesAll : render_features(s, rp);
    st.feature_set = feature_set_name(compiled_feature_set(s.nodes8 ? 8 : 2, s.features));
    FilmView film = make_film(rp.film_pixels(), A);
    Stream stream;
    Image img;
    {
        Launcher L(stream.s, opt.kernel_timing);
        Event t0, t1;
        WP_CUDA(cudaDeviceSynchronize());
        FrameStart frame_start{t0.e, stream.s};  // recorded by the schedule once its setup is queued
        uint64_t done = mode == Mode::Megakernel ? megakernel_schedule(s, rp, film, o2, A, L, st, frame_start)
                                                 : wavefront_schedule(s, rp, film, o2, A, L, st, frame_start);
        frame_start();    // (a schedule that returned before its first launch)
        AovView aov_dev;  // the AOV pass over the samples done, after the beauty (kernels/aov.h)
        if (opt.aovs) {
            const uint32_t np = rp.num_pixels();
            if (opt.aovs & kAovAlbedo) aov_dev.albedo = A.alloc<float>(3ull * np);
            if (opt.aovs & kAovNormal) aov_dev.normal = A.alloc<float>(3ull * np);
            if (opt.aovs & kAovDepth) aov_dev.depth = A.alloc<float>(np);
            if (opt.aovs & kAovPosition) aov_dev.position = A.alloc<float>(3ull * np);
            launch_aov(L, s, rp, aov_dev, done, opt.aovs);
        }
        st.setup_ms = frame_start.setup_ms;
        WP_CUDA(cudaEventRecord(t1.e, stream.s));
        WP_CUDA(cudaStreamSynchronize(stream.s));
        L.collect();
        float ms = 0;
        WP_CUDA(cudaEventElapsedTime(&ms, t0.e, t1.e));
        st.render_ms = ms;
        for (const KernelStat& k : L.table()) st.kernels.push_back(KernelRow{k.name, k.launches, k.total_ms});
        img = read_film(film, rp, begin, done);
        img.interrupted = done < end;
        st.samples = done - begin;
        if (opt.aovs) {
            AovView host = alloc_aovs(img, opt.aovs);
            auto get = [](float* h, const float* d, size_t n) {
                if (h) WP_CUDA(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
            };
            get(host.albedo, aov_dev.albedo, img.albedo.size());
            get(host.normal, aov_dev.normal, img.normal.size());
            get(host.depth, aov_dev.depth, img.depth.size());
            get(host.position, aov_dev.position, img.position.size());
        }
        st.device_bytes = A.bytes();
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
    WavefrontQueues q = allocate_queues(A, qc);
    q.refill = opt.refill;
    const size_t temp_bytes = compact_temp_bytes(qc.capacity);
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
        launch_extend(diffuse, s, q, live);
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
    for (const KernelStat& k : diffuse.table())
        if (k.name == "extend") st.diffuse_ms = k.total_ms;
    return st;
}

std::vector<KernelAttr> gpu_kernel_attrs(int bvh_width, uint32_t feature_set) {
    if (!gpu_available()) return {};
    const uint32_t set = compiled_feature_set(bvh_width, feature_set);
    return {attr_megakernel(bvh_width, set),
            attr_generate(),
            attr_extend(bvh_width, RenderOptions::kDefaultRefill, set),
            attr_shade(set),
            attr_shadow(bvh_width),
            attr_compact(),
            attr_diffuse_bounce(),
            attr_drain(bvh_width, set),
            attr_aov()};
}

}  // namespace wp
