// Tungsten scenes (JSON) and .wo3 meshes. Conventions follow Tungsten's sources (tunabrain/tungsten):
//  - transform objects: M = translate(position) * rotYXZ(rotation) * basis * scale, rotYXZ = Ry(-y) Rx(x) Rz(z)
//    in degrees; a 16-number transform is a row-major matrix;
//  - quad: the unit square [-0.5,0.5]^2 in the xz plane, edges M(1,0,0) and M(0,0,1), normal edge1 x edge0
//    (+y for the identity); cube: [-0.5,0.5]^3; sphere: unit sphere (radius = largest axis scale); disk: unit
//    disk in the xz plane, normal M(0,1,0); lights emit on the normal's side only;
//  - "power" is turned into radiance as Tungsten does: power / (pi * area) (infinite sphere: power / (4 pi));
//  - camera: "fov" is horizontal, in degrees; the transform gives position, look_at and up;
//  - bsdf "roughness" is the GGX alpha; "max_bounces" counts scattering events (our max_depth = max_bounces + 1);
//  - textures: Tungsten's v runs upward (row 0 of an image is v = 1); ours runs downward, so v -> 1 - v.
#include "host/scene/scene_tungsten.h"
#include "host/scene/render_limits.h"
#include "host/image/image_load.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>
#include <glm/gtc/matrix_transform.hpp>

namespace wp {

// ------------------------------------------------------------------------------------------------ .wo3 meshes
namespace {
struct Wo3 {
    std::vector<vec3> p, n;
    std::vector<vec2> uv;
    std::vector<uint32_t> idx;  // 3 per triangle
    std::vector<int32_t> mat;   // per triangle
    size_t trailing = 0;        // bytes after the triangle table
};

Wo3 read_wo3(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw MeshError(path + ": cannot open .wo3 file");
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t size = bytes.size();
    size_t at = 0;
    auto u64 = [&](const char* what) {
        if (size - at < 8)
            throw MeshError(path + ": truncated: no " + what + " (file of " + std::to_string(size) + " bytes)");
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= uint64_t(bytes[at + i]) << (8 * i);  // little-endian on any host
        at += 8;
        return v;
    };
    auto u32 = [&]() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= uint32_t(bytes[at + i]) << (8 * i);
        at += 4;
        return v;
    };
    auto f32 = [&]() {
        uint32_t b = u32();
        float x;
        std::memcpy(&x, &b, 4);
        return x;
    };
    Wo3 m;
    uint64_t nv = u64("vertex count");
    // each vertex takes 32 bytes and the triangle count 8 more: a count beyond that cannot be right
    if (nv > (size - at) / 32)
        throw MeshError(path + ": vertex count " + std::to_string(nv) + " does not fit in the file (" +
                        std::to_string(size) + " bytes; truncated or not a .wo3 file)");
    m.p.resize(nv);
    m.n.resize(nv);
    m.uv.resize(nv);
    for (uint64_t i = 0; i < nv; ++i) {
        float v[8];
        for (float& x : v) x = f32();
        for (float x : v)
            if (!std::isfinite(x)) throw MeshError(path + ": vertex " + std::to_string(i) + " has a non-finite value");
        m.p[i] = vec3(v[0], v[1], v[2]);
        m.n[i] = vec3(v[3], v[4], v[5]);
        m.uv[i] = vec2(v[6], v[7]);
    }
    uint64_t nt = u64("triangle count");
    if (nt > (size - at) / 16)
        throw MeshError(path + ": triangle count " + std::to_string(nt) + " does not fit in the file (" +
                        std::to_string(size - at) + " bytes left; truncated?)");
    if (nv == 0 || nt == 0) throw MeshError(path + ": no triangles");
    m.idx.resize(3 * nt);
    m.mat.resize(nt);
    for (uint64_t t = 0; t < nt; ++t) {
        for (int k = 0; k < 3; ++k) {
            uint32_t v = u32();
            if (v >= nv)
                throw MeshError(path + ": triangle " + std::to_string(t) + ": vertex index " + std::to_string(v) +
                                " out of range (" + std::to_string(nv) + " vertices)");
            m.idx[3 * t + k] = v;
        }
        m.mat[t] = int32_t(u32());
    }
    m.trailing = size - at;
    return m;
}

// Tungsten's smooth normals ("recompute_normals" with "smooth"): per corner, the sum of the area-weighted normals of
// the triangles sharing the corner's position whose normals lie within 27 degrees (cos(0.15 pi)) of its own
// triangle's; object space. Tungsten splits vertices with the same limit.
void recompute_smooth_normals(Wo3& m) {
    const float split = std::cos(kPi * 0.15f);
    size_t nt = m.mat.size();
    std::vector<vec3> fn(nt), un(nt);
    for (size_t t = 0; t < nt; ++t) {
        vec3 a = m.p[m.idx[3 * t]], b = m.p[m.idx[3 * t + 1]], c = m.p[m.idx[3 * t + 2]];
        fn[t] = glm::cross(b - a, c - a);
        float l = glm::length(fn[t]);
        un[t] = l > 0.0f ? fn[t] / l : vec3(0.0f, 1.0f, 0.0f);
    }
    struct Key {
        uint32_t x, y, z;
        bool operator==(const Key& o) const { return x == o.x && y == o.y && z == o.z; }
    };
    struct Hash {
        size_t operator()(const Key& k) const {
            return (size_t(k.x) * 73856093u) ^ (size_t(k.y) * 19349663u) ^ (size_t(k.z) * 83492791u);
        }
    };
    auto key = [](vec3 p) {
        Key k;
        p += vec3(0.0f);  // -0 -> +0
        std::memcpy(&k.x, &p.x, 4);
        std::memcpy(&k.y, &p.y, 4);
        std::memcpy(&k.z, &p.z, 4);
        return k;
    };
    std::unordered_map<Key, std::vector<uint32_t>, Hash> by_pos;
    for (size_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) by_pos[key(m.p[m.idx[3 * t + k]])].push_back(uint32_t(t));
    // corners become separate vertices (a soup), each with its own normal
    Wo3 s;
    s.p.reserve(3 * nt);
    s.n.reserve(3 * nt);
    s.uv.reserve(3 * nt);
    s.idx.resize(3 * nt);
    s.mat = m.mat;
    for (size_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t v = m.idx[3 * t + k];
            vec3 n(0.0f);
            for (uint32_t o : by_pos[key(m.p[v])])
                if (glm::dot(un[o], un[t]) >= split) n += fn[o];
            float l = glm::length(n);
            s.idx[3 * t + k] = uint32_t(s.p.size());
            s.p.push_back(m.p[v]);
            s.n.push_back(l > 0.0f && std::isfinite(l) ? n / l : un[t]);
            s.uv.push_back(m.uv[v]);
        }
    m = std::move(s);
}

// Soup under M; with use_normals the vertex normals become shading normals.
ObjMesh wo3_soup(const Wo3& m, const mat4& M, bool use_normals, const std::string& path) {
    mat3 L(M);
    float det = glm::determinant(L);
    if (!(std::isfinite(det) && det != 0.0f)) throw MeshError(path + ": singular transform");
    mat3 N = glm::transpose(glm::inverse(L));
    bool mirror = det < 0.0f;
    size_t nt = m.mat.size();
    ObjMesh o;
    o.pos.resize(3 * nt);
    o.normal.resize(3 * nt);
    o.uv.resize(3 * nt);
    o.has_normals.resize(nt);
    o.has_uv.assign(nt, 1);
    o.material.resize(nt);
    for (size_t t = 0; t < nt; ++t) {
        bool normals = use_normals;
        for (int k = 0; k < 3; ++k) {
            int src = mirror && k > 0 ? 3 - k : k;  // swap corners 1 and 2 under a mirroring transform
            uint32_t v = m.idx[3 * t + src];
            vec3 p = vec3(M * vec4(m.p[v], 1.0f));
            for (int c = 0; c < 3; ++c)
                if (!std::isfinite(p[c]))
                    throw MeshError(path + ": vertex " + std::to_string(v) + " is not finite under the transform");
            o.pos[3 * t + k] = p;
            vec3 n = N * m.n[v];
            float l = glm::length(n);
            if (l > 0.0f && std::isfinite(l))
                o.normal[3 * t + k] = n / l;
            else
                normals = false;
            o.uv[3 * t + k] = vec2(m.uv[v].x, 1.0f - m.uv[v].y);
        }
        o.has_normals[t] = normals;
        o.material[t] = m.mat[t];
    }
    if (m.trailing)
        o.warnings.push_back(path + ": " + std::to_string(m.trailing) + " bytes after the triangle table ignored");
    return o;
}
}  // namespace

ObjMesh load_wo3(const std::string& path, const mat4& M) { return wo3_soup(read_wo3(path), M, true, path); }

const std::vector<std::string>& tungsten_types(const std::string& kind) {
    static const std::vector<std::string> bsdf{"lambert",
                                               "phong",
                                               "mixed",
                                               "dielectric",
                                               "conductor",
                                               "mirror",
                                               "rough_conductor",
                                               "rough_dielectric",
                                               "smooth_coat",
                                               "null",
                                               "forward",
                                               "thinsheet",
                                               "oren_nayar",
                                               "plastic",
                                               "rough_plastic",
                                               "rough_coat",
                                               "transparency",
                                               "lambertian_fiber",
                                               "rough_wire",
                                               "hair",
                                               "diffuse_transmission"};
    static const std::vector<std::string> primitive{
        "mesh",         "cube",      "sphere",          "quad",
        "disk",         "curves",    "point",           "skydome",
        "cylinder",     "instances", "infinite_sphere", "infinite_sphere_cap",
        "minecraft_map"};
    static const std::vector<std::string> texture{"bitmap", "constant", "checker", "disk", "blade", "ies"};
    static const std::vector<std::string> camera{"pinhole", "thinlens", "equirectangular", "cubemap"};
    static const std::vector<std::string> integrator{
        "path_tracer", "light_tracer",    "photon_map",         "progressive_photon_map", "bidirectional_path_tracer",
        "kelemen_mlt", "multiplexed_mlt", "reversible_jump_mlt"};
    static const std::vector<std::string> none;
    if (kind == "bsdf") return bsdf;
    if (kind == "primitive") return primitive;
    if (kind == "texture") return texture;
    if (kind == "camera") return camera;
    if (kind == "integrator") return integrator;
    return none;
}

// ------------------------------------------------------------------------------------------------ JSON helpers
namespace {
using json = nlohmann::json;

std::string at(const std::string& ptr, const std::string& key) { return ptr + "/" + pointer_escape(key); }
std::string at(const std::string& ptr, size_t i) { return ptr + "/" + std::to_string(i); }

struct TCtx {
    std::string file;
    std::vector<std::string>* warnings = nullptr;
    bool strict = false;  // --strict: a warning is an error
    [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
        throw SceneError(file + ": " + (ptr.empty() ? "/" : ptr) + ": " + what);
    }
    void warn(const std::string& ptr, const std::string& what) const {
        if (strict) fail(ptr, what + " (an error with --strict)");
        if (warnings) warnings->push_back(file + ": " + (ptr.empty() ? "/" : ptr) + ": " + what);
    }
    // A type name must be one of Tungsten's (supported here or not): anything else is an error, with the nearest.
    void tungsten_type(const std::string& kind, const std::string& t, const std::string& ptr) const {
        const std::vector<std::string>& names = tungsten_types(kind);
        if (std::find(names.begin(), names.end(), t) != names.end()) return;
        std::string near = nearest_name(t, names), list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        fail(ptr, "unknown " + kind + " type '" + t + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                      "; Tungsten's " + kind + " types: " + list);
    }
    void object(const json& j, const std::string& ptr) const {
        if (!j.is_object()) fail(ptr, "expected an object");
    }
    float num(const json& j, const std::string& ptr) const {
        if (!j.is_number()) fail(ptr, "expected a number");
        double v = j.get<double>();
        if (!std::isfinite(v) || std::fabs(v) > 3.0e38) fail(ptr, "not a finite number");
        return float(v);
    }
    float num(const json& o, const char* k, const std::string& ptr, float def) const {
        return o.contains(k) ? num(o[k], at(ptr, k)) : def;
    }
    bool flag(const json& o, const char* k, const std::string& ptr, bool def) const {
        if (!o.contains(k)) return def;
        if (!o[k].is_boolean()) fail(at(ptr, k), "expected true or false");
        return o[k].get<bool>();
    }
    std::string str(const json& o, const char* k, const std::string& ptr, const std::string& def) const {
        if (!o.contains(k)) return def;
        if (!o[k].is_string()) fail(at(ptr, k), "expected a string");
        return o[k].get<std::string>();
    }
    // Tungsten vectors: a number (all components), [x] or [x, y, z]
    vec3 v3(const json& j, const std::string& ptr) const {
        if (j.is_number()) return vec3(num(j, ptr));
        if (j.is_array() && j.size() == 1) return vec3(num(j[0], ptr + "/0"));
        if (!j.is_array() || j.size() != 3) fail(ptr, "expected a number or [x, y, z]");
        return vec3(num(j[0], ptr + "/0"), num(j[1], ptr + "/1"), num(j[2], ptr + "/2"));
    }
    vec3 v3(const json& o, const char* k, const std::string& ptr, vec3 def) const {
        return o.contains(k) ? v3(o[k], at(ptr, k)) : def;
    }
    vec3 nonneg3(const json& o, const char* k, const std::string& ptr, vec3 def) const {
        vec3 v = v3(o, k, ptr, def);
        if (glm::min(v.x, glm::min(v.y, v.z)) < 0.0f) fail(at(ptr, k), "must not be negative");
        return v;
    }
    void unknown_keys(const json& o, const std::string& ptr, const std::set<std::string>& known,
                      const std::string& what) const {
        for (auto it = o.begin(); it != o.end(); ++it)
            if (!known.count(it.key())) {
                std::string near = nearest_name(it.key(), std::vector<std::string>(known.begin(), known.end()));
                warn(at(ptr, it.key()), "unknown " + what + " key '" + it.key() + "'" +
                                            (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                                            (strict ? "" : ": ignored"));
            }
    }
};

mat3 rot_x(float a) {
    float c = std::cos(a), s = std::sin(a);
    return mat3(vec3(1, 0, 0), vec3(0, c, s), vec3(0, -s, c));  // glm: columns
}
mat3 rot_y(float a) {
    float c = std::cos(a), s = std::sin(a);
    return mat3(vec3(c, 0, -s), vec3(0, 1, 0), vec3(s, 0, c));
}
mat3 rot_z(float a) {
    float c = std::cos(a), s = std::sin(a);
    return mat3(vec3(c, s, 0), vec3(-s, c, 0), vec3(0, 0, 1));
}

vec3 any_ortho(vec3 a) {
    vec3 r = std::fabs(a.x) > std::fabs(a.y) ? vec3(0, 1, 0) : vec3(1, 0, 0);
    return glm::normalize(glm::cross(a, r));
}
void gram_schmidt(vec3& a, vec3& b, vec3& c) {
    a = glm::normalize(a);
    b -= a * glm::dot(a, b);
    b = glm::dot(b, b) < 1e-5f ? any_ortho(a) : glm::normalize(b);
    c -= a * glm::dot(a, c);
    c -= b * glm::dot(b, c);
    c = glm::dot(c, c) < 1e-5f ? glm::cross(a, b) : glm::normalize(c);
}

mat4 transform_impl(const TCtx& c, const json& t, const std::string& p) {
    if (t.is_array()) {
        if (t.size() != 16) c.fail(p, "expected 16 numbers (row by row) or a transform object");
        mat4 M;
        for (int r = 0; r < 4; ++r)
            for (int k = 0; k < 4; ++k) M[k][r] = c.num(t[r * 4 + k], at(p, size_t(r * 4 + k)));
        return M;
    }
    if (!t.is_object()) c.fail(p, "expected a transform object or 16 numbers");
    c.unknown_keys(t, p, {"position", "scale", "rotation", "look_at", "up", "x_axis", "y_axis", "z_axis"}, "transform");
    vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
    vec3 pos = c.v3(t, "position", p, vec3(0.0f));
    bool ex = false, ey = false, ez = false;
    if (t.contains("look_at")) {
        z = c.v3(t["look_at"], at(p, "look_at")) - pos;
        ez = true;
    }
    if (t.contains("up")) {
        y = c.v3(t["up"], at(p, "up"));
        ey = true;
    }
    if (t.contains("x_axis")) x = c.v3(t["x_axis"], at(p, "x_axis")), ex = true;
    if (t.contains("y_axis")) y = c.v3(t["y_axis"], at(p, "y_axis")), ey = true;
    if (t.contains("z_axis")) z = c.v3(t["z_axis"], at(p, "z_axis")), ez = true;
    if ((ex && !(glm::length(x) > 0.0f)) || (ey && !(glm::length(y) > 0.0f)) || (ez && !(glm::length(z) > 0.0f)))
        c.fail(p, "degenerate basis (zero-length axis, or look_at equal to position)");
    switch ((ez ? 4 : 0) + (ey ? 2 : 0) + (ex ? 1 : 0)) {
        case 1: gram_schmidt(x, z, y); break;
        case 2: gram_schmidt(y, z, x); break;
        case 3: gram_schmidt(y, x, z); break;
        case 5: gram_schmidt(z, x, y); break;
        default: gram_schmidt(z, y, x); break;
    }
    if (glm::dot(glm::cross(x, y), z) < 0.0f) {
        if (!ex)
            x = -x;
        else if (!ey)
            y = -y;
        else
            z = -z;
    }
    if (t.contains("scale")) {
        vec3 s = c.v3(t["scale"], at(p, "scale"));
        if (glm::min(s.x, glm::min(s.y, s.z)) < 0.0f)
            c.fail(at(p, "scale"), "must not be negative (mirroring is not supported)");
        x *= s.x;
        y *= s.y;
        z *= s.z;
    }
    if (t.contains("rotation")) {
        vec3 r = c.v3(t["rotation"], at(p, "rotation")) * (kPi / 180.0f);
        mat3 R = rot_y(-r.y) * rot_x(r.x) * rot_z(r.z);  // Tungsten's Mat4f::rotYXZ
        x = R * x;
        y = R * y;
        z = R * z;
    }
    mat4 M(1.0f);
    M[0] = vec4(x, 0.0f);
    M[1] = vec4(y, 0.0f);
    M[2] = vec4(z, 0.0f);
    M[3] = vec4(pos, 1.0f);
    return M;
}

float max_axis_scale(const mat4& M, vec3 mask) {
    return glm::max(glm::length(vec3(M[0])) * mask.x,
                    glm::max(glm::length(vec3(M[1])) * mask.y, glm::length(vec3(M[2])) * mask.z));
}
}  // namespace

mat4 tungsten_transform(const nlohmann::json& t, const std::string& file, const std::string& ptr) {
    TCtx c{file, nullptr};
    return transform_impl(c, t, ptr);
}

// ------------------------------------------------------------------------------------------------ the scene
namespace {

struct Loader {
    TCtx c;
    std::string dir;
    SceneBuilder b;
    SceneBuildOptions build;  // the tree's knobs (LoadOptions::build)
    LoadedScene ls;
    std::map<std::pair<std::string, bool>, std::pair<uint32_t, vec3>> tex_cache;  // file, srgb -> id, average
    std::map<std::string, MatHandle> named;
    std::vector<std::pair<uint32_t, vec3>> conductor_tint;  // conductor index, albedo (applied after build)
    MatHandle black{};
    bool have_black = false, have_env = false;

    std::string resolve(const std::string& f) const { return !f.empty() && f[0] == '/' ? f : dir + f; }

    // A texture (albedo, emission, ...): constant value, or an image file. The id is kNoTexture for constants;
    // `avg` is the constant, or the image's average (times its scale).
    struct Tex {
        vec3 value{1.0f};  // constant, or the bitmap's scale (multiplies the texels)
        uint32_t id = kNoTexture;
        vec3 avg{1.0f};
        std::string file;  // resolved path of a bitmap
        bool srgb = true;
    };
    uint32_t load_texture(const std::string& file, bool srgb, const std::string& ptr, vec3* avg) {
        auto key = std::make_pair(file, srgb);
        auto it = tex_cache.find(key);
        if (it == tex_cache.end()) {
            LoadedImage im;
            try {
                im = load_image(file, srgb);
            } catch (const ImageError& e) { c.fail(ptr, e.what()); }
            vec3 a(0.0f);
            for (const F4& t : im.texels) a += vec3(t.x, t.y, t.z);
            a /= float(glm::max<size_t>(1, im.texels.size()));
            uint32_t id = b.texture(std::move(im.texels), im.width, im.height);
            it = tex_cache.emplace(key, std::make_pair(id, a)).first;
        }
        if (avg) *avg = it->second.second;
        return it->second.first;
    }
    Tex texture(const json& j, const std::string& ptr, bool load = true) {
        Tex t;
        if (j.is_number() || j.is_array()) {
            t.value = t.avg = c.v3(j, ptr);
            return t;
        }
        std::string file;
        bool srgb = true;
        vec3 scale(1.0f);
        if (j.is_string()) {
            file = j.get<std::string>();
        } else if (j.is_object()) {
            std::string type = c.str(j, "type", ptr, "bitmap");
            c.tungsten_type("texture", type, at(ptr, "type"));
            if (type == "constant") {
                c.unknown_keys(j, ptr, {"type", "value"}, "texture");
                t.value = t.avg = c.v3(j, "value", ptr, vec3(1.0f));
                return t;
            }
            if (type == "checker") {
                vec3 on = c.v3(j, "on_color", ptr, vec3(0.8f)), off = c.v3(j, "off_color", ptr, vec3(0.2f));
                c.warn(ptr, "checker texture not supported: using the average of its two colors");
                t.value = t.avg = 0.5f * (on + off);
                return t;
            }
            if (type != "bitmap") {
                c.warn(ptr, "texture type '" + type + "' not supported: using 0.5");
                t.value = t.avg = vec3(0.5f);
                return t;
            }
            c.unknown_keys(j, ptr, {"type", "file", "gamma_correct", "interpolate", "clamp", "scale"}, "texture");
            if (!j.contains("file") || !j["file"].is_string()) c.fail(at(ptr, "file"), "missing or not a file name");
            file = j["file"].get<std::string>();
            srgb = c.flag(j, "gamma_correct", ptr, true);
            if (!c.flag(j, "interpolate", ptr, true))
                c.warn(at(ptr, "interpolate"), "nearest filtering not supported: bilinear");
            if (c.flag(j, "clamp", ptr, false)) c.warn(at(ptr, "clamp"), "clamped addressing not supported: repeat");
            scale = c.nonneg3(j, "scale", ptr, vec3(1.0f));
        } else {
            c.fail(ptr, "expected a number, [r, g, b], a file name or a texture object");
        }
        if (file.empty()) c.fail(ptr, "empty file name");
        t.file = resolve(file);
        t.srgb = srgb;
        t.value = scale;
        if (load) {
            vec3 a;
            t.id = load_texture(t.file, srgb, ptr, &a);
            t.avg = a * scale;
        }
        return t;
    }
    // A constant (the average of a texture, with a warning) for parameters that take no textures here.
    vec3 constant(const json& j, const std::string& ptr, const std::string& what) {
        Tex t = texture(j, ptr);
        if (t.id != kNoTexture) c.warn(ptr, what + " texture not supported: using its average");
        return t.avg;
    }
    float roughness(const json& o, const std::string& p, float def) {
        if (!o.contains("roughness")) return def;
        vec3 r = constant(o["roughness"], at(p, "roughness"), "roughness");
        float a = (r.x + r.y + r.z) / 3.0f;
        if (a < 0.0f) c.fail(at(p, "roughness"), "must not be negative");
        return a;
    }
    void distribution(const json& o, const std::string& p) {
        std::string d = c.str(o, "distribution", p, "ggx");
        if (d == "beckmann" || d == "phong")
            c.warn(at(p, "distribution"), "'" + d + "' microfacet distribution not supported: GGX with the same alpha");
        else if (d != "ggx")
            c.fail(at(p, "distribution"), "unknown distribution '" + d + "' (ggx, beckmann, phong)");
    }
    void complex_ior(const json& o, const std::string& p, vec3& eta, vec3& k) {
        std::string name = c.str(o, "material", p, "Cu");
        bool explicit_ior = o.contains("eta") && o.contains("k");
        if (explicit_ior) {
            eta = c.v3(o, "eta", p, vec3(1.0f));
            k = c.v3(o, "k", p, vec3(0.0f));
            if (glm::min(eta.x, glm::min(eta.y, eta.z)) <= 0.0f) c.fail(at(p, "eta"), "must be > 0");
            if (glm::min(k.x, glm::min(k.y, k.z)) < 0.0f) c.fail(at(p, "k"), "must not be negative");
            return;
        }
        if (o.contains("eta") != o.contains("k"))
            c.warn(at(p, o.contains("eta") ? "eta" : "k"), "needs both eta and k: ignored (as Tungsten does)");
        if (!conductor_preset(name, eta, k)) {
            c.warn(at(p, "material"), "conductor material '" + name + "' not known here (Cu, Au, Ag, Al): using Cu");
            conductor_preset("Cu", eta, k);
        }
    }

    MatHandle black_mat() {
        if (!have_black) black = b.lambert(vec3(0.0f)), have_black = true;
        return black;
    }

    // One bsdf object.
    MatHandle bsdf(const json& m, const std::string& p) {
        c.object(m, p);
        if (!m.contains("type") || !m["type"].is_string()) c.fail(at(p, "type"), "missing or not a string");
        std::string t = m["type"];
        c.tungsten_type("bsdf", t, at(p, "type"));
        std::set<std::string> common{"name", "type", "albedo", "bump"};
        if (m.contains("bump")) c.warn(at(p, "bump"), "bump maps not supported: ignored");
        auto known = [&](std::initializer_list<const char*> extra) {
            std::set<std::string> k = common;
            for (const char* e : extra) k.insert(e);
            c.unknown_keys(m, p, k, "bsdf");
        };
        const std::string pa = at(p, "albedo");
        if (t == "lambert") {
            known({});
            Tex a = m.contains("albedo") ? texture(m["albedo"], pa) : Tex{};
            vec3 v = a.value;
            if (glm::min(v.x, glm::min(v.y, v.z)) < 0.0f) c.fail(pa, "must not be negative");
            if (glm::max(v.x, glm::max(v.y, v.z)) > 1.0f) c.warn(pa, "albedo above 1 clamped to 1");
            return b.lambert(glm::clamp(v, 0.0f, 1.0f), a.id);
        }
        vec3 albedo(1.0f);
        if (m.contains("albedo")) {
            albedo = constant(m["albedo"], pa, "albedo (on a " + t + " bsdf)");
            if (glm::min(albedo.x, glm::min(albedo.y, albedo.z)) < 0.0f) c.fail(pa, "must not be negative");
        }
        bool white = albedo == vec3(1.0f);
        if (t == "null") {  // Tungsten's null bsdf scatters nothing: the path ends (an emitter's own surface)
            known({});
            return black_mat();
        }
        if (t == "mirror") {
            known({});
            if (!white)
                c.warn(pa, "mirror albedo used as Schlick F0 (brighter towards grazing angles than Tungsten's)");
            return b.conductor(glm::clamp(albedo, 0.0f, 1.0f), 0.0f);
        }
        if (t == "conductor" || t == "rough_conductor") {
            bool rough = t == "rough_conductor";
            if (rough)
                known({"eta", "k", "material", "roughness", "distribution"});
            else
                known({"eta", "k", "material"});
            vec3 eta, k;
            complex_ior(m, p, eta, k);
            float alpha = 0.0f;
            if (rough) {
                distribution(m, p);
                alpha = glm::max(roughness(m, p, 0.1f), 1e-3f);  // Tungsten's minimum alpha
            }
            MatHandle h = b.conductor_complex(eta, k, alpha);
            if (!white) conductor_tint.push_back({h.index(), albedo});
            return h;
        }
        if (t == "dielectric" || t == "rough_dielectric") {
            bool rough = t == "rough_dielectric";
            if (rough)
                known({"ior", "enable_refraction", "roughness", "distribution"});
            else
                known({"ior", "enable_refraction"});
            float ior = c.num(m, "ior", p, 1.5f);
            if (!(ior > 0.0f)) c.fail(at(p, "ior"), "must be > 0");
            if (ior < 1.0f) {
                c.warn(at(p, "ior"), "ior below 1 taken as 1 / ior (the normal's side is the denser medium here)");
                ior = 1.0f / ior;
            }
            if (ior == 1.0f) ior = 1.0001f;
            if (!c.flag(m, "enable_refraction", p, true))
                c.warn(at(p, "enable_refraction"), "disabling refraction not supported: refracts");
            if (!white) c.warn(pa, "albedo tints transmission only here (Tungsten: reflection too)");
            float alpha = 0.0f;
            if (rough) {
                distribution(m, p);
                alpha = glm::max(roughness(m, p, 0.1f), 1e-3f);
            }
            return b.dielectric(ior, alpha, glm::clamp(albedo, 0.0f, 1.0f));
        }
        if (t == "plastic" || t == "rough_plastic") {
            bool rough = t == "rough_plastic";
            if (rough)
                known({"ior", "thickness", "sigma_a", "roughness", "distribution"});
            else
                known({"ior", "thickness", "sigma_a"});
            float ior = c.num(m, "ior", p, 1.5f);
            if (!(ior > 0.0f)) c.fail(at(p, "ior"), "must be > 0");
            vec3 sa = c.nonneg3(m, "sigma_a", p, vec3(0.0f));
            float alpha = 0.0f;
            if (rough) {
                distribution(m, p);
                alpha = roughness(m, p, 0.02f);
            }
            PrincipledData d{};
            d.metallic = 0.0f;
            d.roughness = glm::clamp(std::sqrt(alpha), 0.0f, 1.0f);
            d.base_tex = d.mr_tex = d.normal_tex = d.emissive_tex = kNoTexture;
            d.normal_scale = 1.0f;
            d.emissive = vec3(0.0f);
            d.base_color = glm::clamp(albedo, 0.0f, 1.0f);
            if (m.contains("albedo")) {  // a plastic's albedo texture becomes the base color texture
                Tex a = texture(m["albedo"], pa);
                if (a.id != kNoTexture) d.base_tex = a.id, d.base_color = glm::clamp(a.value, 0.0f, 1.0f);
            }
            std::string note = t +
                               " approximated by the principled (glTF) BSDF: metallic 0, base color = albedo, "
                               "roughness = sqrt(alpha) = " +
                               std::to_string(d.roughness) + ", specular F0 0.04";
            if (std::fabs(ior - 1.5f) > 1e-3f) note += " (Tungsten's ior " + std::to_string(ior) + " not used)";
            if (glm::max(sa.x, glm::max(sa.y, sa.z)) > 0.0f) note += "; sigma_a/thickness ignored";
            c.warn(p, note);
            return b.principled(d);
        }
        c.warn(at(p, "type"), "bsdf type '" + t + "' not supported: Lambert with albedo " +
                                  (m.contains("albedo") ? std::string("of its average") : std::string("0.5")));
        return b.lambert(glm::clamp(m.contains("albedo") ? albedo : vec3(0.5f), 0.0f, 1.0f));
    }

    MatHandle bsdf_ref(const json& j, const std::string& p) {
        if (j.is_string()) {
            auto it = named.find(j.get<std::string>());
            if (it == named.end()) c.fail(p, "no bsdf named '" + j.get<std::string>() + "'");
            return it->second;
        }
        if (j.is_object()) return bsdf(j, p);
        c.fail(p, "expected a bsdf name or a bsdf object");
    }

    // Emission of a primitive of the given area (power -> radiance as Tungsten: power / (pi area)).
    vec3 emission(const json& o, const std::string& p, float area) {
        if (o.contains("emission") && o.contains("power")) c.fail(at(p, "power"), "give either emission or power");
        if (o.contains("emission")) {
            vec3 e = constant(o["emission"], at(p, "emission"), "emission");
            if (glm::min(e.x, glm::min(e.y, e.z)) < 0.0f) c.fail(at(p, "emission"), "must not be negative");
            return e;
        }
        if (o.contains("power")) {
            vec3 w = constant(o["power"], at(p, "power"), "power");
            if (glm::min(w.x, glm::min(w.y, w.z)) < 0.0f) c.fail(at(p, "power"), "must not be negative");
            if (!(area > 0.0f)) c.fail(at(p, "power"), "the primitive has no area");
            const double pa = double(kPi) * double(area);
            if (std::string why = float_range_problem("power / (pi x area)", w.x / pa, w.y / pa, w.z / pa);
                !why.empty())
                c.fail(at(p, "power"), why);
            return w / (kPi * area);
        }
        return vec3(0.0f);
    }

    void environment(const json& o, const std::string& p, const mat4& M) {
        if (have_env) c.warn(p, "more than one infinite_sphere/skydome: the last one is used");
        have_env = true;
        mat3 R(M);
        for (int i = 0; i < 3; ++i) R[i] = glm::length(R[i]) > 0.0f ? glm::normalize(R[i]) : R[i];
        if (o.contains("emission") && o.contains("power")) c.fail(at(p, "power"), "give either emission or power");
        if (o.contains("power")) {
            vec3 w = constant(o["power"], at(p, "power"), "power");
            if (glm::min(w.x, glm::min(w.y, w.z)) < 0.0f) c.fail(at(p, "power"), "must not be negative");
            b.set_background(w / (4.0f * kPi));
            return;
        }
        if (!o.contains("emission")) {
            b.set_background(vec3(0.0f));
            return;
        }
        Tex t = texture(o["emission"], at(p, "emission"), false);
        if (t.file.empty()) {
            if (glm::min(t.value.x, glm::min(t.value.y, t.value.z)) < 0.0f)
                c.fail(at(p, "emission"), "must not be negative");
            b.set_background(t.value);
            return;
        }
        LoadedImage im;
        try {
            im = load_image(t.file, t.srgb);
        } catch (const ImageError& e) { c.fail(at(p, "emission"), e.what()); }
        if (im.width == 0 || im.height == 0) c.fail(at(p, "emission"), "empty image");
        for (F4& x : im.texels) {
            x = F4{x.x * t.value.x, x.y * t.value.y, x.z * t.value.z, 1.0f};
            if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
                c.fail(at(p, "emission"), "a texel x the emission's scale is not a finite 32-bit float");
        }
        // Tungsten: u = 0.5 + atan2(l.z, l.x) / 2pi, v = acos(-l.y) / pi with row 0 at v = 1 (up), l = R^T d.
        // Ours: u = 0.5 + atan2(x', -z') / 2pi with (x', z') = d rotated by -rotation about y. Both maps put "up" in
        // row 0; for R a rotation about y the u's agree with rotation = delta - 90 degrees, where delta is the
        // azimuth of R^T (1,0,0) (0 for the identity). Any other rotation: resample.
        vec3 up = R * vec3(0, 1, 0);
        if (std::fabs(up.y - 1.0f) < 1e-5f) {
            vec3 l = glm::transpose(R) * vec3(1, 0, 0);
            float delta = std::atan2(l.z, l.x) * 180.0f / kPi;
            b.set_environment(std::move(im.texels), im.width, im.height, delta - 90.0f);
            return;
        }
        c.warn(at(p, "transform"), "environment rotation not about +y: the map is resampled (bilinear)");
        uint32_t w = im.width, h = im.height;
        std::vector<F4> out(size_t(w) * h);
        auto texel = [&](int x, int y) {
            x = ((x % int(w)) + int(w)) % int(w);
            y = glm::clamp(y, 0, int(h) - 1);
            return im.texels[size_t(y) * w + x];
        };
        mat3 Rt = glm::transpose(R);
        for (uint32_t j = 0; j < h; ++j)
            for (uint32_t i = 0; i < w; ++i) {
                float phi = 2.0f * kPi * ((i + 0.5f) / w - 0.5f), theta = kPi * (j + 0.5f) / h;
                vec3 d(std::sin(theta) * std::sin(phi), std::cos(theta), -std::sin(theta) * std::cos(phi));
                vec3 l = Rt * d;
                float u = std::atan2(l.z, l.x) / (2.0f * kPi) + 0.5f;
                float v = std::acos(glm::clamp(-l.y, -1.0f, 1.0f)) / kPi;
                float fx = u * w - 0.5f, fy = (1.0f - v) * h - 0.5f;
                int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
                float ax = fx - x0, ay = fy - y0;
                F4 a = texel(x0, y0), bb = texel(x0 + 1, y0), cc = texel(x0, y0 + 1), dd = texel(x0 + 1, y0 + 1);
                auto mix = [](F4 p, F4 q, float s) {
                    return F4{p.x + (q.x - p.x) * s, p.y + (q.y - p.y) * s, p.z + (q.z - p.z) * s, 1.0f};
                };
                out[size_t(j) * w + i] = mix(mix(a, bb, ax), mix(cc, dd, ax), ay);
            }
        b.set_environment(std::move(out), w, h, 0.0f);
    }

    static bool ends_with(const std::string& s, const char* suf) {
        size_t n = std::strlen(suf);
        if (s.size() < n) return false;
        for (size_t i = 0; i < n; ++i)
            if (std::tolower((unsigned char)s[s.size() - n + i]) != suf[i]) return false;
        return true;
    }

    // One primitive: its transform and type; lights of the environment; shapes with their material and emission.
    void primitive(const json& o, const std::string& p) {
        c.object(o, p);
        if (!o.contains("type") || !o["type"].is_string()) c.fail(at(p, "type"), "missing or not a string");
        std::string t = o["type"];
        c.tungsten_type("primitive", t, at(p, "type"));
        std::set<std::string> known{"name", "type", "transform", "bsdf", "emission", "power"};
        mat4 M = o.contains("transform") ? transform_impl(c, o["transform"], at(p, "transform")) : mat4(1.0f);
        for (const char* k : {"bump", "bump_strength"})
            if (o.contains(k)) c.warn(at(p, k), std::string(k) + " not supported: ignored"), known.insert(k);
        for (const char* k : {"int_medium", "ext_medium"})
            if (o.contains(k)) c.warn(at(p, k), "participating media not supported: ignored"), known.insert(k);
        if (t == "infinite_sphere") {
            known.insert("sample");
            c.unknown_keys(o, p, known, t);
            environment(o, p, M);
            return;
        }
        if (t == "skydome") {
            known.insert({"temperature", "gamma_scale", "turbidity", "intensity", "sample"});
            c.unknown_keys(o, p, known, t);
            skydome(o, p);
            return;
        }
        auto material = [&]() { return primitive_material(o, p, t); };
        if (t == "quad") {
            c.unknown_keys(o, p, known, t);
            MatHandle m = material();
            vec3 e0 = vec3(M * vec4(1, 0, 0, 0)), e1 = vec3(M * vec4(0, 0, 1, 0));
            vec3 base = vec3(M[3]) - 0.5f * e0 - 0.5f * e1;
            float area = glm::length(glm::cross(e1, e0));
            if (!(area > 0.0f)) c.fail(at(p, "transform"), "quad has zero area");
            b.quad(base, e1, e0, m, emission(o, p, area));  // normal = cross(e1, e0), as Tungsten
            return;
        }
        if (t == "cube") {
            c.unknown_keys(o, p, known, t);
            MatHandle m = material();
            mat4 C = M * glm::scale(mat4(1.0f), vec3(0.5f));  // Tungsten's [-0.5,0.5]^3 as the builder's [-1,1]^3
            float det = glm::determinant(mat3(C));
            if (!(std::isfinite(det) && det != 0.0f)) c.fail(at(p, "transform"), "cube has zero volume");
            if (det < 0.0f) C = C * glm::scale(mat4(1.0f), vec3(-1, 1, 1));  // same box, faces outward
            vec3 s(glm::length(vec3(M[0])), glm::length(vec3(M[1])), glm::length(vec3(M[2])));
            float area = 2.0f * (s.x * s.y + s.y * s.z + s.z * s.x);
            b.cube(C, m, emission(o, p, area));
            return;
        }
        if (t == "sphere") {
            c.unknown_keys(o, p, known, t);
            MatHandle m = material();
            float r = max_axis_scale(M, vec3(1.0f));  // Tungsten: the largest axis scale
            if (!(r > 0.0f && std::isfinite(r))) c.fail(at(p, "transform"), "sphere has zero radius");
            vec3 s(glm::length(vec3(M[0])), glm::length(vec3(M[1])), glm::length(vec3(M[2])));
            if (glm::max(s.x, glm::max(s.y, s.z)) - glm::min(s.x, glm::min(s.y, s.z)) > 1e-5f * r)
                c.warn(at(p, "transform"), "non-uniform scale: a sphere of the largest radius (as Tungsten)");
            b.sphere(vec3(M[3]), r, m, emission(o, p, 4.0f * kPi * r * r));
            return;
        }
        if (t == "disk") {
            known.insert("cone_angle");
            c.unknown_keys(o, p, known, t);
            if (o.contains("cone_angle"))
                c.warn(at(p, "cone_angle"), "spot-light cone not supported: emits into the hemisphere");
            MatHandle m = material();
            disk_fan(o, p, M, m);
            return;
        }
        if (t == "mesh") {
            known.insert({"file", "smooth", "backface_culling", "recompute_normals"});
            c.unknown_keys(o, p, known, t);
            mesh_primitive(o, p, M);
            return;
        }
        c.warn(at(p, "type"), "primitive type '" + t + "' not supported: skipped");
    }

    // Tungsten's physical sky, approximated: a blue gradient above the horizon, a dark ground.
    void skydome(const json& o, const std::string& p) {
        float intensity = c.num(o, "intensity", p, 2.0f);
        if (intensity < 0.0f) c.fail(at(p, "intensity"), "must not be negative");
        c.warn(p,
               "skydome (Hosek-Wilkie physical sky) not supported: approximated by a blue gradient sky times "
               "intensity, "
               "dark ground");
        have_env = true;
        const uint32_t w = 8, h = 32;
        std::vector<F4> tex(w * h);
        for (uint32_t j = 0; j < h; ++j) {
            float y = std::cos(kPi * (j + 0.5f) / h);
            vec3 col =
                y > 0.0f ? glm::mix(vec3(0.9f, 0.95f, 1.0f), vec3(0.35f, 0.5f, 0.9f), std::sqrt(y)) : vec3(0.05f);
            col *= intensity * 0.5f;
            for (uint32_t i = 0; i < w; ++i) tex[j * w + i] = F4{col.x, col.y, col.z, 1.0f};
        }
        b.set_environment(std::move(tex), w, h, 0.0f);
    }

    // A primitive's material: its bsdf (the first of a mesh's list), Lambert 0.5 when it has none.
    MatHandle primitive_material(const json& o, const std::string& p, const std::string& t) {
        if (!o.contains("bsdf")) {
            c.warn(at(p, "bsdf"), "missing: Lambert 0.5");
            return b.lambert(vec3(0.5f));
        }
        if (o["bsdf"].is_array()) {
            if (t != "mesh") c.fail(at(p, "bsdf"), "a list of bsdfs is only for meshes");
            if (o["bsdf"].empty()) c.fail(at(p, "bsdf"), "empty list");
            return bsdf_ref(o["bsdf"][0], at(p, "bsdf") + "/0");
        }
        return bsdf_ref(o["bsdf"], at(p, "bsdf"));
    }

    // A disk (a spot light's shape) as a fan of 128 triangles of the disk's area.
    void disk_fan(const json& o, const std::string& p, const mat4& M, MatHandle m) {
        float r = max_axis_scale(M, vec3(1, 0, 1));
        vec3 n = vec3(M * vec4(0, 1, 0, 0));
        if (!(r > 0.0f && std::isfinite(r)) || !(glm::length(n) > 0.0f))
            c.fail(at(p, "transform"), "disk has zero area");
        n = glm::normalize(n);
        vec3 tu = vec3(M[0]) - n * glm::dot(n, vec3(M[0]));
        tu = glm::length(tu) > 1e-6f * r ? glm::normalize(tu) : any_ortho(n);
        vec3 tv = glm::cross(n, tu);  // (tu, tv, n) right-handed: fan triangles face +n
        const int N = 128;
        // polygon radius chosen so that its area is the disk's
        float rp = r * std::sqrt(2.0f * kPi / (N * std::sin(2.0f * kPi / N)));
        vec3 Le = emission(o, p, kPi * r * r);
        vec3 ctr = vec3(M[3]);
        for (int i = 0; i < N; ++i) {
            float a0 = 2.0f * kPi * i / N, a1 = 2.0f * kPi * (i + 1) / N;
            vec3 p0 = ctr + rp * (std::cos(a0) * tu + std::sin(a0) * tv);
            vec3 p1 = ctr + rp * (std::cos(a1) * tu + std::sin(a1) * tv);
            b.triangle(ctr, p0, p1, m, Le);
        }
    }

    // A mesh from a .wo3 or .obj file, with its list of bsdfs (one per material index) and its emission.
    void mesh_primitive(const json& o, const std::string& p, const mat4& M) {
        if (!o.contains("file") || !o["file"].is_string() || o["file"].get<std::string>().empty())
            c.fail(at(p, "file"), "missing or not a file name");
        std::string file = resolve(o["file"].get<std::string>());
        bool smooth = c.flag(o, "smooth", p, false);
        bool recompute = c.flag(o, "recompute_normals", p, false);
        if (c.flag(o, "backface_culling", p, false))
            c.warn(at(p, "backface_culling"), "backface culling not supported: ignored");
        float det = glm::determinant(mat3(M));
        if (!(std::isfinite(det) && det != 0.0f)) c.fail(at(p, "transform"), "singular (zero volume)");
        std::vector<MatHandle> mats;
        if (o.contains("bsdf") && o["bsdf"].is_array()) {
            if (o["bsdf"].empty()) c.fail(at(p, "bsdf"), "empty list");
            for (size_t i = 0; i < o["bsdf"].size(); ++i) mats.push_back(bsdf_ref(o["bsdf"][i], at(at(p, "bsdf"), i)));
        } else {
            mats.push_back(primitive_material(o, p, "mesh"));
        }
        ObjMesh mesh;
        try {
            if (ends_with(file, ".wo3")) {
                Wo3 raw = read_wo3(file);
                if (smooth && recompute) recompute_smooth_normals(raw);
                mesh = wo3_soup(raw, M, smooth, file);
            } else if (ends_with(file, ".obj")) {
                // Tungsten computes smooth normals for OBJ faces without them; flat shading unless "smooth"
                mesh = load_obj(file, M, smooth);
                if (!smooth)
                    std::fill(mesh.has_normals.begin(), mesh.has_normals.end(), 0);
                else if (recompute)
                    c.warn(at(p, "recompute_normals"), "for OBJ files, the file's normals are kept where present");
                for (size_t i = 0; i < mesh.triangles(); ++i)  // Tungsten's material index: one per bsdf in order
                    mesh.material[i] = 0;
                if (mats.size() > 1)
                    c.warn(at(p, "bsdf"), "per-face bsdf lists for OBJ meshes not supported: the first bsdf");
            } else {
                c.fail(at(p, "file"), "unsupported mesh format (.wo3, .obj)");
            }
        } catch (const MeshError& e) { c.fail(at(p, "file"), e.what()); }
        for (const std::string& w : mesh.warnings) ls.warnings.push_back(c.file + ": " + at(p, "file") + ": " + w);
        float area = 0.0f;
        for (size_t i = 0; i < mesh.triangles(); ++i)
            area += 0.5f * glm::length(glm::cross(mesh.pos[3 * i + 1] - mesh.pos[3 * i],
                                                  mesh.pos[3 * i + 2] - mesh.pos[3 * i]));
        vec3 Le = emission(o, p, area);
        std::vector<MeshMaterial> mm;  // add_mesh clamps the material index, as Tungsten does
        for (MatHandle h : mats) mm.push_back({h, Le});
        add_mesh(b, mesh, mm);
    }

    void camera(const json& cam, RenderParams& rp) {
        const std::string p = "/camera";
        c.object(cam, p);
        std::string type = c.str(cam, "type", p, "pinhole");
        c.tungsten_type("camera", type, at(p, "type"));
        std::set<std::string> known{"type", "resolution", "fov", "transform", "tonemap", "reconstruction_filter",
                                    "name"};
        if (type == "thinlens") known.insert({"aperture_size", "focus_distance"});
        for (const char* k : {"cateye", "focus_pivot", "aperture", "medium"})
            if (cam.contains(k))
                c.warn(at(p, k), std::string("camera key '") + k + "' not supported: ignored"), known.insert(k);
        c.unknown_keys(cam, p, known, "camera");
        if (type != "pinhole" && type != "thinlens")
            c.warn(at(p, "type"), "camera type '" + type + "' not supported: pinhole");
        uint32_t w = 1000, h = 563;  // Tungsten's default
        if (cam.contains("resolution")) {
            const json& r = cam["resolution"];
            auto dim = [&](const json& j, const std::string& q) {
                if (std::string why = integer_problem(j, 1, 65536); !why.empty()) c.fail(q, why);
                return uint32_t(j.get<long long>());
            };
            if (r.is_number()) {
                w = h = dim(r, at(p, "resolution"));
            } else if (r.is_array() && r.size() == 2) {
                w = dim(r[0], at(p, "resolution") + "/0");
                h = dim(r[1], at(p, "resolution") + "/1");
            } else {
                c.fail(at(p, "resolution"), "expected a number or [width, height]");
            }
        }
        rp.width = w;
        rp.height = h;
        // Tungsten's filters with its widths (ReconstructionFilter::filterWidth: box 0.5, tent 1, the others 2);
        // its Gaussian approximated by pbrt-v4's shape with sigma 0.5 (kernels/filter.h)
        std::string filt = c.str(cam, "reconstruction_filter", p, "tent");
        if (filt == "box" || filt == "tent")
            set_filter(rp, filt);
        else if (filt == "gaussian")
            set_filter(rp, "gaussian", 2.0f, 0.5f);
        else if (filt == "mitchell_netravali")
            set_filter(rp, "mitchell", 2.0f);
        else
            c.warn(at(p, "reconstruction_filter"),
                   "'" + filt + "' reconstruction filter not supported: box filter per pixel");
        float hfov = c.num(cam, "fov", p, 60.0f);
        if (!(hfov > 0.0f && hfov < 180.0f)) c.fail(at(p, "fov"), "must be in (0, 180) degrees");
        float aspect = float(w) / float(h);
        float vfov = 2.0f * std::atan(std::tan(0.5f * hfov * kPi / 180.0f) / aspect) * 180.0f /
                     kPi;  // Tungsten's fov is horizontal
        vec3 pos(0.0f), look(0, 0, 1), up(0, 1, 0);
        if (cam.contains("transform")) {
            const json& t = cam["transform"];
            const std::string tp = at(p, "transform");
            mat4 M = transform_impl(c, t, tp);
            pos = vec3(M[3]);
            look = pos + vec3(M[2]);
            up = vec3(M[1]);
            if (t.is_object()) {  // as Tungsten's Camera: the object's own look_at and up win
                look = c.v3(t, "look_at", tp, look);
                up = c.v3(t, "up", tp, up);
            }
        }
        if (!(glm::length(glm::cross(look - pos, up)) > 0.0f))
            c.fail(at(p, "transform"), "position, look_at and up are degenerate");
        float lens = 0.0f, focus = glm::length(look - pos);
        if (type == "thinlens") {
            lens = c.num(cam, "aperture_size", p, 0.001f);
            focus = c.num(cam, "focus_distance", p, 1.0f);
            if (lens < 0.0f) c.fail(at(p, "aperture_size"), "must not be negative");
            if (!(focus > 0.0f)) c.fail(at(p, "focus_distance"), "must be > 0");
        }
        b.set_camera(make_camera(pos, look, up, vfov, aspect, lens, focus));
    }

    void integrator(const json& root, RenderParams& rp) {
        rp.max_depth = 65;
        rp.light_sampling = 1;
        if (!root.contains("integrator")) return;
        const std::string p = "/integrator";
        const json& in = root["integrator"];
        c.object(in, p);
        std::string type = c.str(in, "type", p, "path_tracer");
        c.tungsten_type("integrator", type, at(p, "type"));
        if (type != "path_tracer")
            c.warn(at(p, "type"), "integrator '" + type +
                                      "' not supported: rendered with the path tracer (its own "
                                      "settings ignored; the same image in expectation for surface scenes)");
        else
            c.unknown_keys(in, p,
                           {"type", "min_bounces", "max_bounces", "enable_consistency_checks",
                            "enable_two_sided_shading", "enable_light_sampling", "enable_volume_light_sampling"},
                           "integrator");
        if (in.contains("max_bounces")) {
            const json& j = in["max_bounces"];
            if (std::string why = integer_problem(j, 0, 1 << 20); !why.empty()) c.fail(at(p, "max_bounces"), why);
            rp.max_depth = uint32_t(j.get<long long>()) + 1;  // bounces -> path segments
        } else {
            rp.max_depth = 65;  // Tungsten's default of 64 bounces
        }
        if (in.contains("min_bounces")) {
            const json& j = in["min_bounces"];
            if (std::string why = integer_problem(j, 0, 1 << 20); !why.empty()) c.fail(at(p, "min_bounces"), why);
            if (j.get<long long>() > 0)
                c.warn(at(p, "min_bounces"), "min_bounces > 0 not supported: all path lengths counted");
        }
        if (type == "path_tracer") {
            rp.light_sampling = c.flag(in, "enable_light_sampling", p, true) ? 1 : 0;
            if (!c.flag(in, "enable_two_sided_shading", p, true))
                c.warn(at(p, "enable_two_sided_shading"), "one-sided shading not supported: ignored");
        }
    }

    void renderer(const json& root, RenderParams& rp) {
        rp.spp = 32;  // Tungsten's default
        rp.seed = 0;
        if (!root.contains("renderer")) return;
        const std::string p = "/renderer";
        const json& r = root["renderer"];
        c.object(r, p);
        // output and scheduling settings do not change the expected image
        c.unknown_keys(r, p,
                       {"spp", "output_file", "hdr_output_file", "resume_render_file", "overwrite_output_files",
                        "adaptive_sampling", "enable_resume_render", "stratified_sampler", "scene_bvh", "spp_step",
                        "checkpoint_interval", "timeout", "output_buffers", "seed"},
                       "renderer");
        if (r.contains("spp")) {
            const json& j = r["spp"];
            if (std::string why = integer_problem(j, 1, 1 << 30); !why.empty()) c.fail(at(p, "spp"), why);
            rp.spp = uint32_t(j.get<long long>());
        }
        if (r.contains("seed")) {
            const json& j = r["seed"];
            if (std::string why = integer_problem(j, 0, 0xffffffffll); !why.empty()) c.fail(at(p, "seed"), why);
            rp.seed = uint32_t(j.get<long long>());
        }
        // Tungsten's Sobol sampler (its default) as our sobol, its uniform one as our independent sampler
        rp.sampler = c.flag(r, "stratified_sampler", p, true) ? kSamplerSobol : kSamplerIndependent;
    }

    LoadedScene run(const json& root) {
        c.object(root, "");
        c.unknown_keys(root, "", {"media", "bsdfs", "primitives", "camera", "integrator", "renderer"}, "scene");
        if (root.contains("media")) {
            if (!root["media"].is_array()) c.fail("/media", "expected an array");
            if (!root["media"].empty()) c.warn("/media", "participating media not supported: ignored");
        }
        RenderParams& rp = ls.params;
        if (!root.contains("camera")) c.fail("/camera", "missing");
        camera(root["camera"], rp);
        integrator(root, rp);
        renderer(root, rp);
        if (root.contains("bsdfs")) {
            const json& bs = root["bsdfs"];
            if (!bs.is_array()) c.fail("/bsdfs", "expected an array");
            for (size_t i = 0; i < bs.size(); ++i) {
                std::string p = at("/bsdfs", i);
                c.object(bs[i], p);
                std::string name = c.str(bs[i], "name", p, "");
                MatHandle h = bsdf(bs[i], p);
                if (!name.empty()) {
                    if (named.count(name)) c.fail(at(p, "name"), "a second bsdf named '" + name + "'");
                    named[name] = h;
                }
            }
        }
        const json& prims = root["primitives"];
        if (!prims.is_array()) c.fail("/primitives", "expected an array");
        for (size_t i = 0; i < prims.size(); ++i) primitive(prims[i], at("/primitives", i));
        ls.data = b.build(build, c.file);
        for (const auto& ct : conductor_tint) ls.data.conductor[ct.first].color = ct.second;
        for (const std::string& w : ls.warnings) std::cerr << "warning: " << w << "\n";
        return std::move(ls);
    }
};
}  // namespace

LoadedScene load_tungsten_scene(const std::string& path, const nlohmann::json& root, bool strict,
                                const SceneBuildOptions& build) {
    Loader L;
    L.c.file = path;
    L.c.warnings = &L.ls.warnings;
    L.c.strict = strict;
    L.build = build;
    size_t slash = path.find_last_of('/');
    L.dir = slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
    return L.run(root);
}

}  // namespace wp
