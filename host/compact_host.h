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

}  // namespace wp
