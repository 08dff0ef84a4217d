// glTF 2.0 import through tinygltf (Debian's libtinygltf-dev header; its implementation is compiled here, once).
// tinygltf parses the JSON / GLB container and loads buffers (GLB chunk, data URIs, external files); images are
// kept as their encoded bytes (our loader callback below) and decoded here with stb_image only when a material
// uses them, after their bufferViews are bounds-checked. Nothing read from the file is trusted: every index,
// count, offset and stride is checked before use and a bad one throws SceneError naming the file and the glTF
// JSON pointer.
#include "host/scene/scene_gltf.h"
#include "host/scene/render_limits.h"
#include "host/image/image_load.h"
#include <stb/stb_image.h>
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#include <tiny_gltf.h>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <sys/stat.h>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

namespace wp {
namespace {
namespace tg = tinygltf;

std::string S(long long i) { return std::to_string(i); }
std::string G(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

std::string trim_join(const std::string& s) {  // tinygltf's multi-line messages as one line
    std::istringstream in(s);
    std::string line, out;
    while (std::getline(in, line)) {
        size_t a = line.find_first_not_of(" \t\r"), z = line.find_last_not_of(" \t\r");
        if (a == std::string::npos) continue;
        if (!out.empty()) out += "; ";
        out += line.substr(a, z - a + 1);
    }
    return out;
}

// Image loader given to tinygltf: keeps a URI image's encoded bytes (decoded later, if used); for a bufferView
// image it reads nothing, because tinygltf hands us a pointer into the buffer without checking the bufferView's
// range: we check it ourselves before decoding.
bool keep_encoded(tg::Image* im, const int, std::string*, std::string*, int, int, const unsigned char* bytes, int size,
                  void*) {
    if (im->bufferView < 0 && bytes && size > 0) im->image.assign(bytes, bytes + size);
    im->as_is = true;
    return true;
}

int component_size(int ct) {
    switch (ct) {
        case TINYGLTF_COMPONENT_TYPE_BYTE:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
        case TINYGLTF_COMPONENT_TYPE_SHORT:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
        case TINYGLTF_COMPONENT_TYPE_INT:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
        case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
        default: return 0;
    }
}
int component_count(int type) {
    switch (type) {
        case TINYGLTF_TYPE_SCALAR: return 1;
        case TINYGLTF_TYPE_VEC2: return 2;
        case TINYGLTF_TYPE_VEC3: return 3;
        case TINYGLTF_TYPE_VEC4: return 4;
        case TINYGLTF_TYPE_MAT2: return 4;
        case TINYGLTF_TYPE_MAT3: return 9;
        case TINYGLTF_TYPE_MAT4: return 16;
        default: return 0;
    }
}
const char* type_name(int type) {
    switch (type) {
        case TINYGLTF_TYPE_SCALAR: return "SCALAR";
        case TINYGLTF_TYPE_VEC2: return "VEC2";
        case TINYGLTF_TYPE_VEC3: return "VEC3";
        case TINYGLTF_TYPE_VEC4: return "VEC4";
        case TINYGLTF_TYPE_MAT2: return "MAT2";
        case TINYGLTF_TYPE_MAT3: return "MAT3";
        case TINYGLTF_TYPE_MAT4: return "MAT4";
        default: return "unknown";
    }
}
const char* mode_name(int mode) {
    switch (mode) {
        case TINYGLTF_MODE_POINTS: return "POINTS";
        case TINYGLTF_MODE_LINE: return "LINES";
        case TINYGLTF_MODE_LINE_LOOP: return "LINE_LOOP";
        case TINYGLTF_MODE_LINE_STRIP: return "LINE_STRIP";
        case TINYGLTF_MODE_TRIANGLE_STRIP: return "TRIANGLE_STRIP";
        case TINYGLTF_MODE_TRIANGLE_FAN: return "TRIANGLE_FAN";
        default: return "unknown";
    }
}

// One component as float: normalized integers map to [0, 1] / [-1, 1] (glTF 2.0 3.11), others are cast.
float read_component(const unsigned char* q, int ct, bool normalized) {
    switch (ct) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: {
            float f;
            std::memcpy(&f, q, 4);
            return f;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return normalized ? q[0] / 255.0f : float(q[0]);
        case TINYGLTF_COMPONENT_TYPE_BYTE: {
            int8_t v;
            std::memcpy(&v, q, 1);
            return normalized ? std::max(v / 127.0f, -1.0f) : float(v);
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            uint16_t v;
            std::memcpy(&v, q, 2);
            return normalized ? v / 65535.0f : float(v);
        }
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            int16_t v;
            std::memcpy(&v, q, 2);
            return normalized ? std::max(v / 32767.0f, -1.0f) : float(v);
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
            uint32_t v;
            std::memcpy(&v, q, 4);
            return float(v);
        }
        case TINYGLTF_COMPONENT_TYPE_INT: {
            int32_t v;
            std::memcpy(&v, q, 4);
            return float(v);
        }
        default: return 0.0f;
    }
}

bool finite3(vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// A checked view of an accessor's elements.
struct Acc {
    bool ok = false;  // false: unsupported (a warning was given), skip what uses it
    const unsigned char* p = nullptr;
    size_t stride = 0, count = 0;
    int ct = 0, nc = 0;
    bool normalized = false;
    float get(size_t i, int c) const {
        return read_component(p + i * stride + size_t(c) * component_size(ct), ct, normalized);
    }
    uint32_t index(size_t i) const {
        const unsigned char* q = p + i * stride;
        if (ct == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) return q[0];
        if (ct == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) {
            uint16_t v;
            std::memcpy(&v, q, 2);
            return v;
        }
        uint32_t v;
        std::memcpy(&v, q, 4);
        return v;
    }
};

struct MatOut {
    MatHandle h;
    vec3 Le{0.0f};  // factor-only emission: the triangles become area lights
    bool two_sided = false;
    bool textured = false;
};

struct Decoded {
    int w = 0, h = 0;
    std::vector<unsigned char> rgba;
};

class Importer {
public:
    Importer(const std::string& path, const tg::Model& m, SceneBuilder& b, GltfImport& out, float aspect)
        : path_(path), m_(m), b_(b), out_(out), aspect_(aspect) {}

    void run(const mat4& M) {
        for (const std::string& e : m_.extensionsUsed)
            if (!supported(e)) unsupported_.insert(e);
        for (const std::string& e : m_.extensionsRequired)
            if (!supported(e))
                warn("required extension " + e + " is not supported: this import is likely incomplete or wrong");
        if (!m_.animations.empty()) warn("animations ignored (the static pose is imported)");
        if (!m_.skins.empty()) warn("skins ignored (meshes are imported unskinned, in their bind pose)");

        std::vector<int> roots;
        std::string sp;
        if (m_.scenes.empty()) {
            std::vector<char> child(m_.nodes.size(), 0);
            for (const tg::Node& n : m_.nodes)
                for (int c : n.children)
                    if (c >= 0 && size_t(c) < child.size()) child[size_t(c)] = 1;
            for (size_t i = 0; i < m_.nodes.size(); ++i)
                if (!child[i]) roots.push_back(int(i));
            if (roots.empty()) fail("/scenes", "no scene to import");
            warn("no scenes: all root nodes imported");
            sp = "/nodes";
        } else {
            int s = m_.defaultScene >= 0 ? m_.defaultScene : 0;
            if (size_t(s) >= m_.scenes.size())
                fail("/scene", "scene " + S(s) + " does not exist (" + S(m_.scenes.size()) + " scenes)");
            roots = m_.scenes[size_t(s)].nodes;
            sp = "/scenes/" + S(s);
        }

        // depth-first, children in order, with an explicit stack (no recursion depth from the file)
        std::vector<std::pair<int, mat4>> stack;
        for (size_t i = roots.size(); i-- > 0;) {
            if (roots[i] < 0 || size_t(roots[i]) >= m_.nodes.size())
                fail(sp + "/nodes/" + S(i),
                     "node " + S(roots[i]) + " does not exist (" + S(m_.nodes.size()) + " nodes)");
            stack.push_back({roots[i], M});
        }
        std::vector<char> seen(m_.nodes.size(), 0);
        while (!stack.empty()) {
            int ni = stack.back().first;
            mat4 parent = stack.back().second;
            stack.pop_back();
            std::string np = "/nodes/" + S(ni);
            if (seen[size_t(ni)]) fail(np, "node reached twice: the node hierarchy is not a tree");
            seen[size_t(ni)] = 1;
            const tg::Node& n = m_.nodes[size_t(ni)];
            mat4 W = parent * local(n, np);
            for (const auto& e : n.extensions) unsupported_.insert(e.first);
            if (n.mesh >= 0 || n.mesh < -1) {
                if (size_t(n.mesh) >= m_.meshes.size())
                    fail(np + "/mesh", "mesh " + S(n.mesh) + " does not exist (" + S(m_.meshes.size()) + " meshes)");
                mesh(size_t(n.mesh), W);
            }
            if (n.camera >= 0 || n.camera < -1) {
                if (size_t(n.camera) >= m_.cameras.size())
                    fail(np + "/camera",
                         "camera " + S(n.camera) + " does not exist (" + S(m_.cameras.size()) + " cameras)");
                camera(size_t(n.camera), W);
            }
            for (size_t k = n.children.size(); k-- > 0;) {
                int c = n.children[k];
                if (c < 0 || size_t(c) >= m_.nodes.size())
                    fail(np + "/children/" + S(k),
                         "node " + S(c) + " does not exist (" + S(m_.nodes.size()) + " nodes)");
                stack.push_back({c, W});
            }
        }
        if (out_.triangles == 0) fail(sp, "no triangles to import");
        if (degenerate_) warn(S(degenerate_) + " degenerate (zero-area) triangle(s) skipped");
        for (const std::string& e : unsupported_)
            warn(e == "KHR_texture_transform"
                     ? "extension KHR_texture_transform is not supported: texture transforms ignored"
                 : e == "KHR_lights_punctual"
                     ? "extension KHR_lights_punctual is not supported: punctual lights ignored"
                     : "extension " + e + " is not supported (ignored)");
        out_.materials = mats_.size();
    }

private:
    std::string path_;
    const tg::Model& m_;
    SceneBuilder& b_;
    GltfImport& out_;
    float aspect_;
    std::map<int, MatOut> mats_;                        // glTF material (-1: the default) -> ours
    std::map<std::pair<int, int>, uint32_t> textures_;  // (image, conversion) -> texture id
    std::map<int, Decoded> images_;
    std::set<std::string> unsupported_;
    size_t degenerate_ = 0;

    [[noreturn]] void fail(const std::string& ptr, const std::string& what) const {
        throw SceneError(path_ + ": " + (ptr.empty() ? "/" : ptr) + ": " + what);
    }
    void warn(const std::string& w) {
        if (std::find(out_.warnings.begin(), out_.warnings.end(), w) == out_.warnings.end()) out_.warnings.push_back(w);
    }
    // A factor glTF 2.0 keeps in [0, 1] (the specification's minimum and maximum): one outside is clamped, and said.
    float unit_factor(const std::string& ptr, double v) {
        const float c = glm::clamp(float(v), 0.0f, 1.0f);
        if (v < 0.0 || v > 1.0) warn(ptr + ": " + G(v) + " is outside glTF's range [0, 1]: clamped to " + G(c));
        return c;
    }
    static bool supported(const std::string& e) {
        return e == "KHR_materials_emissive_strength" || e == "KHR_materials_ior" || e == "KHR_materials_transmission";
    }

    mat4 local(const tg::Node& n, const std::string& np) const {
        mat4 L(1.0f);
        if (!n.matrix.empty()) {
            if (n.matrix.size() != 16) fail(np + "/matrix", "expected 16 numbers");
            for (int i = 0; i < 16; ++i) {
                if (!std::isfinite(n.matrix[size_t(i)])) fail(np + "/matrix/" + S(i), "not a finite number");
                L[i / 4][i % 4] = float(n.matrix[size_t(i)]);  // glTF matrices are column-major, as glm's
            }
            return L;
        }
        auto vec = [&](const std::vector<double>& v, size_t k, const char* key, double def) -> std::vector<double> {
            if (v.empty()) return std::vector<double>(k, def);
            if (v.size() != k) fail(np + "/" + key, "expected " + S(k) + " numbers");
            for (size_t i = 0; i < k; ++i)
                if (!std::isfinite(v[i])) fail(np + "/" + key + "/" + S(i), "not a finite number");
            return v;
        };
        std::vector<double> t = vec(n.translation, 3, "translation", 0.0), s = vec(n.scale, 3, "scale", 1.0);
        std::vector<double> q =
            n.rotation.empty() ? std::vector<double>{0, 0, 0, 1} : vec(n.rotation, 4, "rotation", 0.0);
        double ql = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(ql > 0.0 && std::isfinite(ql))) fail(np + "/rotation", "not a unit quaternion");
        double x = q[0] / ql, y = q[1] / ql, z = q[2] / ql, w = q[3] / ql;
        double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                          {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                          {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
        for (int c = 0; c < 3; ++c) {
            for (int r = 0; r < 3; ++r) L[c][r] = float(R[r][c] * s[size_t(c)]);  // T * R * S
            L[3][c] = float(t[size_t(c)]);
        }
        return L;
    }

    void camera(size_t ci, const mat4& W) {
        const tg::Camera& c = m_.cameras[ci];
        std::string cp = "/cameras/" + S(ci);
        if (c.type == "orthographic") {
            warn("orthographic camera " + S(ci) + " is not supported: ignored");
            return;
        }
        if (c.type != "perspective") {
            warn("camera " + S(ci) + " of unknown type '" + c.type + "' ignored");
            return;
        }
        if (out_.has_camera) return;  // the first perspective camera in the scene is used
        double yfov = c.perspective.yfov;
        if (!(yfov > 0.0 && yfov < kPi)) {
            warn("camera " + S(ci) + ": yfov " + std::to_string(yfov) + " is not in (0, pi) radians: ignored");
            return;
        }
        vec3 pos = vec3(W * vec4(0, 0, 0, 1)), fwd = mat3(W) * vec3(0, 0, -1), up = mat3(W) * vec3(0, 1, 0);
        if (!finite3(pos) || !finite3(fwd) || !finite3(up) || !(glm::length(glm::cross(fwd, up)) > 0.0f)) {
            warn("camera " + S(ci) + ": its node transform is degenerate: ignored");
            return;
        }
        fwd = glm::normalize(fwd);
        out_.has_camera = true;
        out_.camera_yfov_deg = float(yfov * 180.0 / kPi);
        out_.camera = make_camera(pos, pos + fwd, glm::normalize(up), out_.camera_yfov_deg, aspect_);
    }

    // The accessor `ai` (referenced at `ptr`) as `want` elements, bounds-checked against its bufferView and buffer.
    Acc accessor(int ai, const std::string& ptr, int want) {
        Acc r;
        if (ai < 0 || size_t(ai) >= m_.accessors.size())
            fail(ptr, "accessor " + S(ai) + " does not exist (" + S(m_.accessors.size()) + " accessors)");
        const tg::Accessor& a = m_.accessors[size_t(ai)];
        std::string ap = "accessor " + S(ai);
        if (a.type != want) fail(ptr, ap + " is " + type_name(a.type) + ", expected " + type_name(want));
        int cs = component_size(a.componentType);
        if (cs == 0) fail(ptr, ap + ": unsupported componentType " + S(a.componentType));
        if (a.sparse.isSparse) {
            warn("sparse accessors are not supported: primitives using them skipped");
            return r;
        }
        r.ct = a.componentType;
        r.nc = component_count(a.type);
        r.normalized = a.normalized;
        r.count = a.count;
        if (a.count == 0) {
            r.ok = true;
            return r;
        }
        if (a.bufferView < 0) {
            warn("accessors without a bufferView (all zeros) are not supported: primitives using them skipped");
            return r;
        }
        if (size_t(a.bufferView) >= m_.bufferViews.size())
            fail(ptr, ap + ": bufferView " + S(a.bufferView) + " does not exist (" + S(m_.bufferViews.size()) +
                          " bufferViews)");
        const tg::BufferView& bv = m_.bufferViews[size_t(a.bufferView)];
        const unsigned char* base = view_bytes(size_t(a.bufferView), ptr);
        size_t elem = size_t(cs) * size_t(r.nc);
        r.stride = bv.byteStride ? bv.byteStride : elem;
        if (r.stride < elem)
            fail(ptr, ap + ": bufferView " + S(a.bufferView) + " byteStride " + S(bv.byteStride) +
                          " is smaller than an element (" + S(elem) + " bytes)");
        size_t len = bv.byteLength;
        if (a.byteOffset > len || len - a.byteOffset < elem || (a.count - 1) > (len - a.byteOffset - elem) / r.stride)
            fail(ptr, ap + " (count " + S(a.count) + ", byteOffset " + S(a.byteOffset) + ", stride " + S(r.stride) +
                          ") exceeds bufferView " + S(a.bufferView) + " (byteLength " + S(len) + ")");
        r.p = base + a.byteOffset;
        r.ok = true;
        return r;
    }

    // Start of bufferView `vi`'s bytes, checked to lie inside its buffer.
    const unsigned char* view_bytes(size_t vi, const std::string& ptr) const {
        const tg::BufferView& bv = m_.bufferViews[vi];
        std::string vp = "bufferView " + S(vi);
        if (bv.buffer < 0 || size_t(bv.buffer) >= m_.buffers.size())
            fail(ptr, vp + ": buffer " + S(bv.buffer) + " does not exist (" + S(m_.buffers.size()) + " buffers)");
        const std::vector<unsigned char>& data = m_.buffers[size_t(bv.buffer)].data;
        if (bv.byteOffset > data.size() || bv.byteLength > data.size() - bv.byteOffset)
            fail(ptr, vp + " (byteOffset " + S(bv.byteOffset) + ", byteLength " + S(bv.byteLength) +
                          ") exceeds buffer " + S(bv.buffer) + " (" + S(data.size()) + " bytes)");
        return data.data() + bv.byteOffset;
    }

    void mesh(size_t mi, const mat4& W) {
        mat3 A(W);
        float det = glm::determinant(A);
        if (!(std::isfinite(det) && det != 0.0f)) {
            warn("meshes under singular (zero-volume) node transforms skipped");
            return;
        }
        mat3 N = glm::transpose(glm::inverse(A));
        const tg::Mesh& me = m_.meshes[mi];
        for (size_t pi = 0; pi < me.primitives.size(); ++pi) primitive(mi, pi, W, N, det < 0.0f);
    }

    void primitive(size_t mi, size_t pi, const mat4& W, const mat3& N, bool mirror) {
        const tg::Primitive& pr = m_.meshes[mi].primitives[pi];
        std::string pp = "/meshes/" + S(mi) + "/primitives/" + S(pi);
        if (pr.mode != TINYGLTF_MODE_TRIANGLES) {
            warn(std::string("primitives of mode ") + mode_name(pr.mode) + " (" + S(pr.mode) +
                 ") are not supported (only TRIANGLES): skipped");
            return;
        }
        if (!pr.targets.empty()) warn("morph targets ignored (the base mesh is imported)");
        int pos_i = -1, nrm_i = -1, uv_i = -1;
        for (const auto& at : pr.attributes) {
            const std::string& k = at.first;
            if (k == "POSITION")
                pos_i = at.second;
            else if (k == "NORMAL")
                nrm_i = at.second;
            else if (k == "TEXCOORD_0")
                uv_i = at.second;
            else if (k == "TANGENT")
                warn("TANGENT attributes ignored (tangent frames come from the texture coordinates)");
            else if (k.rfind("COLOR_", 0) == 0)
                warn("vertex colors (COLOR_n) ignored");
            else if (k.rfind("JOINTS_", 0) == 0 || k.rfind("WEIGHTS_", 0) == 0)
                warn("skinning attributes (JOINTS_n, WEIGHTS_n) ignored");
        }
        if (pos_i < 0) {
            warn("primitives without POSITION skipped");
            return;
        }
        std::string ap = pp + "/attributes/";
        Acc P = accessor(pos_i, ap + "POSITION", TINYGLTF_TYPE_VEC3);
        if (!P.ok) return;
        Acc Nn, T;
        if (nrm_i >= 0 || nrm_i < -1) {
            Nn = accessor(nrm_i, ap + "NORMAL", TINYGLTF_TYPE_VEC3);
            if (!Nn.ok) return;
            if (Nn.count != P.count)
                fail(ap + "NORMAL", "count " + S(Nn.count) + " differs from POSITION's " + S(P.count));
        }
        if (uv_i >= 0 || uv_i < -1) {
            T = accessor(uv_i, ap + "TEXCOORD_0", TINYGLTF_TYPE_VEC2);
            if (!T.ok) return;
            if (T.count != P.count)
                fail(ap + "TEXCOORD_0", "count " + S(T.count) + " differs from POSITION's " + S(P.count));
        }
        Acc I;
        size_t nidx = P.count;
        if (pr.indices >= 0 || pr.indices < -1) {
            I = accessor(pr.indices, pp + "/indices", TINYGLTF_TYPE_SCALAR);
            if (!I.ok) return;
            if (I.ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE && I.ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                I.ct != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
                fail(pp + "/indices", "accessor " + S(pr.indices) +
                                          ": indices must be unsigned byte, short or int (componentType " + S(I.ct) +
                                          ")");
            nidx = I.count;
        }
        if (nidx % 3)
            warn("TRIANGLES primitives with a vertex count not a multiple of 3: the last 1-2 vertices ignored");
        MatOut mo = material(pr.material, pp + "/material");
        bool has_uv = T.ok && T.count > 0;
        if (mo.textured && !has_uv)
            warn("textured materials on primitives without TEXCOORD_0: textures sampled at (0, 0)");

        std::vector<vec3> pos(P.count), nrm(Nn.ok ? Nn.count : 0);
        std::vector<vec2> uv(has_uv ? T.count : 0);
        for (size_t i = 0; i < P.count; ++i) {
            vec3 v(P.get(i, 0), P.get(i, 1), P.get(i, 2));
            if (!finite3(v)) fail(ap + "POSITION", "vertex " + S(i) + " is not finite");
            pos[i] = vec3(W * vec4(v, 1.0f));
            if (!finite3(pos[i])) fail(ap + "POSITION", "vertex " + S(i) + " is not finite under the node transform");
        }
        for (size_t i = 0; i < nrm.size(); ++i) {
            vec3 v(Nn.get(i, 0), Nn.get(i, 1), Nn.get(i, 2));
            if (!finite3(v)) fail(ap + "NORMAL", "normal " + S(i) + " is not finite");
            nrm[i] = N * v;
            if (!finite3(nrm[i])) nrm[i] = vec3(0.0f);  // zero: the renderer falls back to the geometric normal
        }
        for (size_t i = 0; i < uv.size(); ++i) {
            uv[i] = vec2(T.get(i, 0), T.get(i, 1));  // glTF's v runs down the image, as our textures'
            if (!(std::isfinite(uv[i].x) && std::isfinite(uv[i].y)))
                fail(ap + "TEXCOORD_0", "texture coordinate " + S(i) + " is not finite");
        }
        auto vertex = [&](size_t k) -> uint32_t {
            if (!I.ok) return uint32_t(k);
            uint32_t v = I.index(k);
            if (v >= P.count) fail(pp + "/indices", "index " + S(v) + " out of range (" + S(P.count) + " vertices)");
            return v;
        };
        bool attrs = !nrm.empty() || has_uv || mo.textured;
        for (size_t t = 0; t + 3 <= nidx; t += 3) {
            uint32_t i0 = vertex(t), i1 = vertex(t + 1), i2 = vertex(t + 2);
            if (mirror)
                std::swap(i1, i2);  // a mirroring transform flips the winding (glTF 2.0 3.7.2.1): keep the front side
            vec3 a = pos[i0], b = pos[i1], c = pos[i2];
            vec3 cr = glm::cross(b - a, c - a);
            if (!(glm::dot(cr, cr) > 0.0f) || !finite3(cr)) {
                ++degenerate_;
                continue;
            }
            if (attrs) {
                TriAttr at;
                uint32_t v[3] = {i0, i1, i2};
                for (int k = 0; k < 3; ++k) {
                    if (!nrm.empty()) at.n[k] = nrm[v[k]];
                    if (has_uv) at.uv[k] = uv[v[k]];
                }
                at.has_normals = !nrm.empty();
                b_.triangle(a, b, c, mo.h, at, mo.Le, mo.two_sided);
            } else {
                b_.triangle(a, b, c, mo.h, mo.Le, mo.two_sided);
            }
            ++out_.triangles;
            out_.lo = glm::min(out_.lo, glm::min(a, glm::min(b, c)));
            out_.hi = glm::max(out_.hi, glm::max(a, glm::max(b, c)));
        }
    }

    double number(const tg::Value& obj, const char* key, double def, const std::string& ptr) const {
        if (!obj.IsObject() || !obj.Has(key)) return def;
        const tg::Value& v = obj.Get(key);
        if (!v.IsNumber() || !std::isfinite(v.GetNumberAsDouble())) fail(ptr + "/" + key, "expected a finite number");
        return v.GetNumberAsDouble();
    }
    int tex_index(const tg::Value& obj, const char* key) const {  // an extension's textureInfo {"index": i}
        if (!obj.IsObject() || !obj.Has(key)) return -1;
        const tg::Value& t = obj.Get(key);
        return t.IsObject() && t.Has("index") && t.Get("index").IsInt() ? t.Get("index").GetNumberAsInt() : -1;
    }

    MatOut material(int mi, const std::string& ptr) {
        auto it = mats_.find(mi);
        if (it != mats_.end()) return it->second;
        MatOut o;
        if (mi < 0) {  // glTF's default material: every property at its default
            if (mi < -1) fail(ptr, "material " + S(mi) + " does not exist");
            o.h = b_.principled(vec3(1.0f), 1.0f, 1.0f);
            return mats_[mi] = o;
        }
        if (size_t(mi) >= m_.materials.size())
            fail(ptr, "material " + S(mi) + " does not exist (" + S(m_.materials.size()) + " materials)");
        const tg::Material& mt = m_.materials[size_t(mi)];
        std::string mp = "/materials/" + S(mi);
        const tg::PbrMetallicRoughness& pbr = mt.pbrMetallicRoughness;
        std::string pp = mp + "/pbrMetallicRoughness";
        PrincipledData d{};
        d.base_tex = d.mr_tex = d.normal_tex = d.emissive_tex = kNoTexture;
        const std::vector<double>& bc = pbr.baseColorFactor;
        if (bc.size() != 4) fail(pp + "/baseColorFactor", "expected 4 numbers");
        for (size_t i = 0; i < 4; ++i)
            if (!std::isfinite(bc[i])) fail(pp + "/baseColorFactor/" + S(i), "not a finite number");
        for (int i = 0; i < 3; ++i) d.base_color[i] = unit_factor(pp + "/baseColorFactor/" + S(i), bc[size_t(i)]);
        if (!std::isfinite(pbr.metallicFactor)) fail(pp + "/metallicFactor", "not a finite number");
        if (!std::isfinite(pbr.roughnessFactor)) fail(pp + "/roughnessFactor", "not a finite number");
        d.metallic = unit_factor(pp + "/metallicFactor", pbr.metallicFactor);
        d.roughness = unit_factor(pp + "/roughnessFactor", pbr.roughnessFactor);
        if (!std::isfinite(mt.normalTexture.scale)) fail(mp + "/normalTexture/scale", "not a finite number");
        d.normal_scale = float(mt.normalTexture.scale);
        const std::vector<double>& ef = mt.emissiveFactor;
        if (ef.size() != 3) fail(mp + "/emissiveFactor", "expected 3 numbers");
        for (size_t i = 0; i < 3; ++i)
            if (!std::isfinite(ef[i])) fail(mp + "/emissiveFactor/" + S(i), "not a finite number");
        // above 1 kept as given (an emission brighter than the specification's range, not clamped), below 0 said
        vec3 emissive;
        for (int i = 0; i < 3; ++i) {
            emissive[i] = glm::max(float(ef[size_t(i)]), 0.0f);
            if (ef[size_t(i)] < 0.0)
                warn(mp + "/emissiveFactor/" + S(i) + ": " + G(ef[size_t(i)]) + " is negative: 0 used");
        }

        double strength = 1.0, ior = 1.5, transmission = 0.0;
        bool has_ior = false;
        for (const auto& e : mt.extensions) {
            std::string ep = mp + "/extensions/" + e.first;
            if (e.first == "KHR_materials_emissive_strength") {
                strength = number(e.second, "emissiveStrength", 1.0, ep);
                if (strength < 0.0) fail(ep + "/emissiveStrength", "must not be negative");
            } else if (e.first == "KHR_materials_ior") {
                ior = number(e.second, "ior", 1.5, ep);
                has_ior = true;
                if (ior == 0.0)
                    ior = 1e4;  // the extension's "ior 0": full Fresnel reflection; a very high ior is close
                else if (ior < 1.0)
                    fail(ep + "/ior", "must be >= 1 (or 0)");
            } else if (e.first == "KHR_materials_transmission") {
                transmission = number(e.second, "transmissionFactor", 0.0, ep);
                if (tex_index(e.second, "transmissionTexture") >= 0)
                    warn("KHR_materials_transmission: transmissionTexture ignored (the factor is used)");
            } else {
                unsupported_.insert(e.first);
            }
        }
        if (std::string why = float_range_problem("emissiveFactor x emissiveStrength", ef[0] * strength,
                                                  ef[1] * strength, ef[2] * strength);
            !why.empty())
            fail(mp + "/emissiveFactor", why);
        emissive *= float(strength);
        bool emits = emissive.x > 0.0f || emissive.y > 0.0f || emissive.z > 0.0f;
        if (mt.occlusionTexture.index >= 0) warn("occlusion textures ignored (a path tracer computes occlusion)");
        if (mt.alphaMode == "MASK" || mt.alphaMode == "BLEND")
            warn("alphaMode " + mt.alphaMode + " is not supported: such materials are rendered opaque");
        else if (mt.alphaMode != "OPAQUE" && !mt.alphaMode.empty())
            fail(mp + "/alphaMode", "unknown alphaMode '" + mt.alphaMode + "'");
        o.two_sided = mt.doubleSided;  // emission on both sides; opaque surfaces are always shaded on both
        if (!mt.doubleSided)
            warn("doubleSided false: back faces are not culled (opaque surfaces are shaded on both sides)");

        if (transmission >= 0.5) {
            warn(
                "KHR_materials_transmission: transmissive materials are approximated as dielectrics (ior, roughness, "
                "base color factor as tint; metallic ignored)");
            if (transmission < 1.0)
                warn("partial transmission (0.5 <= transmissionFactor < 1) rendered as full transmission");
            if (pbr.baseColorTexture.index >= 0 || pbr.metallicRoughnessTexture.index >= 0 ||
                mt.normalTexture.index >= 0)
                warn("textures of transmissive materials ignored");
            float alpha = d.roughness * d.roughness;
            o.h = b_.dielectric(float(std::min(ior, 1e4)), alpha < 1e-3f ? 0.0f : alpha, d.base_color);
            if (emits && mt.emissiveTexture.index >= 0)
                warn("emissive textures on transmissive materials ignored (no emission)");
            else if (emits)
                o.Le = emissive;
            return mats_[mi] = o;
        }
        if (transmission > 0.0) warn("partial transmission (transmissionFactor < 0.5) ignored: rendered opaque");
        if (has_ior && ior != 1.5)
            warn("KHR_materials_ior on opaque materials ignored (the principled BSDF assumes ior 1.5, F0 = 0.04)");

        d.base_tex = texture(pbr.baseColorTexture.index, pbr.baseColorTexture.texCoord, pbr.baseColorTexture.extensions,
                             pp + "/baseColorTexture", kSrgb);
        d.mr_tex = texture(pbr.metallicRoughnessTexture.index, pbr.metallicRoughnessTexture.texCoord,
                           pbr.metallicRoughnessTexture.extensions, pp + "/metallicRoughnessTexture", kLinear);
        d.normal_tex = texture(mt.normalTexture.index, mt.normalTexture.texCoord, mt.normalTexture.extensions,
                               mp + "/normalTexture", kNormal);
        if (emits && mt.emissiveTexture.index >= 0) {
            // Textured emission is evaluated where rays hit (resolve_material's `emitted`) but is not in the light
            // table: lit surfaces see it only through BSDF sampling (noisier than an area light, unbiased).
            d.emissive = emissive;
            d.emissive_tex = texture(mt.emissiveTexture.index, mt.emissiveTexture.texCoord,
                                     mt.emissiveTexture.extensions, mp + "/emissiveTexture", kSrgb);
            warn("textured emission is seen by camera and BSDF rays but not sampled as a light");
            if (mt.doubleSided) warn("textured emission of double-sided materials is emitted on the front side only");
        } else if (emits) {
            o.Le = emissive;  // factor-only emission: every triangle an area light (two-sided when doubleSided)
        }
        o.textured = d.base_tex != kNoTexture || d.mr_tex != kNoTexture || d.normal_tex != kNoTexture ||
                     d.emissive_tex != kNoTexture;
        o.h = b_.principled(d);
        return mats_[mi] = o;
    }

    enum Conv { kLinear = 0, kSrgb = 1, kNormal = 2 };

    uint32_t texture(int ti, int texcoord, const tg::ExtensionMap& ext, const std::string& ptr, Conv conv) {
        if (ti < 0) {
            if (ti < -1) fail(ptr + "/index", "texture " + S(ti) + " does not exist");
            return kNoTexture;
        }
        if (size_t(ti) >= m_.textures.size())
            fail(ptr + "/index", "texture " + S(ti) + " does not exist (" + S(m_.textures.size()) + " textures)");
        if (texcoord != 0) warn("textures on TEXCOORD_n for n > 0 are sampled with TEXCOORD_0");
        for (const auto& e : ext) unsupported_.insert(e.first);
        const tg::Texture& t = m_.textures[size_t(ti)];
        std::string tp = "/textures/" + S(ti);
        for (const auto& e : t.extensions) unsupported_.insert(e.first);
        if (t.sampler >= 0 || t.sampler < -1) {
            if (size_t(t.sampler) >= m_.samplers.size())
                fail(tp + "/sampler", "sampler " + S(t.sampler) + " does not exist");
            const tg::Sampler& s = m_.samplers[size_t(t.sampler)];
            if (s.wrapS != TINYGLTF_TEXTURE_WRAP_REPEAT || s.wrapT != TINYGLTF_TEXTURE_WRAP_REPEAT)
                warn("texture wrap modes CLAMP_TO_EDGE and MIRRORED_REPEAT are rendered as REPEAT");
        }
        if (t.source < 0) {
            if (t.source < -1) fail(tp + "/source", "image " + S(t.source) + " does not exist");
            warn("textures without a PNG/JPEG source (e.g. only in an image-format extension) ignored");
            return kNoTexture;
        }
        if (size_t(t.source) >= m_.images.size())
            fail(tp + "/source", "image " + S(t.source) + " does not exist (" + S(m_.images.size()) + " images)");
        auto key = std::make_pair(t.source, int(conv));
        auto it = textures_.find(key);
        if (it != textures_.end()) return it->second;
        const Decoded& im = image(t.source);
        static const std::vector<float> srgb = [] {
            std::vector<float> l(256);
            for (int i = 0; i < 256; ++i) l[size_t(i)] = srgb_to_linear(i / 255.0f);
            return l;
        }();
        std::vector<F4> tex(size_t(im.w) * size_t(im.h));
        for (size_t i = 0; i < tex.size(); ++i) {
            const unsigned char* q = &im.rgba[4 * i];
            float a = q[3] / 255.0f;
            if (conv == kSrgb)
                tex[i] = F4{srgb[q[0]], srgb[q[1]], srgb[q[2]], a};
            else  // linear data; normal maps as stored: the renderer's bitangent follows glTF's +Y (decreasing v)
                tex[i] = F4{q[0] / 255.0f, q[1] / 255.0f, q[2] / 255.0f, a};
        }
        uint32_t id = b_.texture(std::move(tex), uint32_t(im.w), uint32_t(im.h));
        return textures_[key] = id;
    }

    const Decoded& image(int ii) {
        auto it = images_.find(ii);
        if (it != images_.end()) return it->second;
        const tg::Image& im = m_.images[size_t(ii)];
        std::string ip = "/images/" + S(ii);
        const unsigned char* data = nullptr;
        size_t len = 0;
        if (im.bufferView >= 0) {
            if (size_t(im.bufferView) >= m_.bufferViews.size())
                fail(ip + "/bufferView", "bufferView " + S(im.bufferView) + " does not exist");
            data = view_bytes(size_t(im.bufferView), ip + "/bufferView");
            len = m_.bufferViews[size_t(im.bufferView)].byteLength;
        } else if (!im.image.empty()) {
            data = im.image.data();
            len = im.image.size();
        } else {
            fail(ip, im.uri.empty() ? std::string("no image data") : "cannot read image '" + im.uri + "'");
        }
        if (len == 0 || len > size_t(INT_MAX)) fail(ip, "image data of " + S(len) + " bytes");
        int w = 0, h = 0, n = 0;
        if (!stbi_info_from_memory(data, int(len), &w, &h, &n))
            fail(ip, std::string("cannot decode image: ") +
                         (stbi_failure_reason() ? stbi_failure_reason() : "unknown format"));
        if (w <= 0 || h <= 0 || (long long)w * h > (1ll << 26))
            fail(ip, "image of " + S(w) + " x " + S(h) + " texels is too large");
        unsigned char* px = stbi_load_from_memory(data, int(len), &w, &h, &n, 4);
        if (!px)
            fail(ip, std::string("cannot decode image: ") +
                         (stbi_failure_reason() ? stbi_failure_reason() : "unknown format"));
        Decoded d;
        d.w = w;
        d.h = h;
        d.rgba.assign(px, px + size_t(w) * size_t(h) * 4);
        stbi_image_free(px);
        return images_[ii] = std::move(d);
    }
};

// A buffer URI with its %XX escapes decoded (as tinygltf reads it).
std::string uri_decode(const std::string& u) {
    std::string o;
    for (size_t i = 0; i < u.size(); ++i) {
        if (u[i] == '%' && i + 2 < u.size() && std::isxdigit((unsigned char)u[i + 1]) &&
            std::isxdigit((unsigned char)u[i + 2])) {
            o += char(std::stoi(u.substr(i + 1, 2), nullptr, 16));
            i += 2;
        } else {
            o += u[i];
        }
    }
    return o;
}

// Before tinygltf reads the file: its JSON (the whole .gltf, or a .glb's JSON chunk) parsed here, so that a syntax
// error has its line and column and a duplicate key its pointer, and every external buffer checked to exist, so
// that a missing one is named with the folder searched (tinygltf's own messages name neither).
uint32_t le32(const std::vector<unsigned char>& b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

// A binary glTF's layout against the file's bytes, in our words before tinygltf's ("Invalid glTF binary."): the
// 12-byte header (magic, version 2, the total length), the JSON chunk (length, 'JSON', data) and a BIN chunk after
// it, each within the file.
void check_glb_layout(const std::string& path, const std::vector<unsigned char>& b) {
    const std::string n = std::to_string(b.size());
    auto bad = [&](const std::string& what) { throw SceneError(path + ": binary glTF (" + n + " bytes): " + what); };
    if (b.size() < 20) bad("truncated: shorter than its 12-byte header and the JSON chunk's 8-byte header");
    if (le32(b, 4) != 2) bad("version " + std::to_string(le32(b, 4)) + " at byte 4 (expected 2)");
    if (le32(b, 8) > b.size())
        bad("truncated: its header (byte 8) says the file is " + std::to_string(le32(b, 8)) + " bytes");
    if (std::memcmp(b.data() + 16, "JSON", 4) != 0) bad("the first chunk (byte 16) is not of type 'JSON'");
    const uint64_t json_end = 20 + uint64_t(le32(b, 12));
    if (json_end > b.size())
        bad("truncated: the JSON chunk (byte 12) says " + std::to_string(le32(b, 12)) + " bytes from byte 20");
    if (json_end + 8 <= b.size() && json_end + 8 + uint64_t(le32(b, size_t(json_end))) > b.size())
        bad("truncated: the chunk at byte " + std::to_string(json_end) + " says " +
            std::to_string(le32(b, size_t(json_end))) + " bytes from byte " + std::to_string(json_end + 8));
    if (json_end < b.size() && json_end + 8 > b.size())
        bad("truncated: " + std::to_string(b.size() - json_end) + " bytes after the JSON chunk, not a chunk header");
}

// A binary glTF's buffer 0 without a uri is its BIN chunk: the chunk must be there and hold the buffer's
// byteLength (a file cut after its JSON chunk, its header's length mended, said tinygltf's "Invalid binary data").
void check_glb_buffer(const std::string& path, const std::vector<unsigned char>& b, const nlohmann::json& bufs) {
    if (bufs.empty() || !bufs[0].is_object() || bufs[0].contains("uri")) return;
    const uint64_t at = 20 + uint64_t(le32(b, 12));  // (where tinygltf reads it, as check_glb_layout)
    const uint64_t have = at + 8 <= b.size() && std::memcmp(b.data() + at + 4, "BIN", 4) == 0 ? le32(b, size_t(at)) : 0;
    const nlohmann::json& len = bufs[0].contains("byteLength") ? bufs[0]["byteLength"] : nlohmann::json();
    const uint64_t want = len.is_number_unsigned() ? len.get<uint64_t>() : 0;
    if (have == 0 || have < want)
        throw SceneError(path + ": /buffers/0: the binary glTF's BIN chunk holds " + std::to_string(have) +
                         " bytes and its byteLength is " + std::to_string(want) +
                         " (the file is cut after its JSON chunk, or the chunk is missing)");
}

void check_gltf_json(const std::string& path, const std::vector<unsigned char>& bytes, bool glb,
                     const std::string& dir) {
    std::string text;
    if (glb) {  // header (magic, version, length), then the first chunk: length, type 'JSON', data
        check_glb_layout(path, bytes);
        const uint32_t len = le32(bytes, 12);
        text.assign(reinterpret_cast<const char*>(bytes.data()) + 20, len);
        while (!text.empty() && text.back() == '\0')
            text.pop_back();  // padding (the format says spaces; some write 0s)
    } else {
        text.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
    nlohmann::json j;
    JsonProblem problem;
    if (!parse_json_text(text, j, problem)) {
        if (glb && problem.line) problem.what += " (in the JSON chunk)";
        throw SceneError(problem.message(path));
    }
    if (!j.is_object() || !j.contains("buffers") || !j["buffers"].is_array()) return;
    const nlohmann::json& bufs = j["buffers"];
    if (glb) check_glb_buffer(path, bytes, bufs);
    for (size_t i = 0; i < bufs.size(); ++i) {
        if (!bufs[i].is_object() || !bufs[i].contains("uri") || !bufs[i]["uri"].is_string()) continue;
        const std::string uri = bufs[i]["uri"].get<std::string>();
        if (uri.rfind("data:", 0) == 0) continue;
        const std::string file = uri_decode(uri);
        const std::string full = !file.empty() && file[0] == '/' ? file : dir + "/" + file;
        struct stat st;
        const std::string p = "/buffers/" + std::to_string(i) + "/uri";
        if (::stat(full.c_str(), &st) != 0)
            throw SceneError(path + ": " + p + ": buffer '" + uri + "' not found (looked in the folder '" + dir + "')");
        if (!S_ISREG(st.st_mode))
            throw SceneError(path + ": " + p + ": buffer '" + uri + "' is not a regular file (in the folder '" + dir +
                             "')");
    }
}

}  // namespace

GltfImport import_gltf(const std::string& path, const mat4& M, SceneBuilder& b, float aspect) {
    GltfImport out;
    std::vector<unsigned char> bytes;
    refuse_folder(path, "a glTF file");
    {
        std::ifstream f(path, std::ios::binary);
        if (!f) throw SceneError(path + ": cannot open glTF file");
        bytes.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
        if (f.bad()) throw SceneError(path + ": cannot read glTF file");
    }
    if (bytes.empty()) throw SceneError(path + ": empty file");
    if (bytes.size() >= size_t(UINT_MAX)) throw SceneError(path + ": file too large (4 GiB or more)");
    size_t slash = path.find_last_of('/');
    std::string dir = slash == std::string::npos ? std::string(".") : path.substr(0, slash);
    try {
        tg::Model model;
        tg::TinyGLTF loader;
        loader.SetImageLoader(keep_encoded, nullptr);
        std::string err, warn;
        bool glb = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
        const bool glb_name = path.size() >= 4 && std::tolower((unsigned char)path[path.size() - 1]) == 'b' &&
                              std::tolower((unsigned char)path[path.size() - 2]) == 'l' &&
                              std::tolower((unsigned char)path[path.size() - 3]) == 'g' && path[path.size() - 4] == '.';
        if (glb_name && !glb) {  // a .glb must start with the binary header's magic "glTF"
            std::string magic;
            for (size_t i = 0; i < std::min<size_t>(4, bytes.size()); ++i) {
                const unsigned char ch = bytes[i];
                char hex[8];
                std::snprintf(hex, sizeof hex, "\\x%02x", ch);
                magic += ch >= 32 && ch < 127 && ch != '\'' ? std::string(1, char(ch)) : std::string(hex);
            }
            throw SceneError(path + ": the glTF binary header's magic is '" + magic +
                             "', expected 'glTF' (not a binary glTF file)");
        }
        check_gltf_json(path, bytes, glb, dir);
        bool ok = glb ? loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), dir)
                      : loader.LoadASCIIFromString(&model, &err, &warn, reinterpret_cast<const char*>(bytes.data()),
                                                   unsigned(bytes.size()), dir);
        std::string w = trim_join(warn);
        if (!ok) {
            std::string e = trim_join(err);
            if (e.empty()) e = glb ? "not a valid binary glTF" : "not a valid glTF file";
            throw SceneError(path + ": " + e + (w.empty() ? "" : " (" + w + ")"));
        }
        if (!w.empty()) out.warnings.push_back("tinygltf: " + w);
        bytes.clear();
        bytes.shrink_to_fit();
        Importer(path, model, b, out, aspect).run(M);
    } catch (const SceneError&) { throw; } catch (const std::bad_alloc&) {
        throw;  // (load_scene_json names the file and the phase)
    } catch (const std::exception& e) { throw SceneError(path + ": " + e.what()); }
    return out;
}

LoadedScene load_gltf_scene(const std::string& path, const SceneBuildOptions& build) {
    LoadedScene ls;
    RenderParams& rp = ls.params;
    rp.width = 512;
    rp.height = 512;
    rp.spp = 64;
    rp.max_depth = 16;
    rp.seed = 0;
    float aspect = float(rp.width) / float(rp.height);
    SceneBuilder b;
    GltfImport gi = import_gltf(path, mat4(1.0f), b, aspect);
    if (gi.has_camera) {
        b.set_camera(gi.camera);
    } else {  // looking down -z at the center of the bounds, the bounding sphere filling a 40 degree fov
        vec3 c = 0.5f * (gi.lo + gi.hi);
        float r = 0.5f * glm::length(gi.hi - gi.lo);
        float d = r / std::sin(20.0f * kPi / 180.0f);
        b.set_camera(make_camera(c + vec3(0.0f, 0.0f, d), c, vec3(0, 1, 0), 40.0f, aspect, 0.0f, d));
        gi.warnings.push_back("no perspective camera: framing the bounds from +z");
    }
    b.set_background(vec3(1.0f));  // a uniform white sky lights the model
    try {
        ls.data = b.build(build, path);
    } catch (const SceneMemoryError&) {
        throw;  // (names the file already, and is no fault of the scene's)
    } catch (const std::exception& e) { throw SceneError(path + ": " + e.what()); }
    for (const std::string& w : gi.warnings) {
        ls.warnings.push_back(path + ": " + w);
        std::cerr << "warning: " << path << ": " << w << "\n";
    }
    return ls;
}

}  // namespace wp
