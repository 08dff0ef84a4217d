// shade: emission, BSDF sampling, one light sample (to the shadow queue), Russian roulette. By material family
// (kernels/features.h): extend has pushed each path into the queue of its hit's family, and each family's kernel,
// the shade body compiled with only its own material, runs over its queue. Optionally in material order instead:
// sort_materials radix-sorts the hit material keys first (CUB), so warps shade one material.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "kernels/gpu_stages.h"
#include "kernels/kernel_variants.h"
#include "kernels/wavefront.h"

namespace wp {

// F: the feature set (kernels/features.h), or one family's features (family_features); the launcher picks it.
// Items [0, n), or with q.item_count [0, *q.item_count) (a family's queue, whose length is on the device; n bounds
// it): the blocks go over them in strides of the grid.
template <uint32_t F>
__global__ void WP_SHADE_BOUNDS(F) shade(SceneView s, RenderParams rp, FilmView film, WavefrontQueues q, uint32_t n) {
    // a family's queue: its length, on the device (n, the paths of the iteration, bounds it); blocks past it leave
    const uint32_t count = q.item_count ? *q.item_count : n;
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x * blockDim.x >= count) return;
    // The depth histograms are counted per block in shared memory and added to the global ones once per block and
    // bin, not a global atomic per warp and bin on a handful of addresses (docs/DECISIONS.md: depth-histograms).
    __shared__ unsigned long long hist[2 * kStatDepths];
    WavefrontQueues qb = q;
    if (q.paths_at_depth) {
        for (uint32_t b = threadIdx.x; b < 2 * kStatDepths; b += blockDim.x) hist[b] = 0;
        __syncthreads();
        qb.paths_at_depth = hist;
        qb.shadow_at_depth = q.shadow_at_depth ? hist + kStatDepths : nullptr;
    }
    // one inlined copy of the stage body whatever the compaction, so both round alike (same image bit for bit)
    PathState p;
    const bool alive = i < count && stage::shade_item<F>(s, rp, film, qb, i, p);
    if (q.push) {
        // Compaction by push: the block's live paths, numbered by a CUB block scan, go to consecutive slots of the
        // next queue that one atomic per block reserves (their order within the block kept).
        using Scan = cub::BlockScan<uint32_t, kStageBlock>;
        __shared__ typename Scan::TempStorage scan;
        __shared__ uint32_t base;
        uint32_t rank, live;
        Scan(scan).ExclusiveSum(alive ? 1u : 0u, rank, live);
        if (threadIdx.x == 0 && live > 0) base = atomicAdd(&q.counters[kLiveCount], live);
        __syncthreads();
        if (alive) q.next.store(base + rank, p);
    } else if (i < count) {
        stage::shade_store_in_place(q, i, alive, p);
    }
    if (q.paths_at_depth) {
        __syncthreads();
        for (uint32_t b = threadIdx.x; b < 2 * kStatDepths; b += blockDim.x)
            if (hist[b])
                atomicAdd(b < kStatDepths ? &q.paths_at_depth[b] : &q.shadow_at_depth[b - kStatDepths], hist[b]);
    }
}

namespace {
using ShadeFn = void (*)(SceneView, RenderParams, FilmView, WavefrontQueues, uint32_t);
// Every set, its clamp's instance (kWithClampCrop: the indirect clamp and a crop) and the families of each.
WP_KERNEL_INSTANCES(ShadeKernels, shade, ShadeFn, family_masks<kWithClampCrop>());
ShadeFn family_fn(uint32_t mask, uint32_t f) { return ShadeKernels::fn(family_features(mask, f)); }
uint32_t shade_mask(const SceneView& s, const RenderParams& rp) {
    return kernel_mask(render_features(s, rp), needs_clamp_crop(rp), kWithClampCrop);
}
}  // namespace

void launch_shade(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n) {
    const uint32_t mask = shade_mask(s, rp);
    const uint32_t fams = families_of(s.features);
    if (!q.family_items) {  // one kernel over every path: the scene's one material family's, or the whole set's
        const uint32_t f = shade_single_family(s.features);
        const ShadeFn fn = f ? family_fn(mask, f) : ShadeKernels::fn(mask);
        if (f)
            L.launch(kFamilyStageNames[f], dim3(blocks_for(n)), dim3(kStageBlock), fn, s, rp, film, q, n);
        else
            L.launch("shade", dim3(blocks_for(n)), dim3(kStageBlock), fn, s, rp, film, q, n);
        return;
    }
    // by family: each family's kernel over its queue, whose length only the device knows: launched over the
    // iteration's paths, the blocks past the queue's end leave at once
    for (uint32_t f = 0; f < kNumFamilies; ++f) {
        if (!(fams >> f & 1u)) continue;
        const ShadeFn fn = family_fn(mask, f);
        WavefrontQueues qf = q;
        qf.order = q.family_items + size_t(f) * q.capacity;
        qf.item_count = q.counters + kFamilyCount + f;
        L.launch(kFamilyStageNames[f], dim3(blocks_for(n)), dim3(kStageBlock), fn, s, rp, film, qf, n);
    }
}

size_t sort_materials_temp_bytes(uint32_t capacity) {
    size_t bytes = 0;
    WP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const uint32_t*)nullptr, (uint32_t*)nullptr,
                                            (const uint32_t*)nullptr, (uint32_t*)nullptr, capacity, 0,
                                            kMaterialKeyBits));
    return bytes;
}

void launch_sort_materials(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t n) {
    L.region("sort_materials", [&] {
        WP_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, q.material_key, q.keys_sorted, q.order_iota, q.order,
                                                n, 0, kMaterialKeyBits, L.stream()));
    });
}

KernelAttr attr_shade(uint32_t set) {
    return kernel_attr("shade", reinterpret_cast<const void*>(ShadeKernels::fn(set)), kStageBlock);
}
std::vector<KernelAttr> attr_shade_families(uint32_t set) {
    std::vector<KernelAttr> v;
    for (uint32_t f = 0; f < kNumFamilies; ++f)
        if (families_of(set) >> f & 1u)
            v.push_back(kernel_attr(kFamilyStageNames[f],
                                    reinterpret_cast<const void*>(ShadeKernels::fn(family_features(set, f))),
                                    kStageBlock));
    return v;
}

}  // namespace wp
