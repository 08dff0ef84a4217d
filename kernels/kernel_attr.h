// The stages' names, and the static resources and theoretical occupancy of a GPU kernel at its launch block
// size (no CUDA types: the bench and the tests read them from plain C++).
#pragma once
#include <cstddef>
#include <string>

namespace wp {

// The stage names, in schedule order: the rows of the per-kernel table and the NVTX ranges. Every one but the
// CUB stages is also the symbol of its kernel (profiling/ncu_stage.sh maps the CUB stages to CUB's kernels; the
// test stage_names_match_kernel_symbols checks both against the binary).
constexpr const char* kStageNames[] = {"generate",
                                       "sort_rays",
                                       "extend",
                                       "sort_materials",
                                       "shade",
                                       "shade_miss",
                                       "shade_lambert",
                                       "shade_conductor",
                                       "shade_dielectric",
                                       "shade_principled",
                                       "shade_layered",
                                       "shade_diffuse_transmission",
                                       "sort_shadow",
                                       "shadow",
                                       "compact_select",
                                       "compact",
                                       "drain",
                                       "megakernel",
                                       "diffuse_bounce",
                                       "aov"};

struct KernelAttr {
    std::string name;
    int block = 0, registers = 0;
    size_t local_bytes = 0, shared_bytes = 0;  // per thread (stack + spills), per block
    int blocks_per_sm = 0;
    double occupancy = 0.0;  // resident warps / the SM's maximum (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
};

}  // namespace wp
