// Host-side scene assembly: shapes, materials and emission in; flat arrays, BVH and light table out.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>
#include "host/accel/bvh_build.h"
#include "kernels/scene_tables.h"
#include "kernels/scene_view.h"

namespace wp {

// The tree's build in SceneBuilder::build, for the load line that host/app/main.cpp prints.
struct BVHBuildStats {
    uint32_t primitives = 0;                  // given to the builder
    size_t references = 0;                    // leaf slots: more than primitives with spatial splits
    double seconds = 0.0, cpu_seconds = 0.0;  // wall clock, and this process's CPU time (all threads)
    double sah_cost = 0.0;                    // bvh_sah_cost of the binary tree
    uint64_t forecast_bytes = 0;              // bvh_memory_forecast before the build
    // The build's measured peak over the resident memory before it (0 when it stayed below the process's earlier
    // peak, e.g. the parse's): what the forecast is checked against.
    uint64_t measured_bytes = 0;
};

// The tree's build settings: the WP_BVH_* experiment knobs (docs/DECISIONS.md rows bvh-* and split-*; README),
// read from the environment once by the command layer (host/app: build_options_from_env) and passed down through
// LoadOptions to SceneBuilder::build. An unset knob is the builder's choice for the scene (SceneBuilder::build
// says which).
//
// The knobs, listed once: from this list come SceneBuildOptions' members, their reading from the environment (each
// value checked: a bad one is a usage error naming the variable and the value), their report (`--stats`' load line,
// the bench JSON's "bvh_knobs") and docs/CLI.md's table of them (`wavepath options --env-markdown`; a test compares).
// Columns: K(type, member, variable, lo, hi, help); int and bool knobs are whole numbers, float ones numbers.
#define WP_BVH_KNOBS(K)                                                                                          \
    K(bool, spatial_splits, "WP_BVH_SPLITS", 0, 1, "spatial splits (SBVH); 0: none (default 1)")                 \
    K(int, bins, "WP_BVH_BINS", 2, 256, "object-split bins (default: the builder's)")                            \
    K(int, max_leaf, "WP_BVH_MAX_LEAF", 1, 16,                                                                   \
      "primitives per leaf at most (default: 4 below 1024 primitives, 1 for spheres alone, else the builder's)") \
    K(float, split_alpha, "WP_BVH_SPLIT_ALPHA", 0, 1e30,                                                         \
      "spatial splits' overlap threshold (BVHBuildOptions::split_alpha)")                                        \
    K(float, split_growth, "WP_BVH_SPLIT_GROWTH", 1, 8,                                                          \
      "spatial splits' references at most this many times the primitives (default 2)")                           \
    K(int, optimize_batches, "WP_BVH_OPTIMIZE", 0, 1000000, "batches of reinsertion after the build (0: none)")  \
    K(int, split_min_refs, "WP_BVH_SPLIT_MIN_REFS", 0, 2147483647,                                               \
      "spatial splits only in nodes of more references than this")                                               \
    K(float, split_beta, "WP_BVH_SPLIT_BETA", 0, 1e30,                                                           \
      "spatial splits only where the object split's children overlap by more than this part of the node's area " \
      "(default 0.2; 0: in every node)")                                                                         \
    K(float, split_gamma, "WP_BVH_SPLIT_GAMMA", 0, 1e30,                                                         \
      "spatial splits only where a reference spans more than this part of the node on some axis (default 0.25)") \
    K(int, split_bins, "WP_BVH_SPLIT_BINS", 0, 256, "the spatial split's planes per axis (default 16)")          \
    K(int, threads, "WP_BVH_THREADS", 1, 4096,                                                                   \
      "the builder's threads (default: all cores; the same tree for any count)")
struct SceneBuildOptions {
#define WP_BVH_KNOB_MEMBER(type, member, ...) std::optional<type> member;
    WP_BVH_KNOBS(WP_BVH_KNOB_MEMBER)
#undef WP_BVH_KNOB_MEMBER
    // Host memory the build may take, asked just before it (empty: no check), and how to name it in the message
    // ("available", "available under WP_HOST_MEMORY_LIMIT=1.0 GiB"). The scene layer does not read the host's memory
    // itself: the command layer passes its query (host/app/cli_support.h: host_memory).
    std::function<uint64_t()> memory_available;
    std::string memory_what = "available";
};

// The tree's build would not fit in the memory available (SceneBuildOptions::memory_available): thrown before it
// starts, naming the scene, its primitives, the forecast and what is available. Not a SceneError: the scene is
// valid, the machine too small, and the command line exits with kExitRender for it as for its other memory checks.
struct SceneMemoryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the build of the tree over `primitives` primitives (`with_attr` of them with corner attributes) takes at its
// peak, in bytes, from the per-primitive sizes of what SceneBuilder::build and build_bvh allocate (bvh_build.cpp);
// `what` gets the terms in words. The references of spatial splits are counted at their budget, split_max_growth
// times the primitives. Calibrated against measured peaks (docs/ARCHITECTURE.md, host/scene).
struct BVHBuildPlan {
    bool spatial_splits = true;
    float split_max_growth = 2.0f;
};
uint64_t bvh_memory_forecast(uint64_t primitives, uint64_t with_attr, const BVHBuildPlan& plan,
                             std::string* what = nullptr);

// This process's CPU time so far (user + system, all threads), in seconds.
double process_cpu_seconds();

struct SceneData {
    // The arrays (kernels/scene_tables.h: one row each, with what each holds).
#define WP_SCENE_DATA_VECTOR(T, field, view, cat) std::vector<T> field;
    WP_SCENE_TABLES(WP_SCENE_DATA_VECTOR)
#undef WP_SCENE_DATA_VECTOR
    vec3 background{0.0f};  // constant environment (when there is no map)
    uint32_t env_width = 0, env_height = 0;
    float env_rotation_deg = 0.0f;  // about +y
    float env_select_prob = 0.0f;
    CameraData camera{};
    vec3 bounds_lo{kInf}, bounds_hi{-kInf};  // every primitive's box (the ray sort's grid, kernels/ray_order.h)
    int bvh_depth = 0;
    // Primitives given to the builder. info.size() (leaf slots) may be larger: spatial splits reference a
    // primitive from several leaves.
    uint32_t num_primitives = 0;
    BVHBuildStats bvh_stats;
    SceneView view() const;  // host pointers
    // What the scene uses, as kernels/features.h's bits (light sampling apart: it is a render setting).
    uint32_t features() const;
};

CameraData make_camera(vec3 pos, vec3 target, vec3 up, float vfov_deg, float aspect, float lens_radius = 0.0f,
                       float focus_dist = 1.0f);

// Per-corner vertex attributes of a triangle: shading normals (used when has_normals; any length, the
// renderer interpolates and normalizes) and texture coordinates. Stored in SceneData::attr as laid out in
// kernels/scene_view.h.
struct TriAttr {
    vec3 n[3]{vec3(0.0f), vec3(0.0f), vec3(0.0f)};
    vec2 uv[3]{vec2(0.0f), vec2(0.0f), vec2(0.0f)};
    bool has_normals = false;
};

struct ObjMesh;  // host/scene/mesh_obj.h

class SceneBuilder {
public:
    MatHandle lambert(vec3 albedo, uint32_t albedo_tex = kNoTexture);
    // pbrt-v4's diffusetransmission: Lambertian reflection (reflectance) and transmission (transmittance), each
    // optionally times a texture; two records of the Lambert table
    MatHandle diffuse_transmission(vec3 reflectance, uint32_t reflectance_tex, vec3 transmittance,
                                   uint32_t transmittance_tex);
    MatHandle conductor(vec3 color, float alpha);
    MatHandle dielectric(float ior, float alpha = 0.0f, vec3 tint = vec3(1.0f));
    MatHandle principled(vec3 base, float metallic, float roughness);
    MatHandle principled(const PrincipledData& p);
    // pbrt-v4's coateddiffuse / coatedconductor (kernels/layered.h)
    MatHandle layered(const LayeredData& d);
    MatHandle conductor_complex(vec3 eta, vec3 k, float alpha);
    // Material m bump-mapped (pbrt-v4's "displacement", MatType::Bumped): displacement scale * (texture tex's first
    // channel), differenced over steps du, dv in texture space (kernels/scene_view.h: BumpData).
    MatHandle bumped(MatHandle m, uint32_t tex, float scale, float du, float dv);
    // A texture of w x h linear RGBA texels (row 0 at the top); returns its id.
    uint32_t texture(std::vector<F4> texels, uint32_t w, uint32_t h);
    // The image texture `image` at uv' = (m.x u + m.y, m.z v + m.w) (kTexMapped, kernels/scene_view.h); returns its id.
    uint32_t texture_mapped(uint32_t image, vec4 m);
    // A 2D checkerboard over (s, t) = (m.x u + m.y, m.z v + m.w): side 1 (floor(s) + floor(t) even) is c1 times
    // texture t1 (kNoTexture: none), side 2 c2 times t2; t1 and t2 are images, plain or mapped (kTexChecker).
    uint32_t texture_checker(vec4 m, vec3 c1, uint32_t t1, vec3 c2, uint32_t t2);
    // Emission Le (zero: not a light). One-sided lights emit on the side their normal faces.
    void sphere(vec3 c, float r, MatHandle m, vec3 Le = vec3(0.0f), bool two_sided = false);
    void quad(vec3 corner, vec3 eu, vec3 ev, MatHandle m, vec3 Le = vec3(0.0f), bool two_sided = false);
    void triangle(vec3 a, vec3 b, vec3 c, MatHandle m, vec3 Le = vec3(0.0f), bool two_sided = false);
    // Triangle with corner attributes (corner k of attr belongs to vertex a, b, c for k = 0, 1, 2).
    void triangle(vec3 a, vec3 b, vec3 c, MatHandle m, const TriAttr& attr, vec3 Le = vec3(0.0f),
                  bool two_sided = false);
    // Room for `more` primitives, `with_attr` of them with corner attributes (a mesh's, before its triangles: no
    // copies as the arrays grow one by one; a load's speed only).
    void reserve(size_t more, size_t with_attr);
    // Unit cube [-1,1]^3 under transform M, as six outward-facing quads.
    void cube(const mat4& M, MatHandle m, vec3 Le = vec3(0.0f), bool two_sided = false);
    // pbrt-v4's delta lights, found by next-event estimation alone. Point: intensity I (W/sr) at pos. Spot: at pos,
    // toward `axis`, intensity I on the axis, falling off as pbrt-v4's smoothstep of the cosine from cos_end
    // (coneangle) to cos_start (coneangle - conedeltaangle). Distant: radiance L arriving from direction `to_light`
    // (the irradiance on a plane facing it). Each is selected in proportion to its power as pbrt-v4 defines it
    // (point 4 pi I, spot 2 pi I (1 - cos_start + (cos_start - cos_end) / 2), distant pi r^2 L with r the radius of
    // the scene's bounding sphere), in the same units as the area lights'.
    void point_light(vec3 pos, vec3 I);
    void spot_light(vec3 pos, vec3 axis, vec3 I, float cos_start, float cos_end);
    void distant_light(vec3 to_light, vec3 L);
    void set_background(vec3 bg) { data_.background = bg; }
    // Lat-long environment map (radiance, row 0 = up), replacing the constant background.
    void set_environment(std::vector<F4> texels, uint32_t w, uint32_t h, float rotation_deg = 0.0f);
    void set_camera(const CameraData& c) { data_.camera = c; }
    // The arrays, the tree and the light table. o: the tree's knobs and the memory check; source: the scene's file,
    // for the messages (SceneMemoryError).
    SceneData build(const SceneBuildOptions& o = {}, const std::string& source = "the scene");

private:
    bool all_spheres() const;
    std::vector<AABB> primitive_boxes() const;
    // The build's forecast (bvh_memory_forecast and the arrays copied into the result); throws SceneMemoryError when
    // it exceeds o.memory_available().
    uint64_t check_memory(const SceneBuildOptions& o, BVHBuildOptions& bo, const std::string& source) const;
    // build() after its memory check (a std::bad_alloc in it: a SceneMemoryError naming the file and the phase)
    SceneData build_checked(const SceneBuildOptions& o, const BVHBuildOptions& bo, uint64_t forecast);
    std::vector<uint32_t> build_tree(SceneData& d, const std::vector<AABB>& boxes, BVHBuildOptions bo,
                                     const SceneBuildOptions& o) const;
    void fill_slots(SceneData& d, const std::vector<uint32_t>& order, std::vector<float>& power) const;
    void add_delta_lights(SceneData& d, const std::vector<AABB>& boxes, std::vector<float>& power) const;
    struct Prim {
        ShapeType type;
        vec3 a, b, c;  // see PrimArrays: sphere (center, (r,0,0)), quad/triangle (v0, e1, e2)
        MatHandle mat;
        vec3 Le;
        bool two_sided;
        uint32_t attr;  // index into attrs_ or kInvalid
    };
    std::vector<Prim> prims_;
    std::vector<TriAttr> attrs_;
    std::vector<Light> delta_lights_;  // after the area lights in the table, in the order given
    SceneData data_;
};

// A material of a mesh and the radiance its triangles emit (zero: not a light).
struct MeshMaterial {
    MatHandle mat;
    vec3 Le{0.0f};
};

// Adds the triangles of `mesh` to `b` in order, as they are: positions and normals already in world space
// (the loaders apply the transform), corner order as given (mirroring already handled). Triangle i takes
// mats[clamp(mesh.material[i], 0, mats.size() - 1)] (one entry serves every triangle; a face without a material,
// -1, takes the first), and gets a TriAttr of its corner normals and uvs when it has either. A zero-area triangle
// is kept as plain geometry that emits nothing (it cannot be sampled). mats must not be empty.
void add_mesh(SceneBuilder& b, const ObjMesh& mesh, const std::vector<MeshMaterial>& mats, bool two_sided = false);

// This process's memory: resident now (/proc/self/statm) and the most so far (getrusage). The tree's build measures
// itself with them (BVHBuildStats); the command layer watches a scene's load with them.
uint64_t process_resident_bytes();
uint64_t process_peak_bytes();

}  // namespace wp
