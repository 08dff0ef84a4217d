// The wavefront queues: paths, hit records and shadow rays, each a structure of arrays declared once
// (see soa.h). Conversions to the per-path structs of kernels/stages.h are in kernels/wavefront.h.
#pragma once
#include "queues/soa.h"

namespace wp {

// Paths in flight, 52 bytes each: ray origin + solid-angle pdf of the sample that made it, direction + pixel,
// throughput + sample, depth (low 16 bits) + flags (high 16 bits). (64 bytes, with (pixel, sample, depth, flags) a
// record of its own, until profiling/LOG.md entry 38: generate and shade move every byte of it.)
#define WP_PATH_FIELDS(X)   \
    X(F4, o_pdf)            \
    X(F4, dir_pixel)        \
    X(F4, beta_sample)      \
    X(U1, depth_flags)
WP_SOA(Path, WP_PATH_FIELDS)

// Closest hit of each path's ray: (t, primitive bits, u, v).
#define WP_HIT_FIELDS(X) X(F4, tpuv)
WP_SOA(Hit, WP_HIT_FIELDS)

// Shadow rays: origin + tmax, direction + pixel bits, contribution.
#define WP_SHADOW_FIELDS(X) \
    X(F4, o_tmax)           \
    X(F4, d_pixel)          \
    X(F4, contrib)
WP_SOA(Shadow, WP_SHADOW_FIELDS)

}  // namespace wp
