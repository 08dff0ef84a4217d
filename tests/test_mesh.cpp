// OBJ meshes: loading, transforms, smooth normals, MTL materials, errors, and an analytic render.
#include <gtest/gtest.h>
#include <fstream>
#include <glm/gtc/matrix_transform.hpp>
#include "host/scene/mesh_obj.h"
#include "host/render/render.h"
#include "host/scene/scene_json.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
std::string write_tmp(const std::string& name, const std::string& text) {
    std::string p = wp_test::temp_dir() + name;
    std::ofstream(p) << text;
    return p;
}
// Unit cube [0,1]^3 with outward-facing quads (counter-clockwise seen from outside), one shared vertex per corner.
const char* kCube = R"(mtllib cube.mtl
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
usemtl red
f 1 4 3 2
f 5 6 7 8
usemtl blue
f 1 2 6 5
f 4 8 7 3
f 1 5 8 4
f 2 3 7 6
)";
const char* kCubeMtl = "newmtl red\nKd 0.8 0.1 0.1\nnewmtl blue\nKd 0.1 0.2 0.9\n";

// Signed volume by the divergence theorem: positive when the triangles face outward.
double signed_volume(const ObjMesh& m) {
    double v = 0;
    for (size_t i = 0; i < m.triangles(); ++i)
        v += glm::dot(m.pos[3 * i], glm::cross(m.pos[3 * i + 1], m.pos[3 * i + 2])) / 6.0;
    return v;
}
std::string cube_path() {
    write_tmp("cube.mtl", kCubeMtl);
    return write_tmp("cube.obj", kCube);
}
}  // namespace

TEST(Mesh, StanfordBunnyLoads) {
    ObjMesh m = load_obj(wp_test::source_dir() + "/scenes/stanford/bunny.obj");
    EXPECT_EQ(m.triangles(), 69451u);
    EXPECT_EQ(m.pos.size(), 3u * 69451u);
    ObjMesh s = load_obj(wp_test::source_dir() + "/scenes/stanford/bunny.obj", mat4(1.0f), true);
    size_t with_normals = 0;
    for (uint8_t h : s.has_normals) with_normals += h;
    EXPECT_GT(with_normals, 69000u);  // smooth normals everywhere but at isolated degenerate corners
    for (size_t i = 0; i < s.normal.size(); i += 997)
        if (s.has_normals[i / 3]) EXPECT_NEAR(glm::length(s.normal[i]), 1.0f, 1e-4f);
}

TEST(Mesh, TransformMirrorAndSmoothNormals) {
    std::string p = cube_path();
    ObjMesh m = load_obj(p);
    EXPECT_EQ(m.triangles(), 12u);
    EXPECT_NEAR(signed_volume(m), 1.0, 1e-6);
    mat4 S = glm::scale(glm::translate(mat4(1.0f), vec3(3, 0, 0)), vec3(2.0f));
    ObjMesh ms = load_obj(p, S);
    EXPECT_NEAR(signed_volume(ms), 8.0, 1e-4);
    for (const vec3& q : ms.pos) EXPECT_TRUE(q.x >= 3.0f && q.x <= 5.0f && q.y >= 0.0f && q.y <= 2.0f) << q.x;
    // a mirror keeps the outward side: corners are reordered
    ObjMesh mm = load_obj(p, glm::scale(mat4(1.0f), vec3(-1, 1, 1)));
    EXPECT_NEAR(signed_volume(mm), 1.0, 1e-6);
    // smooth: area-weighted normals at a cube corner point out of the cube, into the corner's octant (not
    // exactly along the diagonal: a corner touches one or two triangles of each face, by the fan's diagonal)
    ObjMesh sm = load_obj(p, mat4(1.0f), true);
    for (size_t i = 0; i < sm.pos.size(); ++i) {
        ASSERT_TRUE(sm.has_normals[i / 3]);
        vec3 out = sm.pos[i] - vec3(0.5f);
        for (int k = 0; k < 3; ++k) EXPECT_GT(sm.normal[i][k] * out[k], 0.1f) << i;
        EXPECT_NEAR(glm::length(sm.normal[i]), 1.0f, 1e-5f);
    }
    // materials
    ASSERT_EQ(m.materials.size(), 2u);
    EXPECT_EQ(m.material[0], 0);
    EXPECT_EQ(m.material[11], 1);
    EXPECT_NEAR(m.materials[1].kd.z, 0.9f, 1e-6f);
}

TEST(Mesh, ErrorsNameTheFileAndTheProblem) {
    auto expect_mesh_error = [](const std::string& text, const std::string& what) {
        std::string p = write_tmp("bad.obj", text);
        try {
            load_obj(p);
            ADD_FAILURE() << "no error for " << text;
        } catch (const MeshError& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(p), std::string::npos) << m;
            EXPECT_NE(m.find(what), std::string::npos) << m;
        }
    };
    expect_mesh_error("v 0 0 0\nv 1 0 0\n", "no triangles");
    expect_mesh_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n", "");
    expect_mesh_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1e39 0 0\nf 1 2 4\n", "not finite");
    // tinyobjloader reads "nan", "inf" or a word as 0: every vertex line is checked, FILE:LINE and the vertex named,
    // used by a face or not
    const std::string bad = wp_test::temp_dir() + "bad.obj";
    expect_mesh_error("# x\nv 0 0 0\nv 1 0 0\n\n  v nan 1 0\nf 1 2 3\n", bad + ":5: vertex 3: 'nan' is not finite");
    expect_mesh_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 -inf 0\nf 1 2 3\n", bad + ":4: vertex 4: '-inf' is not finite");
    expect_mesh_error("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1e39 0 0\nf 1 2 4\n",
                      bad + ":4: vertex 4: '1e39' is not finite as a 32-bit float");
    expect_mesh_error("v 0 0 0\nv 1 zero 0\nv 0 1 0\nf 1 2 3\n", bad + ":2: vertex 2: 'zero' is not a number");
    expect_mesh_error("v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", bad + ":2: vertex 2: expected 3 coordinates, found 2");
    EXPECT_THROW(load_obj("/nonexistent/mesh.obj"), MeshError);
    EXPECT_THROW(load_obj(cube_path(), mat4(0.0f)), MeshError);

    // through the scene loader: the JSON pointer of the mesh object
    std::string obj = cube_path();
    auto scene = [&](const std::string& object) {
        return write_tmp("mesh-scene.json", R"({"camera": {"position": [0.5,0.5,5], "target": [0.5,0.5,0]},
          "materials": {"m": {"type": "lambert", "albedo": 0.5}}, "objects": [)" +
                                                object + "]}");
    };
    auto expect_scene_error = [&](const std::string& object, const std::string& ptr, const std::string& what) {
        std::string p = scene(object);
        try {
            load_scene_json(p);
            ADD_FAILURE() << "no error for " << object;
        } catch (const SceneError& e) {
            std::string m = e.what();
            EXPECT_NE(m.find(p), std::string::npos) << m;
            EXPECT_NE(m.find(ptr), std::string::npos) << m;
            EXPECT_NE(m.find(what), std::string::npos) << m;
        }
    };
    expect_scene_error(R"({"type": "mesh", "material": "m", "file": "missing.obj"})", "/objects/0/file", "cannot open");
    expect_scene_error(R"({"type": "mesh", "material": "m"})", "/objects/0/file", "missing");
    expect_scene_error(R"({"type": "mesh", "material": "m", "file": "cube.obj", "radius": 1})", "/objects/0/radius",
                       "unknown key");
    expect_scene_error(R"({"type": "mesh", "material": "m", "file": "cube.obj", "smooth": 1})", "/objects/0/smooth",
                       "true or false");
    expect_scene_error(R"({"type": "sphere", "material": "from_file"})", "/objects/0/material", "only for meshes");
    // a good mesh scene: relative path, MTL materials
    LoadedScene ls = load_scene_json(scene(R"({"type": "mesh", "material": "from_file", "file": "cube.obj"})"));
    EXPECT_EQ(ls.data.num_primitives, 12u);
    ASSERT_EQ(ls.data.lambert.size(), 3u);  // "m" and the two MTL materials
    EXPECT_NEAR(ls.data.lambert[1].albedo.x, 0.8f, 1e-6f);
    EXPECT_NEAR(ls.data.lambert[2].albedo.z, 0.9f, 1e-6f);
}

// Analytic check of emissive, two-sided mesh lights: the camera inside a closed cube (12 OBJ triangles) whose
// walls emit Le = 1 on both sides and reflect with Lambert albedo a = 0.5. Everywhere inside, L = Le / (1 - a) = 2.
// This exercises triangle lights in NEE, their pdf in MIS, and the per-triangle light table.
TEST(Mesh, EmissiveMeshFurnace) {
    std::string obj = cube_path();
    std::string p =
        write_tmp("mesh-furnace.json", R"({"render": {"width": 16, "height": 16, "spp": 2048, "max_depth": 200},
      "camera": {"position": [0.5,0.5,0.5], "target": [0.5,0.5,0], "fov": 90},
      "materials": {"grey": {"type": "lambert", "albedo": 0.5}},
      "objects": [{"type": "mesh", "file": "cube.obj", "material": "grey", "emission": 1, "two_sided": true,
                   "transform": {"matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]}}]})");
    LoadedScene ls = load_scene_json(p);
    EXPECT_EQ(ls.data.lights.size(), 12u);
    Image img = render_cpu_megakernel(ls.data, ls.params);
    EXPECT_EQ(img.nonfinite, 0u);
    double mean = 0;
    for (float v : img.rgb) {
        EXPECT_NEAR(v, 2.0f, 0.06f);
        mean += v;
    }
    EXPECT_NEAR(mean / img.rgb.size(), 2.0, 0.01);
}

// MTL Ke: with "from_file", the faces of an emissive MTL material become area lights of that radiance.
TEST(Mesh, MtlEmissionMakesLights) {
    write_tmp("lamp.mtl", "newmtl red\nKd 0.8 0.1 0.1\nnewmtl lamp\nKd 0 0 0\nKe 4 3 2\n");
    std::string obj = kCube;
    obj.replace(obj.find("usemtl blue"), 11, "usemtl lamp");
    obj = "mtllib lamp.mtl\n" + obj.substr(obj.find('\n') + 1);
    write_tmp("lamp.obj", obj);
    std::string p = write_tmp("lamp-scene.json", R"({"camera": {"position": [0.5,0.5,5], "target": [0.5,0.5,0]},
      "objects": [{"type": "mesh", "file": "lamp.obj", "material": "from_file"}]})");
    LoadedScene ls = load_scene_json(p);
    ASSERT_EQ(ls.data.lights.size(), 8u);  // four quads of the lamp material, two triangles each
    for (const Light& L : ls.data.lights) {
        EXPECT_FLOAT_EQ(L.Le.x, 4.0f);
        EXPECT_FLOAT_EQ(L.Le.y, 3.0f);
        EXPECT_FLOAT_EQ(L.Le.z, 2.0f);
    }
}
