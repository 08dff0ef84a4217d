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
};
constexpr uint32_t kFeaturesAll = (1u << 13) - 1u;

template <uint32_t F>
WP_FEATURES_HD constexpr bool has_feature(uint32_t f) {
    return (F & f) != 0u;
}

// The sets the GPU kernels are compiled for, smallest first; the last holds everything. Spheres with Lambert,
// conductor and dielectric materials under a constant sky, no light sampling: the scenes of Ray Tracing in One
// Weekend (scenes/rtiow.json).
constexpr uint32_t kFeaturesSpheres = kFeatSpheres | kFeatConductor | kFeatDielectric;
// Everything but the layered materials: their random walks cost the general kernels registers (and spills) that
// scenes without them should not pay for, so a scene with coated materials runs kernels of its own (kFeaturesAll).
// Bump mapping is left out of this set and the next two for the same reason: a bumped scene (pbrt-v4's
// "displacement") runs the set that holds everything.
constexpr uint32_t kFeaturesGeneral = kFeaturesAll & ~uint32_t(kFeatLayered | kFeatDiffuseTransmission | kFeatBump);
// The coated materials without pbrt-v4's diffuse transmission: compiled into the layered kernels it cost the coated
// scenes without it 1.8-3.6% (more spills in shade and the megakernel; H100, LOG entries 60 and 61), so the scenes
// that have it (the living room) run kernels of their own, kFeaturesTransmission.
constexpr uint32_t kFeaturesLayered = kFeaturesAll & ~uint32_t(kFeatDiffuseTransmission | kFeatBump);
// Everything but bump mapping: compiled in, the bump map and pbrt-v4's side rules for bumped surfaces
// (kernels/stages.h) raised this set's spills in shade from 1236 to 1296 bytes of stores and in the megakernel from
// 1430 to 1490 (ptxas -v, sm_90), so the scenes without bumps keep the kernels they had.
constexpr uint32_t kFeaturesTransmission = kFeaturesAll & ~uint32_t(kFeatBump);
constexpr uint32_t kFeatureSets[] = {kFeaturesSpheres, kFeaturesGeneral, kFeaturesLayered, kFeaturesTransmission,
                                     kFeaturesAll};

// The compiled set the kernels of a scene with features `need` run as.
constexpr uint32_t feature_set_for(uint32_t need) {
    for (uint32_t set : kFeatureSets)
        if ((need & ~set) == 0u) return set;
    return kFeaturesAll;
}
inline const char* feature_set_name(uint32_t set) {
    return set == kFeaturesSpheres        ? "spheres"
           : set == kFeaturesGeneral      ? "all"
           : set == kFeaturesLayered      ? "layered"
           : set == kFeaturesTransmission ? "layered+transmission"
                                          : "layered+transmission+bump";
}

}  // namespace wp
