// shade: emission, BSDF sampling, one light sample (to the shadow queue), Russian roulette. Optionally in
// material order: sort_materials radix-sorts the hit material keys first (CUB), so warps shade one material.
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include "kernels/gpu_stages.h"
#include "kernels/wavefront.h"

namespace wp {

// F: the feature set (kernels/features.h); the launcher picks the scene's.
template <uint32_t F>
__global__ void WP_SHADE_BOUNDS(F) shade(SceneView s, RenderParams rp, FilmView film, WavefrontQueues q, uint32_t n) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    // The depth histograms are counted per block in shared memory and added to the global ones once per block and
    // bin: a global atomic per warp and bin on a handful of addresses cost the kernel (LOG entry 30).
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
    const bool alive = i < n && stage::shade_item<F>(s, rp, film, qb, i, p);
    if (q.push) {
        // Compaction by push: the block's live paths, numbered by a CUB block scan, go to consecutive slots of the
        // next queue that one atomic per block reserves (their order within the block kept).
        using Scan = cub::BlockScan<uint32_t, kStageBlock>;
        __shared__ typename Scan::TempStorage scan;
        __shared__ uint32_t base;
        uint32_t rank, count;
        Scan(scan).ExclusiveSum(alive ? 1u : 0u, rank, count);
        if (threadIdx.x == 0 && count > 0) base = atomicAdd(&q.counters[kLiveCount], count);
        __syncthreads();
        if (alive) q.next.store(base + rank, p);
    } else if (i < n) {
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
// The instance for a feature set; with the indirect clamp (kWithClamp, kernels/stages.h) the general one compiled
// with it.
ShadeFn shade_fn(uint32_t set, bool clamp = false) {
    // (with the clamp, the layered sets share the instance that holds everything but bump mapping, the bumped scenes
    // take the one with it)
    if (clamp) {
        if (set == kFeaturesGeneral) return shade<kFeaturesGeneral | kWithClamp>;
        return set == kFeaturesAll ? shade<kFeaturesAll | kWithClamp> : shade<kFeaturesTransmission | kWithClamp>;
    }
    if (set == kFeaturesSpheres) return shade<kFeaturesSpheres>;
    if (set == kFeaturesGeneral) return shade<kFeaturesGeneral>;
    if (set == kFeaturesLayered) return shade<kFeaturesLayered>;
    return set == kFeaturesTransmission ? shade<kFeaturesTransmission> : shade<kFeaturesAll>;
}
}  // namespace

void launch_shade(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film,
                  const WavefrontQueues& q, uint32_t n) {
    L.launch("shade", dim3(blocks_for(n)), dim3(kStageBlock),
             shade_fn(feature_set_for(render_features(s, rp)), rp.clamp_indirect > 0.0f || rp.full_width), s, rp, film,
             q, n);
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
    return kernel_attr("shade", reinterpret_cast<const void*>(shade_fn(set)), kStageBlock);
}

}  // namespace wp
