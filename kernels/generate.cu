// generate: camera rays for the next pixel samples, into the free slots of the path queue.
#include "kernels/gpu_stages.h"

namespace wp {

__global__ void generate(SceneView s, RenderParams rp, WavefrontQueues q, uint32_t first_slot, uint64_t first_index,
                         uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (q.iter) {  // launched over a bound; the counts are on the device
        n = q.iter->gen_count;
        first_slot = q.iter->gen_base;
        first_index = q.iter->gen_first;
    }
    if (i < n) stage::generate(s, rp, q, first_slot + i, first_index + i);
}

// prepare: the previous iteration's record for the host (when rec), then this iteration's counts: new camera
// paths fill the free slots, at most the samples left before `total` (0 after a cancel). cap 0: record only.
__global__ void prepare(WavefrontQueues q, IterCounts* it, IterRecord* rec, unsigned long long* next, uint32_t cap,
                        unsigned long long total) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    if (rec) *rec = IterRecord{*next, it->gen_count, it->n, q.counters[kShadowCount], q.counters[kLiveCount]};
    if (cap == 0) return;
    uint32_t live = q.counters[kLiveCount];
    unsigned long long nx = *next, rem = total > nx ? total - nx : 0ull;
    uint32_t gen = uint32_t(rem < (unsigned long long)(cap - live) ? rem : (unsigned long long)(cap - live));
    it->gen_first = nx;
    it->gen_base = live;
    it->gen_count = gen;
    it->n = live + gen;
    *next = nx + gen;
    q.counters[kShadowCount] = 0;
    if (q.push) q.counters[kLiveCount] = 0;  // shade pushes this iteration's survivors
}

void launch_prepare(Launcher& L, const WavefrontQueues& q, IterCounts* it, IterRecord* rec, unsigned long long* next,
                    uint32_t cap, uint64_t total) {
    L.launch("prepare", dim3(1), dim3(32), prepare, q, it, rec, next, cap, (unsigned long long)total);
}

void launch_generate(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                     uint32_t first_slot, uint64_t first_index, uint32_t n) {
    L.launch("generate", dim3(blocks_for(n)), dim3(kStageBlock), generate, s, rp, q, first_slot, first_index, n);
}

KernelAttr attr_generate() { return kernel_attr("generate", reinterpret_cast<const void*>(generate), kStageBlock); }

}  // namespace wp
