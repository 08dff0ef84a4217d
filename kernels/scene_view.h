// The scene as the stages see it: flat arrays, identical for the CPU backend (host pointers)
// and the GPU backend (device pointers). No virtual calls: shapes and materials are tags.
#pragma once
#include "common.h"
#include "features.h"
#include "render_params.h"

namespace wp {

enum class ShapeType : uint32_t { Triangle = 0, Sphere = 1, Quad = 2 };

// Material handle: tag in the top 4 bits, index into that tag's parameter array below.
// DiffuseTransmission (pbrt-v4's diffusetransmission): two consecutive records of the Lambert table, the reflectance's
// and the transmittance's. Bumped: a record of the bump table (BumpData), which wraps another material.
enum class MatType : uint32_t {
    Lambert = 0,
    Conductor = 1,
    Dielectric = 2,
    Principled = 3,
    Layered = 4,
    DiffuseTransmission = 5,
    Bumped = 6
};
struct MatHandle {
    uint32_t bits;
    WP_HD MatType type() const { return MatType(bits >> 28); }
    WP_HD uint32_t index() const { return bits & 0x0fffffffu; }
    WP_HD static MatHandle make(MatType t, uint32_t i) { return MatHandle{(uint32_t(t) << 28) | i}; }
};

// Texture references: kNoTexture or an index into SceneView::textures.
constexpr uint32_t kNoTexture = 0xffffffffu;
struct LambertData {
    vec3 albedo;
    uint32_t albedo_tex;  // multiplies albedo (linear RGB)
};
// Conductor: GGX roughness alpha (0 = perfect mirror); Fresnel either Schlick with F0 = color or
// complex IOR (eta, k) when use_complex_ior is set.
struct ConductorData {
    vec3 color;
    float alpha;
    vec3 eta;
    uint32_t use_complex_ior;
    vec3 k;
    float pad;
};
struct DielectricData {
    vec3 tint;
    float ior;
    float alpha;  // 0 = smooth
};
// glTF 2.0 metallic-roughness. Textures multiply the factors: base color (sRGB-decoded RGB), metallic-roughness
// (G = roughness, B = metallic, linear), tangent-space normal map (linear, scaled in xy by normal_scale),
// emissive (sRGB-decoded RGB times emissive).
struct PrincipledData {
    vec3 base_color;
    float metallic;
    float roughness;
    uint32_t base_tex, mr_tex, normal_tex;
    vec3 emissive;
    uint32_t emissive_tex;
    float normal_scale;
    float pad[3];
};

// pbrt-v4's coated materials (coateddiffuse, coatedconductor; kernels/layered.h): a dielectric coating of index
// coat_eta and GGX alpha coat_alpha over a base, with a medium of `thickness` between them (single-scattering albedo,
// Henyey-Greenstein g; albedo 0: no medium, only its transmittance exp(-thickness / |cos|)), evaluated by pbrt-v4's
// stochastic random walk (max_depth steps, nsamples walks per evaluation). The base is diffuse (reflectance, times
// its texture) or a conductor of complex IOR eta + i k (already divided by coat_eta, as pbrt-v4 does) and GGX alpha
// base_alpha.
struct LayeredData {
    vec3 reflectance;
    uint32_t reflectance_tex;
    vec3 albedo;
    float thickness;
    vec3 eta;
    float g;
    vec3 k;
    float coat_eta;
    float coat_alpha, base_alpha;
    uint32_t conductor_base;  // 0: diffuse base, 1: conductor base
    uint32_t max_depth, nsamples;
    uint32_t pad[3];
};

// pbrt-v4's bump mapping (a material's "displacement"): the material `material` (a handle's bits, never Bumped)
// shaded with the normal of its surface displaced along the shading normal by d(uv) = scale * (the first channel of
// texture `tex` at uv), d's derivatives taken as finite differences over steps du in u and dv in v (kernels/stages.h:
// bump_shading_normal). Only the shading normal changes: the material's own parameters are read at the hit's uv.
struct BumpData {
    uint32_t material;
    uint32_t tex;
    float scale;
    float du;
    float dv;
    float pad[3];
};

// Texels of all textures in one array (linear RGBA, row 0 at the top, v = 0 at the top as in glTF/OBJ after flip).
// A texture is a tagged record resolved by a switch (kernels/texture.h: tex_lookup), its kind in the last word:
//  kTexImage    an image of width x height texels at tex_texels[offset] (every texture before kinds existed: 0);
//  kTexMapped   the image texture `width` (an id, of kind kTexImage) at uv' = (m.x u + m.y, m.z v + m.w), m the
//               record tex_texels[offset] (pbrt-v4's UVMapping, rewritten for our downward v);
//  kTexChecker  a 2D checkerboard: (s, t) = (m.x u + m.y, m.z v + m.w) from m = tex_texels[offset]; cells with
//               floor(s) + floor(t) even take side 1, the others side 2; side k (tex_texels[offset + k]) is the
//               colour xyz times, where w holds an id's bits other than kNoTexture, that texture (kTexImage or
//               kTexMapped) at uv.
constexpr uint32_t kTexImage = 0, kTexMapped = 1, kTexChecker = 2;
struct TexInfo {
    uint32_t offset, width, height, kind;
};

// Environment: lat-long map (u = 0.5 + atan2(d.x, -d.z) / 2pi, v = acos(d.y) / pi, rotated about +y) or a
// constant. select_prob: probability that light sampling picks it (0 when it emits nothing).
struct EnvView {
    const F4* texels = nullptr;          // width * height, radiance (scale applied); nullptr: constant
    const float* marginal = nullptr;     // height + 1 entries: CDF over rows (weighted by luminance * sin(theta))
    const float* conditional = nullptr;  // height * (width + 1): CDF over each row
    uint32_t width = 0, height = 0;
    vec3 constant{0.0f};
    float select_prob = 0.0f;
    float rot_cos = 1.0f, rot_sin = 0.0f;
};

// Per primitive, in BVH leaf order.
//   geom[3*i + 0..2]: triangle (v0, v1 - v0, v2 - v0); quad (corner, edge u, edge v); sphere (center+radius, -, -)
//   info[i]: x = ShapeType, y = MatHandle bits, z = light index or kInvalid, w = vertex-attribute index or kInvalid
//   attr[4*w + k], k < 3: shading normal (xyz) and texture u (w) of triangle corner k;
//   attr[4*w + 3]: texture v of the three corners (x, y, z), w = 1 if normals are present.
struct PrimArrays {
    const F4* geom = nullptr;
    const U4* info = nullptr;
    const F4* attr = nullptr;
    uint32_t count = 0;
};

// Aila-Laine style node: both children's boxes in one 64-byte record, read with four 16-byte loads.
//  a = (c0.lo.x, c0.hi.x, c0.lo.y, c0.hi.y)   b = (c1.lo.x, c1.hi.x, c1.lo.y, c1.hi.y)
//  c = (c0.lo.z, c0.hi.z, c1.lo.z, c1.hi.z)   d = (child0, child1, count0, count1) as ints
// A child with count > 0 is a leaf whose primitives are [child, child + count).
struct BVHNode {
    F4 a, b, c;
    U4 d;
};
constexpr int kBVHStackSize = 64;  // the builder keeps the tree depth below this

// The light table: emissive primitives (area lights) and pbrt-v4's delta lights, one tagged record each (the
// type is switched on; no virtual calls). Delta lights are found by next-event estimation alone: no ray hits them.
enum LightType : uint32_t {
    kLightArea = 0,     // an emissive primitive: prim, area, two_sided; Le its radiance
    kLightPoint = 1,    // at pos, Le its intensity (W/sr, scale applied)
    kLightSpot = 2,     // at pos, axis dir; Le the intensity on the axis, smoothstep falloff from cos_start to cos_end
    kLightDistant = 3,  // from direction dir (unit, toward the light); Le the radiance (irradiance normal to dir)
};
struct Light {
    uint32_t prim;  // area: the primitive's leaf slot; delta lights: kInvalid
    float area;
    float select_pdf;  // probability of picking this light (proportional to power)
    uint32_t two_sided;
    vec3 Le;
    uint32_t type = kLightArea;  // LightType
    vec3 pos{0.0f};              // point, spot
    float cos_start = 1.0f;      // spot: cosine of the full-intensity cone's half angle (coneangle - conedeltaangle)
    vec3 dir{0.0f};              // spot: unit axis; distant: unit direction toward the light
    float cos_end = -1.0f;       // spot: cosine of coneangle (zero intensity beyond)
};

struct CameraData {
    vec3 pos;
    float tan_half_fov_y;
    vec3 right, up, forward;  // unit vectors
    float aspect;
    float lens_radius;
    float focus_dist;
};

struct SceneView {
    const BVHNode* nodes = nullptr;  // binary tree
    PrimArrays prims;
    const LambertData* lambert = nullptr;
    const ConductorData* conductor = nullptr;
    const DielectricData* dielectric = nullptr;
    const PrincipledData* principled = nullptr;
    const LayeredData* layered = nullptr;
    const BumpData* bump = nullptr;
    const Light* lights = nullptr;
    const float* light_cdf = nullptr;  // inclusive CDF over lights, last entry 1
    uint32_t num_lights = 0;
    EnvView env;
    const F4* tex_texels = nullptr;
    const TexInfo* textures = nullptr;
    CameraData camera;
    vec3 bounds_lo{0.0f}, bounds_hi{0.0f};  // the scene's box (the ray sort's grid, kernels/ray_order.h)
    uint32_t features =
        kFeaturesAll;  // what the scene uses (kernels/features.h; light sampling apart: render_features)
};

}  // namespace wp
