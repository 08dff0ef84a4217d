// glTF 2.0 import: the Khronos samples (DamagedHelmet, MetalRoughSpheresNoTextures), node transforms, cameras,
// texture orientation, and malformed files (each a SceneError naming the file, never a crash).
#include <gtest/gtest.h>
#include <stb/stb_image_write.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include "host/render/render.h"
#include "host/scene/scene_gltf.h"
#include "host/scene/scene_json.h"
#include "kernels/stages.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
std::string tmp(const std::string& name) { return wp_test::temp_dir() + name; }
std::string write_tmp(const std::string& name, const std::string& text) {
    std::string p = tmp(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}
std::string helmet_path() { return wp_test::source_dir() + "/scenes/gltf/DamagedHelmet/glTF-Binary/DamagedHelmet.glb"; }
std::string spheres_path() {
    return wp_test::source_dir() + "/scenes/gltf/MetalRoughSpheresNoTextures/glTF/MetalRoughSpheresNoTextures.gltf";
}

std::string base64(const std::vector<unsigned char>& d) {
    static const char* T = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string s;
    for (size_t i = 0; i < d.size(); i += 3) {
        uint32_t v =
            uint32_t(d[i]) << 16 | (i + 1 < d.size() ? uint32_t(d[i + 1]) << 8 : 0) | (i + 2 < d.size() ? d[i + 2] : 0);
        s += T[v >> 18 & 63];
        s += T[v >> 12 & 63];
        s += i + 1 < d.size() ? T[v >> 6 & 63] : '=';
        s += i + 2 < d.size() ? T[v & 63] : '=';
    }
    return s;
}
template <class T>
void append(std::vector<unsigned char>& b, const std::vector<T>& v) {
    while (b.size() % 4) b.push_back(0);
    const unsigned char* p = reinterpret_cast<const unsigned char*>(v.data());
    b.insert(b.end(), p, p + v.size() * sizeof(T));
}
std::string png_data_uri(int w, int h, const std::vector<unsigned char>& rgb) {
    std::vector<unsigned char> out;
    stbi_write_png_to_func(
        [](void* ctx, void* data, int size) {
            auto* o = static_cast<std::vector<unsigned char>*>(ctx);
            o->insert(o->end(), static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + size);
        },
        &out, w, h, 3, rgb.data(), w * 3);
    return "data:image/png;base64," + base64(out);
}

// One triangle (or the given positions and u16 indices) in a base64 buffer; `nodes`, the default scene's
// `roots` and `extra` top-level members are spliced in.
std::string tiny_gltf(const std::string& nodes, const std::string& roots, const std::string& extra = "",
                      std::vector<float> pos = {0, 0, 0, 1, 0, 0, 0, 1, 0}, std::vector<uint16_t> idx = {0, 1, 2}) {
    std::vector<unsigned char> buf;
    append(buf, pos);
    size_t ioff = buf.size();
    append(buf, idx);
    size_t ilen = idx.size() * 2;
    while (buf.size() % 4) buf.push_back(0);
    std::string s =
        R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [)" + roots + R"(]}], "nodes": [)" + nodes +
        R"(], "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}], "buffers": [{"byteLength": )" +
        std::to_string(buf.size()) + R"(, "uri": "data:application/octet-stream;base64,)" + base64(buf) +
        R"("}], "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": )" + std::to_string(pos.size() * 4) +
        R"(}, {"buffer": 0, "byteOffset": )" + std::to_string(ioff) + R"(, "byteLength": )" + std::to_string(ilen) +
        R"(}], "accessors": [{"bufferView": 0, "componentType": 5126, "count": )" + std::to_string(pos.size() / 3) +
        R"(, "type": "VEC3"}, {"bufferView": 1, "componentType": 5123, "count": )" + std::to_string(idx.size()) +
        R"(, "type": "SCALAR"}])" + extra + "}";
    return s;
}
std::string replace(std::string s, const std::string& from, const std::string& to) {
    size_t i = s.find(from);
    EXPECT_NE(i, std::string::npos) << from;
    return i == std::string::npos ? s : s.replace(i, from.size(), to);
}

struct Imported {
    GltfImport gi;
    SceneData sd;
};
Imported import_file(const std::string& path, const mat4& M = mat4(1.0f), float aspect = 1.0f) {
    SceneBuilder b;
    Imported r;
    r.gi = import_gltf(path, M, b, aspect);
    b.set_camera(make_camera(vec3(0, 0, 5), vec3(0), vec3(0, 1, 0), 40, 1));
    r.sd = b.build();
    return r;
}
std::vector<vec3> triangle0(const SceneData& sd) {  // corners of the first primitive in leaf order
    vec3 a(sd.geom[0].x, sd.geom[0].y, sd.geom[0].z), e1(sd.geom[1].x, sd.geom[1].y, sd.geom[1].z),
        e2(sd.geom[2].x, sd.geom[2].y, sd.geom[2].z);
    return {a, a + e1, a + e2};
}
void expect_near(vec3 a, vec3 b, float tol, const char* what) {
    EXPECT_NEAR(a.x, b.x, tol) << what;
    EXPECT_NEAR(a.y, b.y, tol) << what;
    EXPECT_NEAR(a.z, b.z, tol) << what;
}
void expect_error(const std::string& path, const std::string& what, const std::string& ptr = "") {
    try {
        SceneBuilder b;
        import_gltf(path, mat4(1.0f), b, 1.0f);
        ADD_FAILURE() << "no error for " << path << " (expected " << what << ")";
    } catch (const SceneError& e) {
        std::string m = e.what();
        EXPECT_EQ(m.rfind(path, 0), 0u) << m;  // starts with the file
        EXPECT_NE(m.find(what), std::string::npos) << m;
        if (!ptr.empty()) EXPECT_NE(m.find(ptr), std::string::npos) << m;
    }
}
bool has_warning(const GltfImport& gi, const std::string& w) {
    for (const std::string& s : gi.warnings)
        if (s.find(w) != std::string::npos) return true;
    return false;
}
const Imported& helmet() {
    static Imported h = import_file(helmet_path());
    return h;
}
}  // namespace

TEST(Gltf, DamagedHelmetGeometryMaterialTextures) {
    const Imported& h = helmet();
    EXPECT_EQ(h.gi.triangles, 15452u);
    EXPECT_EQ(h.sd.num_primitives, 15452u);
    EXPECT_EQ(h.gi.materials, 1u);
    EXPECT_FALSE(h.gi.has_camera);
    // the node's rotation of +90 degrees about x maps the accessor's (x, y, z) bounds to (x, -z, y)
    expect_near(h.gi.lo, vec3(-0.94746f, -0.90097f, -1.18716f), 2e-3f, "lo");
    expect_near(h.gi.hi, vec3(0.94250f, 0.90099f, 0.81285f), 2e-3f, "hi");
    ASSERT_EQ(h.sd.principled.size(), 1u);
    const PrincipledData& p = h.sd.principled[0];
    EXPECT_NE(p.base_tex, kNoTexture);
    EXPECT_NE(p.mr_tex, kNoTexture);
    EXPECT_NE(p.normal_tex, kNoTexture);
    EXPECT_NE(p.emissive_tex, kNoTexture);
    std::set<uint32_t> ids{p.base_tex, p.mr_tex, p.normal_tex, p.emissive_tex};
    EXPECT_EQ(ids.size(), 4u);
    ASSERT_EQ(h.sd.textures.size(), 4u);  // the occlusion texture is not loaded
    for (const TexInfo& t : h.sd.textures) {
        EXPECT_EQ(t.width, 2048u);
        EXPECT_EQ(t.height, 2048u);
    }
    expect_near(p.emissive, vec3(1.0f), 0.0f, "emissiveFactor");
    EXPECT_FLOAT_EQ(p.metallic, 1.0f);
    EXPECT_FLOAT_EQ(p.roughness, 1.0f);
    EXPECT_TRUE(h.sd.lights.empty());  // textured emission is not an area light
    EXPECT_TRUE(has_warning(h.gi, "occlusion textures ignored")) << h.gi.warnings.size();
    for (const std::string& w : h.gi.warnings) std::printf("helmet warning: %s\n", w.c_str());
    // every triangle carries normals and texture coordinates
    ASSERT_EQ(h.sd.attr.size(), 4 * 15452u);
    for (size_t i = 0; i < h.sd.attr.size(); i += 4) ASSERT_EQ(h.sd.attr[i + 3].w, 1.0f);
}

TEST(Gltf, DamagedHelmetAsSceneFileRendersOnCpu) {
    LoadedScene ls = load_scene_json(helmet_path());  // dispatched by extension to load_gltf_scene
    EXPECT_EQ(ls.data.num_primitives, 15452u);
    EXPECT_NEAR(ls.data.camera.forward.z, -1.0f, 1e-6f);  // framing the bounds from +z
    EXPECT_EQ(ls.params.width, 512u);
    RenderParams rp = ls.params;
    rp.width = rp.height = 24;
    rp.spp = 4;
    ls.data.camera.aspect = 1.0f;
    Image img = render_cpu_megakernel(ls.data, rp);
    ASSERT_EQ(img.rgb.size(), 3u * 24 * 24);
    EXPECT_EQ(img.nonfinite, 0u);
    double sum = 0, center = 0;
    for (float v : img.rgb) {
        ASSERT_TRUE(std::isfinite(v));
        sum += v;
    }
    for (int c = 0; c < 3; ++c) center += img.rgb[3 * (12 * 24 + 12) + c];
    EXPECT_GT(sum / img.rgb.size(), 0.05);
    EXPECT_LT(center / 3, 0.95);  // the helmet, not the white sky, is in the middle
}

TEST(Gltf, MetalRoughSpheresFactors) {
    Imported s = import_file(spheres_path());
    std::printf("MetalRoughSpheresNoTextures: %zu triangles, %zu materials, bounds (%g %g %g) - (%g %g %g)\n",
                s.gi.triangles, s.gi.materials, s.gi.lo.x, s.gi.lo.y, s.gi.lo.z, s.gi.hi.x, s.gi.hi.y, s.gi.hi.z);
    for (const std::string& w : s.gi.warnings) std::printf("spheres warning: %s\n", w.c_str());
    // 1,040,409 triangles as drawn (102 meshes under 119 nodes), 196 of them of zero area
    EXPECT_EQ(s.gi.triangles, 1040213u);
    EXPECT_TRUE(has_warning(s.gi, "196 degenerate (zero-area) triangle(s) skipped"));
    EXPECT_EQ(s.gi.materials, 99u);  // the file's 98 and the default material of the labels
    EXPECT_EQ(s.sd.principled.size(), 99u);
    EXPECT_TRUE(s.sd.lights.empty());
    std::set<int> metal, rough;  // in sixths
    for (const PrincipledData& p : s.sd.principled) {
        EXPECT_EQ(p.base_tex, kNoTexture);
        EXPECT_EQ(p.mr_tex, kNoTexture);
        float m6 = p.metallic * 6.0f, r6 = p.roughness * 6.0f;
        EXPECT_NEAR(m6, std::round(m6), 1e-4f);
        EXPECT_NEAR(r6, std::round(r6), 1e-4f);
        metal.insert(int(std::lround(m6)));
        rough.insert(int(std::lround(r6)));
    }
    EXPECT_EQ(metal, (std::set<int>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(rough, (std::set<int>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(Gltf, NodeTransformsCameraAndMirroring) {
    // root: T(1,2,3) R(90 deg about z) S(2); children: the mesh at T(1,0,0), a camera at T(0,0,5)
    const float s = std::sqrt(0.5f);
    std::string nodes =
        R"({"translation": [1,2,3], "rotation": [0,0,)" + std::to_string(s) + "," + std::to_string(s) +
        R"(], "scale": [2,2,2], "children": [1, 2]}, {"translation": [1,0,0], "mesh": 0}, {"translation": [0,0,5], "camera": 0})";
    std::string cams =
        R"(, "cameras": [{"type": "perspective", "perspective": {"yfov": 0.5, "znear": 0.1, "aspectRatio": 1.5}}])";
    std::string path = write_tmp("trs.gltf", tiny_gltf(nodes, "0", cams));
    Imported r = import_file(path, mat4(1.0f), 2.0f);
    ASSERT_EQ(r.gi.triangles, 1u);
    std::vector<vec3> t = triangle0(r.sd);
    // p -> R(2 (p + (1,0,0))) + (1,2,3), R: (x,y) -> (-y,x)
    expect_near(t[0], vec3(1, 4, 3), 1e-5f, "v0");
    expect_near(t[1], vec3(1, 6, 3), 1e-5f, "v1");
    expect_near(t[2], vec3(-1, 4, 3), 1e-5f, "v2");
    ASSERT_TRUE(r.gi.has_camera);
    expect_near(r.gi.camera.pos, vec3(1, 2, 13), 1e-5f, "camera position");
    expect_near(r.gi.camera.forward, vec3(0, 0, -1), 1e-5f, "camera forward");
    expect_near(r.gi.camera.up, vec3(-1, 0, 0), 1e-5f, "camera up");
    EXPECT_NEAR(r.gi.camera_yfov_deg, 0.5f * 180.0f / kPi, 1e-4f);
    EXPECT_NEAR(r.gi.camera.tan_half_fov_y, std::tan(0.25f), 1e-5f);
    EXPECT_FLOAT_EQ(r.gi.camera.aspect, 2.0f);  // the caller's aspect, not the file's

    // the import's own transform M comes on top
    mat4 M = wp_test::rows({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -10, 0, 0, 0, 1});
    Imported rm = import_file(path, M);
    expect_near(triangle0(rm.sd)[0], vec3(1, 4, -7), 1e-5f, "v0 under M");
    expect_near(rm.gi.camera.pos, vec3(1, 2, 3), 1e-5f, "camera under M");

    // a column-major matrix node equals its TRS
    std::string mnodes =
        R"({"matrix": [0,2,0,0, -2,0,0,0, 0,0,2,0, 1,2,3,1], "children": [1]}, {"translation": [1,0,0], "mesh": 0})";
    Imported rmat = import_file(write_tmp("matrix.gltf", tiny_gltf(mnodes, "0")));
    expect_near(triangle0(rmat.sd)[1], vec3(1, 6, 3), 1e-5f, "matrix node");
    EXPECT_FALSE(rmat.gi.has_camera);

    // mirroring (scale -1 in x): the triangle's front side (+z for the CCW input) is kept
    Imported rmir = import_file(write_tmp("mirror.gltf", tiny_gltf(R"({"scale": [-1,1,1], "mesh": 0})", "0")));
    std::vector<vec3> tm = triangle0(rmir.sd);
    EXPECT_GT(glm::cross(tm[1] - tm[0], tm[2] - tm[0]).z, 0.0f);
    Imported rid = import_file(write_tmp("plain.gltf", tiny_gltf(R"({"mesh": 0})", "0")));
    std::vector<vec3> tp = triangle0(rid.sd);
    EXPECT_GT(glm::cross(tp[1] - tp[0], tp[2] - tp[0]).z, 0.0f);

    // an orthographic camera is warned about, not used
    std::string ortho =
        R"(, "cameras": [{"type": "orthographic", "orthographic": {"xmag": 1, "ymag": 1, "znear": 0.1, "zfar": 10}}])";
    Imported ro =
        import_file(write_tmp("ortho.gltf", tiny_gltf(R"({"mesh": 0, "children": [1]}, {"camera": 0})", "0", ortho)));
    EXPECT_FALSE(ro.gi.has_camera);
    EXPECT_TRUE(has_warning(ro.gi, "orthographic camera 0 is not supported"));
}

// Texture orientation: v = 0 at the image's top row; a normal map's +Y (green) toward the image's top.
TEST(Gltf, TextureAndNormalMapOrientation) {
    // quad in z = 0 facing +z with the image upright on it: uv (0,0) at the top left corner (-1, 1)
    std::vector<float> pos = {-1, 1, 0, -1, -1, 0, 1, -1, 0, 1, 1, 0};
    std::vector<float> uv = {0, 0, 0, 1, 1, 1, 1, 0};
    std::vector<uint16_t> idx = {0, 1, 2, 0, 2, 3};
    std::vector<unsigned char> buf;
    append(buf, pos);
    size_t uoff = buf.size();
    append(buf, uv);
    size_t ioff = buf.size();
    append(buf, idx);
    while (buf.size() % 4) buf.push_back(0);
    std::string color = png_data_uri(1, 2, {255, 0, 0, 0, 255, 0});  // top row red, bottom row green
    std::string normal = png_data_uri(1, 1, {128, 204, 230});        // tangent-space (0, 0.6, 0.8): toward the top
    std::string g = R"({"asset": {"version": "2.0"}, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2, "material": 0}]}],
      "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0},
                     "normalTexture": {"index": 1}, "emissiveFactor": [0.5, 0.5, 0.5]}],
      "textures": [{"source": 0}, {"source": 1}], "images": [{"uri": ")" +
                    color + R"("}, {"uri": ")" + normal + R"("}],
      "buffers": [{"byteLength": )" +
                    std::to_string(buf.size()) + R"(, "uri": "data:application/octet-stream;base64,)" + base64(buf) +
                    R"("}],
      "bufferViews": [{"buffer": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": )" +
                    std::to_string(uoff) + R"(, "byteLength": 32}, {"buffer": 0, "byteOffset": )" +
                    std::to_string(ioff) + R"(, "byteLength": 12}],
      "accessors": [{"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3"},
                    {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC2"},
                    {"bufferView": 2, "componentType": 5123, "count": 6, "type": "SCALAR"}]})";
    Imported r = import_file(write_tmp("textured.gltf", g));
    EXPECT_EQ(r.gi.triangles, 2u);
    ASSERT_EQ(r.sd.textures.size(), 2u);
    // factor-only emission: the quad's triangles are area lights, one-sided (doubleSided false)
    ASSERT_EQ(r.sd.lights.size(), 2u);
    EXPECT_EQ(r.sd.lights[0].two_sided, 0u);
    expect_near(r.sd.lights[0].Le, vec3(0.5f), 0.0f, "Le");
    EXPECT_EQ(r.sd.principled[0].emissive.x, 0.0f);  // not counted twice
    SceneView s = r.sd.view();
    auto shade_at = [&](float y, vec3& color, vec3& ns) {
        Ray ray{vec3(0.1f, y, 5), vec3(0, 0, -1)};
        Hit h = intersect_closest(s, ray);
        ASSERT_NE(h.prim, kInvalid);
        SurfacePoint sp = surface_point(s.prims, h, ray);
        vec3 emitted;
        MatParams m = resolve_material(s, MatHandle{load4(&s.prims.info[h.prim]).y}, sp, emitted);
        color = m.color;
        ns = sp.ns;
    };
    vec3 c, n;
    shade_at(0.5f, c, n);  // v = 0.25: the top row
    EXPECT_NEAR(c.x, 1.0f, 1e-3f);
    EXPECT_NEAR(c.y, 0.0f, 1e-3f);
    EXPECT_GT(n.y, 0.5f);  // tilted toward the image's top, world +y
    EXPECT_NEAR(n.x, 0.0f, 0.02f);
    shade_at(-0.5f, c, n);  // v = 0.75: the bottom row
    EXPECT_NEAR(c.x, 0.0f, 1e-3f);
    EXPECT_NEAR(c.y, 1.0f, 1e-3f);
}

TEST(Gltf, MalformedFilesThrowSceneErrorNamingTheFile) {
    std::string nodes = R"({"mesh": 0})";
    // accessor beyond its bufferView
    expect_error(write_tmp("acc.gltf", replace(tiny_gltf(nodes, "0"), R"("count": 3, "type": "VEC3")",
                                               R"("count": 30, "type": "VEC3")")),
                 "exceeds bufferView", "/meshes/0/primitives/0/attributes/POSITION");
    // bufferView beyond its buffer
    expect_error(write_tmp("bv.gltf", replace(tiny_gltf(nodes, "0"), R"("byteLength": 36})", R"("byteLength": 3600})")),
                 "exceeds buffer", "/attributes/POSITION");
    // index out of range
    expect_error(write_tmp("idx.gltf", tiny_gltf(nodes, "0", "", {0, 0, 0, 1, 0, 0, 0, 1, 0}, {0, 1, 7})),
                 "/meshes/0/primitives/0/indices: index 7 out of range (3 vertices)");
    // NaN position
    float nan = std::numeric_limits<float>::quiet_NaN();
    expect_error(write_tmp("nan.gltf", tiny_gltf(nodes, "0", "", {0, 0, 0, nan, 0, 0, 0, 1, 0})),
                 "vertex 1 is not finite", "/attributes/POSITION");
    // missing file, empty file, not glTF
    expect_error(tmp("no-such-file.glb"), "cannot open");
    expect_error(write_tmp("empty.gltf", ""), "empty file");
    expect_error(write_tmp("garbage.gltf", "this is not json"), ":1:2: JSON syntax error: invalid literal");
    {  // a syntax error, a number out of range and a duplicate key: the place, in the project's words
        std::string m;
        try {
            SceneBuilder b;
            import_gltf(write_tmp("overflow.gltf", "{\"asset\": {\"version\": \"2.0\"},\n \"scene\": 1e309}"),
                        mat4(1.0f), b, 1.0f);
        } catch (const SceneError& e) { m = e.what(); }
        EXPECT_EQ(m, tmp("overflow.gltf") +
                         ":2:11: the number 1e309 is out of range (a number must be finite, at most "
                         "about 1.8e308)");
        EXPECT_EQ(m.find("json.exception"), std::string::npos);
    }
    expect_error(write_tmp("dup.gltf", R"({"asset": {"version": "2.0"}, "scene": 0, "scene": 1})"),
                 "/scene: duplicate key 'scene'");
    // a .glb whose first bytes are not the binary header's magic (a JSON glTF renamed): said so, not a JSON error
    expect_error(write_tmp("json-renamed.glb", R"({"asset": {"version": "2.0"}})"),
                 "the glTF binary header's magic is '{\"as', expected 'glTF' (not a binary glTF file)");
    expect_error(write_tmp("zeros.glb", std::string(8, '\0')), "magic is '\\x00\\x00\\x00\\x00', expected 'glTF'");
    // missing external buffer (named, with the folder searched) and image
    const std::string folder = wp_test::temp_dir().substr(0, wp_test::temp_dir().size() - 1);
    expect_error(write_tmp("nobuf.gltf",
                           R"({"asset": {"version": "2.0"}, "buffers": [{"byteLength": 12, "uri": "missing.bin"}]})"),
                 "/buffers/0/uri: buffer 'missing.bin' not found (looked in the folder '" + folder + "')");
    // a folder given as the glTF file
    ::mkdir(tmp("folder.gltf").c_str(), 0755);
    expect_error(tmp("folder.gltf"), ": is a folder, not a glTF file");
    std::string img =
        R"(, "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}], "textures": [{"source": 0}],
                          "images": [{"uri": "missing-texture.png"}])";
    std::string withmat = replace(tiny_gltf(nodes, "0", img), R"("indices": 1})", R"("indices": 1, "material": 0})");
    expect_error(write_tmp("noimg.gltf", withmat), "missing-texture.png", "/images/0");
    // empty scene, bad references, cycles
    expect_error(write_tmp("emptyscene.gltf", tiny_gltf(nodes, "")), "no triangles", "/scenes/0");
    expect_error(write_tmp("badmesh.gltf", tiny_gltf(R"({"mesh": 5})", "0")), "mesh 5 does not exist", "/nodes/0/mesh");
    expect_error(write_tmp("badnode.gltf", tiny_gltf(nodes, "3")), "node 3 does not exist", "/scenes/0/nodes/0");
    expect_error(write_tmp("cycle.gltf", tiny_gltf(R"({"children": [1]}, {"children": [0], "mesh": 0})", "0")),
                 "not a tree");
    expect_error(
        write_tmp("badmat.gltf", replace(tiny_gltf(nodes, "0"), R"("indices": 1})", R"("indices": 1, "material": 4})")),
        "material 4 does not exist", "/meshes/0/primitives/0/material");
    // truncated .glb: only the header, and half the file
    std::ifstream f(helmet_path(), std::ios::binary);
    std::string glb((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_GT(glb.size(), 1000u);
    expect_error(write_tmp("trunc-header.glb", glb.substr(0, 16)), "");
    expect_error(write_tmp("trunc-half.glb", glb.substr(0, glb.size() / 2)), "");
    // the native scene format passes the errors on
    std::string scene =
        R"({"camera": {"position": [0,0,5], "target": [0,0,0]}, "objects": [{"type": "gltf", "file": ")" +
        tmp("idx.gltf") + R"("}]})";
    EXPECT_THROW(load_scene_json(write_tmp("bad-gltf-scene.json", scene)), SceneError);
}

// Random byte mutations of a small .glb: each load either succeeds or throws SceneError.
TEST(Gltf, MutatedGlbNeverCrashes) {
    std::string json = tiny_gltf(R"({"mesh": 0, "translation": [0, 0, 1]})", "0");
    // same model with its buffer in the GLB's BIN chunk
    std::vector<float> pos = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    std::vector<uint16_t> idx = {0, 1, 2};
    std::vector<unsigned char> bin;
    append(bin, pos);
    append(bin, idx);
    while (bin.size() % 4) bin.push_back(0);
    size_t a = json.find(R"(, "uri": "data:)"), z = json.find('"', a + 18);
    json.erase(a, z + 1 - a);
    while (json.size() % 4) json += ' ';
    auto u32 = [](std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
    std::string glb = "glTF";
    u32(glb, 2);
    u32(glb, uint32_t(12 + 8 + json.size() + 8 + bin.size()));
    u32(glb, uint32_t(json.size()));
    u32(glb, 0x4E4F534A);
    glb += json;
    u32(glb, uint32_t(bin.size()));
    u32(glb, 0x004E4942);
    glb.append(reinterpret_cast<const char*>(bin.data()), bin.size());
    {
        SceneBuilder b;
        GltfImport gi = import_gltf(write_tmp("small.glb", glb), mat4(1.0f), b, 1.0f);
        EXPECT_EQ(gi.triangles, 1u);
    }
    std::mt19937 rng(7);
    int ok = 0, errors = 0;
    for (int it = 0; it < 400; ++it) {
        std::string m = glb;
        int edits = 1 + int(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            size_t at = rng() % m.size();
            switch (rng() % 3) {
                case 0: m[at] = char(rng()); break;                         // random byte
                case 1: m[at] = "0123456789-e.\"[]{},"[rng() % 19]; break;  // JSON-ish byte
                default: m.resize(std::max<size_t>(1, at)); break;          // truncation
            }
        }
        std::string p = write_tmp("mutated.glb", m);
        try {
            SceneBuilder b;
            import_gltf(p, mat4(1.0f), b, 1.0f);
            b.build();
            ++ok;
        } catch (const SceneError& e) {
            ++errors;
            EXPECT_EQ(std::string(e.what()).rfind(p, 0), 0u) << e.what();
        }
    }
    std::printf("mutated .glb: %d loaded, %d SceneError\n", ok, errors);
    EXPECT_GT(errors, 0);
}

TEST(Gltf, NativeSceneObjectWithTransform) {
    std::string g = write_tmp("native.gltf", tiny_gltf(R"({"translation": [0, 0, 1], "mesh": 0})", "0"));
    std::string scene = R"({"camera": {"position": [0,0,5], "target": [0,0,0]}, "background": [1,1,1],
      "objects": [{"type": "gltf", "file": ")" +
                        g + R"(", "transform": {"matrix": [1,0,0,10, 0,1,0,0, 0,0,1,0, 0,0,0,1]}}]})";
    LoadedScene ls = load_scene_json(write_tmp("native-scene.json", scene));
    ASSERT_EQ(ls.data.num_primitives, 1u);
    std::vector<vec3> t = triangle0(ls.data);
    expect_near(t[0], vec3(10, 0, 1), 1e-6f, "v0");
    expect_near(t[1], vec3(11, 0, 1), 1e-6f, "v1");
    expect_near(t[2], vec3(10, 1, 1), 1e-6f, "v2");
    EXPECT_EQ(ls.data.principled.size(), 1u);  // the glTF default material
    // the repository's benchmark scenes load
    LoadedScene helm = load_scene_json(wp_test::source_dir() + "/scenes/helmet.json");
    EXPECT_EQ(helm.data.num_primitives, 15452u);
    for (const std::string& w : helm.warnings) EXPECT_NE(w.find("helmet.json"), std::string::npos) << w;
}
