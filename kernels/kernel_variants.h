// The instances the per-set kernels are compiled for, listed once, and the choice among them (after Cycles' kernel
// feature masks). A kernel template K<F> (megakernel, shade, drain) is instantiated for every mask of a list made
// here from the feature sets (WP_FEATURE_SETS, kernels/features.h), the option bits (kernels/stages.h) and, for
// shade, the material families; its launcher asks `instance<K>(mask)` for the mask a render needs. A new set or a
// new family is one line of kernels/features.h: the lists, the launchers, the bench's kernel table and the ptxas
// report follow.
#pragma once
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include "kernels/features.h"
#include "kernels/stages.h"

namespace wp {

// The set whose options instances (the option bits of kernels/stages.h: the indirect clamp, a crop, a filter) a
// render of `set` runs: the general set's (spheres and general scenes), the coated sets' (layered and
// layered+transmission, which share one), all's (bump mapping).
constexpr uint32_t options_set(uint32_t set) {
    return set == kFeaturesSpheres || set == kFeaturesGeneral ? kFeaturesGeneral
           : set == kFeaturesAll                              ? kFeaturesAll
                                                              : kFeaturesTransmission;
}
// The mask of the instance a render runs: its features' set, and with `options` the options instance with bits O.
constexpr uint32_t kernel_mask(uint32_t need, bool options, uint32_t O) {
    const uint32_t set = feature_set_for(need);
    return options ? options_set(set) | O : set;
}

constexpr size_t kNumFeatureSets = sizeof(kFeatureSets) / sizeof(kFeatureSets[0]);

// A list of distinct masks (at most N).
template <size_t N>
struct MaskList {
    uint32_t v[N] = {};
    size_t n = 0;
    constexpr void add(uint32_t m) {
        for (size_t i = 0; i < n; ++i)
            if (v[i] == m) return;
        v[n++] = m;
    }
};
// Every set, and the options instances with bits O.
template <uint32_t O>
constexpr MaskList<2 * kNumFeatureSets> set_masks() {
    MaskList<2 * kNumFeatureSets> l;
    for (uint32_t set : kFeatureSets) l.add(set);
    for (uint32_t set : kFeatureSets) l.add(options_set(set) | O);
    return l;
}
// Those, and for each the kernel of each of its material families (family_features).
template <uint32_t O>
constexpr MaskList<2 * kNumFeatureSets*(1 + kNumFamilies)> family_masks() {
    MaskList<2 * kNumFeatureSets*(1 + kNumFamilies)> l;
    const MaskList<2 * kNumFeatureSets> sets = set_masks<O>();
    for (size_t i = 0; i < sets.n; ++i) l.add(sets.v[i]);
    for (size_t i = 0; i < sets.n; ++i)
        for (uint32_t f = 0; f < kNumFamilies; ++f)
            if (families_of(sets.v[i]) >> f & 1u) l.add(family_features(sets.v[i], f));
    return l;
}

#if defined(__CUDACC__)
// The instance table of kernel K over the masks of L (a type with `static constexpr ... value`): K provides
// `using Fn` and `template <uint32_t F> static Fn get()` (the kernel's instance for F).
template <class Fn>
struct KernelInstance {
    uint32_t mask;
    Fn fn;
};
template <class K, class L, size_t... I>
std::array<KernelInstance<typename K::Fn>, sizeof...(I)> make_instances(std::index_sequence<I...>) {
    return {{KernelInstance<typename K::Fn>{L::value.v[I], K::template get<L::value.v[I]>()}...}};
}
template <class K, class L>
const auto& instance_table() {
    static const auto table = make_instances<K, L>(std::make_index_sequence<L::value.n>{});
    return table;
}
// The instances of kernel template `kernel` (function type Fn) over the masks `list` (a constexpr MaskList): a
// struct Name whose fn(mask) returns the instance for a mask of the list. One line per kernel file.
#define WP_KERNEL_INSTANCES(Name, kernel, FnType, list)                    \
    struct Name {                                                          \
        using Fn = FnType;                                                 \
        template <uint32_t F>                                              \
        static Fn get() {                                                  \
            return kernel<F>;                                              \
        }                                                                  \
        static constexpr auto value = list;                                \
        static Fn fn(uint32_t mask) { return instance<Name, Name>(mask); } \
    }
// K's instance for `mask`, which the list must hold.
template <class K, class L>
typename K::Fn instance(uint32_t mask) {
    for (const auto& e : instance_table<K, L>())
        if (e.mask == mask) return e.fn;
    throw std::logic_error("no kernel instance compiled for feature mask " + std::to_string(mask));
}
#endif

}  // namespace wp
