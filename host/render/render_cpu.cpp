// CPU backend: the megakernel schedule (one whole path at a time per thread) and the wavefront schedule (the
// same stage functions as the GPU kernels, one stage at a time over a queue, with host compaction).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <new>
#include <thread>
#include "host/render/compact_host.h"
#include "host/render/render.h"
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

struct HostFilm {
    std::vector<unsigned long long> sum;
    unsigned long long bad = 0;
    unsigned int first = 0xffffffffu;
    explicit HostFilm(uint32_t np) : sum(3ull * np, 0) {}
    FilmView view() { return FilmView{sum.data(), &bad, &first}; }
    Image image(const RenderParams& rp, uint64_t done) const {
        Image img = film_to_image(sum, rp, done);
        img.nonfinite = bad;
        img.first_nonfinite_pixel = first;
        return img;
    }
};

// 16-byte aligned host arrays for the queues' fields, freed together.
struct HostArrays {
    std::vector<void*> owned;
    template <class SoA>
    void allocate(SoA& q, size_t n) {
        q.visit([&](void** p, size_t bytes, const char*) {
            *p = ::operator new(bytes * n, std::align_val_t(16));
            owned.push_back(*p);
        });
    }
    ~HostArrays() {
        for (void* p : owned) ::operator delete(p, std::align_val_t(16));
    }
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

Image cpu_megakernel(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, unsigned threads,
                     RenderStats& st) {
    HostFilm film(rp.num_pixels());
    FilmView fv = film.view();
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    std::atomic<uint64_t> ext{0}, shadow{0};
    // batches of one sample per pixel so that progress can be reported between them
    const uint64_t batch = std::max<uint64_t>(rp.num_pixels(), 1);
    StageTimer timer(st.kernels);
    uint64_t done = 0;
    for (uint64_t b = 0; b < total && !(opt.cancel && *opt.cancel); b += batch) {
        uint64_t e = std::min(total, b + batch);
        done = e;
        timer.run("megakernel", [&] {
            parallel_for(e - b, threads, [&](uint64_t i) {
                uint64_t r = trace_path(s, rp, fv, b + i);
                ext.fetch_add(r & 0xffffffffu, std::memory_order_relaxed);
                shadow.fetch_add(r >> 32, std::memory_order_relaxed);
            });
        });
        if (opt.progress) opt.progress(e, total);
    }
    st.extension_rays = ext;
    st.shadow_rays = shadow;
    return film.image(rp, done);
}

Image cpu_wavefront(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, unsigned threads,
                    RenderStats& st) {
    HostFilm film(rp.num_pixels());
    FilmView fv = film.view();
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    uint32_t cap = opt.capacity ? opt.capacity : (1u << 16);
    cap = uint32_t(std::min<uint64_t>(cap, std::max<uint64_t>(total, 1)));
    st.capacity = cap;
    st.sorted = opt.sort_materials;

    // index compaction (an option, taking precedence over push): paths stay in their slots, the slot lists are
    // partitioned
    const bool by_index = opt.index_compaction;
    st.index_compaction = by_index;
    HostArrays mem;
    PathSoA paths[2];
    mem.allocate(paths[0], cap);
    if (by_index) paths[1] = paths[0];
    else mem.allocate(paths[1], cap);
    std::vector<uint32_t> slot_list[2];
    if (by_index) {
        slot_list[0].resize(cap);
        slot_list[1].resize(cap);
        for (uint32_t i = 0; i < cap; ++i) slot_list[0][i] = i;  // every slot free
    }
    WavefrontQueues q;
    mem.allocate(q.hits, cap);
    mem.allocate(q.shadow, cap);
    std::vector<uint8_t> alive(cap);
    std::vector<uint32_t> selected(cap), key(cap), iota(cap), order(cap);
    uint32_t counters[kNumCounters] = {0, 0};
    std::vector<unsigned long long> pd(kStatDepths, 0), sd(kStatDepths, 0);
    q.alive = alive.data();
    q.counters = counters;
    q.paths_at_depth = opt.queue_stats ? pd.data() : nullptr;
    q.shadow_at_depth = opt.queue_stats ? sd.data() : nullptr;
    if (opt.sort_materials) {
        q.material_key = key.data();
        q.order_iota = iota.data();
    }
    StageTimer timer(st.kernels);
    int cur = 0;
    uint32_t live = 0;
    uint64_t next = 0;
    while (live > 0 || next < total) {
        q.paths = paths[cur];
        q.slots = by_index ? slot_list[cur].data() : nullptr;
        IterationStat it;
        if (opt.cancel && *opt.cancel) total = next;  // stop taking samples; finish the paths in flight
        if (next >= total && live > 0 && live <= opt.drain_below) {  // the tail: each path to its end at once
            std::atomic<uint64_t> ext{0}, shadow{0};
            timer.run("drain", [&] {
                parallel_for(live, threads, [&](uint64_t i) {
                    uint64_t r = stage::drain(s, rp, fv, q, uint32_t(i));
                    ext.fetch_add(r & 0xffffffffu, std::memory_order_relaxed);
                    shadow.fetch_add(r >> 32, std::memory_order_relaxed);
                }, 16);
            });
            st.drained = live;
            st.extension_rays += ext;
            st.shadow_rays += shadow;
            live = 0;
            if (opt.progress) opt.progress(next, total);
            break;
        }
        it.generated = uint32_t(std::min<uint64_t>(cap - live, total - next));
        uint32_t base = live;
        uint64_t first = next;
        timer.run("generate", [&] {
            parallel_for(it.generated, threads, [&](uint64_t i) { stage::generate(s, rp, q, base + uint32_t(i), first + i); });
        });
        next += it.generated;
        uint32_t n = live + it.generated;
        if (n == 0) break;
        it.extended = n;
        timer.run("extend", [&] { parallel_for(n, threads, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); }, 64); });
        q.order = nullptr;
        if (opt.sort_materials) {
            timer.run("sort_materials", [&] {  // counting sort by key: stable, like CUB's radix sort
                uint32_t count[(1u << kMaterialKeyBits) + 1] = {};
                for (uint32_t i = 0; i < n; ++i) count[key[i] + 1]++;
                for (uint32_t k = 1; k <= (1u << kMaterialKeyBits); ++k) count[k] += count[k - 1];
                for (uint32_t i = 0; i < n; ++i) order[count[key[i]]++] = iota[i];
            });
            q.order = order.data();
        }
        counters[kShadowCount] = 0;
        q.push = opt.push_compaction && !by_index;
        q.next = paths[1 - cur];
        if (q.push) counters[kLiveCount] = 0;
        timer.run("shade", [&] { parallel_for(n, threads, [&](uint64_t i) { stage::shade(s, rp, fv, q, uint32_t(i)); }); });
        it.shadow = counters[kShadowCount];
        timer.run("shadow", [&] { parallel_for(it.shadow, threads, [&](uint64_t i) { stage::shadow(s, fv, q, uint32_t(i)); }, 64); });
        if (q.push) {
            live = counters[kLiveCount];
        } else if (by_index) {  // live slots first, then the freed ones the next generate fills
            timer.run("compact_partition",
                      [&] { live = partition_flagged(q.slots, alive.data(), n, slot_list[1 - cur].data()); });
        } else {
            timer.run("compact_select", [&] { live = select_flagged(alive.data(), n, selected.data()); });
            const PathSoA& in = paths[cur];
            const PathSoA& out = paths[1 - cur];
            timer.run("compact", [&] {
                parallel_for(live, threads, [&](uint64_t i) { stage::compact(out, in, selected.data(), uint32_t(i)); }, 1024);
            });
        }
        cur = 1 - cur;
        it.live = live;
        st.iterations.push_back(it);
        st.extension_rays += n;
        st.shadow_rays += it.shadow;
        if (opt.progress) opt.progress(next - live, total);
    }
    if (opt.queue_stats) {
        st.paths_at_depth = pd;
        st.shadow_at_depth = sd;
    }
    st.device_bytes = uint64_t(cap) * (2 * PathSoA::kBytesPerItem + HitSoA::kBytesPerItem + ShadowSoA::kBytesPerItem +
                                       1 + 4 * 4);
    return film.image(rp, next);
}

}  // namespace

namespace {
RaycastStats raycast_cpu_impl(const SceneView& s, const RenderParams& rp, const RenderOptions& opt, unsigned threads) {
    RaycastStats st;
    st.backend = "cpu";
    st.device = std::to_string(threads) + " threads";
    uint64_t total = uint64_t(rp.num_pixels()) * rp.spp;
    uint32_t cap = uint32_t(std::min<uint64_t>(opt.capacity ? opt.capacity : (1u << 16), std::max<uint64_t>(total, 1)));
    HostArrays mem;
    PathSoA paths[2];
    mem.allocate(paths[0], cap);
    mem.allocate(paths[1], cap);
    WavefrontQueues q;
    mem.allocate(q.hits, cap);
    std::vector<uint8_t> alive(cap);
    std::vector<uint32_t> selected(cap);
    q.alive = alive.data();
    std::vector<KernelRow> rows;
    StageTimer timer(rows);
    for (uint64_t next = 0; next < total;) {
        uint32_t n = uint32_t(std::min<uint64_t>(cap, total - next));
        q.paths = paths[0];
        parallel_for(n, threads, [&](uint64_t i) { stage::generate(s, rp, q, uint32_t(i), next + i); });
        timer.run("raycast_primary",
                  [&] { parallel_for(n, threads, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); }, 64); });
        parallel_for(n, threads, [&](uint64_t i) { stage::diffuse_bounce(s, rp, q, uint32_t(i)); });
        uint32_t live = select_flagged(alive.data(), n, selected.data());
        parallel_for(live, threads, [&](uint64_t i) { stage::compact(paths[1], paths[0], selected.data(), uint32_t(i)); });
        q.paths = paths[1];
        timer.run("raycast_diffuse",
                  [&] { parallel_for(live, threads, [&](uint64_t i) { stage::extend(s, q, uint32_t(i)); }, 64); });
        st.primary_rays += n;
        st.diffuse_rays += live;
        next += n;
    }
    for (const KernelRow& r : rows) (r.name == "raycast_primary" ? st.primary_ms : st.diffuse_ms) = r.ms;
    return st;
}

}  // namespace

RaycastStats raycast_cpu(const SceneData& scene, const RenderParams& rp_in, const RenderOptions& opt) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    return raycast_cpu_impl(scene.view(), rp, opt, threads);
}

namespace {
template <class T>
uint64_t vbytes(const std::vector<T>& v) {
    return uint64_t(v.size()) * sizeof(T);
}
std::string mib(uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / 1048576.0);
    return buf;
}
}  // namespace

uint64_t scene_device_bytes(const SceneData& sd, std::string* what) {
    uint64_t bvh = vbytes(sd.nodes) + vbytes(sd.nodes8), prims = vbytes(sd.geom) + vbytes(sd.info) + vbytes(sd.attr);
    uint64_t mats = vbytes(sd.lambert) + vbytes(sd.conductor) + vbytes(sd.dielectric) + vbytes(sd.principled);
    uint64_t lights = vbytes(sd.lights) + vbytes(sd.light_cdf);
    uint64_t tex = vbytes(sd.tex_texels) + vbytes(sd.textures);
    uint64_t env = vbytes(sd.env_texels) + vbytes(sd.env_marginal) + vbytes(sd.env_conditional);
    if (what)
        *what = "BVH " + mib(bvh) + ", primitives " + mib(prims) + ", materials and lights " + mib(mats + lights) +
                ", textures " + mib(tex) + ", environment " + mib(env);
    return bvh + prims + mats + lights + tex + env;
}

uint64_t film_device_bytes(const RenderParams& rp) { return 3ull * sizeof(unsigned long long) * rp.num_pixels() + 64; }

std::string device_memory_problem(uint64_t needed, uint64_t queue_min, uint64_t free_bytes, const std::string& what,
                                  const std::string& device) {
    if (needed + queue_min <= free_bytes) return "";
    return "the scene does not fit in GPU memory: it needs " + mib(needed + queue_min) + " (" + what + "; " +
           (queue_min ? "film and at least " + mib(queue_min) + " of path queues" : std::string("film")) + ") and " +
           device + " has " + mib(free_bytes) + " free";
}

Image film_to_image(const std::vector<unsigned long long>& sum, const RenderParams& rp, uint64_t done) {
    Image img;
    img.width = rp.width;
    img.height = rp.height;
    img.samples = done;
    img.interrupted = done < uint64_t(rp.num_pixels()) * rp.spp;
    uint64_t np = rp.num_pixels();
    img.rgb.resize(sum.size());
    for (uint64_t p = 0; p < np; ++p) {
        // the first done % np pixels of the order get one sample more (RenderParams::pixel_of_rank)
        uint64_t n = done / np + (rp.rank_of_pixel(uint32_t(p)) < done % np ? 1 : 0);
        for (int c = 0; c < 3; ++c) img.rgb[3 * p + c] = n ? film_value(sum[3 * p + c], uint32_t(n)) : 0.0f;
    }
    return img;
}

Image render_cpu(const SceneData& scene, const RenderParams& rp_in, Mode mode, const RenderOptions& opt,
                 RenderStats* stats) {
    const RenderParams rp = rp_in.prepared();  // generate's divisions set up (RenderParams::prepared)
    unsigned threads = opt.threads ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
    SceneView s = scene.view();
    RenderStats st;
    st.backend = "cpu";
    st.device = std::to_string(threads) + " threads";
    st.mode = mode;
    st.samples = uint64_t(rp.num_pixels()) * rp.spp;
    auto t0 = Clock::now();
    Image img = mode == Mode::Megakernel ? cpu_megakernel(s, rp, opt, threads, st) : cpu_wavefront(s, rp, opt, threads, st);
    st.render_ms = ms_since(t0);
    st.samples = img.samples;
    if (stats) *stats = std::move(st);
    return img;
}

}  // namespace wp
