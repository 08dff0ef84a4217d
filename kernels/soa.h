// Structure-of-arrays records from one declaration.
//
// A record is declared once, by two X-macro lists side by side: its members (what the stage functions read and
// write), each with the array and the lane of that array that holds it, and its arrays (16-byte F4 records or
// 4-byte U1 words):
//     #define WP_FOO_MEMBERS(M) M(vec3, p, pw, xyz) M(float, weight, pw, w) M(uint32_t, id, ids, word)
//     #define WP_FOO_ARRAYS(A) A(F4, pw) A(U1, ids)
//     WP_RECORD(Foo, WP_FOO_MEMBERS)                     // struct Foo { vec3 p; float weight; uint32_t id; };
//     WP_SOA(FooSoA, Foo, WP_FOO_MEMBERS, WP_FOO_ARRAYS)
// WP_SOA expands into FooSoA: a pointer per array (device arrays on the GPU, host arrays on the CPU), load(i) and
// store(i, item) (one 128- or 32-bit streaming load or store per array, load_stream and store_stream below; the
// lanes packed and unpacked by the lane_* functions below), copy(dst, src, i) of item i between queues, visit() over
// the arrays for allocation, and kBytesPerItem.
// Adding a member adds it everywhere: the struct, allocation, load, store and compaction's gather. WP_SOA also
// serves a struct declared elsewhere (Hit, the traversal's result) whose members the list names.
//
// Lanes: xyz (a vec3 in x, y, z), x, y, z, w (a float, or a uint32_t by its bits) of an F4; word (a uint32_t),
// lo16 and hi16 (a uint32_t below 2^16 in the low or high half) of a U1.
#pragma once
#include "kernels/common.h"

namespace wp {

WP_HD void store4(F4* p, const F4& v) { *p = v; }
WP_HD void store4(U4* p, const U4& v) { *p = v; }

// A 4-byte word (loaded and stored as one 32-bit access; load4/store4 name the record access, not its width).
using U1 = uint32_t;
WP_HD U1 load4(const U1* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
WP_HD void store4(U1* p, const U1& v) { *p = v; }

// Queue records stream: each is written by one kernel and read by the next one or two, and the queues (8M paths,
// about half a gigabyte) are many times the L2 cache. On the GPU their loads and stores carry the streaming cache
// operator (ld/st.global.cs: evict first), so that they do not push out of L2 what the kernels reuse: the film,
// whose 64-bit atomics otherwise miss L2 and become DRAM read-modify-writes, and the scene's tree and primitives.
// docs/DECISIONS.md: stream-records. Same values as load4/store4.
WP_HD F4 load_stream(const F4* p) {
#if defined(__CUDA_ARCH__)
    const float4 v = __ldcs(reinterpret_cast<const float4*>(p));
    return F4{v.x, v.y, v.z, v.w};
#else
    return *p;
#endif
}
WP_HD U1 load_stream(const U1* p) {
#if defined(__CUDA_ARCH__)
    return __ldcs(p);
#else
    return *p;
#endif
}
WP_HD void store_stream(F4* p, const F4& v) {
#if defined(__CUDA_ARCH__)
    __stcs(reinterpret_cast<float4*>(p), make_float4(v.x, v.y, v.z, v.w));
#else
    *p = v;
#endif
}
WP_HD void store_stream(U1* p, const U1& v) {
#if defined(__CUDA_ARCH__)
    __stcs(p, v);
#else
    *p = v;
#endif
}

// Lane access: get_<lane>(record, member) unpacks, set_<lane>(record, member) packs into a record that starts at
// zero (lanes nobody sets stay zero).
WP_HD void lane_get_xyz(const F4& r, vec3& v) { v = vec3(r.x, r.y, r.z); }
WP_HD void lane_set_xyz(F4& r, const vec3& v) {
    r.x = v.x;
    r.y = v.y;
    r.z = v.z;
}
#define WP_SOA_SCALAR_LANE_(c)                                                 \
    WP_HD void lane_get_##c(const F4& r, float& v) { v = r.c; }                \
    WP_HD void lane_get_##c(const F4& r, uint32_t& v) { v = float_bits(r.c); } \
    WP_HD void lane_set_##c(F4& r, float v) { r.c = v; }                       \
    WP_HD void lane_set_##c(F4& r, uint32_t v) { r.c = bits_float(v); }
WP_SOA_SCALAR_LANE_(x)
WP_SOA_SCALAR_LANE_(y)
WP_SOA_SCALAR_LANE_(z)
WP_SOA_SCALAR_LANE_(w)
#undef WP_SOA_SCALAR_LANE_
WP_HD void lane_get_word(const U1& r, uint32_t& v) { v = r; }
WP_HD void lane_set_word(U1& r, uint32_t v) { r = v; }
WP_HD void lane_get_lo16(const U1& r, uint32_t& v) { v = r & 0xffffu; }
WP_HD void lane_set_lo16(U1& r, uint32_t v) { r |= v & 0xffffu; }
WP_HD void lane_get_hi16(const U1& r, uint32_t& v) { v = r >> 16; }
WP_HD void lane_set_hi16(U1& r, uint32_t v) { r |= v << 16; }

#define WP_RECORD_MEMBER_(T, name, array, lane) T name;
#define WP_SOA_POINTER_(T, array) T* array = nullptr;
#define WP_SOA_SIZE_(T, array) +sizeof(T)
#define WP_SOA_ZERO_(T, array) T array##_r{};
#define WP_SOA_READ_(T, array) const T array##_r = load_stream(array + i);
#define WP_SOA_WRITE_(T, array) store_stream(array + i, array##_r);
#define WP_SOA_GET_(T, name, array, lane) lane_get_##lane(array##_r, it.name);
#define WP_SOA_SET_(T, name, array, lane) lane_set_##lane(array##_r, it.name);
#define WP_SOA_COPY_(T, array) store_stream(array + dst, load_stream(src.array + i));
#define WP_SOA_VISIT_(T, array) f(reinterpret_cast<void**>(&array), sizeof(T), #array);

// struct Name { a member per entry of MEMBERS }
#define WP_RECORD(Name, MEMBERS)   \
    struct Name {                  \
        MEMBERS(WP_RECORD_MEMBER_) \
    };

// The queue of Item records, one array per entry of ARRAYS.
#define WP_SOA(Name, Item, MEMBERS, ARRAYS)                                                                      \
    struct Name {                                                                                                \
        ARRAYS(WP_SOA_POINTER_)                                                                                  \
        static constexpr size_t kBytesPerItem = 0 ARRAYS(WP_SOA_SIZE_);                                          \
        WP_HD Item load(uint32_t i) const {                                                                      \
            ARRAYS(WP_SOA_READ_)                                                                                 \
            Item it;                                                                                             \
            MEMBERS(WP_SOA_GET_)                                                                                 \
            return it;                                                                                           \
        }                                                                                                        \
        WP_HD void store(uint32_t i,                                                                             \
                         const Item& it) const {ARRAYS(WP_SOA_ZERO_) MEMBERS(WP_SOA_SET_) ARRAYS(WP_SOA_WRITE_)} \
        /* item i of src to slot dst of this queue */                                                            \
        WP_HD void copy(uint32_t dst, const Name& src, uint32_t i) const {                                       \
            ARRAYS(WP_SOA_COPY_)                                                                                 \
        }                                                                                                        \
        /* f(void** array, size_t bytes per item, const char* array name) for each array */                      \
        template <class F>                                                                                       \
        void visit(F&& f) {                                                                                      \
            ARRAYS(WP_SOA_VISIT_)                                                                                \
        }                                                                                                        \
    };

}  // namespace wp
