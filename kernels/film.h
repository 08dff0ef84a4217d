// Film accumulation in 64-bit fixed point. Integer addition is associative, so the image does not depend
// on the order in which paths, threads or backends add their contributions: reruns are bit-identical.
// Non-finite contributions never reach the film; they are counted with the first (lowest) pixel index. A finite
// contribution with a component above kFilmMaxSample is added clamped to it, and counted (clamp_count), so that the
// render can say how many were clamped.
#pragma once
#include "common.h"

namespace wp {

constexpr double kFilmScale = 16777216.0;  // 2^24 units per radiance unit
constexpr float kFilmMaxSample = 1.0e6f;   // per-sample clamp that keeps the sums far from overflow

struct FilmView {
    unsigned long long* sum = nullptr;          // 3 per pixel
    unsigned long long* bad_count = nullptr;    // non-finite contributions seen
    unsigned int* bad_first_pixel = nullptr;    // lowest pixel index with a non-finite contribution
    unsigned long long* clamp_count = nullptr;  // contributions clamped at kFilmMaxSample (null: not counted)
};

WP_HD void atomic_add_u64(unsigned long long* p, unsigned long long v) {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
#endif
}
WP_HD void atomic_min_u32(unsigned int* p, unsigned int v) {
#if defined(__CUDA_ARCH__)
    atomicMin(p, v);
#else
    unsigned int cur = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
#endif
}

WP_HD unsigned long long to_fixed(float x) {
    x = glm::clamp(x, 0.0f, kFilmMaxSample);
    return (unsigned long long)fmadd(double(x), kFilmScale, 0.5);  // (exact either way: the scale is 2^24)
}

WP_HD void film_add(const FilmView& f, uint32_t pixel, vec3 L) {
    if (!finite3(L)) {
        atomic_add_u64(f.bad_count, 1ull);
        atomic_min_u32(f.bad_first_pixel, pixel);
        return;
    }
    if (f.clamp_count && (L.x > kFilmMaxSample || L.y > kFilmMaxSample || L.z > kFilmMaxSample))
        atomic_add_u64(f.clamp_count, 1ull);
    if (L.x > 0.0f) atomic_add_u64(&f.sum[3 * pixel + 0], to_fixed(L.x));
    if (L.y > 0.0f) atomic_add_u64(&f.sum[3 * pixel + 1], to_fixed(L.y));
    if (L.z > 0.0f) atomic_add_u64(&f.sum[3 * pixel + 2], to_fixed(L.z));
}

inline float film_value(unsigned long long sum, uint32_t spp) { return float(double(sum) / kFilmScale / double(spp)); }

}  // namespace wp
