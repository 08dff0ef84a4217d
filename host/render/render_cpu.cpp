// CPU backend: the megakernel schedule (one whole path at a time per thread) and the wavefront schedule (the
// same stage functions as the GPU kernels, one stage at a time over a queue, with host compaction).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include "host/render/multi_device.h"
#include "host/render/render.h"
#include "host/render/wavefront_loop.h"
#include "kernels/aov.h"
#include "kernels/wavefront.h"

namespace wp {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// f(i) for i in [0, n) on `threads` threads, in chunks taken from a shared counter.
template <class F>
void parallel_for(uint64_t n, unsigned threads, F&& f, uint64_t chunk = 256) {
    if (n == 0) return;
    std::atomic<uint64_t> next{0};
    auto worker = [&] {
        for (uint64_t b; (b = next.fetch_add(chunk)) < n;)
            for (uint64_t i = b, e = std::min(n, b + chunk); i < e; ++i) f(i);
    };
    unsigned t = unsigned(std::min<uint64_t>(threads, (n + chunk - 1) / chunk));
    if (t <= 1) {
        worker();
        return;
    }
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
}

// f(i) for a prefix [0, done) of [0, n), as parallel_for, but no chunk is taken once *cancel is true: returns done
// (n when not cancelled). Every chunk handed out is finished, and chunks are handed out in order, so the items
// done are exactly a prefix: an interrupted render's image holds exactly the samples [0, done).
template <class F>
uint64_t parallel_prefix(uint64_t n, unsigned threads, const std::atomic<bool>* cancel, F&& f, uint64_t chunk = 256,
                         const std::function<void(uint64_t)>& on_chunk = {}) {
    if (n == 0) return 0;
    std::atomic<uint64_t> next{0};
    auto worker = [&] {
        while (!(cancel && cancel->load(std::memory_order_relaxed))) {
            uint64_t b = next.fetch_add(chunk);
            if (b >= n) return;
            if (on_chunk) on_chunk(b);
            for (uint64_t i = b, e = std::min(n, b + chunk); i < e; ++i) f(i);
        }
    };
    unsigned t = unsigned(std::min<uint64_t>(threads, (n + chunk - 1) / chunk));
    std::vector<std::thread> pool;
    for (unsigned k = 1; k < t; ++k) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
    return std::min(n, next.load());
}

struct HostFilm {
    std::vector<unsigned long long> sum;
    unsigned long long bad = 0, clamped = 0;
    unsigned int first = 0xffffffffu;
    explicit HostFilm(uint32_t np) : sum(3ull * np, 0) {}
    FilmView view() { return FilmView{sum.data(), &bad, &first, &clamped}; }
    Image image(const RenderParams& rp, uint64_t begin, uint64_t done) {
        Image img = film_to_image(std::move(sum), rp, begin, done);
        img.nonfinite = bad;
        img.clamped = clamped;
        img.first_nonfinite_pixel = first == 0xffffffffu ? first : first % rp.num_pixels();
        return img;
    }
};

// 16-byte aligned host arrays, freed together (the queues' arena: kernels/wavefront_queues.h).
class HostArena {
public:
    HostArena() = default;
    HostArena(const HostArena&) = delete;
    ~HostArena() {
        for (void* p : owned_) ::operator delete(p, std::align_val_t(16));
    }
    template <class T>
    T* alloc(size_t n) {
        if (n == 0) return nullptr;
        void* p = ::operator new(n * sizeof(T), std::align_val_t(16));
        owned_.push_back(p);
        bytes_ += n * sizeof(T);
        return static_cast<T*>(p);
    }
    template <class T>
    T* zeroed(size_t n) {
        T* p = alloc<T>(n);
        if (p) std::memset(p, 0, n * sizeof(T));
        return p;
    }
    size_t bytes() const { return bytes_; }

private:
    std::vector<void*> owned_;
    size_t bytes_ = 0;
};

class StageTimer {
public:
    explicit StageTimer(std::vector<KernelRow>& rows) : rows_(rows) {}
    template <class F>
    void run(const char* name, F&& f) {
        auto t0 = Clock::now();
        f();
        double ms = ms_since(t0);
        for (KernelRow& r : rows_)
            if (r.name == name) {
                r.launches++;
                r.ms += ms;
                return;
            }
        rows_.push_back(KernelRow{name, 1, ms});
    }

private:
    std::vector<KernelRow>& rows_;
};

Image cpu_megakernel(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, uint64_t begin,
                     uint64_t total, unsigned threads, RenderStats& st) {
    HostFilm film(rp.film_pixels());
    FilmView fv = film.view();
    std::atomic<uint64_t> ext{0}, shadow{0};
    // batches of at most one sample per pixel (and at most 2^20 samples, so that progress comes often at any
    // resolution); the cancel flag is read before every chunk of 256 paths, and the samples done stay a prefix
    const uint64_t batch = std::max<uint64_t>(std::min<uint64_t>(rp.num_pixels(), 1u << 20), 1);
    StageTimer timer(st.kernels);
    uint64_t done = begin;
    for (uint64_t b = begin; b < total && !(opt.cancel && *opt.cancel); b += batch) {
        uint64_t e = std::min(total, b + batch);
        timer.run("megakernel", [&] {
            std::function<void(uint64_t)> on_chunk;
            if (opt.on_chunk) on_chunk = [&](uint64_t i) { opt.on_chunk(b + i); };
            done = b + parallel_prefix(
                           e - b, threads, opt.cancel,
                           [&](uint64_t i) {
                               uint64_t r = trace_path(s, rp, fv, b + i);
                               ext.fetch_add(r & 0xffffffffu, std::memory_order_relaxed);
                               shadow.fetch_add(r >> 32, std::memory_order_relaxed);
                           },
                           256, on_chunk);
        });
        if (opt.progress) opt.progress(done - begin, total - begin);
    }
    st.extension_rays = ext;
    st.shadow_rays = shadow;
    return film.image(rp, begin, done);
}

// The CPU's CUB radix sort of the n ray keys into q.ray_order: (key, index) pairs sorted, so equal keys keep their
// order (stable, as the radix sort).
void sort_keys(const WavefrontQueues& q, uint32_t n) {
    std::vector<uint64_t> pairs(n);
    for (uint32_t i = 0; i < n; ++i) pairs[i] = (uint64_t(q.ray_key[i]) << 32) | q.ray_iota[i];
    std::sort(pairs.begin(), pairs.end());
    for (uint32_t i = 0; i < n; ++i) q.ray_order[i] = uint32_t(pairs[i]);
}
// sort_rays on the CPU: the keys of paths [0, n)'s rays, sorted into q.ray_order.
void cpu_sort_rays(const SceneView& s, const WavefrontQueues& q, uint32_t n, unsigned threads) {
    parallel_for(
        n, threads, [&](uint64_t i) { stage::sort_rays_key(s, q, uint32_t(i)); }, 1024);
    sort_keys(q, n);
}

// The wavefront's stages on CPU threads (the backend of wavefront_render, host/render/wavefront_loop.h): each a
// parallel loop of the stage body over the queue, timed under the stage's name.
// fn(std::integral_constant<uint32_t, f>) for the material family f (kernels/features.h): the family as a constant,
// to compile a stage body for it.
template <class Fn, uint32_t... I>
void with_family_of(uint32_t f, Fn&& fn, std::integer_sequence<uint32_t, I...>) {
    ((f == I ? (fn(std::integral_constant<uint32_t, I>{}), 0) : 0), ...);
}
template <class Fn>
void with_family(uint32_t f, Fn&& fn) {
    with_family_of(f, fn, std::make_integer_sequence<uint32_t, kNumFamilies>{});
}

struct CpuStages {
    const SceneView& s;
    const RenderParams& rp;
    const FilmView& film;
    WavefrontQueues& q;
    unsigned threads;
    StageTimer& timer;

    template <class F>
    void each(const char* name, uint64_t n, uint64_t chunk, F&& f) {
        timer.run(name, [&] { parallel_for(n, threads, f, chunk); });
    }
    void generate(uint32_t first_slot, uint64_t first, uint32_t n) {
        each("generate", n, 256, [&](uint64_t i) { stage::generate(s, rp, q, first_slot + uint32_t(i), first + i); });
    }
    void clear_counts() {
        q.counters[kShadowCount] = q.counters[kLiveCount] = 0;
        for (uint32_t f = 0; f < kNumFamilies; ++f) q.counters[kFamilyCount + f] = 0;
    }
    void extend(uint32_t n) {
        each("extend", n, 64, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); });
    }
    void sort_materials(uint32_t n) {
        timer.run("sort_materials", [&] {  // counting sort by key: stable, like CUB's radix sort
            uint32_t count[(1u << kMaterialKeyBits) + 1] = {};
            for (uint32_t i = 0; i < n; ++i) count[q.material_key[i] + 1]++;
            for (uint32_t k = 1; k <= (1u << kMaterialKeyBits); ++k) count[k] += count[k - 1];
            for (uint32_t i = 0; i < n; ++i) q.order[count[q.material_key[i]]++] = q.order_iota[i];
        });
    }
    void sort_rays(uint32_t n) {
        timer.run("sort_rays", [&] { cpu_sort_rays(s, q, n, threads); });
    }
    void sort_shadow(uint32_t) {
        const uint32_t m = q.counters[kShadowCount];
        timer.run("sort_shadow", [&] {
            parallel_for(
                m, threads, [&](uint64_t i) { stage::sort_shadow_key(s, q, uint32_t(i), m); }, 1024);
            sort_keys(q, m);
        });
    }
    // By material family as the GPU's launcher (kernels/shade.cu): each family's body, compiled with only its
    // material (family_features), over its queue; a scene of one family runs its body over every path.
    void shade(uint32_t n) {
        if (!q.family_items) {
            const uint32_t one = shade_single_family(s.features);
            with_family(one, [&](auto f) {
                constexpr uint32_t kF = decltype(f)::value;
                constexpr uint32_t F = kF ? family_features(kFeaturesHost, kF) : kFeaturesHost;
                each(kF ? kFamilyStageNames[kF] : "shade", n, 256,
                     [&](uint64_t i) { stage::shade<F>(s, rp, film, q, uint32_t(i)); });
            });
            return;
        }
        const uint32_t fams = families_of(s.features);
        for (uint32_t fi = 0; fi < kNumFamilies; ++fi) {
            if (!(fams >> fi & 1u)) continue;
            WavefrontQueues qf = q;
            qf.order = q.family_items + size_t(fi) * q.capacity;
            with_family(fi, [&](auto f) {
                constexpr uint32_t kF = decltype(f)::value;
                constexpr uint32_t F = family_features(kFeaturesHost, kF);
                each(kFamilyStageNames[kF], q.counters[kFamilyCount + kF], 256,
                     [&](uint64_t i) { stage::shade<F>(s, rp, film, qf, uint32_t(i)); });
            });
        }
    }
    void shadow(uint32_t) {
        each("shadow", q.counters[kShadowCount], 64,
             [&](uint64_t i) { stage::shadow(s, film, q, q.shadow_sorted ? q.ray_order[i] : uint32_t(i)); });
    }
    void compact(uint32_t n) {
        timer.run("compact_select", [&] {  // the CPU's CUB DeviceSelect::Flagged: the live indices, in order
            uint32_t m = 0;
            for (uint32_t i = 0; i < n; ++i)
                if (q.alive[i]) q.selected[m++] = i;
            q.counters[kLiveCount] = m;
        });
        each("compact", q.counters[kLiveCount], 1024, [&](uint64_t i) { stage::compact(q, uint32_t(i)); });
    }
    IterationCounts counts() const {
        return IterationCounts{q.counters[kShadowCount], q.counters[kLiveCount],
                               q.family_items ? q.counters + kFamilyCount : nullptr};
    }
    DrainRays drain(uint32_t n) {
        std::atomic<uint64_t> ext{0}, shadow{0};
        each("drain", n, 16, [&](uint64_t i) {
            uint64_t r = stage::drain(s, rp, film, q, uint32_t(i));
            ext.fetch_add(r & 0xffffffffu, std::memory_order_relaxed);
            shadow.fetch_add(r >> 32, std::memory_order_relaxed);
        });
        return DrainRays{ext, shadow};
    }
};

Image cpu_wavefront(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, uint64_t begin, uint64_t end,
                    unsigned threads, RenderStats& st) {
    HostFilm film(rp.film_pixels());
    FilmView fv = film.view();
    const uint64_t total = end - begin;
    QueueConfig qc;
    qc.capacity =
        uint32_t(std::min<uint64_t>(opt.capacity ? opt.capacity : kDefaultCpuCapacity, std::max<uint64_t>(total, 1)));
    qc.sort_materials = opt.sort_materials;
    qc.sort_rays = opt.sort_rays > 0;
    qc.push = opt.push_compaction;
    qc.stats = opt.queue_stats;
    qc.families = !opt.sort_materials && shade_by_family(s.features);
    HostArena arena;
    WavefrontQueues q = allocate_queues(arena, qc);
    st.capacity = qc.capacity;
    st.sorted = opt.sort_materials;
    StageTimer timer(st.kernels);
    CpuStages x{s, rp, fv, q, threads, timer};
    const uint64_t done = wavefront_render(x, begin, end, opt, samples_lights(s, rp), st);
    if (opt.queue_stats) {
        st.paths_at_depth.assign(q.paths_at_depth, q.paths_at_depth + kStatDepths);
        st.shadow_at_depth.assign(q.shadow_at_depth, q.shadow_at_depth + kStatDepths);
    }
    st.device_bytes = arena.bytes();
    return film.image(rp, begin, done);
}

}  // namespace

namespace {
RaycastStats raycast_cpu_impl(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, unsigned threads) {
    RaycastStats st;
    st.backend = "cpu";
    st.device = std::to_string(threads) + " threads";
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    QueueConfig qc;
    qc.capacity =
        uint32_t(std::min<uint64_t>(opt.capacity ? opt.capacity : kDefaultCpuCapacity, std::max<uint64_t>(total, 1)));
    qc.push = false;  // alive flags and the selection
    qc.sort_rays = opt.sort_rays > 0;
    HostArena arena;
    WavefrontQueues q = allocate_queues(arena, qc);
    const uint32_t cap = qc.capacity;
    std::vector<KernelRow> primary_rows, diffuse_rows;  // the two passes' extend, timed apart
    StageTimer primary(primary_rows), diffuse(diffuse_rows);
    for (uint64_t next = 0; next < total;) {
        uint32_t n = uint32_t(std::min<uint64_t>(cap, total - next));
        parallel_for(n, threads, [&](uint64_t i) { stage::generate(s, rp, q, uint32_t(i), next + i); });
        primary.run("extend", [&] {
            parallel_for(
                n, threads, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); }, 64);
        });
        parallel_for(n, threads, [&](uint64_t i) { stage::diffuse_bounce(s, rp, q, uint32_t(i)); });
        uint32_t live = 0;
        for (uint32_t i = 0; i < n; ++i)
            if (q.alive[i]) q.selected[live++] = i;
        parallel_for(live, threads, [&](uint64_t i) { stage::compact(q, uint32_t(i)); });
        q.swap();
        // the bounces traced in key order when --sort-rays asks for a queue this large (as the path tracer's)
        q.extend_sorted = opt.sort_rays > 0 && live >= opt.sort_rays;
        if (q.extend_sorted) diffuse.run("sort_rays", [&] { cpu_sort_rays(s, q, live, threads); });
        diffuse.run("extend", [&] {
            parallel_for(
                live, threads, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); }, 64);
        });
        q.extend_sorted = false;
        q.swap();
        st.primary_rays += n;
        st.diffuse_rays += live;
        next += n;
    }
    for (const KernelRow& r : primary_rows) st.primary_ms += r.ms;
    for (const KernelRow& r : diffuse_rows) (r.name == "sort_rays" ? st.diffuse_sort_ms : st.diffuse_ms) += r.ms;
    return st;
}

}  // namespace

RaycastStats raycast_cpu(const SceneData& scene, const RenderParams& rp_in, const RenderOptions& opt) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    return raycast_cpu_impl(scene.view(), rp, opt, threads);
}

TraversalFigures count_traversal(const SceneData& scene, const RenderParams& rp_in, uint64_t max_rays,
                                 unsigned threads) {
    TraversalFigures f;
    const SceneView s = scene.view();
    if (!s.nodes) return f;  // no tree: nothing counted
    const RenderParams rp = rp_in.prepared();
    const uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    const uint64_t stride = std::max<uint64_t>(1, total / std::max<uint64_t>(max_rays, 1));
    const uint64_t m = total / stride;
    threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    std::atomic<uint64_t> pn{0}, pp{0}, dn{0}, dp{0}, dr{0};
    parallel_for(m, threads, [&](uint64_t k) {
        // the ray-cast pass's rays: a camera path (generate) and its hit's cosine-distributed bounce (diffuse_bounce)
        PathState p = generate_path(s, rp, k * stride);
        const Ray ray = path_ray(p);
        TraversalCount primary, diffuse;
        const Hit h = traverse_ww<false>(s, ray, 0.0f, kInf, &primary);
        pn.fetch_add(primary.nodes, std::memory_order_relaxed);
        pp.fetch_add(primary.prims, std::memory_order_relaxed);
        if (h.prim == kInvalid) return;
        traverse_ww<false>(s, stage::diffuse_bounce_ray(s, rp, p, h), 0.0f, kInf, &diffuse);
        dn.fetch_add(diffuse.nodes, std::memory_order_relaxed);
        dp.fetch_add(diffuse.prims, std::memory_order_relaxed);
        dr.fetch_add(1, std::memory_order_relaxed);
    });
    f.primary_rays = m;
    f.diffuse_rays = dr;
    if (m) {
        f.primary_nodes = double(pn) / double(m);
        f.primary_prims = double(pp) / double(m);
    }
    if (dr) {
        f.diffuse_nodes = double(dn) / double(dr);
        f.diffuse_prims = double(dp) / double(dr);
    }
    return f;
}

namespace {
unsigned cpu_threads(const RenderOptions& opt) {
    return opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
}
// The schedule of `mode` over [begin, end), timed; st gets the backend's description.
Image cpu_render_range(const SceneData& scene, const RenderParams& rp, Mode mode, const RenderOptions& opt,
                       uint64_t begin, uint64_t end, RenderStats& st) {
    const unsigned threads = cpu_threads(opt);
    st.backend = "cpu";
    st.device = std::to_string(threads) + " threads";
    st.mode = mode;
    st.samples = end - begin;
    const SceneView s = scene.view();
    return mode == Mode::Megakernel ? cpu_megakernel(s, rp, opt, begin, end, threads, st)
                                    : cpu_wavefront(s, rp, opt, begin, end, threads, st);
}
}  // namespace

void render_cpu_aovs(const SceneData& scene, const RenderParams& rp_in, const RenderOptions& opt, uint64_t begin,
                     uint64_t end, Image& img, RenderStats& st) {
    const RenderParams rp = rp_in.prepared();
    const SceneView s = scene.view();
    AovView v = alloc_aovs(img, opt.aovs);
    StageTimer timer(st.kernels);
    timer.run("aov", [&] {  // the AOV pass over the samples the image holds (kernels/aov.h), one pixel per item
        parallel_for(
            rp.num_pixels(), cpu_threads(opt),
            [&](uint64_t p) { aov_pixel(s, rp, uint32_t(p), begin, end, opt.aovs, v); }, 16);
    });
}

Image render_cpu_batch(const SceneData& scene, const RenderParams& rp_in, Mode mode, const RenderOptions& opt,
                       uint64_t b, uint64_t e, RenderStats& st) {
    const RenderParams rp = rp_in.prepared();
    const uint64_t all = uint64_t(rp.num_pixels()) * rp.spp;
    if (b > e || e > all)
        throw std::invalid_argument("batch [" + std::to_string(b) + ", " + std::to_string(e) +
                                    ") is not within the render's " + std::to_string(all) + " samples");
    auto t0 = Clock::now();
    Image img = cpu_render_range(scene, rp, mode, opt, b, e, st);
    st.render_ms = ms_since(t0);
    st.samples = img.samples;
    img.interrupted = img.first + img.samples < e;
    return img;
}

Image render_cpu(const SceneData& scene, const RenderParams& rp_in, Mode mode, const RenderOptions& opt,
                 RenderStats* stats) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    uint64_t begin = 0, end = 0;
    sample_range(rp, opt, begin, end);
    if (!opt.devices.empty())
        throw std::invalid_argument("RenderOptions::devices are GPUs: the CPU backend renders on its threads");
    RenderStats st;
    auto t0 = Clock::now();
    Image img = cpu_render_range(scene, rp, mode, opt, begin, end, st);
    if (opt.aovs) {  // the AOV pass over the samples the beauty holds, [begin, begin + samples)
        render_cpu_aovs(scene, rp, opt, img.first, img.first + img.samples, img, st);
        aov_images(img, rp, {{img.first, img.first + img.samples}});
    }
    st.render_ms = ms_since(t0);
    st.samples = img.samples;
    img.interrupted = img.first + img.samples < end;
    if (stats) *stats = std::move(st);
    return img;
}

}  // namespace wp
