// The wavefront schedule, written once for both backends: a script of named stages (after pbrt-v4's
// WavefrontPathIntegrator::Render) over a backend X whose stages are CUDA launches (render_gpu.cpp) or parallel
// loops on CPU threads (render_cpu.cpp), each running the per-item stage bodies of kernels/wavefront.h over the
// queues X.q (kernels/wavefront_queues.h). X provides:
//   generate(first_slot, first_sample, n)   camera paths of samples [first_sample, +n) into slots [first_slot, +n)
//   clear_counts()                          the shadow and live counters to zero
//   extend(n), sort_materials(n), shade(n), shadow(n), compact(n)   the stages over paths [0, n)
//   sort_rays(n), sort_shadow(n)            the tracing order of the n paths' rays, of the shadow rays (at most
//                                           n) into q.ray_order, sorted by their keys (kernels/ray_order.h)
//   counts()                                waits for the iteration; the shadow rays pushed and the paths kept
//   drain(n)                                paths [0, n) each run to its end; returns the rays it traced
// Paths live in slots [0, live) of q.paths; each iteration tops the queue up with new camera paths while samples are
// left (regeneration), and compaction packs the survivors into q.next, which becomes q.paths.
#pragma once
#include <algorithm>
#include "host/render/render.h"
#include "kernels/features.h"
#include "kernels/ray_order.h"

namespace wp {

struct IterationCounts {
    uint32_t shadow = 0, live = 0;
    const uint32_t* family = nullptr;  // shading by family: the iteration's paths per family (kNumFamilies)
};
struct DrainRays {
    uint64_t extension = 0, shadow = 0;
};

// Runs the iterations until every sample of the range [begin, end) is taken and every path has ended (or opt.cancel:
// then no new samples). Returns the end of the samples taken, [begin, returned) (an exact prefix of the range); fills
// the iteration statistics and ray counts of st.
template <class Backend>
uint64_t wavefront_render(Backend& x, uint64_t begin, uint64_t end, const RenderOptions& opt, bool shadow_rays,
                          RenderStats& st) {
    const uint32_t cap = x.q.capacity;
    uint64_t total = end, next = begin;
    uint32_t live = 0;
    while (live > 0 || next < total) {
        if (opt.cancel && *opt.cancel) total = next;     // stop taking samples; finish the paths in flight
        if (next >= total && live <= opt.drain_below) {  // the tail: the last paths, each to its end at once
            if (live > 0) {
                const DrainRays r = x.drain(live);
                st.drained += live;
                st.extension_rays += r.extension;
                st.shadow_rays += r.shadow;
                if (opt.progress) opt.progress(next - begin, total - begin);
            }
            break;
        }
        IterationStat it;
        it.generated = uint32_t(std::min<uint64_t>(cap - live, total - next));
        x.generate(live, next, it.generated);
        next += it.generated;
        const uint32_t n = it.extended = live + it.generated;
        x.clear_counts();
        // Rays traced in key order when the iteration holds at least opt.sort_rays paths, the shadow rays too (their
        // sort pays most: docs/DECISIONS.md: sort-rays).
        const bool sort_rays = opt.sort_rays > 0 && n >= opt.sort_rays;
        if (sort_rays) x.sort_rays(n);
        x.q.extend_sorted = sort_rays;
        x.extend(n);
        x.q.extend_sorted = false;
        if (opt.sort_materials) x.sort_materials(n);
        x.shade(n);
        if (shadow_rays) {
            if (sort_rays) x.sort_shadow(n);
            x.q.shadow_sorted = sort_rays;
            x.shadow(n);
            x.q.shadow_sorted = false;
        }
        if (!opt.push_compaction) x.compact(n);
        x.q.swap();
        const IterationCounts c = x.counts();
        it.shadow = c.shadow;
        it.live = live = c.live;
        if (c.family) {
            st.family_paths.resize(kNumFamilies);
            for (uint32_t f = 0; f < kNumFamilies; ++f) st.family_paths[f] += c.family[f];
        }
        st.iterations.push_back(it);
        st.extension_rays += n;
        st.shadow_rays += it.shadow;
        if (opt.progress) opt.progress(next - live - begin, total - begin);
    }
    return next;
}

}  // namespace wp
