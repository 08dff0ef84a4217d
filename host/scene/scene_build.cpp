#include "host/scene/scene_build.h"
#include "host/scene/mesh_obj.h"
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cmath>
#include <stdexcept>
#include <string>
#include <cstdio>
#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

namespace wp {

SceneView SceneData::view() const {
    SceneView s;
    // every array by its row of kernels/scene_tables.h; an empty one is a null pointer, as the GPU upload makes it
#define WP_SCENE_VIEW_POINTER(T, field, view, cat) s.view = field.empty() ? nullptr : field.data();
    WP_SCENE_TABLES(WP_SCENE_VIEW_POINTER)
#undef WP_SCENE_VIEW_POINTER
    s.prims.count = uint32_t(info.size());
    s.num_lights = uint32_t(lights.size());
    s.env.constant = background;
    s.env.select_prob = env_select_prob;
    s.env.rot_cos = std::cos(env_rotation_deg * kPi / 180.0f);
    s.env.rot_sin = std::sin(env_rotation_deg * kPi / 180.0f);
    if (!env_texels.empty()) {  // (without a map the environment is the constant: no size)
        s.env.width = env_width;
        s.env.height = env_height;
    }
    s.camera = camera;
    s.bounds_lo = bounds_lo;
    s.bounds_hi = bounds_hi;
    s.features = features();
    return s;
}

uint32_t SceneData::features() const {
    uint32_t f = 0;
    for (const U4& i : info) f |= i.x == uint32_t(ShapeType::Sphere) ? kFeatSpheres : kFeatTriangles;
    if (!bump.empty()) f |= kFeatBump;
    // the materials the primitives use (a bump map's by the material it wraps): one family bit each
    // (kernels/features.h: the shade families run are these)
    constexpr uint32_t kTypeFeature[] = {kFeatLambert,    kFeatConductor, kFeatDielectric,
                                         kFeatPrincipled, kFeatLayered,   kFeatDiffuseTransmission};
    for (const U4& i : info) {
        MatHandle h{i.y};
        if (h.type() == MatType::Bumped) h = MatHandle{bump[h.index()].material};
        if (uint32_t(h.type()) < sizeof(kTypeFeature) / sizeof(kTypeFeature[0])) f |= kTypeFeature[uint32_t(h.type())];
    }
    if (!textures.empty()) f |= kFeatTextures;
    for (const Light& l : lights) f |= l.type == kLightArea ? kFeatEmitters : kFeatDeltaLights;
    if (!env_texels.empty()) f |= kFeatEnvMap;
    return f;
}

CameraData make_camera(vec3 pos, vec3 target, vec3 up, float vfov_deg, float aspect, float lens_radius,
                       float focus_dist) {
    CameraData c;
    c.pos = pos;
    c.forward = glm::normalize(target - pos);
    c.right = glm::normalize(glm::cross(c.forward, up));
    c.up = glm::cross(c.right, c.forward);
    c.tan_half_fov_y = std::tan(0.5f * vfov_deg * kPi / 180.0f);
    c.aspect = aspect;
    c.lens_radius = lens_radius;
    c.focus_dist = focus_dist;
    return c;
}

MatHandle SceneBuilder::lambert(vec3 albedo, uint32_t tex) {
    data_.lambert.push_back({albedo, tex});
    return MatHandle::make(MatType::Lambert, uint32_t(data_.lambert.size() - 1));
}
MatHandle SceneBuilder::diffuse_transmission(vec3 reflectance, uint32_t reflectance_tex, vec3 transmittance,
                                             uint32_t transmittance_tex) {
    data_.lambert.push_back({reflectance, reflectance_tex});
    data_.lambert.push_back({transmittance, transmittance_tex});
    return MatHandle::make(MatType::DiffuseTransmission, uint32_t(data_.lambert.size() - 2));
}
MatHandle SceneBuilder::conductor(vec3 color, float alpha) {
    ConductorData d{};
    d.color = color;
    d.alpha = alpha;
    data_.conductor.push_back(d);
    return MatHandle::make(MatType::Conductor, uint32_t(data_.conductor.size() - 1));
}
MatHandle SceneBuilder::dielectric(float ior, float alpha, vec3 tint) {
    data_.dielectric.push_back({tint, ior, alpha});
    return MatHandle::make(MatType::Dielectric, uint32_t(data_.dielectric.size() - 1));
}
MatHandle SceneBuilder::principled(vec3 base, float metallic, float roughness) {
    PrincipledData p{};
    p.base_color = base;
    p.metallic = metallic;
    p.roughness = roughness;
    p.base_tex = p.mr_tex = p.normal_tex = p.emissive_tex = kNoTexture;
    p.normal_scale = 1.0f;
    return principled(p);
}
MatHandle SceneBuilder::principled(const PrincipledData& p) {
    data_.principled.push_back(p);
    return MatHandle::make(MatType::Principled, uint32_t(data_.principled.size() - 1));
}
MatHandle SceneBuilder::layered(const LayeredData& d) {
    data_.layered.push_back(d);
    return MatHandle::make(MatType::Layered, uint32_t(data_.layered.size() - 1));
}
MatHandle SceneBuilder::conductor_complex(vec3 eta, vec3 k, float alpha) {
    ConductorData d{};
    d.color = vec3(1.0f);
    d.alpha = alpha;
    d.eta = eta;
    d.k = k;
    d.use_complex_ior = 1;
    data_.conductor.push_back(d);
    return MatHandle::make(MatType::Conductor, uint32_t(data_.conductor.size() - 1));
}
MatHandle SceneBuilder::bumped(MatHandle m, uint32_t tex, float scale, float du, float dv) {
    if (m.type() == MatType::Bumped) throw std::runtime_error("bumped: the material is bumped already");
    if (tex >= data_.textures.size()) throw std::runtime_error("bumped: no such texture");
    if (!(du > 0.0f) || !(dv > 0.0f)) throw std::runtime_error("bumped: the steps must be positive");
    data_.bump.push_back(BumpData{m.bits, tex, scale, du, dv, {0.0f, 0.0f, 0.0f}});
    return MatHandle::make(MatType::Bumped, uint32_t(data_.bump.size() - 1));
}
uint32_t SceneBuilder::texture(std::vector<F4> texels, uint32_t w, uint32_t h) {
    if (w == 0 || h == 0 || texels.size() != size_t(w) * h) throw std::runtime_error("texture of bad size");
    data_.textures.push_back(TexInfo{uint32_t(data_.tex_texels.size()), w, h, 0});
    data_.tex_texels.insert(data_.tex_texels.end(), texels.begin(), texels.end());
    return uint32_t(data_.textures.size() - 1);
}
uint32_t SceneBuilder::texture_mapped(uint32_t image, vec4 m) {
    if (image >= data_.textures.size() || data_.textures[image].kind != kTexImage)
        throw std::runtime_error("texture_mapped: not an image texture");
    data_.textures.push_back(TexInfo{uint32_t(data_.tex_texels.size()), image, 0, kTexMapped});
    data_.tex_texels.push_back(F4{m.x, m.y, m.z, m.w});
    return uint32_t(data_.textures.size() - 1);
}
uint32_t SceneBuilder::texture_checker(vec4 m, vec3 c1, uint32_t t1, vec3 c2, uint32_t t2) {
    for (uint32_t t : {t1, t2})
        if (t != kNoTexture && (t >= data_.textures.size() || data_.textures[t].kind == kTexChecker))
            throw std::runtime_error("texture_checker: a side's texture must be an image");
    data_.textures.push_back(TexInfo{uint32_t(data_.tex_texels.size()), 0, 0, kTexChecker});
    data_.tex_texels.push_back(F4{m.x, m.y, m.z, m.w});
    data_.tex_texels.push_back(F4{c1.x, c1.y, c1.z, bits_float(t1)});
    data_.tex_texels.push_back(F4{c2.x, c2.y, c2.z, bits_float(t2)});
    return uint32_t(data_.textures.size() - 1);
}
void SceneBuilder::set_environment(std::vector<F4> texels, uint32_t w, uint32_t h, float rotation_deg) {
    if (w == 0 || h == 0 || texels.size() != size_t(w) * h) throw std::runtime_error("environment map of bad size");
    data_.env_texels = std::move(texels);
    data_.env_width = w;
    data_.env_height = h;
    data_.env_rotation_deg = rotation_deg;
}
void SceneBuilder::point_light(vec3 pos, vec3 I) {
    Light l{kInvalid, 0.0f, 0.0f, 0u, I, kLightPoint};
    l.pos = pos;
    delta_lights_.push_back(l);
}
void SceneBuilder::spot_light(vec3 pos, vec3 axis, vec3 I, float cos_start, float cos_end) {
    if (!(glm::length(axis) > 0.0f)) throw std::runtime_error("spot light without a direction");
    Light l{kInvalid, 0.0f, 0.0f, 0u, I, kLightSpot};
    l.pos = pos;
    l.dir = glm::normalize(axis);
    l.cos_start = cos_start;
    l.cos_end = cos_end;
    delta_lights_.push_back(l);
}
void SceneBuilder::distant_light(vec3 to_light, vec3 L) {
    if (!(glm::length(to_light) > 0.0f)) throw std::runtime_error("distant light without a direction");
    Light l{kInvalid, 0.0f, 0.0f, 0u, L, kLightDistant};
    l.dir = glm::normalize(to_light);
    delta_lights_.push_back(l);
}
void SceneBuilder::sphere(vec3 c, float r, MatHandle m, vec3 Le, bool two_sided) {
    prims_.push_back({ShapeType::Sphere, c, vec3(r, 0, 0), vec3(0), m, Le, two_sided, kInvalid});
}
void SceneBuilder::quad(vec3 corner, vec3 eu, vec3 ev, MatHandle m, vec3 Le, bool two_sided) {
    prims_.push_back({ShapeType::Quad, corner, eu, ev, m, Le, two_sided, kInvalid});
}
void SceneBuilder::triangle(vec3 a, vec3 b, vec3 c, MatHandle m, vec3 Le, bool two_sided) {
    prims_.push_back({ShapeType::Triangle, a, b - a, c - a, m, Le, two_sided, kInvalid});
}
void SceneBuilder::triangle(vec3 a, vec3 b, vec3 c, MatHandle m, const TriAttr& attr, vec3 Le, bool two_sided) {
    prims_.push_back({ShapeType::Triangle, a, b - a, c - a, m, Le, two_sided, uint32_t(attrs_.size())});
    attrs_.push_back(attr);
}
void SceneBuilder::reserve(size_t more, size_t with_attr) {
    // doubling at least, as push_back would, so that many small meshes do not reallocate each time
    if (prims_.capacity() < prims_.size() + more) prims_.reserve(std::max(2 * prims_.capacity(), prims_.size() + more));
    if (attrs_.capacity() < attrs_.size() + with_attr)
        attrs_.reserve(std::max(2 * attrs_.capacity(), attrs_.size() + with_attr));
}
void SceneBuilder::cube(const mat4& M, MatHandle m, vec3 Le, bool two_sided) {
    auto P = [&](vec3 p) { return vec3(M * vec4(p, 1.0f)); };
    // each face: corner, and two edges ordered so that cross(eu, ev) points outward
    const vec3 faces[6][3] = {
        {vec3(1, -1, -1), vec3(0, 2, 0), vec3(0, 0, 2)}, {vec3(-1, -1, -1), vec3(0, 0, 2), vec3(0, 2, 0)},
        {vec3(-1, 1, -1), vec3(0, 0, 2), vec3(2, 0, 0)}, {vec3(-1, -1, -1), vec3(2, 0, 0), vec3(0, 0, 2)},
        {vec3(-1, -1, 1), vec3(2, 0, 0), vec3(0, 2, 0)}, {vec3(-1, -1, -1), vec3(0, 2, 0), vec3(2, 0, 0)}};
    for (const auto& f : faces) {
        vec3 c = P(f[0]);
        quad(c, P(f[0] + f[1]) - c, P(f[0] + f[2]) - c, m, Le, two_sided);
    }
}

void add_mesh(SceneBuilder& b, const ObjMesh& mesh, const std::vector<MeshMaterial>& mats, bool two_sided) {
    if (mats.empty()) throw std::invalid_argument("add_mesh: no materials");
    const int last = int(mats.size()) - 1;
    size_t with_attr = 0;
    for (size_t i = 0; i < mesh.triangles(); ++i) with_attr += mesh.has_normals[i] || mesh.has_uv[i];
    b.reserve(mesh.triangles(), with_attr);
    for (size_t i = 0; i < mesh.triangles(); ++i) {
        const MeshMaterial& mm = mats[size_t(glm::clamp(mesh.material[i], 0, last))];
        vec3 a = mesh.pos[3 * i], bb = mesh.pos[3 * i + 1], cc = mesh.pos[3 * i + 2];
        vec3 Li = max_comp(mm.Le) > 0.0f && glm::length(glm::cross(bb - a, cc - a)) > 0.0f ? mm.Le : vec3(0.0f);
        if (mesh.has_normals[i] || mesh.has_uv[i]) {
            TriAttr ta;
            ta.has_normals = mesh.has_normals[i] != 0;
            for (int k = 0; k < 3; ++k) {
                ta.n[k] = mesh.normal[3 * i + k];
                ta.uv[k] = mesh.uv[3 * i + k];
            }
            b.triangle(a, bb, cc, mm.mat, ta, Li, two_sided);
        } else {
            b.triangle(a, bb, cc, mm.mat, Li, two_sided);
        }
    }
}

double process_cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

namespace {

std::string mib_text(uint64_t b) {
    char s[32];
    std::snprintf(s, sizeof s, "%.1f MiB", double(b) / 1048576.0);
    return s;
}

// The binary tree's options for n primitives (all_spheres: no other shape): the builder's defaults for the scene,
// then the knobs o sets (SceneBuildOptions: the WP_BVH_* variables), each clamped to its range.
BVHBuildOptions tree_options(const SceneBuildOptions& o, size_t n, bool all_spheres) {
    BVHBuildOptions bo;
    // Leaves of up to 2 pay on large meshes but cost small scenes a level of nodes: up to 4 below 1024 primitives;
    // scenes of spheres alone take leaves of 1 (docs/DECISIONS.md: bvh-leaf-size). Same image either way.
    if (n < 1024) bo.max_leaf = 4;
    if (n > 0 && all_spheres) bo.max_leaf = 1;
    // Spatial splits (SBVH) are on unless WP_BVH_SPLITS=0.
    bo.spatial_splits = o.spatial_splits.value_or(true);
    // Builder knobs for traversal experiments (the checked list WP_BVH_KNOBS, scene_build.h): WP_BVH_BINS,
    // WP_BVH_MAX_LEAF (docs/DECISIONS.md: bvh-bins, bvh-leaf-size).
    if (o.bins) bo.bins = std::max(2, std::min(256, *o.bins));
    if (o.max_leaf) bo.max_leaf = uint32_t(std::max(1, std::min(16, *o.max_leaf)));
    // spatial splits' knobs (BVHBuildOptions::split_alpha, split_max_growth) and the reinsertion's batches
    // (optimize_batches), for measurements (docs/DECISIONS.md: split-alpha, split-growth, optimize-batches)
    if (o.split_alpha) bo.split_alpha = std::max(0.0f, *o.split_alpha);
    if (o.split_growth) bo.split_max_growth = std::max(1.0f, std::min(8.0f, *o.split_growth));
    if (o.optimize_batches) bo.optimize_batches = std::max(0, *o.optimize_batches);
    // spatial splits only where the object split's children overlap by 0.2 of the node's area (kDefaultSplitBeta),
    // and the faster build's knobs (BVHBuildOptions::split_beta, split_min_refs, split_bins, threads):
    // docs/DECISIONS.md: split-beta
    bo.split_beta = kDefaultSplitBeta;
    if (o.split_min_refs) bo.split_min_refs = uint32_t(std::max(0, *o.split_min_refs));
    if (o.split_beta) bo.split_beta = std::max(0.0f, *o.split_beta);
    // and only where a reference spans more than a quarter of the node (docs/DECISIONS.md: split-gamma)
    bo.split_gamma = o.split_gamma ? std::max(0.0f, *o.split_gamma) : kDefaultSplitGamma;
    // 16 planes per axis for spatial splits (docs/DECISIONS.md: split-bins)
    bo.split_bins = o.split_bins ? std::max(0, std::min(256, *o.split_bins)) : kDefaultSplitBins;
    if (o.threads) bo.threads = std::max(1, *o.threads);
    // the references' clipped boxes: not read by the scene's tree
    bo.ref_boxes = false;
    return bo;
}

// The bytes of d's arrays (kernels/scene_tables.h).
uint64_t table_bytes(const SceneData& d) {
    uint64_t b = 0;
#define WP_SCENE_TABLE_BYTES(T, field, view, cat) b += uint64_t(d.field.size()) * sizeof(T);
    WP_SCENE_TABLES(WP_SCENE_TABLE_BYTES)
#undef WP_SCENE_TABLE_BYTES
    return b;
}

// The light table's selection probabilities and CDF from each light's power.
void light_table(SceneData& d, const std::vector<float>& power) {
    double total = 0;
    for (float w : power) total += w;
    double acc = 0;
    for (size_t i = 0; i < d.lights.size(); ++i) {
        d.lights[i].select_pdf = float(power[i] / total);
        acc += power[i];
        d.light_cdf.push_back(float(acc / total));
    }
    if (!d.light_cdf.empty()) d.light_cdf.back() = 1.0f;
}

// The environment's sampling CDFs and its selection probability.
void environment_cdfs(SceneData& d) {
    // Environment: CDFs over texels weighted by luminance * sin(theta); a light when it emits anything.
    bool env_emits = max_comp(d.background) > 0.0f;
    if (!d.env_texels.empty()) {
        uint32_t W = d.env_width, H = d.env_height;
        d.env_conditional.assign(size_t(H) * (W + 1), 0.0f);
        d.env_marginal.assign(H + 1, 0.0f);
        std::vector<double> row(H, 0.0);
        for (uint32_t j = 0; j < H; ++j) {
            double st = std::sin(kPi * (j + 0.5) / H), acc = 0.0;
            std::vector<double> c(W + 1, 0.0);
            for (uint32_t i = 0; i < W; ++i) {
                const F4& t = d.env_texels[size_t(j) * W + i];
                double w = std::max(0.0, double(luminance(vec3(t.x, t.y, t.z)))) * st;
                if (!std::isfinite(w)) throw std::runtime_error("environment map has non-finite texels");
                acc += w;
                c[i + 1] = acc;
            }
            row[j] = acc;
            float* dst = &d.env_conditional[size_t(j) * (W + 1)];
            for (uint32_t i = 0; i <= W; ++i) dst[i] = acc > 0 ? float(c[i] / acc) : float(i) / float(W);
            dst[W] = 1.0f;
        }
        double tot = 0.0;
        for (uint32_t j = 0; j < H; ++j) tot += row[j];
        env_emits = tot > 0.0;
        double acc = 0.0;
        for (uint32_t j = 0; j < H; ++j) {
            acc += row[j];
            d.env_marginal[j + 1] = tot > 0 ? float(acc / tot) : float(j + 1) / float(H);
        }
        d.env_marginal[H] = 1.0f;
    }
    d.env_select_prob = env_emits ? (d.lights.empty() ? 1.0f : 0.5f) : 0.0f;
}

}  // namespace

uint64_t bvh_memory_forecast(uint64_t n, uint64_t with_attr, const BVHBuildPlan& plan, std::string* what) {
    // References: one per primitive, with spatial splits up to split_max_growth per primitive (their budget, which
    // Sponza spends and the dragon hardly touches: an upper bound).
    const bool splits = plan.spatial_splits;
    const uint64_t refs = splits ? uint64_t(double(n) * std::max(1.0f, plan.split_max_growth)) : n;
    const uint64_t extra = refs - n;            // the references spatial splits may add
    const uint64_t boxes = 24 * n;              // SceneBuilder::build's primitive boxes
    const uint64_t tris = splits ? 36 * n : 0;  // triangles for the clipping
    // sbvh's references and their spare buffers (2 x 28 B); a spatial split's children get buffers of their own while
    // their parent's stay, counted as two more of each added reference (measured on Sponza, which spends the whole
    // budget). The object-split builder: centroids.
    const uint64_t build_refs = splits ? 2 * 28 * refs + 2 * 2 * 28 * extra : 12 * n;
    // Nodes (64 B) and order (4 B), at most one each per reference. While building, the nodes reserved for the
    // primitives grow toward the references (old and new buffers), and the subtrees built apart hold their own
    // nodes and order until appended to their parent's.
    const uint64_t nodes = 64 * refs, order = 4 * refs;
    const uint64_t nodes_building = splits ? 64 * (refs + extra) + (64 + 4) * n : nodes;
    const uint64_t slots = (48 + 16) * refs + 64 * with_attr;  // geometry and info per slot, corner attributes
    const uint64_t dup = refs != n ? 8 * n : 0;                // lights and attributes of split primitives
    // Peak: the build's buffers while the tree is made, or the tree with the slot arrays after it.
    const uint64_t during = boxes + tris + build_refs + nodes_building + order;
    const uint64_t after = boxes + nodes + order + slots + dup;
    const uint64_t peak = std::max(during, after);
    if (what)
        *what = std::to_string(refs) + " references at most, peak " + (during >= after ? "while building" : "after") +
                ": boxes " + mib_text(boxes) + ", references " + mib_text(build_refs + tris) + ", nodes " +
                mib_text((during >= after ? nodes_building : nodes) + order) +
                (during >= after ? std::string() : ", per-slot arrays " + mib_text(slots + dup));
    return peak;
}

bool SceneBuilder::all_spheres() const {
    return std::all_of(prims_.begin(), prims_.end(), [](const Prim& p) { return p.type == ShapeType::Sphere; });
}

std::vector<AABB> SceneBuilder::primitive_boxes() const {
    std::vector<AABB> boxes(prims_.size());
    for (size_t i = 0; i < prims_.size(); ++i) {
        const Prim& p = prims_[i];
        AABB& b = boxes[i];
        if (p.type == ShapeType::Sphere) {
            b.grow(p.a - vec3(p.b.x));
            b.grow(p.a + vec3(p.b.x));
        } else {
            b.grow(p.a);
            b.grow(p.a + p.b);
            b.grow(p.a + p.c);
            if (p.type == ShapeType::Quad) b.grow(p.a + p.b + p.c);
        }
    }
    return boxes;
}

uint64_t SceneBuilder::check_memory(const SceneBuildOptions& o, BVHBuildOptions& bo, const std::string& source) const {
    BVHBuildPlan plan;
    plan.spatial_splits = bo.spatial_splits;
    plan.split_max_growth = bo.split_max_growth;
    std::string what;
    // (the scene's other arrays are copied into the result as the build starts)
    const uint64_t forecast = bvh_memory_forecast(prims_.size(), attrs_.size(), plan, &what) + table_bytes(data_);
    if (!o.memory_available) return forecast;
    const uint64_t available = o.memory_available();
    if (forecast <= available) return forecast;
    // The forecast counts spatial splits at their whole reference budget, which many scenes do not spend. The
    // budget's least, no references added, decides whether the tree can be built at all; between the two, the budget
    // is cut to what fits (docs/DECISIONS.md: memory-forecast).
    BVHBuildPlan lean = plan;
    lean.split_max_growth = 1.0f;
    std::string least_what;
    const uint64_t least = bvh_memory_forecast(prims_.size(), attrs_.size(), lean, &least_what) + table_bytes(data_);
    if (!plan.spatial_splits || plan.split_max_growth <= 1.0f || least > available)
        throw SceneMemoryError(source + ": the scene's BVH would not fit in host memory: building it over " +
                               std::to_string(prims_.size()) + " primitives takes at least " + mib_text(least) +
                               " (forecast: " + least_what + ") and " + mib_text(available) + " are " + o.memory_what +
                               "; nothing was built");
    // the forecast grows linearly with the budget: the largest budget whose forecast fits
    const double per_growth = double(forecast - least) / double(plan.split_max_growth - 1.0f);
    const float growth = float(1.0 + double(available - least) / per_growth);
    std::fprintf(stderr,
                 "warning: %s: the BVH's spatial splits limited to %.2fx the primitives' references (not %.2fx) to fit "
                 "in host memory: %s %s, the build forecast %s at the full budget, %s at this one (the tree, and so "
                 "the render's speed, may differ from an unconstrained load's; the image converges to the same)\n",
                 source.c_str(), growth, plan.split_max_growth, mib_text(available).c_str(), o.memory_what.c_str(),
                 mib_text(forecast).c_str(), mib_text(uint64_t(double(least) + (growth - 1.0) * per_growth)).c_str());
    bo.split_max_growth = growth;
    plan.split_max_growth = growth;
    return bvh_memory_forecast(prims_.size(), attrs_.size(), plan) + table_bytes(data_);
}

// The binary tree over `boxes` into d; returns the leaf slots' order.
std::vector<uint32_t> SceneBuilder::build_tree(SceneData& d, const std::vector<AABB>& boxes, BVHBuildOptions bo,
                                               const SceneBuildOptions& o) const {
    // Spatial splits (SBVH; on by default: tree_options; docs/DECISIONS.md: sbvh). Triangles are
    // clipped exactly at the split planes; spheres and quads are split by their boxes. A primitive may then sit in
    // several leaf slots (bvh.order has duplicates).
    std::vector<std::array<vec3, 3>> tris;
    if (bo.spatial_splits) {
        tris.resize(prims_.size());
        for (size_t i = 0; i < prims_.size(); ++i) {
            const Prim& p = prims_[i];
            tris[i] = p.type == ShapeType::Triangle ? std::array<vec3, 3>{p.a, p.a + p.b, p.a + p.c} : kNotATriangle();
        }
    }
    // conservative boxes also for camera rays from outside the scene (BVHBuildOptions::pad_ulps)
    bo.pad_magnitude = std::max({std::fabs(d.camera.pos.x), std::fabs(d.camera.pos.y), std::fabs(d.camera.pos.z)});
    BVHBuild bvh = build_bvh(boxes, bo, bo.spatial_splits ? &tris : nullptr);
    std::vector<std::array<vec3, 3>>().swap(tris);
    if (bvh.depth >= kBVHStackSize) throw std::runtime_error("BVH deeper than the traversal stack");
    d.bvh_depth = bvh.depth;
    d.num_primitives = uint32_t(prims_.size());
    const size_t slots = bvh.order.size();  // leaf slots: prims_.size(), or more with spatial splits
    d.bvh_stats.primitives = d.num_primitives;
    d.bvh_stats.references = slots;
    d.bvh_stats.sah_cost = bvh_sah_cost(bvh.nodes, bo.traversal_cost);
    d.nodes = std::move(bvh.nodes);
    return std::move(bvh.order);
}

// One record per leaf slot of `order` into d (geometry, info, corner attributes, the area lights); `power` gets
// each area light's.
void SceneBuilder::fill_slots(SceneData& d, const std::vector<uint32_t>& order, std::vector<float>& power) const {
    const size_t slots = order.size();
    // One record per leaf slot. A primitive in several slots (spatial splits) gets its geometry and info in each,
    // but one light (created at its first slot; Light::prim names that slot) and one attribute record set.
    d.geom.resize(3 * slots);
    d.info.resize(slots);
    std::vector<uint32_t> light_of, attr_of;  // per input primitive, only when there are duplicates
    if (slots != prims_.size()) {
        light_of.assign(prims_.size(), kInvalid);
        attr_of.assign(prims_.size(), kInvalid);
    }
    d.attr.reserve(4 * attrs_.size());
    for (size_t j = 0; j < slots; ++j) {
        // The primitives are read in leaf order, at random in prims_ and attrs_, so they are fetched ahead (with the
        // reserve of d.attr; docs/DECISIONS.md: leaf-prefetch).
        if (j + 16 < slots) __builtin_prefetch(&prims_[order[j + 16]]);
        if (j + 8 < slots) {
            const uint32_t a8 = prims_[order[j + 8]].attr;
            if (a8 != kInvalid) __builtin_prefetch(&attrs_[a8]);
        }
        const uint32_t pi = order[j];
        const Prim& p = prims_[pi];
        if (!light_of.empty() && (light_of[pi] != kInvalid || attr_of[pi] != kInvalid)) {  // seen before
            d.geom[3 * j] = F4{p.a.x, p.a.y, p.a.z, bits_float(uint32_t(p.type))};
            d.geom[3 * j + 1] = F4{p.b.x, p.b.y, p.b.z, 0.0f};
            d.geom[3 * j + 2] = F4{p.c.x, p.c.y, p.c.z, 0.0f};
            d.info[j] = U4{uint32_t(p.type), p.mat.bits, light_of[pi], attr_of[pi]};
            continue;
        }
        d.geom[3 * j] = F4{p.a.x, p.a.y, p.a.z, bits_float(uint32_t(p.type))};
        d.geom[3 * j + 1] = F4{p.b.x, p.b.y, p.b.z, 0.0f};
        d.geom[3 * j + 2] = F4{p.c.x, p.c.y, p.c.z, 0.0f};
        uint32_t light = kInvalid;
        if (max_comp(p.Le) > 0.0f) {
            float area = p.type == ShapeType::Sphere ? 4.0f * kPi * p.b.x * p.b.x
                         : p.type == ShapeType::Quad ? glm::length(glm::cross(p.b, p.c))
                                                     : 0.5f * glm::length(glm::cross(p.b, p.c));
            if (!(area > 0.0f)) throw std::runtime_error("emissive primitive with zero area");
            light = uint32_t(d.lights.size());
            d.lights.push_back(Light{uint32_t(j), area, 0.0f, p.two_sided ? 1u : 0u, p.Le, kLightArea});
            power.push_back(luminance(p.Le) * area * (p.two_sided ? 2.0f : 1.0f) + 1e-30f);
        }
        uint32_t w = kInvalid;
        if (p.attr != kInvalid) {  // four records per triangle, in leaf order
            const TriAttr& t = attrs_[p.attr];
            w = uint32_t(d.attr.size() / 4);
            for (int k = 0; k < 3; ++k) d.attr.push_back(F4{t.n[k].x, t.n[k].y, t.n[k].z, t.uv[k].x});
            d.attr.push_back(F4{t.uv[0].y, t.uv[1].y, t.uv[2].y, t.has_normals ? 1.0f : 0.0f});
        }
        d.info[j] = U4{uint32_t(p.type), p.mat.bits, light, w};
        if (!light_of.empty() && (light != kInvalid || w != kInvalid)) {
            light_of[pi] = light;
            attr_of[pi] = w;
        }
    }
}

// The delta lights after the area lights in d, with their powers.
void SceneBuilder::add_delta_lights(SceneData& d, const std::vector<AABB>& boxes, std::vector<float>& power) const {
    // Delta lights after the area lights (whose indices and selection stay as they were without them). Powers
    // are pbrt-v4's Phi over pi, the area lights' unit (luminance(Le) * area is their Phi / pi).
    if (!delta_lights_.empty()) {
        AABB scene;
        for (const AABB& b : boxes) scene.grow(b);
        const float r = boxes.empty() ? 0.0f : 0.5f * glm::length(scene.hi - scene.lo);  // pbrt's BoundingSphere
        for (const Light& l : delta_lights_) {
            const float lum = luminance(l.Le);
            float phi = 0.0f;  // Phi / pi
            if (l.type == kLightPoint) phi = 4.0f * lum;
            if (l.type == kLightSpot) phi = 2.0f * lum * ((1.0f - l.cos_start) + 0.5f * (l.cos_start - l.cos_end));
            if (l.type == kLightDistant) phi = r * r * lum;
            d.lights.push_back(l);
            power.push_back(glm::max(phi, 0.0f) + 1e-30f);
        }
    }
}

SceneData SceneBuilder::build(const SceneBuildOptions& o, const std::string& source) {
    BVHBuildOptions bo = tree_options(o, prims_.size(), !prims_.empty() && all_spheres());
    const uint64_t forecast = check_memory(o, bo, source);  // before anything of the build is allocated; may cut
                                                            // the spatial splits' budget to what fits
    try {
        return build_checked(o, bo, forecast);
    } catch (const std::bad_alloc&) {  // (the forecast's margin not enough, or ulimit -v): the phase named
        throw SceneMemoryError(source + ": out of memory while building the BVH over " + std::to_string(prims_.size()) +
                               " primitives (forecast " + mib_text(forecast) + ")");
    }
}

SceneData SceneBuilder::build_checked(const SceneBuildOptions& o, const BVHBuildOptions& bo, uint64_t forecast) {
    const uint64_t resident0 = process_resident_bytes(), peak0 = process_peak_bytes();
    SceneData d = data_;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = process_cpu_seconds();
    const std::vector<AABB> boxes = primitive_boxes();
    for (const AABB& b : boxes) {  // the scene's box (the ray sort's grid)
        d.bounds_lo = glm::min(d.bounds_lo, b.lo);
        d.bounds_hi = glm::max(d.bounds_hi, b.hi);
    }
    const std::vector<uint32_t> order = build_tree(d, boxes, bo, o);
    d.bvh_stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    d.bvh_stats.cpu_seconds = process_cpu_seconds() - cpu0;
    std::vector<float> power;
    fill_slots(d, order, power);
    add_delta_lights(d, boxes, power);
    light_table(d, power);
    environment_cdfs(d);
    d.bvh_stats.forecast_bytes = forecast;
    const uint64_t peak = process_peak_bytes();
    d.bvh_stats.measured_bytes = peak > peak0 && peak > resident0 ? peak - resident0 : 0;
    return d;
}

uint64_t process_resident_bytes() {
    std::ifstream f("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    if (!(f >> size >> resident)) return 0;
    return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

uint64_t process_peak_bytes() {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return uint64_t(u.ru_maxrss) * 1024;  // (Linux: KiB)
}

}  // namespace wp
