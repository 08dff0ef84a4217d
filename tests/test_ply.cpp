// PLY meshes (host/scene/mesh_ply.cpp): ASCII and binary little-endian, attributes, triangulation, unknown elements and
// properties, transforms, the Stanford dragon against its OBJ, malformed and mutated files, the dragon scene.
#include <gtest/gtest.h>
#include <ctime>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <glm/gtc/matrix_transform.hpp>
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "host/render/render.h"
#include "host/scene/scene_json.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
std::string write_tmp(const std::string& name, const std::string& bytes) {
    std::string p = wp_test::temp_dir() + name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
}

// Little-endian byte writers for binary bodies.
struct Bytes {
    std::string s;
    template <class T>
    Bytes& put(T v) {
        unsigned char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));  // the test host is little-endian (x86-64, aarch64)
        s.append(reinterpret_cast<const char*>(b), sizeof(T));
        return *this;
    }
};

// The unit cube [0,1]^3: 8 shared vertices, 6 outward quads (counter-clockwise seen from outside), as in test_mesh.
const float kCubeV[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
const int kCubeF[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};

// ASCII cube with an unknown element before the vertices (with a list), unknown vertex properties (scalar and
// list), an unknown face property after the indices, comments and obj_info.
std::string ascii_cube(const std::string& eol = "\n") {
    std::string h = "ply" + eol + "format ascii 1.0" + eol + "comment a cube" + eol + "obj_info made by hand" + eol +
                    "element camera 2" + eol + "property list uchar float params" + eol + "property int id" + eol +
                    "element vertex 8" + eol + "property double x" + eol + "property list ushort int junk" + eol +
                    "property float y" + eol + "property uchar red" + eol + "property float32 z" + eol +
                    "property float u" + eol + "property float v" + eol + "element face 6" + eol +
                    "property list uchar int vertex_indices" + eol + "property list int float extra" + eol +
                    "property int flags" + eol + "end_header" + eol;
    std::string b = "3 1.5 -2 7e3 11" + eol + "0 -1" + eol;
    for (int i = 0; i < 8; ++i) {
        char l[160];
        std::snprintf(l, sizeof l, "%g 2 5 6 %g 200 %g %g %g", kCubeV[i][0], kCubeV[i][1], kCubeV[i][2], 0.25 * i,
                      0.125 * i);
        b += l + eol;
    }
    for (int f = 0; f < 6; ++f) {
        char l[160];
        std::snprintf(l, sizeof l, "4 %d %d %d %d 2 0.5 1e-3 %d", kCubeF[f][0], kCubeF[f][1], kCubeF[f][2],
                      kCubeF[f][3], f);
        b += l + eol;
    }
    return h + b;
}
// The same cube in binary little-endian, with the same unknown elements and properties.
std::string binary_cube(const std::string& eol = "\n") {
    std::string s = ascii_cube(eol);
    std::string h = s.substr(0, s.find("end_header") + std::string("end_header").size() + eol.size());
    h.replace(h.find("ascii"), 5, "binary_little_endian");
    Bytes b;
    b.put<uint8_t>(3).put<float>(1.5f).put<float>(-2).put<float>(7e3f).put<int32_t>(11);
    b.put<uint8_t>(0).put<int32_t>(-1);
    for (int i = 0; i < 8; ++i) {
        b.put<double>(kCubeV[i][0]).put<uint16_t>(2).put<int32_t>(5).put<int32_t>(6);
        b.put<float>(kCubeV[i][1]).put<uint8_t>(200).put<float>(kCubeV[i][2]);
        b.put<float>(0.25f * i).put<float>(0.125f * i);
    }
    for (int f = 0; f < 6; ++f) {
        b.put<uint8_t>(4);
        for (int k = 0; k < 4; ++k) b.put<int32_t>(kCubeF[f][k]);
        b.put<int32_t>(2).put<float>(0.5f).put<float>(1e-3f).put<int32_t>(f);
    }
    return h + b.s;
}

double signed_volume(const ObjMesh& m) {
    double v = 0;
    for (size_t i = 0; i < m.triangles(); ++i)
        v += glm::dot(m.pos[3 * i], glm::cross(m.pos[3 * i + 1], m.pos[3 * i + 2])) / 6.0;
    return v;
}
double area(const ObjMesh& m) {
    double a = 0;
    for (size_t i = 0; i < m.triangles(); ++i)
        a += 0.5 * glm::length(glm::cross(m.pos[3 * i + 1] - m.pos[3 * i], m.pos[3 * i + 2] - m.pos[3 * i]));
    return a;
}
void bounds(const ObjMesh& m, vec3& lo, vec3& hi) {
    lo = vec3(INFINITY);
    hi = vec3(-INFINITY);
    for (const vec3& p : m.pos) {
        lo = glm::min(lo, p);
        hi = glm::max(hi, p);
    }
}
void expect_same(const ObjMesh& a, const ObjMesh& b) {
    ASSERT_EQ(a.triangles(), b.triangles());
    EXPECT_EQ(a.pos, b.pos);
    EXPECT_EQ(a.normal, b.normal);
    EXPECT_EQ(a.uv, b.uv);
    EXPECT_EQ(a.has_normals, b.has_normals);
    EXPECT_EQ(a.has_uv, b.has_uv);
    EXPECT_EQ(a.material, b.material);
}
std::string dragon_ply() { return wp_test::source_dir() + "/scenes/stanford/dragon.ply"; }
}  // namespace

TEST(Ply, AsciiCubeWithUnknownElementsAndProperties) {
    ObjMesh m = load_ply(write_tmp("cube-ascii.ply", ascii_cube()));
    ASSERT_EQ(m.triangles(), 12u);  // 6 quads, fans of 2
    EXPECT_NEAR(signed_volume(m), 1.0, 1e-6);
    EXPECT_NEAR(area(m), 6.0, 1e-6);
    EXPECT_TRUE(m.warnings.empty());
    EXPECT_TRUE(m.materials.empty());
    // first quad (0 3 2 1) becomes (0 3 2), (0 2 1)
    EXPECT_EQ(m.pos[0], vec3(0, 0, 0));
    EXPECT_EQ(m.pos[1], vec3(0, 1, 0));
    EXPECT_EQ(m.pos[2], vec3(1, 1, 0));
    EXPECT_EQ(m.pos[3], vec3(0, 0, 0));
    EXPECT_EQ(m.pos[4], vec3(1, 1, 0));
    EXPECT_EQ(m.pos[5], vec3(1, 0, 0));
    for (size_t i = 0; i < m.triangles(); ++i) {
        EXPECT_EQ(m.material[i], -1);
        EXPECT_EQ(m.has_normals[i], 0);
        ASSERT_EQ(m.has_uv[i], 1);
    }
    // uv of vertex 3 = (0.75, 0.375), v flipped to run downward
    EXPECT_EQ(m.uv[1], vec2(0.75f, 1.0f - 0.375f));
}

TEST(Ply, BinaryEqualsAsciiAndCrlfHeaders) {
    ObjMesh a = load_ply(write_tmp("cube-a.ply", ascii_cube()));
    ObjMesh b = load_ply(write_tmp("cube-b.ply", binary_cube()));
    expect_same(a, b);
    // CRLF everywhere (ASCII) and in the header (binary: the body starts after end_header's CRLF)
    expect_same(a, load_ply(write_tmp("cube-a-crlf.ply", ascii_cube("\r\n"))));
    expect_same(a, load_ply(write_tmp("cube-b-crlf.ply", binary_cube("\r\n"))));
    // with a transform and smooth normals, both encodings still agree
    mat4 M = glm::rotate(glm::scale(mat4(1.0f), vec3(2, 1, 3)), 0.7f, vec3(0.3f, 1, 0.2f));
    expect_same(load_ply(write_tmp("cube-a.ply", ascii_cube()), M, true),
                load_ply(write_tmp("cube-b.ply", binary_cube()), M, true));
}

TEST(Ply, NormalsUvAliasesAndTransform) {
    // one triangle with normals along +z, under a non-uniform scale and a rotation: normals follow the inverse
    // transpose and are renormalized; the texture coordinate names s/t and texture_u/texture_v work too
    for (const char* uvn : {"u v", "s t", "texture_u texture_v"}) {
        std::string un(uvn, std::strchr(uvn, ' ')), vn(std::strchr(uvn, ' ') + 1);
        std::string t =
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
            "property float nx\nproperty float ny\nproperty float nz\nproperty float " +
            un + "\nproperty float " + vn +
            "\nelement face 1\nproperty list uchar uint vertex_index\nend_header\n"
            "0 0 0 0 0 2 0 0\n1 0 0 0 0 2 1 0\n0 1 0 0 1 1 0 1\n3 0 1 2\n";
        std::string p = write_tmp("tri.ply", t);
        ObjMesh m = load_ply(p);
        ASSERT_EQ(m.triangles(), 1u);
        ASSERT_TRUE(m.has_normals[0]);
        ASSERT_TRUE(m.has_uv[0]) << uvn;
        EXPECT_EQ(m.normal[0], vec3(0, 0, 1));
        EXPECT_NEAR(m.normal[2].y, std::sqrt(0.5f), 1e-6f);
        EXPECT_EQ(m.uv[1], vec2(1, 1));  // (1, 0) with v flipped
        EXPECT_EQ(m.uv[2], vec2(0, 0));
        mat4 M = glm::scale(glm::rotate(mat4(1.0f), 0.5f, vec3(0, 0, 1)), vec3(1, 4, 1));
        ObjMesh t2 = load_ply(p, M);
        mat3 N = glm::transpose(glm::inverse(mat3(M)));
        vec3 want = glm::normalize(N * vec3(0, 1, 1));
        EXPECT_NEAR(glm::distance(t2.normal[2], want), 0.0f, 1e-6f);
        EXPECT_NEAR(glm::distance(t2.pos[2], vec3(M * vec4(0, 1, 0, 1))), 0.0f, 1e-6f);
    }
    // a zero normal on one corner: that triangle has no file normals, and smooth fills in the face's
    std::string z =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "property float nx\nproperty float ny\nproperty float nz\nelement face 1\n"
        "property list uchar int vertex_indices\nend_header\n0 0 0 0 0 1\n1 0 0 0 0 0\n0 1 0 0 0 1\n3 0 1 2\n";
    std::string pz = write_tmp("tri-zero-normal.ply", z);
    EXPECT_FALSE(load_ply(pz).has_normals[0]);
    ObjMesh sz = load_ply(pz, mat4(1.0f), true);
    ASSERT_TRUE(sz.has_normals[0]);
    EXPECT_EQ(sz.normal[1], vec3(0, 0, 1));
}

TEST(Ply, AllTypesPolygonsAndShortFaces) {
    // every type name and alias, integer coordinates, several list count and index types; a pentagon (fan of
    // 3), a face of 2 and one of 0 vertices (skipped with one warning)
    std::string h =
        "ply\nformat binary_little_endian 1.0\nelement vertex 5\nproperty int8 x\nproperty short y\n"
        "property uint16 z\nproperty int32 a\nproperty uint b\nproperty float64 c\nproperty uchar d\n"
        "property char e\nproperty ushort f\nproperty int16 g\nproperty uint32 h\nproperty float32 i\n"
        "property double j\nproperty uint8 k\nproperty int l\nelement face 4\n"
        "property list ushort uint16 vertex_indices\nproperty list int8 uchar m\nend_header\n";
    const int P[5][3] = {{0, 0, 0}, {2, 0, 0}, {3, 2, 0}, {1, 3, 0}, {-1, 2, 0}};
    Bytes b;
    for (auto& q : P) {
        b.put<int8_t>(int8_t(q[0])).put<int16_t>(int16_t(q[1])).put<uint16_t>(uint16_t(q[2]));
        b.put<int32_t>(-7).put<uint32_t>(4000000000u).put<double>(1e300).put<uint8_t>(255).put<int8_t>(-1);
        b.put<uint16_t>(1).put<int16_t>(-2).put<uint32_t>(3).put<float>(NAN).put<double>(INFINITY).put<uint8_t>(0);
        b.put<int32_t>(0);
    }
    b.put<uint16_t>(5);
    for (uint16_t k = 0; k < 5; ++k) b.put<uint16_t>(k);
    b.put<int8_t>(1).put<uint8_t>(9);
    b.put<uint16_t>(2).put<uint16_t>(0).put<uint16_t>(1).put<int8_t>(0);
    b.put<uint16_t>(0).put<int8_t>(0);
    b.put<uint16_t>(3).put<uint16_t>(4).put<uint16_t>(3).put<uint16_t>(2).put<int8_t>(0);
    std::string p = write_tmp("types.ply", h + b.s);
    ObjMesh m = load_ply(p);
    ASSERT_EQ(m.triangles(), 4u);
    EXPECT_EQ(m.pos[0], vec3(0, 0, 0));
    EXPECT_EQ(m.pos[3], vec3(0, 0, 0));  // the fan: (0 1 2), (0 2 3), (0 3 4)
    EXPECT_EQ(m.pos[4], vec3(3, 2, 0));
    EXPECT_EQ(m.pos[5], vec3(1, 3, 0));
    EXPECT_EQ(m.pos[7], vec3(1, 3, 0));
    EXPECT_EQ(m.pos[8], vec3(-1, 2, 0));
    EXPECT_EQ(m.pos[9], vec3(-1, 2, 0));  // the last face (4, 3, 2)
    EXPECT_EQ(m.pos[10], vec3(1, 3, 0));
    EXPECT_EQ(m.pos[11], vec3(3, 2, 0));
    EXPECT_NEAR(area(m), 8.0 + 2.0, 1e-6);  // pentagon of area 8 (shoelace) and the triangle (4,3,2) of area 2
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_NE(m.warnings[0].find(p), std::string::npos);
    EXPECT_NE(m.warnings[0].find("2 face(s) with fewer than 3 vertices"), std::string::npos) << m.warnings[0];
    EXPECT_NE(m.warnings[0].find("first: face 1"), std::string::npos) << m.warnings[0];
    EXPECT_EQ(m.has_uv[0], 0);
}

TEST(Ply, TransformMirrorAndSmoothNormals) {
    std::string p = write_tmp("cube-b.ply", binary_cube());
    mat4 S = glm::scale(glm::translate(mat4(1.0f), vec3(3, 0, 0)), vec3(2.0f));
    EXPECT_NEAR(signed_volume(load_ply(p, S)), 8.0, 1e-4);
    // a mirror keeps the outward side: the geometric normals still point out of the (mirrored) cube
    for (vec3 s : {vec3(-1, 1, 1), vec3(1, -2, 1), vec3(-1, -1, -1)}) {
        mat4 Mm = glm::scale(mat4(1.0f), s);
        ObjMesh mm = load_ply(p, Mm);
        EXPECT_NEAR(signed_volume(mm), std::fabs(s.x * s.y * s.z), 1e-5);
        vec3 c = vec3(Mm * vec4(0.5f, 0.5f, 0.5f, 1));
        for (size_t i = 0; i < mm.triangles(); ++i) {
            vec3 g = glm::cross(mm.pos[3 * i + 1] - mm.pos[3 * i], mm.pos[3 * i + 2] - mm.pos[3 * i]);
            vec3 mid = (mm.pos[3 * i] + mm.pos[3 * i + 1] + mm.pos[3 * i + 2]) / 3.0f;
            EXPECT_GT(glm::dot(g, mid - c), 0.0f) << i;
        }
        // smooth normals of the mirrored cube point out too
        ObjMesh sm = load_ply(p, Mm, true);
        for (size_t i = 0; i < sm.pos.size(); ++i) {
            ASSERT_TRUE(sm.has_normals[i / 3]);
            EXPECT_GT(glm::dot(sm.normal[i], sm.pos[i] - c), 0.1f) << i;
            EXPECT_NEAR(glm::length(sm.normal[i]), 1.0f, 1e-5f);
        }
    }
    EXPECT_THROW(load_ply(p, mat4(0.0f)), MeshError);
}

TEST(Ply, StanfordDragonMatchesItsObj) {
    // the loader's own time: CPU time of this process (a loaded machine stretches the wall clock, not this)
    auto cpu_ms = [] {
        timespec ts{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    };
    const double t0 = cpu_ms();
    ObjMesh m = load_ply(dragon_ply());
    const double ms = cpu_ms() - t0;
    std::printf("dragon.ply: %zu triangles loaded in %.1f ms of CPU time\n", m.triangles(), ms);
    EXPECT_LT(ms, 2000.0);  // well under a second in Release; generous for Debug builds
    ASSERT_EQ(m.triangles(), 100000u);
    size_t uv = 0;
    for (uint8_t h : m.has_uv) uv += h;
    EXPECT_EQ(uv, 100000u);  // planar texture coordinates from scripts/obj_to_ply.py --planar-uv 4
    EXPECT_NEAR(m.uv[0].x, m.pos[0].x / 4.0f, 1e-5f);
    EXPECT_NEAR(m.uv[0].y, 1.0f - m.pos[0].y / 4.0f, 1e-5f);
    vec3 lo, hi;
    bounds(m, lo, hi);
    // the bounds written in the OBJ's header
    EXPECT_NEAR(glm::distance(lo, vec3(-7.0467f, 0.0f, -3.1513f)), 0.0f, 1e-4f);
    EXPECT_NEAR(glm::distance(hi, vec3(7.0467f, 9.9399f, 3.1513f)), 0.0f, 1e-4f);
    ObjMesh s = load_ply(dragon_ply(), mat4(1.0f), true);
    size_t with_normals = 0;
    for (uint8_t h : s.has_normals) with_normals += h;
    EXPECT_GT(with_normals, 99000u);

    // the OBJ it was converted from (not in the repository: /work/shared, or WP_DRAGON_OBJ)
    const char* e = std::getenv("WP_DRAGON_OBJ");
    std::string obj = e ? e : wp_test::source_dir() + "/../shared/scenes/stanford/dragon-100k.obj";
    if (!std::ifstream(obj)) GTEST_SKIP() << "no " << obj << ": compared with the OBJ header's bounds only";
    ObjMesh o = load_obj(obj);
    ASSERT_EQ(o.triangles(), 100000u);
    vec3 olo, ohi;
    bounds(o, olo, ohi);
    EXPECT_LT(glm::distance(lo, olo), 2e-6f);
    EXPECT_LT(glm::distance(hi, ohi), 2e-6f);
    EXPECT_NEAR(area(m), area(o), 1e-6 * area(o));
    float worst = 0;
    for (size_t i = 0; i < m.pos.size(); ++i) worst = std::max(worst, glm::distance(m.pos[i], o.pos[i]));
    EXPECT_LT(worst, 2e-6f);  // same corners in the same order
    // and under a mirroring transform both loaders agree on the corner order
    mat4 Mm = glm::scale(mat4(1.0f), vec3(-0.1f, 0.1f, 0.1f));
    ObjMesh mm = load_ply(dragon_ply(), Mm), om = load_obj(obj, Mm);
    EXPECT_NEAR(signed_volume(mm), signed_volume(om), 1e-6 * std::fabs(signed_volume(om)));
    EXPECT_GT(signed_volume(mm), 0.0);
}

TEST(Ply, MalformedFilesThrowNamingTheFile) {
    const std::string hv =
        "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";
    auto tri_body = [](int i2, uint8_t n = 3, float x0 = 0) {
        Bytes b;
        b.put<float>(x0).put<float>(0).put<float>(0).put<float>(1).put<float>(0).put<float>(0);
        b.put<float>(0).put<float>(1).put<float>(0);
        b.put<uint8_t>(n).put<int32_t>(0).put<int32_t>(1).put<int32_t>(i2);
        return b.s;
    };
    ASSERT_EQ(load_ply(write_tmp("good.ply", hv + tri_body(2))).triangles(), 1u);
    const std::string ha =
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
        "property float z\nelement face 1\nproperty list int int vertex_indices\nend_header\n";
    const std::string good_a = "0 0 0\n1 0 0\n0 1 0\n";
    ASSERT_EQ(load_ply(write_tmp("good-a.ply", ha + good_a + "3 0 1 2\n")).triangles(), 1u);
    std::string big = hv;
    big.replace(big.find("vertex 3"), 8, "vertex 4000000000");
    std::string huge_faces = hv;
    huge_faces.replace(huge_faces.find("face 1"), 6, "face 99999999999999999");
    std::string be = hv;
    be.replace(be.find("binary_little_endian"), 20, "binary_big_endian");
    std::string nox = hv;
    nox.replace(nox.find("property float x"), 16, "property float w");
    std::string badtype = hv;
    badtype.replace(badtype.find("property float y"), 16, "property int64 y");
    std::string noface = hv.substr(0, hv.find("element face")) + "end_header\n";
    std::string zerofaces = hv;
    zerofaces.replace(zerofaces.find("face 1"), 6, "face 0");
    std::string pointlist = hv;
    pointlist.replace(pointlist.find("property list uchar int vertex_indices"), 38, "property int vertex_indices");

    struct Case {
        const char* name;
        std::string bytes, what;
    } cases[] = {
        {"empty", "", "not a PLY"},
        {"not-ply", "solid cube\nfacet normal 0 0 1\n", "not a PLY"},
        {"obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "not a PLY"},
        {"big-endian", be + tri_body(2), "unsupported format binary_big_endian"},
        {"bad-format", "ply\nformat utf8 1.0\nend_header\n", "unsupported format"},
        {"bad-version", "ply\nformat ascii 2.0\nend_header\n", "unsupported version"},
        {"no-format", "ply\nelement vertex 0\nend_header\n", "no format"},
        {"truncated-header", hv.substr(0, 60), "truncated header"},
        {"header-no-newline", hv.substr(0, hv.size() - 1), "truncated header"},
        {"unknown-keyword", "ply\nformat ascii 1.0\nelemnt vertex 3\nend_header\n", "unknown header keyword 'elemnt'"},
        {"property-first", "ply\nformat ascii 1.0\nproperty float x\nend_header\n", "property before any element"},
        {"unknown-type", badtype + tri_body(2), "unknown property type 'int64'"},
        {"float-count", "ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\nend_header\n",
         "not an integer type"},
        {"negative-count", "ply\nformat ascii 1.0\nelement vertex -3\nend_header\n", "bad count '-3'"},
        {"count-overflow", "ply\nformat ascii 1.0\nelement vertex 123456789012345678901234\nend_header\n", "bad count"},
        {"count-past-file", big + tri_body(2), "claims 4000000000 items"},
        {"faces-past-file", huge_faces + tri_body(2), "claims 99999999999999999 items"},
        {"truncated-binary", hv + tri_body(2).substr(0, 40), "truncated"},
        {"truncated-vertices", hv + tri_body(2).substr(0, 20), "truncated or bad count"},
        {"index-out-of-range", hv + tri_body(99), "face 0: vertex index 99 out of range (3 vertices)"},
        {"negative-index", hv + tri_body(-1), "face 0: vertex index -1 out of range"},
        {"list-past-file", hv + tri_body(2, 200), "runs past the end of the file"},
        {"negative-list-count", ha + good_a + "-3 0 1 2\n", "negative list count -3"},
        {"nan-coordinate", hv + tri_body(2, 3, NAN), "vertex 0: position (nan"},
        {"inf-coordinate", ha + "0 0 0\n1e39 0 0\n0 1 0\n3 0 1 2\n", "vertex 1: position (1e+39, 0, 0) is not finite"},
        {"double-overflow", ha + "0 0 0\n1e999 0 0\n0 1 0\n3 0 1 2\n", "not finite"},
        {"missing-x", nox + tri_body(2), "no 'x' property"},
        {"no-face-element", noface + tri_body(2).substr(0, 36), "no faces"},
        {"zero-faces", zerofaces + tri_body(2).substr(0, 36), "no faces"},
        {"only-short-faces", ha + good_a + "2 0 1\n", "no triangles"},
        {"indices-not-list", pointlist + tri_body(2), "not a list"},
        {"float-indices",
         "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty list uchar float vertex_indices\nend_header\n" +
             good_a + "3 0 1 2\n",
         "non-integer item type"},
        {"ascii-not-a-number", ha + "0 0 0\n1 zero 0\n0 1 0\n3 0 1 2\n",
         "vertex 1, property 'y': 'zero' is not a number (line 11)"},
        {"ascii-float-index", ha + good_a + "3 0 1.5 2\n", "'1.5' is not an integer"},
        {"ascii-index-range", ha + good_a + "3 0 1 99999999999\n", "out of range"},
        {"ascii-uchar-range",
         "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "property uchar r\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
         "0 0 0 256\n1 0 0 0\n0 1 0 0\n3 0 1 2\n",
         "out of range for its type"},
        {"ascii-truncated", ha + good_a + "3 0 1", "truncated"},
        {"ascii-short", ha + "0 0 0\n", "truncated"},
        {"duplicate-vertex", "ply\nformat ascii 1.0\nelement vertex 0\nelement vertex 0\nend_header\n",
         "second element 'vertex'"},
        {"duplicate-property",
         "ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float x\nend_header\n",
         "second property 'x'"},
        {"list-x",
         "ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty list uchar int vertex_indices\nend_header\n1 0 0 0\n3 0 0 0\n",
         "is a list"},
        {"nul-in-ascii", ha + std::string("0 0 0\n1 \0 0\n0 1 0\n3 0 1 2\n", 26), "NUL byte"},
    };
    for (const Case& c : cases) {
        std::string p = write_tmp(std::string("bad-") + c.name + ".ply", c.bytes);
        try {
            ObjMesh m = load_ply(p);
            ADD_FAILURE() << c.name << ": no error (" << m.triangles() << " triangles)";
        } catch (const MeshError& e) {
            std::string msg = e.what();
            EXPECT_EQ(msg.rfind(p + ": ", 0), 0u) << c.name << ": " << msg;
            EXPECT_NE(msg.find(c.what), std::string::npos) << c.name << ": " << msg;
        }
    }
    try {
        load_ply("/nonexistent/mesh.ply");
        ADD_FAILURE() << "no error for a missing file";
    } catch (const MeshError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/mesh.ply: cannot open", 0), 0u) << e.what();
    }
}

// Random damage to small valid files (byte flips, truncation, digit edits): every outcome is a mesh or a
// MeshError, never another exception or a crash.
TEST(Ply, MutatedFilesGiveMeshesOrMeshErrors) {
    std::mt19937 rng(12345);
    const std::string seeds[] = {ascii_cube(), binary_cube(), binary_cube("\r\n")};
    int errors = 0, meshes = 0;
    for (int it = 0; it < 1200; ++it) {
        std::string s = seeds[it % 3];
        int edits = 1 + int(rng() % 4);
        for (int k = 0; k < edits; ++k) {
            size_t at = rng() % s.size();
            switch (rng() % 5) {
                case 0: s[at] = char(rng()); break;
                case 1: s.resize(at); break;
                case 2: s[at] = char('0' + rng() % 10); break;
                case 3: s.insert(at, 1, char(rng())); break;
                case 4: s.erase(at, 1 + rng() % 8); break;
            }
            if (s.empty()) s = "p";
        }
        std::string p = write_tmp("mutated.ply", s);
        try {
            ObjMesh m = load_ply(p, mat4(1.0f), it % 2 == 0);
            ++meshes;
            for (const vec3& q : m.pos) ASSERT_TRUE(std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z));
            ASSERT_EQ(m.pos.size(), 3 * m.triangles());
        } catch (const MeshError& e) {
            ++errors;
            ASSERT_EQ(std::string(e.what()).rfind(p, 0), 0u) << e.what();
        }
    }
    EXPECT_GT(errors, 50);
    EXPECT_GT(meshes, 20);
}

TEST(Ply, DragonSceneLoadsAndRenders) {
    LoadedScene ls = load_scene_json(wp_test::source_dir() + "/scenes/dragon.json");
    EXPECT_EQ(ls.data.num_primitives, 5u * 100000u + 2u);  // five dragons, the floor quad and the lamp sphere
    EXPECT_EQ(ls.data.lights.size(), 1u);                  // the lamp (the sky is the environment)
    EXPECT_EQ(ls.params.width, 1280u);
    EXPECT_EQ(ls.params.height, 720u);
    EXPECT_GT(ls.data.textures.size(), 0u);
    EXPECT_GT(ls.data.env_width, 0u);
    RenderParams rp = ls.params;
    rp.width = 48;
    rp.height = 27;
    rp.spp = 4;
    rp.max_depth = 8;
    Image img = render_cpu(ls.data, rp, Mode::Megakernel);
    EXPECT_EQ(img.nonfinite, 0u);
    double mean = 0;
    for (float v : img.rgb) {
        ASSERT_TRUE(std::isfinite(v));
        mean += v;
    }
    mean /= img.rgb.size();
    EXPECT_GT(mean, 0.02);
    EXPECT_LT(mean, 10.0);
}
