// Host-side launchers of the GPU kernels, one per stage (kernels/<stage>.cu). Each launches its kernel
// through the Launcher under the stage's name: file, kernel symbol, NVTX range and timing row agree.
// Plain C++: the drivers in host/render_gpu.cpp are compiled by the host compiler.
#pragma once
#include "host/launch.h"
#include "kernels/wavefront.h"

namespace wp {

constexpr unsigned kStageBlock = 128;
inline unsigned blocks_for(uint64_t n, unsigned block = kStageBlock) { return unsigned((n + block - 1) / block); }

// megakernel: whole paths of global samples [begin, end); adds (extension, shadow) ray counts to rays[0..1].
void launch_megakernel(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, uint64_t begin,
                       uint64_t end, unsigned long long* rays);
// generate: camera paths of samples [first_index, first_index + n) into slots [first_slot, first_slot + n).
void launch_generate(Launcher& L, const SceneView& s, const RenderParams& rp, const WavefrontQueues& q,
                     uint32_t first_slot, uint64_t first_index, uint32_t n);
// extend: closest hits of paths [0, n).
void launch_extend(Launcher& L, const SceneView& s, const WavefrontQueues& q, uint32_t n);
// sort_materials: radix sort of the n material keys (kMaterialKeyBits bits), carrying q.order_iota into order.
size_t sort_materials_temp_bytes(uint32_t capacity);
void launch_sort_materials(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t* keys_out,
                           uint32_t* order, uint32_t n);
// shade: paths [0, n) (in q.order when set); pushes shadow rays onto q.shadow.
void launch_shade(Launcher& L, const SceneView& s, const RenderParams& rp, const FilmView& film, const WavefrontQueues& q,
                  uint32_t n);
// shadow: the q.counters[kShadowCount] shadow rays, launched over an upper bound n_max.
void launch_shadow(Launcher& L, const SceneView& s, const FilmView& film, const WavefrontQueues& q, uint32_t n_max);
// compaction: compact_select (CUB DeviceSelect::Flagged of the indices whose alive flag is set, count to
// q.counters[kLiveCount]) then compact (gather of the selected paths into `out`).
size_t compact_temp_bytes(uint32_t capacity);
void launch_compact(Launcher& L, void* temp, size_t temp_bytes, const WavefrontQueues& q, uint32_t* selected,
                    const PathSoA& out, uint32_t n);

}  // namespace wp
