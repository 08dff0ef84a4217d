// Kernel feature sets (after Cycles' kernel feature masks): what a scene uses, as bits, so that the GPU kernels can
// be compiled for a set of features and a scene run by the smallest compiled set that holds its own. A stage body
// templated on a set F leaves out, at compile time, the branches of the features F lacks (the triangle and quad
// tests, the principled material, texture lookups, light sampling, the environment map): fewer registers and
// instructions, the same arithmetic on what remains, so the same image bit for bit. The CPU backend and the
// general kernels use kFeaturesAll.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define WP_FEATURES_HD __host__ __device__
#else
#define WP_FEATURES_HD
#endif

namespace wp {

enum Feature : uint32_t {
    kFeatTriangles = 1u << 0,      // triangles and quads (with their vertex attributes)
    kFeatSpheres = 1u << 1,        // spheres
    kFeatConductor = 1u << 2,      // conductor materials (Lambert is always compiled)
    kFeatDielectric = 1u << 3,     // dielectric materials
    kFeatPrincipled = 1u << 4,     // metallic-roughness (glTF) materials, with their emission
    kFeatTextures = 1u << 5,       // texture lookups (any texture: albedo, base colour, metallic-roughness, normal map)
    kFeatEmitters = 1u << 6,       // primitives in the light table (their emission on a hit, MIS-weighted)
    kFeatLightSampling = 1u << 7,  // next-event estimation (light sampling on, and a light or environment to sample)
    kFeatEnvMap = 1u << 8,         // an environment map (else the background is one constant radiance)
    kFeatLayered = 1u << 9,        // pbrt-v4's coated (layered) materials: a random walk per evaluation
    kFeatDeltaLights = 1u << 10,   // point, spot and distant lights in the light table (sampled by next-event only)
    kFeatDiffuseTransmission = 1u << 11,  // pbrt-v4's diffusetransmission material (Lambert lobes on both sides)
    kFeatBump = 1u << 12,                 // pbrt-v4's bump mapping ("displacement"): MatType::Bumped materials
    kFeatLambert = 1u << 13,              // Lambert materials (every set holds them; the shade families select them)
};
constexpr uint32_t kFeaturesAll = (1u << 14) - 1u;

template <uint32_t F>
WP_FEATURES_HD constexpr bool has_feature(uint32_t f) {
    return (F & f) != 0u;
}

// The sets the GPU kernels are compiled for, smallest first; the last holds everything. Spheres with Lambert,
// conductor and dielectric materials under a constant sky, no light sampling: the scenes of Ray Tracing in One
// Weekend (scenes/rtiow.json).
constexpr uint32_t kFeaturesSpheres = kFeatSpheres | kFeatLambert | kFeatConductor | kFeatDielectric;
// Everything but the layered materials: their random walks cost the general kernels registers (and spills) that
// scenes without them should not pay for, so a scene with coated materials runs kernels of its own (kFeaturesAll).
// Bump mapping is left out of this set and the next two for the same reason: a bumped scene (pbrt-v4's
// "displacement") runs the set that holds everything.
constexpr uint32_t kFeaturesGeneral = kFeaturesAll & ~uint32_t(kFeatLayered | kFeatDiffuseTransmission | kFeatBump);
// The coated materials without pbrt-v4's diffuse transmission: compiled into the layered kernels it costs the coated
// scenes without it spills in shade and the megakernel, so the scenes that have it (the living room) run kernels of
// their own, kFeaturesTransmission (docs/DECISIONS.md: set-layered).
constexpr uint32_t kFeaturesLayered = kFeaturesAll & ~uint32_t(kFeatDiffuseTransmission | kFeatBump);
// Everything but bump mapping: compiled in, the bump map and pbrt-v4's side rules for bumped surfaces
// (kernels/stages.h) raise this set's spills in shade and the megakernel, so the scenes without bumps keep the
// kernels they had (docs/DECISIONS.md: set-transmission).
constexpr uint32_t kFeaturesTransmission = kFeaturesAll & ~uint32_t(kFeatBump);
// The sets, smallest first, each once with its name (the bench's "feature set", the JSON's) and the register budgets
// of its shade, megakernel and drain kernels, as __launch_bounds__'s minimum resident blocks of 128 threads per SM
// (0: the build's default, CMake's WAVEPATH_SHADE_MIN_BLOCKS and WAVEPATH_MEGAKERNEL_MIN_BLOCKS, 7). kFeatureSets,
// feature_set_name, the budgets (kernels/gpu_stages.h) and every kernel's instance table (kernels/kernel_variants.h)
// are made from this list. Each budget is the one its kernel measured fastest at: docs/DECISIONS.md: budget-spheres,
// budget-general, budget-coated (the coated scenes shade by family: the layered family's budget below).
#define WP_FEATURE_SETS(X)                                    \
    X(kFeaturesSpheres, "spheres", 8, 8, 8)                   \
    X(kFeaturesGeneral, "general", 0, 0, 5)                   \
    X(kFeaturesLayered, "layered", 0, 0, 5)                   \
    X(kFeaturesTransmission, "layered+transmission", 0, 0, 5) \
    X(kFeaturesAll, "all", 0, 0, 5)
#define WP_FEATURE_SET_MASK(mask, name, shade, mega, drain) mask,
constexpr uint32_t kFeatureSets[] = {WP_FEATURE_SETS(WP_FEATURE_SET_MASK)};
#undef WP_FEATURE_SET_MASK
struct SetBudgets {
    uint32_t mask;
    int shade, megakernel, drain;
};
#define WP_FEATURE_SET_BUDGETS(mask, name, shade, mega, drain) SetBudgets{mask, shade, mega, drain},
constexpr SetBudgets kSetBudgets[] = {WP_FEATURE_SETS(WP_FEATURE_SET_BUDGETS)};
#undef WP_FEATURE_SET_BUDGETS

// The compiled set the kernels of a scene with features `need` run as.
constexpr uint32_t feature_set_for(uint32_t need) {
    for (uint32_t set : kFeatureSets)
        if ((need & ~set) == 0u) return set;
    return kFeaturesAll;
}
inline const char* feature_set_name(uint32_t set) {
#define WP_FEATURE_SET_NAME(mask, name, shade, mega, drain) \
    if (set == (mask)) return name;
    WP_FEATURE_SETS(WP_FEATURE_SET_NAME)
#undef WP_FEATURE_SET_NAME
    return "all";
}

// ---- material families: the shade kernels of the wavefront (kernels/shade.cu) ----
// Each family is one material type of kernels/scene_view.h's MatType (a bump map wraps a material and takes its
// family) and the feature bit that compiles its code; the family's shade kernel is the same shade body compiled
// with only that material's bit (family_features), so each family gets the registers and the code of its own
// material. Family 0 collects the misses (the environment). The family of a hit is 1 + its material's type, the
// material key of kernels/wavefront_queues.h.
// Each with the register budget of its kernel (minimum resident blocks per SM, as the sets'; 0: the build's
// default): docs/DECISIONS.md: budget-coated.
#define WP_SHADE_FAMILIES(X)                        \
    X(Miss, "miss", 0u, 0)                          \
    X(Lambert, "lambert", kFeatLambert, 0)          \
    X(Conductor, "conductor", kFeatConductor, 0)    \
    X(Dielectric, "dielectric", kFeatDielectric, 0) \
    X(Principled, "principled", kFeatPrincipled, 0) \
    X(Layered, "layered", kFeatLayered, 0)          \
    X(DiffuseTransmission, "diffuse_transmission", kFeatDiffuseTransmission, 0)
enum ShadeFamily : uint32_t {
#define WP_FAMILY_ENUM(id, name, bit, blocks) kFamily##id,
    WP_SHADE_FAMILIES(WP_FAMILY_ENUM)
#undef WP_FAMILY_ENUM
        kNumFamilies
};
#define WP_FAMILY_BIT(id, name, bit, blocks) bit,
constexpr uint32_t kFamilyBits[kNumFamilies] = {WP_SHADE_FAMILIES(WP_FAMILY_BIT)};
#undef WP_FAMILY_BIT
#define WP_FAMILY_NAME(id, name, bit, blocks) name,
constexpr const char* kFamilyNames[kNumFamilies] = {WP_SHADE_FAMILIES(WP_FAMILY_NAME)};
#undef WP_FAMILY_NAME
// The stage names of the family kernels' rows ("shade_lambert"): kernels/kernel_attr.h's kStageNames holds them.
#define WP_FAMILY_STAGE(id, name, bit, blocks) "shade_" name,
constexpr const char* kFamilyStageNames[kNumFamilies] = {WP_SHADE_FAMILIES(WP_FAMILY_STAGE)};
#undef WP_FAMILY_STAGE
#define WP_FAMILY_BLOCKS(id, name, bit, blocks) blocks,
constexpr int kFamilyBlocks[kNumFamilies] = {WP_SHADE_FAMILIES(WP_FAMILY_BLOCKS)};
#undef WP_FAMILY_BLOCKS
constexpr uint32_t kMaterialFeatures =
    kFeatLambert | kFeatConductor | kFeatDielectric | kFeatPrincipled | kFeatLayered | kFeatDiffuseTransmission;
// What a miss needs of a set: the environment and the shapes (the rest is hit code it never runs).
constexpr uint32_t kMissKeeps = kFeatTriangles | kFeatSpheres | kFeatEnvMap | kFeatLightSampling;

// The features the kernel of family `fam` of set `set` is compiled with: the set's, less every material but the
// family's own (for misses: what a miss needs). Bits beside the features (the options of kernels/stages.h) pass.
constexpr uint32_t family_features(uint32_t set, uint32_t fam) {
    if (fam == kFamilyMiss) return set & (kMissKeeps | ~kFeaturesAll);
    return (set & ~kMaterialFeatures) | (set & kFamilyBits[fam]);
}
// The families of a scene's features (bit f: family f), misses always.
constexpr uint32_t families_of(uint32_t features) {
    uint32_t m = 1u << kFamilyMiss;
    for (uint32_t f = 1; f < kNumFamilies; ++f)
        if (features & kFamilyBits[f]) m |= 1u << f;
    return m;
}

// The register budget (minimum resident blocks; 0: the build's default) of a kernel compiled with F, which the
// lists above give: a set's (which = 0 shade, 1 megakernel, 2 drain), or for a shade kernel of one family (one
// material bit, or none: the misses) the family's. Bits beside the features (the options) do not change it.
constexpr int kernel_budget(uint32_t F, int which) {
    const uint32_t feats = F & kFeaturesAll;
    for (const SetBudgets& b : kSetBudgets)
        if (feats == b.mask) return which == 0 ? b.shade : which == 1 ? b.megakernel : b.drain;
    const uint32_t mat = feats & kMaterialFeatures;
    for (uint32_t f = 0; f < kNumFamilies; ++f)
        if (mat == kFamilyBits[f]) return kFamilyBlocks[f];
    return 0;
}

// The one material family of a scene's features (its index), or 0 (kFamilyMiss) when it has none or several.
constexpr uint32_t shade_single_family(uint32_t features) {
    const uint32_t m = families_of(features) & ~(1u << kFamilyMiss);
    if (m == 0u || (m & (m - 1u)) != 0u) return kFamilyMiss;
    uint32_t f = 0;
    while (!(m >> f & 1u)) ++f;
    return f;
}
// Whether the wavefront shades by family (extend fills the family queues; one shade kernel per family): where a
// scene has the coated (layered) materials and another family, whose paths then no longer pay the random walks'
// registers and spills; scenes of cheap materials only would pay a launch per family and the queues' indices
// (docs/DECISIONS.md: shade-by-family). A scene of one family runs that family's kernel over every path (its misses
// too), with no queues to fill; the others the whole set's kernel, as before.
constexpr bool shade_by_family(uint32_t features) {
    const uint32_t m = families_of(features) & ~(1u << kFamilyMiss);
    return (features & kFeatLayered) != 0u && (m & (m - 1u)) != 0u;
}

}  // namespace wp
