// GPU backend drivers: scene and film upload, the megakernel schedule, and the wavefront schedule
// (generate -> extend -> [sort_materials] -> shade -> shadow -> compact_select -> compact, with regeneration).
// Host C++ only: the kernels are launched through the stage launchers of kernels/gpu_stages.h.
#include <algorithm>
#include <chrono>
#include "host/render/render.h"
#include "kernels/gpu_stages.h"

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
    const T* upload(const std::vector<T>& v) {
        T* d = alloc<T>(v.size());
        if (d) WP_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
        return d;
    }
    template <class SoA>
    void allocate(SoA& q, size_t n) {
        q.visit([&](void** p, size_t bytes, const char*) { *p = alloc<unsigned char>(bytes * n); });
    }

    size_t bytes() const { return bytes_; }

private:
    std::vector<void*> owned_;
    size_t bytes_ = 0;
};

// NVTX range for the scope: "render" around a render, "batch" per megakernel launch, "bounce" per wavefront
// iteration; the stage ranges (the kernels' names) nest inside, opened by the Launcher.
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

Image read_film(const FilmView& film, const RenderParams& rp, uint64_t done) {
    uint32_t np = rp.num_pixels();
    std::vector<unsigned long long> sum(3ull * np);
    unsigned long long bad = 0;
    unsigned int first = 0;
    WP_CUDA(cudaMemcpy(sum.data(), film.sum, sum.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&bad, film.bad_count, sizeof(bad), cudaMemcpyDeviceToHost));
    WP_CUDA(cudaMemcpy(&first, film.bad_first_pixel, sizeof(first), cudaMemcpyDeviceToHost));
    Image img = film_to_image(sum, rp, done);
    img.nonfinite = bad;
    img.first_nonfinite_pixel = first;
    return img;
}

struct Stream {
    cudaStream_t s = nullptr;
    Stream() { WP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(s); }
};
// L2 persistence for the tree (RenderOptions::l2_persist): an access policy window over the scene's node array
// (binary or wide) on the render's stream, with the persisting L2 set-aside sized to it (capped at the device's
// maximum). The set-aside is a limit of this process's context; the destructor resets the persisting lines and gives
// the set-aside back.
class L2Window {
public:
    L2Window(bool on, cudaStream_t s, const SceneData& sd, const SceneView& view) : s_(s) {
        const void* base = view.nodes8 ? static_cast<const void*>(view.nodes8) : view.nodes;
        const size_t bytes = view.nodes8 ? sd.nodes8.size() * sizeof(BVH8Node) : sd.nodes.size() * sizeof(BVHNode);
        if (!on || !base || bytes == 0) return;
        int dev = 0, max_persist = 0, max_window = 0;
        WP_CUDA(cudaGetDevice(&dev));
        WP_CUDA(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev));
        WP_CUDA(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
        if (max_persist <= 0 || max_window <= 0) return;  // no persisting L2 on this device
        size_t window = std::min(bytes, size_t(max_window));
        size_t setaside = std::min(window, size_t(max_persist));
        WP_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, setaside));
        cudaStreamAttrValue v{};
        v.accessPolicyWindow.base_ptr = const_cast<void*>(base);
        v.accessPolicyWindow.num_bytes = window;
        v.accessPolicyWindow.hitRatio = float(double(setaside) / double(window));
        v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
        WP_CUDA(cudaStreamSetAttribute(s_, cudaStreamAttributeAccessPolicyWindow, &v));
        on_ = true;
    }
    L2Window(const L2Window&) = delete;
    ~L2Window() {
        if (!on_) return;
        cudaStreamAttrValue v{};
        v.accessPolicyWindow.num_bytes = 0;
        cudaStreamSetAttribute(s_, cudaStreamAttributeAccessPolicyWindow, &v);
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }

private:
    cudaStream_t s_;
    bool on_ = false;
};

struct Event {
    cudaEvent_t e = nullptr;
    Event() { WP_CUDA(cudaEventCreate(&e)); }
    ~Event() { cudaEventDestroy(e); }
};

// One wavefront iteration's launch sequence as a CUDA graph: captured from the stream each iteration (the same
// Launcher calls, so NVTX ranges, checks and per-kernel events are unchanged), applied to the executable graph with
// cudaGraphExecUpdate (grid sizes change every iteration, the topology only when a stage is skipped, which
// instantiates afresh), and launched with one call. The GPU then runs the dependent kernels back to back
// instead of paying each launch's latency. Off: begin and launch do nothing and the kernels go to the stream.
class IterationGraph {
public:
    explicit IterationGraph(bool on) : on_(on) {}
    IterationGraph(const IterationGraph&) = delete;
    ~IterationGraph() {
        if (exec_) cudaGraphExecDestroy(exec_);
    }
    void begin(cudaStream_t s) {
        if (on_) WP_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    }
    void launch(cudaStream_t s) {
        if (!on_) return;
        cudaGraph_t g = nullptr;
        WP_CUDA(cudaStreamEndCapture(s, &g));
        struct Free {
            cudaGraph_t g;
            ~Free() { cudaGraphDestroy(g); }
        } free_graph{g};
        if (exec_) {
            cudaGraphExecUpdateResultInfo info;
            if (cudaGraphExecUpdate(exec_, g, &info) != cudaSuccess) {  // topology changed: instantiate afresh
                cudaGetLastError();
                WP_CUDA(cudaGraphExecDestroy(exec_));
                exec_ = nullptr;
            }
        }
        if (!exec_) {
            WP_CUDA(cudaGraphInstantiate(&exec_, g, 0));
            ++instantiations_;
        }
        WP_CUDA(cudaGraphLaunch(exec_, s));
    }
    uint32_t instantiations() const { return instantiations_; }

private:
    bool on_;
    cudaGraphExec_t exec_ = nullptr;
    uint32_t instantiations_ = 0;
};

// Whether the wavefront compacts slot indices (paths stay in place) rather than gathering paths: an option of the
// synchronised schedule (taking precedence over push compaction); the pipelined schedule moves paths.
bool index_compaction(const RenderOptions& opt) {
    return opt.index_compaction && !opt.pipelined;
}

// Device bytes per wavefront path slot: the path queue (two when paths are gathered), hits, shadow rays, flags,
// selection or the two slot lists, sort keys.
size_t wavefront_bytes_per_path(const RenderOptions& opt) {
    return (index_compaction(opt) ? 1 : 2) * PathSoA::kBytesPerItem + HitSoA::kBytesPerItem +
           ShadowSoA::kBytesPerItem + 1 /*alive*/ + (index_compaction(opt) ? 8 : 4) /*slot lists or selected*/ +
           (opt.sort_materials ? 16 : 0) /*keys, order*/ + 8 /*CUB temp, roughly*/;
}

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

// The wavefront's tail (both schedules): the `live` paths of q.paths run to their ends by the drain kernel; its rays
// (counted in d_rays, two zeroed-here words) and the drained paths go into the stats. Waits for the kernel.
void drain_tail(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                const WavefrontQueues& q, uint32_t live, unsigned long long* d_rays, RenderStats& st) {
    NvtxRange drain_range("drain");
    WP_CUDA(cudaMemsetAsync(d_rays, 0, 2 * sizeof(unsigned long long), L.stream()));
    launch_drain(L, s, rp, film, q, live, d_rays);
    unsigned long long h[2];
    WP_CUDA(cudaMemcpyAsync(h, d_rays, sizeof(h), cudaMemcpyDeviceToHost, L.stream()));
    WP_CUDA(cudaStreamSynchronize(L.stream()));
    L.collect();
    st.drained = live;
    st.extension_rays += h[0];
    st.shadow_rays += h[1];
}

uint64_t megakernel_schedule(const SceneView& s, const RenderParams& rp, const FilmView& film, const RenderOptions& opt,
                             DeviceArena& A, Launcher& L, RenderStats& st, FrameStart& frame_start) {
    unsigned long long* rays = A.alloc<unsigned long long>(2);
    WP_CUDA(cudaMemsetAsync(rays, 0, 2 * sizeof(unsigned long long), L.stream()));
    uint32_t* counters = A.alloc<uint32_t>(2);  // the persistent threads' work counters, zero after every launch
    WP_CUDA(cudaMemsetAsync(counters, 0, 2 * sizeof(uint32_t), L.stream()));
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    // Samples per launch: a pass over the pixels, at least 2M (the persistent megakernel's tail, where lanes run out of
    // samples, comes once per launch), fewer than 2^32 (its counters)
    const uint64_t batch = std::min<uint64_t>(std::max<uint64_t>(rp.num_pixels(), 1u << 21), 0xffff0000ull);
    // at most two batches in flight: the host waits for batch k-1 (to report progress) while k runs
    Event batch_end[2];
    uint64_t k = 0;
    uint64_t done = 0;
    frame_start();
    for (uint64_t b = 0; b < total && !(opt.cancel && *opt.cancel); b += batch, ++k) {
        uint64_t e = std::min(total, b + batch);
        done = e;
        NvtxRange batch_range("batch");
        launch_megakernel(L, s, rp, film, b, e, rays, counters);
        WP_CUDA(cudaEventRecord(batch_end[k & 1].e, L.stream()));
        if (k > 0) {
            WP_CUDA(cudaEventSynchronize(batch_end[(k - 1) & 1].e));
            if (opt.progress) opt.progress(b, total);
        }
    }
    WP_CUDA(cudaStreamSynchronize(L.stream()));
    unsigned long long h[2];
    WP_CUDA(cudaMemcpy(h, rays, sizeof(h), cudaMemcpyDeviceToHost));
    st.extension_rays = h[0];
    st.shadow_rays = h[1];
    if (opt.progress) opt.progress(done, total);
    return done;
}

// The wavefront iterations without host round trips: each iteration's counts live on the device (prepare), the
// stage kernels are launched over host upper bounds (the capacity while camera paths are still generated, then
// the last live count the host has heard of), and the host learns each iteration's record through mapped memory
// two iterations late, blocking only to keep at most two iterations queued. Once it hears that generation is over
// and at most opt.drain_below paths are live, it stops launching iterations and drains the paths left (those of
// the iterations already queued run first). Returns the samples taken.
uint64_t pipelined_iterations(const SceneView& s, const RenderParams& rp, const FilmView& film, const RenderOptions& opt,
                              DeviceArena& A, Launcher& L, RenderStats& st, WavefrontQueues& q, PathSoA* paths,
                              uint64_t cap, uint64_t total, void* temp, size_t sort_bytes, size_t select_bytes,
                              uint32_t* keys_sorted, uint32_t* order, uint32_t* selected, FrameStart& frame_start) {
    constexpr uint64_t kRing = 8;
    IterCounts* d_it = A.alloc<IterCounts>(1);
    unsigned long long* d_next = A.alloc<unsigned long long>(1);
    WP_CUDA(cudaMemsetAsync(d_it, 0, sizeof(IterCounts), L.stream()));
    WP_CUDA(cudaMemsetAsync(d_next, 0, sizeof(unsigned long long), L.stream()));
    WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), L.stream()));
    IterRecord* h_rec = nullptr;
    IterRecord* d_rec = nullptr;
    WP_CUDA(cudaHostAlloc(&h_rec, kRing * sizeof(IterRecord), cudaHostAllocMapped));
    struct FreeHost {
        IterRecord* p;
        ~FreeHost() { cudaFreeHost(p); }
    } free_rec{h_rec};
    WP_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d_rec), h_rec, 0));
    unsigned long long* d_rays = A.alloc<unsigned long long>(2);  // the drain's ray counts
    Event ev[kRing];  // ev[k % kRing]: after prepare(k), which wrote record k - 1
    frame_start();
    q.iter = d_it;
    const uint64_t kNone = ~uint64_t(0);
    uint64_t cancel_from = kNone, consumed = 0, done = 0;
    bool gen_over = false, stop = false, drain_now = false;
    uint32_t bound_known = uint32_t(cap), live_last = 0;
    auto consume = [&](uint64_t j) {
        IterRecord r = h_rec[j % kRing];
        live_last = r.live;
        if (r.extended > 0) {
            st.iterations.push_back(IterationStat{r.generated, r.extended, r.shadow, r.live});
            st.extension_rays += r.extended;
            st.shadow_rays += r.shadow;
        }
        done = r.next;
        if (r.next >= total || j >= cancel_from) {
            gen_over = true;  // no iteration after j generates: its live count bounds every later queue
            bound_known = r.live;
            if (r.live == 0) stop = true;
            if (r.live > 0 && r.live <= opt.drain_below) drain_now = stop = true;
        }
        if (opt.progress) opt.progress(r.next - r.live, total);
    };
    int cur = 0;
    uint64_t k = 0;
    for (; !stop; ++k) {
        if (opt.cancel && *opt.cancel && cancel_from == kNone) cancel_from = k;  // stop taking samples
        NvtxRange bounce_range("bounce");
        q.paths = paths[cur];
        launch_prepare(L, q, d_it, k ? d_rec + (k - 1) % kRing : nullptr, d_next, uint32_t(cap),
                       k >= cancel_from ? 0 : total);
        WP_CUDA(cudaEventRecord(ev[k % kRing].e, L.stream()));
        uint32_t bound = gen_over ? bound_known : uint32_t(cap);
        if (!gen_over) launch_generate(L, s, rp, q, 0, 0, uint32_t(cap));
        launch_extend(L, s, q, bound);
        q.order = nullptr;
        if (opt.sort_materials) {
            launch_sort_materials(L, temp, sort_bytes, q, keys_sorted, order, bound);
            q.order = order;
        }
        q.push = opt.push_compaction;
        q.next = paths[1 - cur];
        launch_shade(L, s, rp, film, q, bound);
        if (samples_lights(s, rp)) launch_shadow(L, s, film, q, bound);
        if (!q.push) launch_compact(L, temp, select_bytes, q, selected, paths[1 - cur], bound);
        cur = 1 - cur;
        if (k >= 1) {  // prepare(k - 1) done: records up to k - 2 are in
            WP_CUDA(cudaEventSynchronize(ev[(k - 1) % kRing].e));
            while (!stop && consumed + 2 <= k) consume(consumed++);
            L.collect_ready();
        }
    }
    // the records not yet read: one more prepare writes record k - 1
    launch_prepare(L, q, d_it, d_rec + (k - 1) % kRing, d_next, 0, 0);
    WP_CUDA(cudaStreamSynchronize(L.stream()));
    while (consumed < k) consume(consumed++);  // iterations queued after the one that stopped: empty or drained
    q.iter = nullptr;
    q.push = false;
    if (drain_now && live_last > 0) {  // the tail: the paths of the last iteration, each to its end
        q.paths = paths[cur];
        drain_tail(L, s, rp, film, q, live_last, d_rays, st);
        if (opt.progress) opt.progress(done, total);
    }
    L.collect();
    return done;
}

uint64_t wavefront_schedule(const SceneView& s, const RenderParams& rp, const FilmView& film, const RenderOptions& opt,
                            DeviceArena& A, Launcher& L, RenderStats& st, FrameStart& frame_start) {
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    // Queue capacity: the request (default kDefaultGpuCapacity paths), at most the samples to render, and within 60%
    // of the free memory left after the scene and film (render_gpu checked that a minimal queue fits).
    const size_t per_path = wavefront_bytes_per_path(opt);
    uint64_t cap = opt.capacity ? opt.capacity : kDefaultGpuCapacity;
    cap = std::min<uint64_t>(cap, std::max<uint64_t>(total, 1));
    cap = std::min<uint64_t>(cap, std::max<uint64_t>(uint64_t(0.6 * double(opt.device_memory_limit)) / per_path,
                                                     std::min<uint64_t>(total, 1u << 16)));
    cap = std::min<uint64_t>(cap, 0x7fffffffu);
    st.capacity = uint32_t(cap);
    st.sorted = opt.sort_materials;

    const bool by_index = index_compaction(opt);
    PathSoA paths[2];
    A.allocate(paths[0], cap);
    if (by_index) paths[1] = paths[0];  // paths stay in their slots
    else A.allocate(paths[1], cap);
    WavefrontQueues q;
    A.allocate(q.hits, cap);
    A.allocate(q.shadow, cap);
    q.alive = A.alloc<uint8_t>(cap);
    q.counters = A.alloc<uint32_t>(kNumCounters);
    WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), L.stream()));
    q.refill = opt.refill;
    if (opt.queue_stats) {
        q.paths_at_depth = A.alloc<unsigned long long>(kStatDepths);
        q.shadow_at_depth = A.alloc<unsigned long long>(kStatDepths);
        WP_CUDA(cudaMemsetAsync(q.paths_at_depth, 0, kStatDepths * sizeof(unsigned long long), L.stream()));
        WP_CUDA(cudaMemsetAsync(q.shadow_at_depth, 0, kStatDepths * sizeof(unsigned long long), L.stream()));
    }
    uint32_t* selected = A.alloc<uint32_t>(cap);
    uint32_t *keys_sorted = nullptr, *order = nullptr;
    size_t sort_bytes = 0;
    if (opt.sort_materials) {
        q.material_key = A.alloc<uint32_t>(cap);
        q.order_iota = A.alloc<uint32_t>(cap);
        keys_sorted = A.alloc<uint32_t>(cap);
        order = A.alloc<uint32_t>(cap);
        sort_bytes = sort_materials_temp_bytes(uint32_t(cap));
    }
    size_t select_bytes = compact_temp_bytes(uint32_t(cap));
    void* temp = A.alloc<unsigned char>(std::max(sort_bytes, select_bytes));
    uint32_t* h_counters = nullptr;  // pinned, read back once per iteration
    WP_CUDA(cudaMallocHost(&h_counters, kNumCounters * sizeof(uint32_t)));
    struct FreeHost {
        uint32_t* p;
        ~FreeHost() { cudaFreeHost(p); }
    } free_host{h_counters};

    int cur = 0;
    uint64_t next = 0;
    if (!opt.pipelined) {  // the default: one host round trip per iteration
        IterationGraph graph(opt.graphs);
        uint32_t live = 0;
        unsigned long long* d_rays = A.alloc<unsigned long long>(2);  // the drain's ray counts
        // index compaction: slot lists, the iteration's (items -> slots) and the partition's output, swapped
        uint32_t* slot_list[2] = {selected, by_index ? A.alloc<uint32_t>(cap) : nullptr};
        if (by_index) launch_init_slots(L, slot_list[0], uint32_t(cap));  // every slot free
        st.index_compaction = by_index;
        frame_start();
        while (live > 0 || next < total) {
            q.paths = paths[cur];
            q.slots = by_index ? slot_list[cur] : nullptr;
            IterationStat it;
            if (opt.cancel && *opt.cancel) total = next;  // stop taking samples; finish the paths in flight
            if (next >= total && live > 0 && live <= opt.drain_below) {  // the tail: each path to its end at once
                drain_tail(L, s, rp, film, q, live, d_rays, st);
                live = 0;
                if (opt.progress) opt.progress(next, total);
                break;
            }
            it.generated = uint32_t(std::min<uint64_t>(cap - live, total - next));
            if (live + it.generated == 0) break;
            NvtxRange bounce_range("bounce");
            graph.begin(L.stream());
            launch_generate(L, s, rp, q, live, next, it.generated);
            next += it.generated;
            uint32_t n = live + it.generated;
            it.extended = n;
            WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), L.stream()));
            launch_extend(L, s, q, n);
            q.order = nullptr;
            if (opt.sort_materials) {
                launch_sort_materials(L, temp, sort_bytes, q, keys_sorted, order, n);
                q.order = order;
            }
            q.push = opt.push_compaction && !by_index;  // shade packs the live paths into the other queue
            q.next = paths[1 - cur];
            launch_shade(L, s, rp, film, q, n);
            if (samples_lights(s, rp)) launch_shadow(L, s, film, q, n);  // no lights: no shadow rays
            // The next iteration's items: live slots first, then the freed ones its generate fills. Those past n
            // are not needed: n < cap only once every camera path has been generated.
            if (q.push) {
            } else if (by_index) launch_partition(L, temp, select_bytes, q, slot_list[1 - cur], n);
            else launch_compact(L, temp, select_bytes, q, selected, paths[1 - cur], n);
            cur = 1 - cur;
            WP_CUDA(cudaMemcpyAsync(h_counters, q.counters, kNumCounters * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    L.stream()));
            graph.launch(L.stream());
            WP_CUDA(cudaStreamSynchronize(L.stream()));
            L.collect();
            live = h_counters[kLiveCount];
            it.shadow = h_counters[kShadowCount];
            it.live = live;
            st.iterations.push_back(it);
            st.extension_rays += n;
            st.shadow_rays += it.shadow;
            if (opt.progress) opt.progress(next - live, total);
        }
        st.graph_instantiations = graph.instantiations();
    } else {
        next = pipelined_iterations(s, rp, film, opt, A, L, st, q, paths, cap, total, temp, sort_bytes, select_bytes,
                                    keys_sorted, order, selected, frame_start);
    }
    if (opt.queue_stats) {
        st.paths_at_depth.resize(kStatDepths);
        st.shadow_at_depth.resize(kStatDepths);
        WP_CUDA(cudaMemcpy(st.paths_at_depth.data(), q.paths_at_depth, kStatDepths * sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost));
        WP_CUDA(cudaMemcpy(st.shadow_at_depth.data(), q.shadow_at_depth, kStatDepths * sizeof(unsigned long long),
                           cudaMemcpyDeviceToHost));
    }
    return next;
}

}  // namespace

Image render_gpu(const SceneData& sd, const RenderParams& rp_in, Mode mode, const RenderOptions& opt, RenderStats* stats) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    RenderStats st;
    st.backend = "gpu";
    if (!gpu_available(&st.device)) throw std::runtime_error("no CUDA GPU present");
    st.mode = mode;
    st.samples = uint64_t(rp.num_pixels()) * rp.spp;
    NvtxRange render_range("render");
    // Out of memory is found before anything is allocated: scene, film and (wavefront) a minimal queue against the
    // free device memory (or the caller's limit); the wavefront queue then takes what is left, up to its size.
    size_t free_b = 0, total_b = 0;
    WP_CUDA(cudaMemGetInfo(&free_b, &total_b));
    uint64_t avail = opt.device_memory_limit ? std::min<uint64_t>(opt.device_memory_limit, free_b) : free_b;
    std::string what;
    uint64_t needed = scene_device_bytes(sd, &what) + film_device_bytes(rp);
    uint64_t queue_min = mode == Mode::Wavefront ? uint64_t(std::min<uint64_t>(uint64_t(rp.num_pixels()) * rp.spp, 1u << 16)) *
                                                       wavefront_bytes_per_path(opt)
                                                 : 0;
    if (std::string why = device_memory_problem(needed, queue_min, avail, what, st.device); !why.empty())
        throw std::runtime_error(why);
    RenderOptions o2 = opt;
    o2.device_memory_limit = avail - needed;
    DeviceArena A;
    SceneView s = upload_scene(sd, A);
    FilmView film = make_film(rp.num_pixels(), A);
    Stream stream;
    Image img;
    {
        L2Window l2(opt.l2_persist, stream.s, sd, s);
        Launcher L(stream.s, opt.kernel_timing);
        Event t0, t1;
        WP_CUDA(cudaDeviceSynchronize());
        FrameStart frame_start{t0.e, stream.s};  // recorded by the schedule once its setup is queued
        uint64_t done = mode == Mode::Megakernel ? megakernel_schedule(s, rp, film, o2, A, L, st, frame_start)
                                                 : wavefront_schedule(s, rp, film, o2, A, L, st, frame_start);
        frame_start();  // (a schedule that returned before its first launch)
        st.setup_ms = frame_start.setup_ms;
        WP_CUDA(cudaEventRecord(t1.e, stream.s));
        WP_CUDA(cudaStreamSynchronize(stream.s));
        L.collect();
        float ms = 0;
        WP_CUDA(cudaEventElapsedTime(&ms, t0.e, t1.e));
        st.render_ms = ms;
        for (const KernelStat& k : L.table()) st.kernels.push_back(KernelRow{k.name, k.launches, k.total_ms});
        img = read_film(film, rp, done);
        st.samples = done;
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
    L2Window l2(opt.l2_persist, stream.s, sd, s);
    Launcher L(stream.s);
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    uint64_t cap = std::min<uint64_t>(opt.capacity ? opt.capacity : (1u << 22), std::max<uint64_t>(total, 1));
    PathSoA paths[2];
    A.allocate(paths[0], cap);
    A.allocate(paths[1], cap);
    WavefrontQueues q;
    A.allocate(q.hits, cap);
    q.alive = A.alloc<uint8_t>(cap);
    q.counters = A.alloc<uint32_t>(kNumCounters);
    WP_CUDA(cudaMemsetAsync(q.counters, 0, kNumCounters * sizeof(uint32_t), L.stream()));
    q.refill = opt.refill;
    uint32_t* selected = A.alloc<uint32_t>(cap);
    size_t select_bytes = compact_temp_bytes(uint32_t(cap));
    void* temp = A.alloc<unsigned char>(select_bytes);
    uint32_t live = 0;
    WP_CUDA(cudaDeviceSynchronize());
    for (uint64_t next = 0; next < total;) {
        uint32_t n = uint32_t(std::min<uint64_t>(cap, total - next));
        q.paths = paths[0];
        launch_generate(L, s, rp, q, 0, next, n);
        launch_extend(L, s, q, n, "raycast_primary");
        launch_diffuse_bounce(L, s, rp, q, n);
        launch_compact(L, temp, select_bytes, q, selected, paths[1], n);
        WP_CUDA(cudaMemcpyAsync(&live, q.counters + kLiveCount, sizeof(live), cudaMemcpyDeviceToHost, L.stream()));
        WP_CUDA(cudaStreamSynchronize(L.stream()));
        q.paths = paths[1];
        launch_extend(L, s, q, live, "raycast_diffuse");
        WP_CUDA(cudaStreamSynchronize(L.stream()));
        st.primary_rays += n;
        st.diffuse_rays += live;
        next += n;
    }
    L.collect();
    for (const KernelStat& k : L.table()) {
        if (k.name == "raycast_primary") st.primary_ms = k.total_ms;
        if (k.name == "raycast_diffuse") st.diffuse_ms = k.total_ms;
    }
    return st;
}

std::vector<KernelAttr> gpu_kernel_attrs(int bvh_width) {
    if (!gpu_available()) return {};
    return {attr_megakernel(bvh_width), attr_generate(), attr_extend(bvh_width), attr_shade(), attr_shadow(bvh_width),
            attr_compact(), attr_diffuse_bounce(), attr_drain(bvh_width), attr_extend_persistent()};
}

}  // namespace wp
