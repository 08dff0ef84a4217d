// The scene's arrays, declared once (as Cycles' kernel/data_arrays.h). One row per array:
//     X(element type, SceneData's vector, SceneView's pointer to it, memory category)
// and every place that walks the arrays expands this list: SceneData's vectors (host/scene/scene_build.h), its
// view() (host pointers), the GPU upload (host/render/render_gpu.cpp, device pointers), the memory report
// (scene_device_bytes, host/render/render_common.cpp) and the scene's fingerprint (scene_fingerprint,
// host/render/film_file.cpp: a film resumes only on the scene it was rendered from). SceneView keeps its hand-written
// layout, as it is a kernel parameter; SceneViewMatchesTables below checks each row against it. A new array is one
// row here and its pointer in SceneView; the fingerprint needs a hash of its element type (film_file.cpp), else the
// build fails there.
//
// Categories (the memory report's words): bvh "BVH", primitives "primitives", shading "materials and lights",
// textures "textures", environment "environment".
#pragma once
#include <type_traits>
#include <utility>
#include "kernels/bvh.h"
#include "kernels/scene_view.h"

#define WP_SCENE_TABLES(X)                                                                                         \
    X(BVHNode, nodes, nodes, bvh)       /* the binary tree */                                                      \
    X(F4, geom, prims.geom, primitives) /* 3 records per leaf slot (PrimArrays) */                                 \
    X(U4, info, prims.info, primitives) /* 1 per leaf slot */                                                      \
    X(F4, attr, prims.attr, primitives) /* corner normals and uvs, 4 per triangle that has them */                 \
    X(LambertData, lambert, lambert, shading)                                                                      \
    X(ConductorData, conductor, conductor, shading)                                                                \
    X(DielectricData, dielectric, dielectric, shading)                                                             \
    X(PrincipledData, principled, principled, shading)                                                             \
    X(LayeredData, layered, layered, shading)                                                                      \
    X(BumpData, bump, bump, shading)                        /* bumped materials (MatType::Bumped) */               \
    X(Light, lights, lights, shading)                       /* area lights in leaf order, then the delta lights */ \
    X(float, light_cdf, light_cdf, shading)                 /* inclusive CDF over lights, last entry 1 */          \
    X(F4, env_texels, env.texels, environment)              /* lat-long map, radiance */                           \
    X(float, env_marginal, env.marginal, environment)       /* built by SceneBuilder::build */                     \
    X(float, env_conditional, env.conditional, environment) /* built by SceneBuilder::build */                     \
    X(F4, tex_texels, tex_texels, textures)                 /* all textures, linear RGBA */                        \
    X(TexInfo, textures, textures, textures)

namespace wp {

// Each row's SceneView pointer has the row's element type (a row and SceneView out of step fail to compile here).
#define WP_SCENE_TABLE_CHECK(T, field, view, cat)                                      \
    static_assert(std::is_same_v<decltype(std::declval<SceneView&>().view), const T*>, \
                  "SceneView::" #view " is not a const " #T "* as WP_SCENE_TABLES says");
WP_SCENE_TABLES(WP_SCENE_TABLE_CHECK)
#undef WP_SCENE_TABLE_CHECK

}  // namespace wp
