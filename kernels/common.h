// wavepath: shared host/device basics. Header-only; compiled by nvcc (device) and g++ (CPU backend).
#pragma once
#include <cstdint>
#include <cmath>
#define GLM_FORCE_XYZW_ONLY
#define GLM_FORCE_INLINE
#include <glm/glm.hpp>

#if defined(__CUDACC__)
#define WP_HD __host__ __device__ __forceinline__
#define WP_DEV __device__ __forceinline__
// Kept out of line on the device: code off a hot kernel's default path (a filter's sampling, the indirect clamp),
// so that the default path's register allocation does not pay for it (ptxas -v; see their comments).
#define WP_HD_NOINLINE inline __host__ __device__ __noinline__
#else
#define WP_HD inline
#define WP_DEV inline
#define WP_HD_NOINLINE inline
#endif

namespace wp {
using glm::mat3;
using glm::mat4;
using glm::vec2;
using glm::vec3;
using glm::vec4;

constexpr float kPi = 3.14159265358979323846f;
constexpr float kInvPi = 0.31830988618379067154f;
constexpr float kInf = 3.402823466e+38f;
constexpr uint32_t kInvalid = 0xffffffffu;

// 16-byte aligned record read with one 128-bit load on the device.
struct alignas(16) F4 {
    float x, y, z, w;
};
struct alignas(16) U4 {
    uint32_t x, y, z, w;
};

WP_HD F4 load4(const F4* p) {
#if defined(__CUDA_ARCH__)
    float4 v = __ldg(reinterpret_cast<const float4*>(p));
    return F4{v.x, v.y, v.z, v.w};
#else
    return *p;
#endif
}
WP_HD U4 load4(const U4* p) {
#if defined(__CUDA_ARCH__)
    uint4 v = __ldg(reinterpret_cast<const uint4*>(p));
    return U4{v.x, v.y, v.z, v.w};
#else
    return *p;
#endif
}

WP_HD uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    __builtin_memcpy(&u, &f, 4);
    return u;
#endif
}
WP_HD float bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    __builtin_memcpy(&f, &u, 4);
    return f;
#endif
}

WP_HD vec3 xyz(const F4& f) { return vec3(f.x, f.y, f.z); }

struct Ray {
    vec3 o;
    vec3 d;
};

WP_HD float max_comp(vec3 v) { return glm::max(v.x, glm::max(v.y, v.z)); }
WP_HD float luminance(vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
WP_HD float sqr(float x) { return x * x; }
WP_HD float safe_sqrt(float x) { return sqrtf(glm::max(x, 0.0f)); }
// a * b + c, dot and cross products with their multiply-adds fused explicitly on the device (__fmaf_rn, which no
// compiler pass splits or re-fuses), and as glm computes them on the host (x86-64 without FMA3 fuses nothing), so
// the CPU's images do not change. nvcc contracts a multiply and an add into one FMA where the code around them
// allows, so one expression inlined into two kernels can round differently; written with these, it cannot. The
// wavefront's kernels are compiled without implicit contraction (-fmad=false, CMakeLists.txt), so these are the
// only fused operations there: the primitive tests, surface points, the shading frame, BSDFs, lights and textures
// use them wherever a product feeds a sum (a ray's hit and a path's contribution do not depend on the kernel that
// computes them; docs/DECISIONS.md: explicit-fma). Each keeps the host expression's order of operations.
WP_HD float fmadd(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a, b, c);
#else
    return a * b + c;
#endif
}
WP_HD double fmadd(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return a * b + c;
#endif
}
WP_HD float dot_fma(vec3 a, vec3 b) {
#if defined(__CUDA_ARCH__)
    return __fmaf_rn(a.z, b.z, __fmaf_rn(a.y, b.y, a.x * b.x));
#else
    return glm::dot(a, b);
#endif
}
WP_HD vec3 cross_fma(vec3 x, vec3 y) {
#if defined(__CUDA_ARCH__)
    return vec3(__fmaf_rn(x.y, y.z, -(y.y * x.z)), __fmaf_rn(x.z, y.x, -(y.z * x.x)),
                __fmaf_rn(x.x, y.y, -(y.x * x.y)));
#else
    return glm::cross(x, y);
#endif
}
WP_HD vec3 fmadd(float s, vec3 v, vec3 c) { return vec3(fmadd(s, v.x, c.x), fmadd(s, v.y, c.y), fmadd(s, v.z, c.z)); }
WP_HD vec3 fmadd(vec3 a, vec3 b, vec3 c) {
    return vec3(fmadd(a.x, b.x, c.x), fmadd(a.y, b.y, c.y), fmadd(a.z, b.z, c.z));
}
// glm::normalize and glm::length with the dot product fused (the same formulas as glm's on the device).
WP_HD vec3 normalize_fma(vec3 v) {
#if defined(__CUDA_ARCH__)
    return v * (1.0f / sqrtf(dot_fma(v, v)));
#else
    return glm::normalize(v);
#endif
}
WP_HD float length_fma(vec3 v) {
#if defined(__CUDA_ARCH__)
    return sqrtf(dot_fma(v, v));
#else
    return glm::length(v);
#endif
}
WP_HD bool finite1(float x) {
#if defined(__CUDA_ARCH__)
    return isfinite(x);
#else
    return std::isfinite(x);
#endif
}
WP_HD bool finite3(vec3 v) { return finite1(v.x) && finite1(v.y) && finite1(v.z); }

// Orthonormal basis from a unit normal (Duff et al. 2017).
struct Frame {
    vec3 s, t, n;
    WP_HD static Frame from_normal(vec3 n) {
        float sign = copysignf(1.0f, n.z);
        float a = -1.0f / (sign + n.z);
        float b = n.x * n.y * a;
        Frame f;
        f.n = n;
        f.s = vec3(fmadd(sign * n.x * n.x, a, 1.0f), sign * b, -sign * n.x);
        f.t = vec3(b, fmadd(n.y * n.y, a, sign), -n.y);
        return f;
    }
    WP_HD vec3 to_local(vec3 v) const { return vec3(dot_fma(v, s), dot_fma(v, t), dot_fma(v, n)); }
    WP_HD vec3 to_world(vec3 v) const { return fmadd(v.z, n, fmadd(v.y, t, s * v.x)); }
};

// 1/sqrt(x): the hardware approximation on the device (MUFU.RSQ, ~2 ulp), exact-rounded on the host. Callers
// that need more refine it (a Newton step).
WP_HD float approx_rsqrt(float x) {
#if defined(__CUDA_ARCH__)
    return rsqrtf(x);
#else
    return 1.0f / sqrtf(x);
#endif
}

// Ray origin offset against self-intersection (Waechter & Binder, Ray Tracing Gems ch. 6).
WP_HD float int_as_float_(int i) {
#if defined(__CUDA_ARCH__)
    return __int_as_float(i);
#else
    float f;
    __builtin_memcpy(&f, &i, 4);
    return f;
#endif
}
WP_HD int float_as_int_(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_int(f);
#else
    int i;
    __builtin_memcpy(&i, &f, 4);
    return i;
#endif
}
WP_HD vec3 offset_ray_origin(vec3 p, vec3 n) {
    const float origin = 1.0f / 32.0f, float_scale = 1.0f / 65536.0f, int_scale = 256.0f;
    int ox = int(int_scale * n.x), oy = int(int_scale * n.y), oz = int(int_scale * n.z);
    vec3 pi(int_as_float_(float_as_int_(p.x) + ((p.x < 0) ? -ox : ox)),
            int_as_float_(float_as_int_(p.y) + ((p.y < 0) ? -oy : oy)),
            int_as_float_(float_as_int_(p.z) + ((p.z < 0) ? -oz : oz)));
    return vec3(fabsf(p.x) < origin ? fmadd(float_scale, n.x, p.x) : pi.x,
                fabsf(p.y) < origin ? fmadd(float_scale, n.y, p.y) : pi.y,
                fabsf(p.z) < origin ? fmadd(float_scale, n.z, p.z) : pi.z);
}

}  // namespace wp
