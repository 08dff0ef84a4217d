// Host-side launchers of the GPU kernels, one per stage (kernels/<stage>.cu). Each launches its kernel
// through the Launcher under the stage's name: file, kernel symbol, NVTX range and timing row agree (the CUB
// stages, compact_select and sort_materials, are rows and ranges around CUB's own kernels).
// Plain C++: the drivers in host/render/render_gpu.cpp are compiled by the host compiler.
#pragma once
#include <map>
#include <mutex>
#include <vector>
#include "kernels/features.h"
#include "kernels/film.h"
#include "kernels/kernel_attr.h"
#include "kernels/launch.h"
#include "kernels/ray_order.h"
#include "kernels/scene_view.h"
#include "kernels/wavefront_queues.h"

namespace wp {

constexpr unsigned kStageBlock = 128;
// Register budget of the traversal kernels (extend, shadow): -DWAVEPATH_TRAVERSAL_MIN_BLOCKS=N asks ptxas for
// N resident blocks of kStageBlock threads per SM (__launch_bounds__); unset, ptxas chooses (docs/DECISIONS.md:
// traversal-budget).
#if defined(WP_TRAVERSAL_MIN_BLOCKS) && WP_TRAVERSAL_MIN_BLOCKS > 0
#define WP_TRAVERSAL_BOUNDS __launch_bounds__(kStageBlock, WP_TRAVERSAL_MIN_BLOCKS)
#else
#define WP_TRAVERSAL_BOUNDS
#endif
// The same for shade, the megakernel and the drain per feature set F: the budgets of kernels/features.h's lists
// (WP_FEATURE_SETS, WP_SHADE_FAMILIES; the measurements behind each are cited there), 0 there meaning the build's
// default (-DWAVEPATH_SHADE_MIN_BLOCKS, -DWAVEPATH_MEGAKERNEL_MIN_BLOCKS; 0: none).
#if defined(WP_SHADE_MIN_BLOCKS) && WP_SHADE_MIN_BLOCKS > 0
constexpr int kShadeMinBlocks = WP_SHADE_MIN_BLOCKS;
#else
constexpr int kShadeMinBlocks = 1;
#endif
#if defined(WP_MEGAKERNEL_MIN_BLOCKS) && WP_MEGAKERNEL_MIN_BLOCKS > 0
constexpr int kMegakernelMinBlocks = WP_MEGAKERNEL_MIN_BLOCKS;
#else
constexpr int kMegakernelMinBlocks = 1;
#endif
template <uint32_t F>
constexpr int shade_min_blocks() {
    return kernel_budget(F, 0) ? kernel_budget(F, 0) : kShadeMinBlocks;
}
template <uint32_t F>
constexpr int megakernel_min_blocks() {
    return kernel_budget(F, 1) ? kernel_budget(F, 1) : kMegakernelMinBlocks;
}
template <uint32_t F>
constexpr int drain_min_blocks() {
    return kernel_budget(F, 2) ? kernel_budget(F, 2) : 5;
}
#define WP_SHADE_BOUNDS(F) __launch_bounds__(kStageBlock, shade_min_blocks<F>())
#define WP_MEGAKERNEL_BOUNDS(F) __launch_bounds__(kStageBlock, megakernel_min_blocks<F>())
#define WP_DRAIN_BOUNDS(F) __launch_bounds__(kStageBlock, drain_min_blocks<F>())
inline unsigned blocks_for(uint64_t n, unsigned block = kStageBlock) { return unsigned((n + block - 1) / block); }
// Blocks of kStageBlock threads of kernel fn that fit on the whole GPU at once: the persistent kernels' grid
// (kernels/persistent.h). Defined in extend.cu.
unsigned resident_blocks(const void* fn);
// resident_blocks of a kernel, computed at its first launch and kept (one entry per kernel instance).
template <class Fn>
unsigned resident_blocks_cached(Fn fn) {
    static std::mutex m;
    static std::map<const void*, unsigned> known;
    const void* key = reinterpret_cast<const void*>(fn);
    std::lock_guard<std::mutex> lock(m);
    auto it = known.find(key);
    if (it == known.end()) it = known.emplace(key, resident_blocks(key)).first;
    return it->second;
}

// megakernel: whole paths of global samples [begin, end) (fewer than 2^32); adds (extension, shadow) ray counts to
// rays[0..1]. counters: two zeroed words, the persistent threads' work counters (zero again after the launch).
void launch_megakernel(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t begin,
                       uint64_t end, unsigned long long* rays, uint32_t* counters);
// generate: camera paths of samples [first_index, first_index + n) into slots [first_slot, first_slot + n).
void launch_generate(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                     uint32_t first_slot, uint64_t first_index, uint32_t n);
// extend: closest hits of paths [0, n): persistent with refill when q.refill > 0, one thread per
// ray otherwise (the same kernel template, extend<kPersistent>).
void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n);
// diffuse_bounce: paths [0, n) with their hits become diffuse bounce rays (ray-cast benchmark).
void launch_diffuse_bounce(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                           uint32_t n);
// sort_materials: radix sort of the n material keys (kMaterialKeyBits bits), carrying q.order_iota into q.order.
size_t sort_materials_temp_bytes(uint32_t capacity);
void launch_sort_materials(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t n);
// sort_rays: the keys of paths [0, n)'s rays (kernels/ray_order.h), radix-sorted carrying the identity into
// q.ray_order (the order extend traces them in); sort_shadow: the same for the shadow rays, launched over an upper
// bound n_max of their count (empty slots sort last).
size_t sort_rays_temp_bytes(uint32_t capacity);
void launch_sort_rays(Launcher& L, void* temp, size_t temp_bytes, const SceneView& s, const WavefrontQueues& q,
                      uint32_t n);
void launch_sort_shadow(Launcher& L, void* temp, size_t temp_bytes, const SceneView& s, const WavefrontQueues& q,
                        uint32_t n_max);
KernelAttr attr_sort_rays();
// shade: paths [0, n) (in q.order when set); pushes shadow rays onto q.shadow, live paths onto q.next (push) or
// flags them (select).
void launch_shade(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n);
// shadow: the q.counters[kShadowCount] shadow rays, launched over an upper bound n_max.
void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max);
// select compaction of paths [0, n): compact_select (CUB DeviceSelect::Flagged of the indices whose alive flag is
// set, into q.selected, count to q.counters[kLiveCount]) then compact (gather of the selected paths into q.next).
size_t compact_temp_bytes(uint32_t capacity);
void launch_compact(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t n);
// drain: paths [0, n) of q.paths each run to its end by one thread (the wavefront's tail); adds (extension, shadow)
// ray counts to rays[0..1].
void launch_drain(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n, unsigned long long* rays);
// aov: the AOV pass (kernels/aov.h) over every pixel's samples of the global range [begin, end), their fixed-point
// sums into out (bits: AovBits).
struct AovView;
void launch_aov(Launcher& L, const SceneView& s, const RenderParams& rp, const AovView& out, uint64_t begin,
                uint64_t end, uint32_t bits);

// Static resources and theoretical occupancy of one kernel at its launch block size (cudaFuncGetAttributes,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor).
inline KernelAttr kernel_attr(const char* name, const void* fn, int block) {
    KernelAttr a;
    a.name = name;
    a.block = block;
    cudaFuncAttributes fa;
    WP_CUDA(cudaFuncGetAttributes(&fa, fn));
    a.registers = fa.numRegs;
    a.local_bytes = fa.localSizeBytes;
    a.shared_bytes = fa.sharedSizeBytes;
    WP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&a.blocks_per_sm, fn, block, 0));
    int dev = 0, max_threads = 0;
    WP_CUDA(cudaGetDevice(&dev));
    WP_CUDA(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    a.occupancy = max_threads ? double(a.blocks_per_sm * block) / max_threads : 0.0;
    return a;
}
// One per kernel file. extend's instance picked by refill (persistent or not), as launch_extend picks it; the
// kernels compiled per feature set (kernels/features.h) by the set (feature_set_for of the render's features, as their launchers pick it).
KernelAttr attr_megakernel(uint32_t set);
KernelAttr attr_generate();
KernelAttr attr_extend(uint32_t refill, uint32_t set);
KernelAttr attr_shade(uint32_t set);
// shade's family kernels of a set (kernels/features.h), one per family the set holds, named as their rows
// ("shade_lambert").
std::vector<KernelAttr> attr_shade_families(uint32_t set);
KernelAttr attr_shadow();
KernelAttr attr_compact();
KernelAttr attr_diffuse_bounce();
KernelAttr attr_drain(uint32_t set);
KernelAttr attr_aov();

}  // namespace wp
