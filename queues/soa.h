// Structure-of-arrays queues from one field list.
//
// A queue is declared once by an X-macro that lists its fields, each a 16-byte F4 or U4 record or a 4-byte U1:
//     #define WP_FOO_FIELDS(X) X(F4, a) X(U4, b)
//     WP_SOA(Foo, WP_FOO_FIELDS)
// which expands into
//   FooItem  - one item, a member per field (what the stage functions read and write);
//   FooSoA   - a pointer per field (device arrays on the GPU, host arrays on the CPU) with load/store/copy of
//              item i (one 128- or 32-bit load or store per field), visit() over the arrays for allocation, and
//              kBytesPerItem.
// Adding a field to the list adds it everywhere: allocation, load, store and compaction's gather.
#pragma once
#include "kernels/common.h"

namespace wp {

WP_HD void store4(F4* p, const F4& v) { *p = v; }
WP_HD void store4(U4* p, const U4& v) { *p = v; }

// A 4-byte field (loaded and stored as one 32-bit word; load4/store4 name the field access, not its width).
using U1 = uint32_t;
WP_HD U1 load4(const U1* p) {
#if defined(__CUDA_ARCH__)
    return __ldg(p);
#else
    return *p;
#endif
}
WP_HD void store4(U1* p, const U1& v) { *p = v; }

#define WP_SOA_MEMBER_(T, name) T name;
#define WP_SOA_POINTER_(T, name) T* name = nullptr;
#define WP_SOA_LOAD_(T, name) it.name = load4(name + i);
#define WP_SOA_STORE_(T, name) store4(name + i, it.name);
#define WP_SOA_COPY_(T, name) store4(name + dst, load4(src.name + i));
#define WP_SOA_VISIT_(T, name) f(reinterpret_cast<void**>(&name), sizeof(T), #name);
#define WP_SOA_SIZE_(T, name) +sizeof(T)

#define WP_SOA(Name, FIELDS)                                                                       \
    struct Name##Item {                                                                            \
        FIELDS(WP_SOA_MEMBER_)                                                                     \
    };                                                                                             \
    struct Name##SoA {                                                                             \
        FIELDS(WP_SOA_POINTER_)                                                                    \
        static constexpr size_t kBytesPerItem = 0 FIELDS(WP_SOA_SIZE_);                            \
        WP_HD Name##Item load(uint32_t i) const {                                                  \
            Name##Item it;                                                                         \
            FIELDS(WP_SOA_LOAD_)                                                                   \
            return it;                                                                             \
        }                                                                                          \
        WP_HD void store(uint32_t i, const Name##Item& it) const { FIELDS(WP_SOA_STORE_) }         \
        /* item i of src to slot dst of this queue */                                              \
        WP_HD void copy(uint32_t dst, const Name##SoA& src, uint32_t i) const { FIELDS(WP_SOA_COPY_) } \
        /* f(void** array, size_t bytes per item, const char* field name) for each field */        \
        template <class F>                                                                         \
        void visit(F&& f) {                                                                        \
            FIELDS(WP_SOA_VISIT_)                                                                  \
        }                                                                                          \
    };

}  // namespace wp
