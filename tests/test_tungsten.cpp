// Tungsten scenes and .wo3 meshes: transforms against Tungsten's conventions and the Mitsuba-derived native Cornell
// box, the Cornell render against Mitsuba's reference, the water-caustic scene, malformed inputs.
#include <gtest/gtest.h>
#include "kernels/filter.h"
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <glm/gtc/matrix_transform.hpp>
#include "host/render/render.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_tungsten.h"
#include "kernels/environment.h"
#include "tests/cornell_reference.h"
#include "tests/cornell_scene.h"
using namespace wp;
using json = nlohmann::json;

namespace {
std::string tmp(const std::string& name) { return wp_test::temp_dir() + name; }
std::string write_text(const std::string& name, const std::string& text) {
    std::string p = tmp(name);
    std::ofstream(p) << text;
    return p;
}
json read_json(const std::string& path) {
    std::ifstream f(path);
    return json::parse(f);
}

// .wo3 writer for the tests: little-endian as the format says (the test machines are little-endian).
struct V {
    float p[3], n[3], uv[2];
};
struct T {
    uint32_t v[3];
    int32_t m;
};
std::string wo3_bytes(const std::vector<V>& vs, const std::vector<T>& ts, uint64_t nv_override = ~0ull) {
    std::string s;
    auto put = [&](const void* d, size_t n) { s.append(static_cast<const char*>(d), n); };
    uint64_t nv = nv_override == ~0ull ? vs.size() : nv_override, nt = ts.size();
    put(&nv, 8);
    for (const V& v : vs) put(&v, 32);
    put(&nt, 8);
    for (const T& t : ts) put(&t, 16);
    return s;
}
std::string write_bytes(const std::string& name, const std::string& bytes) {
    std::string p = tmp(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    return p;
}
// A unit square in the xz plane (y = 0), normals +y, as two triangles with materials 0 and 1.
std::vector<V> square_verts() {
    return {{{0, 0, 0}, {0, 1, 0}, {0, 0}},
            {{1, 0, 0}, {0, 1, 0}, {1, 0}},
            {{1, 0, 1}, {0, 1, 0}, {1, 1}},
            {{0, 0, 1}, {0, 1, 0}, {0, 1}}};
}
std::vector<T> square_tris() { return {{{0, 2, 1}, 0}, {{0, 3, 2}, 1}}; }

void expect_mesh_error(const std::string& path, const std::string& what) {
    try {
        load_wo3(path);
        ADD_FAILURE() << "no MeshError for " << what;
    } catch (const MeshError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(path), std::string::npos) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    }
}

struct Counts {
    size_t tris = 0, quads = 0, spheres = 0;
};
// Primitives by shape; a primitive that spatial splits put in several leaf slots (identical records) counts once.
Counts count(const SceneData& d) {
    Counts c;
    std::set<std::vector<uint32_t>> seen;
    for (size_t j = 0; j < d.info.size(); ++j) {
        const U4& i = d.info[j];
        std::vector<uint32_t> key(13);
        std::memcpy(key.data(), &d.geom[3 * j], 48);
        key[12] = i.y;
        if (!seen.insert(key).second) continue;
        if (i.x == uint32_t(ShapeType::Triangle)) ++c.tris;
        if (i.x == uint32_t(ShapeType::Quad)) ++c.quads;
        if (i.x == uint32_t(ShapeType::Sphere)) ++c.spheres;
    }
    return c;
}
void expect_near(vec3 a, vec3 b, float tol, const std::string& what) {
    EXPECT_LT(glm::length(a - b), tol) << what << ": (" << a.x << ", " << a.y << ", " << a.z << ") vs (" << b.x << ", "
                                       << b.y << ", " << b.z << ")";
}
// Every point of `a` has a point of `b` within tol, and the other way round.
void expect_same_points(const std::vector<vec3>& a, const std::vector<vec3>& b, float tol, const std::string& what) {
    ASSERT_EQ(a.size(), b.size());
    for (int pass = 0; pass < 2; ++pass) {
        const auto& x = pass ? b : a;
        const auto& y = pass ? a : b;
        for (vec3 p : x) {
            float best = 1e30f;
            for (vec3 q : y) best = std::min(best, glm::length(p - q));
            EXPECT_LT(best, tol) << what << ": corner (" << p.x << ", " << p.y << ", " << p.z << ") unmatched";
        }
    }
}
mat4 native_matrix(const json& m) {
    mat4 M;
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) M[c][r] = m[r * 4 + c].get<float>();
    return M;
}
vec3 xf(const mat4& M, vec3 p) { return vec3(M * vec4(p, 1.0f)); }
}  // namespace

// ---------------------------------------------------------------------------------------------- transforms

TEST(TungstenTransform, QuadRotatedAboutXHasTungstenCorners) {
    // rotation 90 degrees about x: y -> z and z -> -y; the quad [-0.5,0.5]^2 in xz, normal +y, becomes the
    // square in the xy plane with normal +z; then scaled by 2 and moved to (1, 2, 3)
    mat4 M = tungsten_transform(json::parse(R"({"position": [1,2,3], "scale": 2, "rotation": [90, 0, 0]})"));
    vec3 e0 = vec3(M * vec4(1, 0, 0, 0)), e1 = vec3(M * vec4(0, 0, 1, 0));
    expect_near(e0, vec3(2, 0, 0), 1e-5f, "edge0");
    expect_near(e1, vec3(0, -2, 0), 1e-5f, "edge1");
    expect_near(glm::normalize(glm::cross(e1, e0)), vec3(0, 0, 1), 1e-5f, "normal");
    std::vector<vec3> corners;
    for (float x : {-0.5f, 0.5f})
        for (float z : {-0.5f, 0.5f}) corners.push_back(xf(M, vec3(x, 0, z)));
    expect_same_points(corners, {vec3(0, 1, 3), vec3(2, 1, 3), vec3(0, 3, 3), vec3(2, 3, 3)}, 1e-5f, "corners");
}

TEST(TungstenTransform, RotationIsTungstenRotYXZ) {
    // Tungsten's Mat4f::rotYXZ written out element by element (row-major), for angles on all three axes
    const float ax = 30, ay = -50, az = 70;
    float r[3] = {ax * kPi / 180, ay * kPi / 180, az * kPi / 180};
    float c[3] = {std::cos(r[0]), std::cos(r[1]), std::cos(r[2])},
          s[3] = {std::sin(r[0]), std::sin(r[1]), std::sin(r[2])};
    float ref[3][3] = {{c[1] * c[2] - s[1] * s[0] * s[2], -c[1] * s[2] - s[1] * s[0] * c[2], -s[1] * c[0]},
                       {c[0] * s[2], c[0] * c[2], -s[0]},
                       {s[1] * c[2] + c[1] * s[0] * s[2], -s[1] * s[2] + c[1] * s[0] * c[2], c[1] * c[0]}};
    mat4 M = tungsten_transform(json::parse(R"({"rotation": [30, -50, 70], "scale": [1, 2, 3]})"));
    const float sc[3] = {1, 2, 3};  // scale first, then the rotation: column k of M is rot * (scale_k e_k)
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col) EXPECT_NEAR(M[col][row], ref[row][col] * sc[col], 1e-5f) << row << "," << col;
    // a 16-number transform is row-major
    mat4 A = tungsten_transform(json::parse("[1,0,0,5, 0,1,0,6, 0,0,1,7, 0,0,0,1]"));
    expect_near(xf(A, vec3(0)), vec3(5, 6, 7), 1e-6f, "row-major translation");
    // look_at / up: z toward the target, y up, right-handed
    mat4 L = tungsten_transform(json::parse(R"({"position": [0,0,5], "look_at": [0,0,0], "up": [0,1,0]})"));
    expect_near(vec3(L[2]), vec3(0, 0, -1), 1e-6f, "z axis");
    expect_near(vec3(L[1]), vec3(0, 1, 0), 1e-6f, "y axis");
    expect_near(vec3(L[0]), vec3(-1, 0, 0), 1e-6f, "x axis (y x z)");
}

TEST(TungstenCornell, GeometryMatchesTheMitsubaDerivedNativeScene) {
    // scenes/cornell-box.json holds Mitsuba's to_world matrices (rectangle [-1,1]^2 at z = 0, normal +z; cube [-1,1]^3);
    // the Tungsten file the same box as position/scale/rotation of Tungsten's quad ([-0.5,0.5]^2 at y = 0, normal
    // edge1 x edge0) and cube ([-0.5,0.5]^3). The primitives come in the same order in both files.
    json tj = read_json(wp_test::source_dir() + "/scenes/cornell-box/scene.json");
    json nj = read_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    ASSERT_EQ(tj["primitives"].size(), 8u);
    ASSERT_EQ(nj["objects"].size(), 8u);
    for (size_t i = 0; i < 8; ++i) {
        const json& tp = tj["primitives"][i];
        const json& np = nj["objects"][i];
        std::string what = "primitive " + std::to_string(i) + " (" + tp["bsdf"].get<std::string>() + ")";
        ASSERT_EQ(tp["type"], np["type"]) << what;
        mat4 T = tungsten_transform(tp["transform"]);
        mat4 N = native_matrix(np["transform"]["matrix"]);
        std::vector<vec3> a, b;
        if (tp["type"] == "quad") {
            for (float x : {-1.0f, 1.0f})
                for (float y : {-1.0f, 1.0f}) {
                    a.push_back(xf(T, vec3(0.5f * x, 0, 0.5f * y)));
                    b.push_back(xf(N, vec3(x, y, 0)));
                }
            vec3 tn = glm::normalize(glm::cross(vec3(T * vec4(0, 0, 1, 0)), vec3(T * vec4(1, 0, 0, 0))));
            vec3 nn = glm::normalize(glm::cross(vec3(N * vec4(1, 0, 0, 0)), vec3(N * vec4(0, 1, 0, 0))));
            expect_near(tn, nn, 1e-4f, what + " normal");
        } else {
            for (int k = 0; k < 8; ++k) {
                vec3 s(k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1);
                a.push_back(xf(T, 0.5f * s));
                b.push_back(xf(N, s));
            }
        }
        expect_same_points(a, b, 2e-4f, what);
    }
}

// ---------------------------------------------------------------------------------------------- the Cornell box

TEST(TungstenCornell, LoadsWithCameraLightAndCounts) {
    LoadedScene s = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box/scene.json");
    Counts n = count(s.data);
    EXPECT_EQ(n.quads, 6u + 12u);  // five walls and the light, two cubes of six faces
    EXPECT_EQ(n.tris, 0u);
    EXPECT_EQ(n.spheres, 0u);
    ASSERT_EQ(s.data.lights.size(), 1u);
    expect_near(s.data.lights[0].Le, vec3(17, 12, 4), 1e-5f, "light radiance");
    EXPECT_NEAR(s.data.lights[0].area, 0.47f * 0.38f, 1e-5f);
    EXPECT_EQ(s.data.lights[0].two_sided, 0u);
    const CameraData& c = s.data.camera;
    expect_near(c.pos, vec3(0, 1, 6.8f), 1e-6f, "camera position");
    expect_near(c.forward, vec3(0, 0, -1), 1e-6f, "forward");
    expect_near(c.right, vec3(1, 0, 0), 1e-6f, "right");
    expect_near(c.up, vec3(0, 1, 0), 1e-6f, "up");
    EXPECT_NEAR(c.tan_half_fov_y, std::tan(0.5f * 19.5f * kPi / 180.0f), 1e-6f);  // square image: h fov = v fov
    EXPECT_FLOAT_EQ(c.aspect, 1.0f);
    EXPECT_EQ(c.lens_radius, 0.0f);
    EXPECT_EQ(s.params.width, 1024u);
    EXPECT_EQ(s.params.height, 1024u);
    EXPECT_EQ(s.params.spp, 64u);
    EXPECT_EQ(s.params.max_depth, 65u);  // Tungsten's 64 bounces
    EXPECT_EQ(s.params.light_sampling, 1u);
    // Tungsten's default 'tent' filter is mapped (radius 1, kernels/filter.h), with no warning any more
    bool filter_warned = false;
    for (const std::string& w : s.warnings)
        filter_warned |= w.find("/camera/reconstruction_filter") != std::string::npos;
    EXPECT_FALSE(filter_warned);
    EXPECT_EQ(s.params.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(s.params.filter_radius, 1.0f);
}

TEST(TungstenCornell, CpuMeanMatchesMitsubaReference) {
    const std::array<double, 3> rmean = wp_test::reference_means();
    ASSERT_GT(rmean[0], 0.1);  // the reference is a real image

    LoadedScene s = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box/scene.json");
    RenderParams rp = s.params;  // max_depth 65 from Tungsten's max_bounces 64
    rp.width = rp.height = 128;
    rp.spp = 16;
    // Four independent renders of 16 spp (64 spp in all): their spread estimates the noise of the mean.
    const int K = 4;
    std::vector<Image> imgs;
    double m[K][3] = {};
    for (int k = 0; k < K; ++k) {
        rp.seed = 100 + k;
        imgs.push_back(render_cpu_megakernel(s.data, rp));
        EXPECT_EQ(imgs.back().nonfinite, 0u);
        for (uint32_t i = 0; i < rp.num_pixels(); ++i)
            for (int c = 0; c < 3; ++c) m[k][c] += imgs.back().rgb[3 * i + c] / rp.num_pixels();
    }
    for (int c = 0; c < 3; ++c) {
        double mean = 0, var = 0;
        for (int k = 0; k < K; ++k) mean += m[k][c] / K;
        for (int k = 0; k < K; ++k) var += (m[k][c] - mean) * (m[k][c] - mean) / (K - 1);
        double sigma = std::sqrt(var / K);  // standard error of the 64-spp mean
        // 0.3%: several times the measured noise (about 0.05-0.1%, printed), far below what a wrong quad
        // orientation, cube size or field of view does (percents to tens of percents)
        double tol = 0.003 * rmean[c];
        std::printf(
            "channel %d: wavepath (Tungsten scene) %.5f  mitsuba %.5f  (%+.3f%%), noise sigma %.3f%%, tolerance "
            "%.2f%%\n",
            c, mean, rmean[c], 100 * (mean / rmean[c] - 1), 100 * sigma / rmean[c], 100 * tol / rmean[c]);
        EXPECT_NEAR(mean, rmean[c], tol) << "channel " << c;
    }
    const Image& img = imgs[0];
    // red wall on the left, green on the right
    double left_r = 0, left_g = 0, right_r = 0, right_g = 0;
    for (uint32_t y = 32; y < 96; ++y) {
        left_r += img.rgb[3 * (y * 128 + 6) + 0];
        left_g += img.rgb[3 * (y * 128 + 6) + 1];
        right_r += img.rgb[3 * (y * 128 + 121) + 0];
        right_g += img.rgb[3 * (y * 128 + 121) + 1];
    }
    EXPECT_GT(left_r, 2 * left_g);
    EXPECT_GT(right_g, 2 * right_r);
}

// ---------------------------------------------------------------------------------------------- water caustic

TEST(TungstenWaterCaustic, LoadsAndRenders) {
    LoadedScene s = load_scene_json(wp_test::source_dir() + "/scenes/water-caustic/scene.json");
    Counts n = count(s.data);
    EXPECT_EQ(n.tris, 103451u);  // water.wo3 (102,938) + front.wo3 (513)
    EXPECT_EQ(n.quads, 6u + 12u);
    ASSERT_EQ(s.data.lights.size(), 1u);
    // power (34, 24, 8) on a quad of 0.005 x 0.004: radiance = power / (pi area), as Tungsten
    vec3 Le = vec3(34, 24, 8) / (kPi * 0.005f * 0.004f);
    expect_near(s.data.lights[0].Le / Le, vec3(1.0f), 1e-4f, "light radiance");
    EXPECT_EQ(s.params.width, 1000u);
    EXPECT_EQ(s.params.height, 563u);
    EXPECT_EQ(s.params.max_depth, 9u);
    // horizontal fov 35 at 1000x563
    EXPECT_NEAR(s.data.camera.tan_half_fov_y, std::tan(0.5f * 35.0f * kPi / 180.0f) * 563.0f / 1000.0f, 1e-6f);
    EXPECT_GE(s.data.dielectric.size(), 1u);
    EXPECT_NEAR(s.data.dielectric[0].ior, 1.8f, 1e-6f);
    // everything inside the box [-1,1] x [0,2] x [-1,1] (the water, scaled by 1.5 in y, reaches 1.67; the box's
    // cubes sink 1 cm into the floor in the file)
    vec3 lo(1e30f), hi(-1e30f);
    for (size_t i = 0; i < s.data.info.size(); ++i) {
        const F4* g = &s.data.geom[3 * i];
        vec3 a(g[0].x, g[0].y, g[0].z), e1(g[1].x, g[1].y, g[1].z), e2(g[2].x, g[2].y, g[2].z);
        for (vec3 p : {a, a + e1, a + e2}) lo = glm::min(lo, p), hi = glm::max(hi, p);
    }
    for (int k = 0; k < 3; ++k) {
        EXPECT_GT(lo[k], (k == 1 ? 0.0f : -1.0f) - 0.02f) << k;
        EXPECT_LT(hi[k], (k == 1 ? 2.0f : 1.0f) + 0.02f) << k;
    }
    bool integrator_warned = false;
    for (const std::string& w : s.warnings) integrator_warned |= w.find("progressive_photon_map") != std::string::npos;
    EXPECT_TRUE(integrator_warned);
    for (const std::string& w : s.warnings)
        EXPECT_EQ(w.find("/primitives/"), std::string::npos) << w;  // nothing else unsupported

    RenderParams rp = s.params;
    rp.width = 64;
    rp.height = 36;
    rp.spp = 4;
    rp.max_depth = 9;
    Image img = render_cpu_megakernel(s.data, rp);
    EXPECT_EQ(img.nonfinite, 0u);
    double sum = 0;
    size_t lit = 0;
    for (float v : img.rgb) {
        ASSERT_TRUE(std::isfinite(v));
        sum += v;
        lit += v > 0.0f;
    }
    EXPECT_GT(sum, 0.0);
    EXPECT_GT(lit, img.rgb.size() / 10);
}

// ---------------------------------------------------------------------------------------------- .wo3 files

TEST(TungstenWo3, ValidFileLoads) {
    std::string p = write_bytes("square.wo3", wo3_bytes(square_verts(), square_tris()));
    ObjMesh m = load_wo3(p);
    ASSERT_EQ(m.triangles(), 2u);
    EXPECT_EQ(m.material[0], 0);
    EXPECT_EQ(m.material[1], 1);
    expect_near(m.pos[0], vec3(0, 0, 0), 1e-7f, "corner 0");
    expect_near(m.pos[1], vec3(1, 0, 1), 1e-7f, "corner 1");
    expect_near(m.pos[2], vec3(1, 0, 0), 1e-7f, "corner 2");
    // winding (0, 2, 1) faces +y, like the normals
    EXPECT_GT(glm::cross(m.pos[1] - m.pos[0], m.pos[2] - m.pos[0]).y, 0.0f);
    for (int k = 0; k < 6; ++k) expect_near(m.normal[k], vec3(0, 1, 0), 1e-6f, "normal");
    EXPECT_TRUE(m.has_normals[0] && m.has_uv[0]);
    // v flipped to run downward
    EXPECT_EQ(m.uv[1], vec2(1, 0));  // file uv (1, 1)
    EXPECT_EQ(m.uv[2], vec2(1, 1));  // file uv (1, 0)
    // under a transform: positions moved, normals by the inverse transpose; a mirror keeps the outward side
    mat4 M = glm::scale(glm::translate(mat4(1.0f), vec3(0, 5, 0)), vec3(2, 3, -1));
    ObjMesh t = load_wo3(p, M);
    for (size_t i = 0; i < t.triangles(); ++i) {
        EXPECT_EQ(t.pos[3 * i].y, 5.0f);
        EXPECT_GT(glm::cross(t.pos[3 * i + 1] - t.pos[3 * i], t.pos[3 * i + 2] - t.pos[3 * i]).y, 0.0f);
        expect_near(t.normal[3 * i], vec3(0, 1, 0), 1e-6f, "transformed normal");
    }
    // zero normals: no shading normals for that triangle
    auto vs = square_verts();
    for (V& v : vs) std::memset(v.n, 0, sizeof v.n);
    EXPECT_FALSE(load_wo3(write_bytes("flat.wo3", wo3_bytes(vs, square_tris()))).has_normals[0]);
    // trailing bytes: a warning
    ObjMesh w = load_wo3(write_bytes("trailing.wo3", wo3_bytes(square_verts(), square_tris()) + "xx"));
    ASSERT_EQ(w.warnings.size(), 1u);
}

TEST(TungstenWo3, MalformedFilesThrowNamingTheFile) {
    std::string good = wo3_bytes(square_verts(), square_tris());
    expect_mesh_error(write_bytes("trunc1.wo3", good.substr(0, good.size() - 5)), "does not fit");
    expect_mesh_error(write_bytes("trunc2.wo3", good.substr(0, 8 + 4 * 32)), "truncated");
    expect_mesh_error(write_bytes("trunc3.wo3", good.substr(0, 5)), "truncated");
    expect_mesh_error(write_bytes("absurd.wo3", wo3_bytes(square_verts(), square_tris(), 1ull << 60)), "vertex count");
    std::vector<T> bad_idx = square_tris();
    bad_idx[1].v[2] = 4;
    expect_mesh_error(write_bytes("index.wo3", wo3_bytes(square_verts(), bad_idx)), "out of range");
    std::vector<V> nan_v = square_verts();
    nan_v[2].p[1] = std::nanf("");
    expect_mesh_error(write_bytes("nan.wo3", wo3_bytes(nan_v, square_tris())), "non-finite");
    std::vector<V> inf_uv = square_verts();
    inf_uv[3].uv[0] = INFINITY;
    expect_mesh_error(write_bytes("inf.wo3", wo3_bytes(inf_uv, square_tris())), "non-finite");
    expect_mesh_error(write_bytes("empty.wo3", wo3_bytes(square_verts(), {})), "no triangles");
    expect_mesh_error(tmp("does-not-exist.wo3"), "cannot open");
}

// ---------------------------------------------------------------------------------------------- Tungsten scenes

namespace {
// A small Tungsten scene: a quad floor, a mesh, a sphere light; `{MESH}` is replaced by a .wo3 path.
const char* kScene = R"({
  "bsdfs": [{"name": "white", "type": "lambert", "albedo": 0.5},
            {"name": "gold", "type": "rough_conductor", "material": "Au", "roughness": 0.2, "albedo": [1, 0.5, 1]}],
  "primitives": [
    {"type": "quad", "bsdf": "white", "transform": {"scale": [4, 1, 4]}},
    {"type": "mesh", "file": "{MESH}", "bsdf": ["white", "gold"], "smooth": true, "transform": {"position": [0, 1, 0]}},
    {"type": "sphere", "bsdf": {"type": "null"}, "power": 10, "transform": {"position": [0, 3, 0], "scale": 0.5}},
    {"type": "disk", "bsdf": "white", "emission": 1, "transform": {"position": [0, 2, 0], "scale": 0.5, "rotation": [180, 0, 0]}}
  ],
  "camera": {"type": "thinlens", "resolution": [40, 20], "fov": 90, "aperture_size": 0.01, "focus_distance": 4,
             "transform": {"position": [0, 1, 4], "look_at": [0, 1, 0], "up": [0, 1, 0]}},
  "integrator": {"type": "path_tracer", "max_bounces": 3, "enable_light_sampling": true},
  "renderer": {"spp": 5}
})";
std::string scene_text(const std::string& mesh) {
    std::string s = kScene;
    size_t i = s.find("{MESH}");
    return s.replace(i, 6, mesh);
}
std::string mesh_path() { return write_bytes("scene-square.wo3", wo3_bytes(square_verts(), square_tris())); }
std::string replace(std::string s, const std::string& from, const std::string& to) {
    size_t i = s.find(from);
    EXPECT_NE(i, std::string::npos) << from;
    return i == std::string::npos ? s : s.replace(i, from.size(), to);
}
void expect_scene_error(const std::string& text, const std::string& ptr, const std::string& what) {
    std::string p = write_text("bad-tungsten.json", text);
    try {
        load_scene_json(p);
        ADD_FAILURE() << "no SceneError for " << ptr;
    } catch (const SceneError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find(p + ": " + ptr + ":"), std::string::npos) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    }
}
}  // namespace

TEST(TungstenScene, SmallSceneLoads) {
    std::string mp = mesh_path();
    LoadedScene s = load_scene_json(write_text("small-tungsten.json", scene_text(mp)));
    Counts n = count(s.data);
    EXPECT_EQ(n.quads, 1u);
    EXPECT_EQ(n.spheres, 1u);
    EXPECT_EQ(n.tris, 2u + 128u);  // the mesh, the disk's fan
    EXPECT_EQ(s.params.width, 40u);
    EXPECT_EQ(s.params.height, 20u);
    EXPECT_EQ(s.params.spp, 5u);
    EXPECT_EQ(s.params.max_depth, 4u);
    EXPECT_EQ(s.params.sampler, uint32_t(kSamplerSobol));  // Tungsten's default: its Sobol sampler
    const std::string uniform = replace(scene_text(mp), R"("spp": 5)", R"("spp": 5, "stratified_sampler": false)");
    EXPECT_EQ(load_scene_json(write_text("uniform-tungsten.json", uniform)).params.sampler,
              uint32_t(kSamplerIndependent));
    EXPECT_NEAR(s.data.camera.lens_radius, 0.01f, 1e-7f);
    EXPECT_NEAR(s.data.camera.focus_dist, 4.0f, 1e-6f);
    EXPECT_NEAR(s.data.camera.tan_half_fov_y, 0.5f, 1e-6f);  // horizontal fov 90 at 2:1
    // sphere light: radiance = power / (pi 4 pi r^2); the disk: 128 lights facing down (rotated 180 about x)
    float sphere_Le = 0, disk_area = 0;
    size_t disk_lights = 0;
    for (const Light& l : s.data.lights) {
        uint32_t type = s.data.info[l.prim].x;
        if (type == uint32_t(ShapeType::Sphere)) sphere_Le = l.Le.x;
        if (type == uint32_t(ShapeType::Triangle)) {
            ++disk_lights;
            disk_area += l.area;
            const F4* g = &s.data.geom[3 * l.prim];
            vec3 nrm = glm::cross(vec3(g[1].x, g[1].y, g[1].z), vec3(g[2].x, g[2].y, g[2].z));
            EXPECT_LT(nrm.y, 0.0f);
        }
    }
    EXPECT_NEAR(sphere_Le, 10.0f / (kPi * 4.0f * kPi * 0.25f), 1e-5f);
    EXPECT_EQ(disk_lights, 128u);
    EXPECT_NEAR(disk_area, kPi * 0.25f, 1e-4f);
    // the gold's albedo multiplies the complex Fresnel; the mesh's second triangle uses it (material index 1)
    bool tinted = false;
    for (const ConductorData& cd : s.data.conductor) tinted |= cd.color == vec3(1, 0.5f, 1) && cd.alpha == 0.2f;
    EXPECT_TRUE(tinted);
    // counted over distinct primitives: with spatial splits a triangle may sit in several leaf slots, which share
    // its attribute record
    std::set<std::array<float, 9>> conductor_tris;
    std::set<uint32_t> smooth_attrs;
    for (size_t k = 0; k < s.data.info.size(); ++k) {
        const U4& i = s.data.info[k];
        const F4* g = &s.data.geom[3 * k];
        if (i.x == uint32_t(ShapeType::Triangle) && MatHandle{i.y}.type() == MatType::Conductor)
            conductor_tris.insert({g[0].x, g[0].y, g[0].z, g[1].x, g[1].y, g[1].z, g[2].x, g[2].y, g[2].z});
        if (i.w != kInvalid && s.data.attr[4 * i.w + 3].w == 1.0f) smooth_attrs.insert(i.w);
    }
    size_t mesh_conductor = conductor_tris.size(), mesh_smooth = smooth_attrs.size();
    EXPECT_EQ(mesh_conductor, 1u);
    EXPECT_EQ(mesh_smooth, 2u);  // "smooth": the file's normals
    // renders
    RenderParams rp = s.params;
    Image img = render_cpu_megakernel(s.data, rp);
    EXPECT_EQ(img.nonfinite, 0u);
}

TEST(TungstenScene, UnsupportedThingsAreWarnedAbout) {
    std::string t = scene_text(mesh_path());
    t = replace(
        t, R"("albedo": 0.5})",
        R"("albedo": 0.5, "bump": "b.png"}, {"name": "pl", "type": "rough_plastic", "roughness": 0.04, "albedo": 0.3},
        {"name": "mx", "type": "mixed"}, {"name": "ck", "type": "lambert", "albedo": {"type": "checker", "on_color": 1, "off_color": 0}})");
    t = replace(t, R"("type": "quad", "bsdf": "white")", R"("type": "quad", "bsdf": "pl", "bump_strength": 2)");
    t = replace(
        t, R"("primitives": [)",
        R"("primitives": [{"type": "curves", "bsdf": "white"}, {"type": "cube", "bsdf": "mx", "int_medium": "fog"},)");
    t = replace(t, R"("max_bounces": 3)", R"("max_bounces": 3, "min_bounces": 1)");
    t = replace(t, R"("renderer": {)", R"("media": [{"name": "fog"}], "renderer": {"frobnicate": 1, )");
    LoadedScene s = load_scene_json(write_text("warn-tungsten.json", t));
    const char* expected[] = {"/bsdfs/0/bump",
                              "/bsdfs/1: rough_plastic approximated by the principled",
                              "/bsdfs/2/type",
                              "/bsdfs/3/albedo: checker",
                              "/primitives/0/type",
                              "/primitives/1/int_medium",
                              "/primitives/2/bump_strength",
                              "/integrator/min_bounces",
                              "/media",
                              "/renderer/frobnicate"};
    for (const char* e : expected) {
        bool found = false;
        for (const std::string& w : s.warnings) found |= w.find(e) != std::string::npos;
        EXPECT_TRUE(found) << "no warning with " << e;
    }
    // plastic -> principled, metallic 0, roughness sqrt(alpha)
    ASSERT_EQ(s.data.principled.size(), 1u);
    EXPECT_NEAR(s.data.principled[0].roughness, 0.2f, 1e-6f);
    EXPECT_EQ(s.data.principled[0].metallic, 0.0f);
    EXPECT_EQ(s.data.principled[0].base_color, vec3(0.3f));
}

TEST(TungstenScene, MalformedInputsThrowWithFileAndPointer) {
    std::string good = scene_text(mesh_path());
    expect_scene_error(
        replace(good, R"("bsdf": "white", "transform": {"scale")", R"("bsdf": "nope", "transform": {"scale")"),
        "/primitives/0/bsdf", "no bsdf named 'nope'");
    expect_scene_error(replace(good, R"("fov": 90)", R"("fov": "wide")"), "/camera/fov", "expected a number");
    expect_scene_error(replace(good, R"("scale": [4, 1, 4])", R"("scale": [4, -1, 4])"),
                       "/primitives/0/transform/scale", "must not be negative");
    expect_scene_error(replace(good, R"("scale": 0.5})", R"("scale": -0.5})"), "/primitives/2/transform/scale",
                       "must not be negative");
    expect_scene_error(replace(good, R"("scale": 0.5, "rotation")", R"("scale": 0, "rotation")"),
                       "/primitives/3/transform", "zero area");
    // NaN and infinity cannot be written in JSON text (the parser refuses 1e999), but a parsed root can hold them
    for (const char* which : {"fov", "position"}) {
        json root = json::parse(good);
        std::string ptr = std::string(which) == "fov" ? "/camera/fov" : "/primitives/2/transform/position/1";
        if (std::string(which) == "fov")
            root["camera"]["fov"] = std::nan("");
        else
            root["primitives"][2]["transform"]["position"][1] = INFINITY;
        try {
            load_tungsten_scene("nan.json", root);
            ADD_FAILURE() << "no SceneError for " << which;
        } catch (const SceneError& e) {
            EXPECT_NE(std::string(e.what()).find("nan.json: " + ptr + ": not a finite number"), std::string::npos)
                << e.what();
        }
    }
    expect_scene_error(replace(good, mesh_path(), tmp("missing.wo3")), "/primitives/1/file", "missing.wo3");
    std::string bad_mesh = write_bytes("bad-index.wo3", wo3_bytes(square_verts(), {{{0, 1, 9}, 0}}));
    expect_scene_error(scene_text(bad_mesh), "/primitives/1/file", "out of range");
    expect_scene_error(replace(good, R"("power": 10)", R"("power": -10)"), "/primitives/2/power",
                       "must not be negative");
    expect_scene_error(replace(good, R"("resolution": [40, 20])", R"("resolution": [40, 0])"), "/camera/resolution/1",
                       "integer");
    expect_scene_error(replace(good, R"("max_bounces": 3)", R"("max_bounces": 2.5)"), "/integrator/max_bounces",
                       "integer");
    expect_scene_error(replace(good, R"("roughness": 0.2)", R"("roughness": -0.2)"), "/bsdfs/1/roughness", "negative");
    expect_scene_error(replace(good, R"("name": "gold")", R"("name": "white")"), "/bsdfs/1/name", "a second bsdf");
    expect_scene_error(replace(good, R"("type": "null")", R"("type": 3)"), "/primitives/2/bsdf/type", "not a string");
    expect_scene_error(replace(good, R"("look_at": [0, 1, 0])", R"("look_at": [0, 1, 4])"), "/camera/transform",
                       "degenerate");
}

namespace {
// A PFM (rows stored bottom to top) of w x h texels, red = f(row, col) with row 0 at the top.
void write_pfm(const std::string& name, int w, int h, const std::function<float(int, int)>& f) {
    std::string pfm = "PF\n" + std::to_string(w) + " " + std::to_string(h) + "\n-1\n";
    for (int row = h - 1; row >= 0; --row)
        for (int x = 0; x < w; ++x) {
            float v[3] = {f(row, x), 0.0f, 0.0f};
            pfm.append(reinterpret_cast<const char*>(v), 12);
        }
    write_bytes(name, pfm);
}
LoadedScene env_scene(const std::string& file, const std::string& rot) {
    std::string text =
        R"({"primitives": [{"type": "infinite_sphere", "emission": ")" + file + R"(", "transform": {"rotation": )" +
        rot +
        R"(}}], "camera": {"resolution": 8, "transform": {"position": [0,0,0], "look_at": [0,0,-1], "up": [0,1,0]}}})";
    return load_scene_json(write_text("env-tungsten.json", text));
}
// Tungsten's direction of texel (row, col) center, local to the sphere: u = 0.5 + atan2(z, x) / 2pi, v = acos(-y) / pi,
// row 0 at v = 1.
vec3 tungsten_texel_dir(int row, int col, int w, int h) {
    float u = (col + 0.5f) / w, v = 1.0f - (row + 0.5f) / h;
    float phi = (u - 0.5f) * 2 * kPi, th = v * kPi;
    return vec3(std::cos(phi) * std::sin(th), -std::cos(th), std::sin(phi) * std::sin(th));
}
}  // namespace

TEST(TungstenScene, EnvironmentMapFollowsTungstenLookup) {
    // 1. rotations about y: the map is used as is (a rotation angle): texel for texel
    const int W = 8, H = 4;
    write_pfm("env.pfm", W, H, [](int row, int col) { return float(row * W + col + 1); });
    for (const char* rot : {"[0, 0, 0]", "[0, 35, 0]", "[0, -120, 0]"}) {
        LoadedScene s = env_scene("env.pfm", rot);
        SceneView v = s.data.view();
        ASSERT_EQ(v.env.width, uint32_t(W));
        mat3 R(tungsten_transform(json::parse(std::string(R"({"rotation": )") + rot + "}")));
        int tested = 0;
        for (int row = 0; row < H; ++row)
            for (int col = 0; col < W; ++col) {
                vec3 d = R * tungsten_texel_dir(row, col, W, H);
                EXPECT_EQ(env_radiance(v.env, d).x, float(row * W + col + 1)) << rot << " texel " << row << "," << col;
                ++tested;
            }
        EXPECT_EQ(tested, W * H);
    }
    // 2. other rotations: resampled; a smooth map of the local direction comes out as that function of R^T d
    const int W2 = 128, H2 = 64;
    auto f = [](vec3 l) { return 2.0f + l.x + 2.0f * l.y + 3.0f * l.z; };
    write_pfm("env-smooth.pfm", W2, H2, [&](int row, int col) { return f(tungsten_texel_dir(row, col, W2, H2)); });
    LoadedScene s = env_scene("env-smooth.pfm", "[20, 10, 30]");
    SceneView v = s.data.view();
    mat3 R(tungsten_transform(json::parse(R"({"rotation": [20, 10, 30]})")));
    double worst = 0;
    for (int i = 0; i < 500; ++i) {
        float th = 0.1f + 2.9f * ((i * 37) % 500) / 500.0f, ph = 6.283f * ((i * 61) % 500) / 500.0f;
        vec3 d(std::sin(th) * std::cos(ph), std::cos(th), std::sin(th) * std::sin(ph));
        worst = std::max(worst, double(std::fabs(env_radiance(v.env, d).x - f(glm::transpose(R) * d))));
    }
    EXPECT_LT(worst, 0.2);  // half a texel (0.025 rad) of a gradient of at most |(1,2,3)| = 3.7, twice
    bool warned = false;
    for (const std::string& w : s.warnings) warned |= w.find("resampled") != std::string::npos;
    EXPECT_TRUE(warned);
    // a constant emission is the background
    LoadedScene c = load_scene_json(
        write_text("env-const.json", R"({"primitives": [{"type": "infinite_sphere", "emission": [1, 2, 3]}],
        "camera": {"transform": {"position": [0,0,0], "look_at": [0,0,-1], "up": [0,1,0]}}})"));
    EXPECT_EQ(c.data.background, vec3(1, 2, 3));
}
