// Host compaction: the indices of the flagged items, in order (the CPU counterpart of CUB's
// DeviceSelect::Flagged in kernels/compact.cu); the gather is stage::compact on both backends.
#pragma once
#include <cstdint>

namespace wp {

inline uint32_t select_flagged(const uint8_t* flags, uint32_t n, uint32_t* selected) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (flags[i]) selected[m++] = i;
    return m;
}

// The CPU's CUB DevicePartition::Flagged: the items of in[0, n) whose flag is set to the front of out, in order,
// the others after them in reverse order (as CUB writes them). Returns the number of flagged items.
inline uint32_t partition_flagged(const uint32_t* in, const uint8_t* flags, uint32_t n, uint32_t* out) {
    uint32_t m = 0, back = n;
    for (uint32_t i = 0; i < n; ++i) {
        if (flags[i]) out[m++] = in[i];
        else out[--back] = in[i];
    }
    return m;
}

}  // namespace wp
