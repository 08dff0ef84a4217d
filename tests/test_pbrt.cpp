// pbrt-v4 scenes: the tokenizer, transforms against hand-computed matrices, the hand-written Cornell box against
// the native one (geometry, camera) and against Mitsuba's reference (CPU render), the fov convention on landscape
// and portrait films, each material's parameters, lights, shapes, and the warnings and errors (file:line:column).
#include <gtest/gtest.h>
#include "kernels/filter.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <glm/gtc/matrix_transform.hpp>
#include "host/render/render.h"
#include "host/scene/pbrt_tokenizer.h"
#include "host/scene/scene_json.h"
#include "host/scene/scene_pbrt.h"
#include "tests/cornell_reference.h"
#include "tests/cornell_scene.h"
using namespace wp;

namespace {
std::string tmp(const std::string& name) { return wp_test::temp_dir() + "pbrt-" + name; }
std::string write_text(const std::string& name, const std::string& text) {
    std::string p = tmp(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}
const char* kHeader = R"(LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" 45
Film "rgb" "integer xresolution" 16 "integer yresolution" 16
WorldBegin
)";
// A scene of kHeader and `world`, loaded.
LoadedScene load(const std::string& name, const std::string& world, bool strict = false) {
    return load_pbrt_scene(write_text(name + ".pbrt", std::string(kHeader) + world), strict);
}
// The message of the SceneError that loading throws ("" and a failure if none).
std::string error_of(const std::string& name, const std::string& text, bool strict = false) {
    std::string p = write_text(name + ".pbrt", text);
    try {
        load_pbrt_scene(p, strict);
        ADD_FAILURE() << name << ": loaded without an error";
    } catch (const SceneError& e) { return e.what(); }
    return "";
}
bool has_warning(const LoadedScene& ls, const std::string& what) {
    for (const std::string& w : ls.warnings)
        if (w.find(what) != std::string::npos) return true;
    return false;
}
void expect_mat(const mat4& a, const mat4& b, float tol = 1e-5f) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[c][r], b[c][r], tol) << "row " << r << " column " << c;
}
void expect_vec(vec3 a, vec3 b, float tol = 1e-5f) {
    EXPECT_NEAR(a.x, b.x, tol);
    EXPECT_NEAR(a.y, b.y, tol);
    EXPECT_NEAR(a.z, b.z, tol);
}
vec3 v3(const F4& f) { return vec3(f.x, f.y, f.z); }
// The leaf slots of distinct primitives (spatial splits reference a primitive from several leaves).
std::vector<size_t> distinct_slots(const SceneData& d) {
    std::vector<size_t> out;
    std::vector<std::array<float, 10>> seen;
    for (size_t i = 0; i < d.info.size(); ++i) {
        std::array<float, 10> k{float(d.info[i].y)};
        for (int j = 0; j < 3; ++j)
            k[1 + 3 * j] = d.geom[3 * i + j].x, k[2 + 3 * j] = d.geom[3 * i + j].y, k[3 + 3 * j] = d.geom[3 * i + j].z;
        if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
        seen.push_back(k);
        out.push_back(i);
    }
    EXPECT_EQ(out.size(), d.num_primitives);
    return out;
}
}  // namespace

// ------------------------------------------------------------------------------------------------ tokenizer
TEST(PbrtTokenizer, TokensPositionsEscapesComments) {
    auto t =
        pbrt_tokenize("Shape \"sphere\" # a comment \"not a string\"\n  \"float radius\" [ 2.5 ]\n\"a\\\"b\\n\"", "f");
    ASSERT_EQ(t.size(), 7u);
    EXPECT_EQ(t[0].kind, PbrtToken::Word);
    EXPECT_EQ(t[0].text, "Shape");
    EXPECT_EQ(t[1].kind, PbrtToken::String);
    EXPECT_EQ(t[1].text, "sphere");
    EXPECT_EQ(t[1].col, 7);
    EXPECT_EQ(t[2].text, "float radius");
    EXPECT_EQ(t[2].line, 2);
    EXPECT_EQ(t[2].col, 3);
    EXPECT_EQ(t[3].kind, PbrtToken::LBracket);
    EXPECT_EQ(t[4].text, "2.5");
    EXPECT_EQ(t[5].kind, PbrtToken::RBracket);
    EXPECT_EQ(t[6].text, "a\"b\n");
    EXPECT_EQ(t[6].line, 3);
    // brackets end a word: [1 2] is three tokens and a bracket
    auto u = pbrt_tokenize("[1 2]", "f");
    ASSERT_EQ(u.size(), 4u);
    EXPECT_EQ(u[2].text, "2");
    double v;
    EXPECT_TRUE(pbrt_number("-2.5e3", v));
    EXPECT_EQ(v, -2500.0);
    EXPECT_TRUE(pbrt_number(".5", v));
    EXPECT_FALSE(pbrt_number("1.5x", v));
    EXPECT_FALSE(pbrt_number("nan", v));
    EXPECT_FALSE(pbrt_number("1e999", v));
}

TEST(PbrtTokenizer, UnterminatedStringNamesItsOpeningQuote) {
    try {
        pbrt_tokenize("WorldBegin\n  Shape \"sphere\n", "scene.pbrt");
        ADD_FAILURE() << "no error";
    } catch (const SceneError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("scene.pbrt:2:9: unterminated string", 0), 0u) << e.what();
    }
    EXPECT_THROW(pbrt_tokenize("\"abc", "f"), SceneError);
    EXPECT_THROW(pbrt_tokenize("\"a\\q\"", "f"), SceneError);  // unknown escape
}

// ------------------------------------------------------------------------------------------------ transforms
TEST(PbrtTransform, AgainstHandComputedMatrices) {
    // Translate, Rotate, Scale post-multiply: M = T R S. Hand-computed: x -> S (2,0,0) -> R (0,2,0) -> T (1,4,3);
    // y -> (0,3,0) -> (-3,0,0) -> (-2,2,3); z -> (0,0,4) -> (0,0,4) -> (1,2,7).
    mat4 M = pbrt_transform("Translate 1 2 3 Rotate 90 0 0 1 Scale 2 3 4");
    expect_vec(vec3(M * vec4(1, 0, 0, 1)), vec3(1, 4, 3));
    expect_vec(vec3(M * vec4(0, 1, 0, 1)), vec3(-2, 2, 3));
    expect_vec(vec3(M * vec4(0, 0, 1, 1)), vec3(1, 2, 7));
    // Rotate 90 about x: y -> z, z -> -y; about y: z -> x
    expect_vec(vec3(pbrt_transform("Rotate 90 1 0 0") * vec4(0, 1, 0, 0)), vec3(0, 0, 1));
    expect_vec(vec3(pbrt_transform("Rotate 90 0 1 0") * vec4(0, 0, 1, 0)), vec3(1, 0, 0));
    // Transform: 16 numbers column by column, the last four the translation
    mat4 T(1.0f);
    T[3] = vec4(5, 6, 7, 1);
    T[0][1] = 2.0f;  // x -> (1, 2, 0)
    expect_mat(pbrt_transform("Transform [ 1 2 0 0  0 1 0 0  0 0 1 0  5 6 7 1 ]"), T);
    // ConcatTransform multiplies on the right; Transform replaces
    expect_mat(pbrt_transform("Scale 2 2 2 ConcatTransform [ 1 2 0 0  0 1 0 0  0 0 1 0  5 6 7 1 ]"),
               glm::scale(mat4(1.0f), vec3(2.0f)) * T);
    expect_mat(pbrt_transform("Scale 2 2 2 Transform [ 1 2 0 0  0 1 0 0  0 0 1 0  5 6 7 1 ]"), T);
    // LookAt: camera from world; the eye goes to the origin, the view direction to +z, up to +y,
    // and pbrt's right = up x dir (left-handed): looking down -z, world -x is camera +x
    mat4 L = pbrt_transform("LookAt 0 1 6.8  0 1 0  0 1 0");
    expect_vec(vec3(L * vec4(0, 1, 6.8f, 1)), vec3(0, 0, 0));
    expect_vec(vec3(L * vec4(0, 0, -1, 0)), vec3(0, 0, 1));
    expect_vec(vec3(L * vec4(0, 1, 0, 0)), vec3(0, 1, 0));
    expect_vec(vec3(L * vec4(-1, 0, 0, 0)), vec3(1, 0, 0));
    // AttributeBegin/End and TransformBegin/End restore; Identity resets; named coordinate systems
    expect_mat(pbrt_transform("Translate 1 0 0 AttributeBegin Scale 3 3 3 AttributeEnd"),
               glm::translate(mat4(1.0f), vec3(1, 0, 0)));
    expect_mat(pbrt_transform("Translate 1 0 0 TransformBegin Scale 3 3 3 TransformEnd"),
               glm::translate(mat4(1.0f), vec3(1, 0, 0)));
    expect_mat(pbrt_transform("Translate 1 0 0 Identity"), mat4(1.0f));
    expect_mat(pbrt_transform("Translate 0 2 0 CoordinateSystem \"a\" Identity Scale 5 5 5 CoordSysTransform \"a\""),
               glm::translate(mat4(1.0f), vec3(0, 2, 0)));
    // transforms while ActiveTransform EndTime are ignored (no motion blur)
    expect_mat(pbrt_transform("ActiveTransform EndTime Translate 9 9 9 ActiveTransform All"), mat4(1.0f));
    EXPECT_THROW(pbrt_transform("Translate 1 2"), SceneError);
    EXPECT_THROW(pbrt_transform("LookAt 0 0 0  0 1 0  0 1 0"), SceneError);  // up parallel to the view
    EXPECT_THROW(pbrt_transform("AttributeEnd"), SceneError);
}

TEST(PbrtTransform, ShapesUnderTheTransformAndInstances) {
    // a triangle under Translate/Scale; the same triangle through an object instance under its own CTM
    LoadedScene ls = load("xf", R"(AttributeBegin
  Translate 1 0 0
  Scale 2 2 2
  Shape "trianglemesh" "point3 P" [0 0 0  1 0 0  0 1 0] "integer indices" [0 1 2]
AttributeEnd
ObjectBegin "tri"
  Translate 0 0 -1
  Shape "trianglemesh" "point3 P" [0 0 0  1 0 0  0 1 0]
ObjectEnd
AttributeBegin
  Translate 0 10 0
  ObjectInstance "tri"
AttributeEnd
)");
    ASSERT_EQ(ls.data.num_primitives, 2u);
    bool first = false, instance = false;
    for (size_t i = 0; i < ls.data.info.size(); ++i) {
        vec3 a = v3(ls.data.geom[3 * i]), e1 = v3(ls.data.geom[3 * i + 1]), e2 = v3(ls.data.geom[3 * i + 2]);
        if (glm::length(a - vec3(1, 0, 0)) < 1e-5f) {
            first = true;
            expect_vec(e1, vec3(2, 0, 0));
            expect_vec(e2, vec3(0, 2, 0));
        }
        if (glm::length(a - vec3(0, 10, -1)) < 1e-5f) {  // instance CTM x the object's own CTM
            instance = true;
            expect_vec(e1, vec3(1, 0, 0));
        }
    }
    EXPECT_TRUE(first);
    EXPECT_TRUE(instance);
}

TEST(PbrtTransform, ReverseOrientationAndMirrorsFlipTheSurface) {
    // a one-sided light: the triangle's normal is +z; ReverseOrientation or a mirroring CTM turn it to -z
    auto normal_of = [](const std::string& name, const std::string& pre) {
        LoadedScene ls =
            load(name, "AttributeBegin\n" + pre +
                           "\nAreaLightSource \"diffuse\"\nShape \"trianglemesh\" \"point3 P\" [0 0 0  1 0 0  "
                           "0 1 0]\nAttributeEnd\n");
        EXPECT_EQ(ls.data.num_primitives, 1u);
        return glm::normalize(glm::cross(v3(ls.data.geom[1]), v3(ls.data.geom[2])));
    };
    expect_vec(normal_of("o1", ""), vec3(0, 0, 1));
    expect_vec(normal_of("o2", "ReverseOrientation"), vec3(0, 0, -1));
    // a mirror: the object's side under the transform (its normal transformed, M^-T (0,0,1) = (0,0,-1)), as pbrt
    expect_vec(normal_of("o3", "Scale 1 1 -1"), vec3(0, 0, -1));
    expect_vec(normal_of("o4", "Scale 1 1 -1 ReverseOrientation"), vec3(0, 0, 1));
    // with shading normals, the side they point to
    LoadedScene n =
        load("o5", R"(Shape "trianglemesh" "point3 P" [0 0 0  1 0 0  0 1 0] "normal N" [0 0 -1  0 0 -1  0 0 -1])");
    expect_vec(glm::normalize(glm::cross(v3(n.data.geom[1]), v3(n.data.geom[2]))), vec3(0, 0, -1));
}

// ------------------------------------------------------------------------------------------------ Cornell box
TEST(PbrtCornell, SameGeometryCameraAndSettingsAsTheNativeBox) {
    LoadedScene p = load_pbrt_scene(wp_test::source_dir() + "/scenes/cornell-box.pbrt", true);  // strict: no warning
    LoadedScene n = load_scene_json(wp_test::source_dir() + "/scenes/cornell-box.json");
    EXPECT_TRUE(p.warnings.empty());
    EXPECT_EQ(p.params.width, 512u);
    EXPECT_EQ(p.params.height, 512u);
    EXPECT_EQ(p.params.spp, 64u);
    EXPECT_EQ(p.params.max_depth, n.params.max_depth);  // maxdepth 64 bounces = 65 segments
    // the same primitives: type, corner, edges, albedo, emission (as sets; leaf order may differ)
    auto prims = [](const SceneData& d) {
        std::vector<std::array<float, 16>> v;
        for (size_t i : distinct_slots(d)) {
            std::array<float, 16> r{};
            r[0] = float(d.info[i].x);
            for (int k = 0; k < 3; ++k) {
                vec3 g = v3(d.geom[3 * i + k]);
                r[1 + 3 * k] = g.x, r[2 + 3 * k] = g.y, r[3 + 3 * k] = g.z;
            }
            MatHandle m{d.info[i].y};
            EXPECT_EQ(m.type(), MatType::Lambert);
            vec3 a = d.lambert[m.index()].albedo;
            r[10] = a.x, r[11] = a.y, r[12] = a.z;
            vec3 Le = d.info[i].z != kInvalid ? d.lights[d.info[i].z].Le : vec3(0.0f);
            r[13] = Le.x, r[14] = Le.y, r[15] = Le.z;
            v.push_back(r);
        }
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
            for (int k = 0; k < 16; ++k)
                if (std::round(a[k] * 1e3f) != std::round(b[k] * 1e3f)) return a[k] < b[k];
            return false;
        });
        return v;
    };
    auto a = prims(p.data), b = prims(n.data);
    EXPECT_EQ(p.data.num_primitives, n.data.num_primitives);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        for (int k = 0; k < 16; ++k) EXPECT_NEAR(a[i][k], b[i][k], 2e-5f) << "primitive " << i << " value " << k;
    ASSERT_EQ(p.data.lights.size(), 1u);
    EXPECT_EQ(p.data.lights[0].two_sided, 0u);
    const CameraData &c = p.data.camera, &d = n.data.camera;
    expect_vec(c.pos, d.pos);
    expect_vec(c.forward, d.forward);
    expect_vec(c.right, d.right);  // Scale -1 1 1 before LookAt: the image's right is world +x
    expect_vec(c.up, d.up);
    EXPECT_NEAR(c.tan_half_fov_y, d.tan_half_fov_y, 1e-6f);
    EXPECT_FLOAT_EQ(c.aspect, d.aspect);
}

TEST(PbrtCornell, CpuMeanWithinTwoPercentOfMitsuba) {
    LoadedScene ls = load_pbrt_scene(wp_test::source_dir() + "/scenes/cornell-box.pbrt");
    RenderParams rp = ls.params;
    rp.width = rp.height = 128;
    rp.spp = 64;
    rp.seed = 1;
    wp_test::expect_cornell_matches_reference(render_cpu_megakernel(ls.data, rp), 128, "wavepath (pbrt-v4 file)");
}

// ------------------------------------------------------------------------------------------------ camera
TEST(PbrtCamera, FovSpansTheShorterAxisOnLandscapeAndPortraitFilms) {
    auto cam = [](const std::string& name, int w, int h, const std::string& extra = "") {
        std::string text = "LookAt 0 0 0  0 0 -1  0 1 0\nCamera \"perspective\" \"float fov\" 60 " + extra +
                           "\nFilm \"rgb\" \"integer xresolution\" " + std::to_string(w) + " \"integer yresolution\" " +
                           std::to_string(h) + "\nWorldBegin\nShape \"sphere\"\n";
        return load_pbrt_scene(write_text(name + ".pbrt", text));
    };
    const float t = std::tan(30.0f * kPi / 180.0f);
    LoadedScene land = cam("land", 200, 100);
    EXPECT_NEAR(land.data.camera.tan_half_fov_y, t, 1e-6f);  // vertical = the shorter axis
    EXPECT_FLOAT_EQ(land.data.camera.aspect, 2.0f);
    EXPECT_EQ(land.params.width, 200u);
    EXPECT_EQ(land.params.height, 100u);
    LoadedScene port = cam("port", 100, 200);
    EXPECT_NEAR(port.data.camera.aspect * port.data.camera.tan_half_fov_y, t, 1e-6f);  // horizontal half-extent
    EXPECT_NEAR(port.data.camera.tan_half_fov_y, 2.0f * t, 1e-6f);
    LoadedScene sq = cam("square", 64, 64, "\"float lensradius\" 0.1 \"float focaldistance\" 3");
    EXPECT_NEAR(sq.data.camera.tan_half_fov_y, t, 1e-6f);
    EXPECT_FLOAT_EQ(sq.data.camera.lens_radius, 0.1f);
    EXPECT_FLOAT_EQ(sq.data.camera.focus_dist, 3.0f);
    // without Scale -1 1 1 pbrt's image right is up x dir: looking down -z, world -x
    expect_vec(land.data.camera.right, vec3(-1, 0, 0));
    expect_vec(land.data.camera.forward, vec3(0, 0, -1));
    expect_vec(land.data.camera.up, vec3(0, 1, 0));
    // defaults: 1280x720, 16 spp, maxdepth 5 (6 segments)
    LoadedScene def = load_pbrt_scene(write_text("defaults.pbrt", "WorldBegin Shape \"sphere\""));
    EXPECT_EQ(def.params.width, 1280u);
    EXPECT_EQ(def.params.height, 720u);
    EXPECT_EQ(def.params.spp, 16u);
    EXPECT_EQ(def.params.max_depth, 6u);
    EXPECT_NEAR(def.data.camera.tan_half_fov_y, 1.0f, 1e-6f);  // fov 90
}

TEST(PbrtCamera, SamplerIntegratorAndFilterSettings) {
    LoadedScene ls =
        load_pbrt_scene(write_text("settings.pbrt", R"(Sampler "halton" "integer pixelsamples" 7 "integer seed" 3
Integrator "volpath" "integer maxdepth" 9
PixelFilter "gaussian"
WorldBegin
Shape "sphere"
)"));
    EXPECT_EQ(ls.params.spp, 7u);
    EXPECT_EQ(ls.params.seed, 3u);
    EXPECT_EQ(ls.params.max_depth, 10u);
    // PixelFilter mapped with pbrt-v4's defaults (kernels/filter.h); a filter we lack is warned about
    EXPECT_FALSE(has_warning(ls, "pixel filter"));
    EXPECT_EQ(ls.params.filter, uint32_t(kFilterGaussian));
    EXPECT_EQ(ls.params.filter_radius, 1.5f);
    EXPECT_EQ(ls.params.filter_sigma, 0.5f);
    LoadedScene tri = load_pbrt_scene(write_text(
        "tri.pbrt", "PixelFilter \"triangle\" \"float xradius\" 1 \"float yradius\" 1 WorldBegin Shape \"sphere\""));
    EXPECT_EQ(tri.params.filter, uint32_t(kFilterTriangle));
    EXPECT_EQ(tri.params.filter_radius, 1.0f);
    LoadedScene box = load_pbrt_scene(write_text("box.pbrt", "PixelFilter \"box\" WorldBegin Shape \"sphere\""));
    EXPECT_EQ(box.params.filter, uint32_t(kFilterPixelBox));  // pbrt's default box: today's pixel box, bit for bit
    LoadedScene sinc = load_pbrt_scene(write_text("sinc.pbrt", "PixelFilter \"sinc\" WorldBegin Shape \"sphere\""));
    EXPECT_TRUE(has_warning(sinc, "pixel filter \"sinc\" not supported"));
    EXPECT_EQ(sinc.params.filter, uint32_t(kFilterPixelBox));
    LoadedScene bd = load_pbrt_scene(
        write_text("bdpt.pbrt", "Integrator \"bdpt\" \"integer maxdepth\" 3 WorldBegin Shape \"sphere\""));
    EXPECT_EQ(bd.params.max_depth, 4u);
    EXPECT_TRUE(has_warning(bd, "integrator \"bdpt\" not supported: rendered with the path tracer"));
    LoadedScene st = load_pbrt_scene(
        write_text("strat.pbrt",
                   "Sampler \"stratified\" \"integer xsamples\" 2 \"integer ysamples\" 3 WorldBegin Shape \"sphere\""));
    EXPECT_EQ(st.params.spp, 6u);
}

// ------------------------------------------------------------------------------------------------ materials
TEST(PbrtMaterials, EachMaterialsParameters) {
    auto mat_of = [](const LoadedScene& ls) {
        EXPECT_GE(ls.data.info.size(), 1u);
        return MatHandle{ls.data.info[0].y};
    };
    {
        LoadedScene ls = load("diffuse", "Material \"diffuse\" \"rgb reflectance\" [0.1 0.2 0.3]\nShape \"sphere\"\n");
        MatHandle m = mat_of(ls);
        ASSERT_EQ(m.type(), MatType::Lambert);
        expect_vec(ls.data.lambert[m.index()].albedo, vec3(0.1f, 0.2f, 0.3f));
        EXPECT_EQ(ls.data.lambert[m.index()].albedo_tex, kNoTexture);
        LoadedScene d = load("default", "Shape \"sphere\"\n");  // pbrt's default material: diffuse 0.5
        expect_vec(d.data.lambert[mat_of(d).index()].albedo, vec3(0.5f));
    }
    {
        LoadedScene ls =
            load("conductor",
                 R"(Material "conductor" "spectrum eta" "metal-Au-eta" "spectrum k" "metal-Au-k" "float roughness" 0.25
Shape "sphere")");
        MatHandle m = mat_of(ls);
        ASSERT_EQ(m.type(), MatType::Conductor);
        const ConductorData& c = ls.data.conductor[m.index()];
        vec3 eta, k;
        ASSERT_TRUE(conductor_preset("Au", eta, k));
        expect_vec(c.eta, eta);
        expect_vec(c.k, k);
        EXPECT_EQ(c.use_complex_ior, 1u);
        EXPECT_NEAR(c.alpha, 0.5f, 1e-6f);  // remaproughness: alpha = sqrt(0.25)
        LoadedScene d = load("conductor-default", "Material \"conductor\"\nShape \"sphere\"\n");  // pbrt: copper
        ASSERT_TRUE(conductor_preset("Cu", eta, k));
        expect_vec(d.data.conductor[mat_of(d).index()].eta, eta);
        EXPECT_EQ(d.data.conductor[mat_of(d).index()].alpha, 0.0f);
    }
    {
        LoadedScene ls = load("conductor-raw", R"(Material "conductor" "rgb eta" [0.2 0.9 1.1] "rgb k" [3.9 2.4 2.1]
  "float uroughness" 0.09 "float vroughness" 0.04 "bool remaproughness" false
Shape "sphere")");
        const ConductorData& c = ls.data.conductor[mat_of(ls).index()];
        expect_vec(c.eta, vec3(0.2f, 0.9f, 1.1f));
        expect_vec(c.k, vec3(3.9f, 2.4f, 2.1f));
        EXPECT_NEAR(c.alpha, 0.06f, 1e-6f);  // no remap; the geometric mean of 0.09 and 0.04
        EXPECT_TRUE(has_warning(ls, "anisotropic roughness not supported"));
        LoadedScene r =
            load("conductor-refl", "Material \"conductor\" \"rgb reflectance\" [0.9 0.8 0.7]\nShape \"sphere\"\n");
        const ConductorData& s = r.data.conductor[mat_of(r).index()];
        EXPECT_EQ(s.use_complex_ior, 0u);  // Schlick with F0 = reflectance
        expect_vec(s.color, vec3(0.9f, 0.8f, 0.7f));
    }
    {
        LoadedScene ls = load(
            "dielectric", "Material \"dielectric\" \"float eta\" 1.33 \"float roughness\" 0.01\nShape \"sphere\"\n");
        MatHandle m = mat_of(ls);
        ASSERT_EQ(m.type(), MatType::Dielectric);
        EXPECT_FLOAT_EQ(ls.data.dielectric[m.index()].ior, 1.33f);
        EXPECT_NEAR(ls.data.dielectric[m.index()].alpha, 0.1f, 1e-6f);
        LoadedScene g = load("glass", "Material \"dielectric\" \"spectrum eta\" \"glass-BK7\"\nShape \"sphere\"\n");
        EXPECT_NEAR(g.data.dielectric[mat_of(g).index()].ior, 1.5168f, 1e-4f);
        EXPECT_EQ(g.data.dielectric[mat_of(g).index()].alpha, 0.0f);
        LoadedScene d = load("dielectric-default", "Material \"dielectric\"\nShape \"sphere\"\n");
        EXPECT_FLOAT_EQ(d.data.dielectric[mat_of(d).index()].ior, 1.5f);
    }
    {
        LoadedScene ls =
            load("coated", R"(Material "coateddiffuse" "rgb reflectance" [0.4 0.5 0.6] "float roughness" 0.0625
Shape "sphere")");
        MatHandle m = mat_of(ls);
        ASSERT_EQ(m.type(), MatType::Principled);
        const PrincipledData& p = ls.data.principled[m.index()];
        expect_vec(p.base_color, vec3(0.4f, 0.5f, 0.6f));
        EXPECT_EQ(p.metallic, 0.0f);
        EXPECT_NEAR(p.roughness, 0.5f, 1e-6f);  // alpha = sqrt(0.0625) = 0.25; glTF roughness = sqrt(alpha)
        EXPECT_TRUE(has_warning(ls, "coateddiffuse approximated"));
        LoadedScene c = load("coatedconductor", R"(Material "coatedconductor" "spectrum conductor.eta" "metal-Ag-eta"
  "spectrum conductor.k" "metal-Ag-k" "float conductor.roughness" 0.04 "float interface.roughness" 0
Shape "sphere")");
        MatHandle h = mat_of(c);
        ASSERT_EQ(h.type(), MatType::Conductor);
        vec3 eta, k;
        conductor_preset("Ag", eta, k);
        expect_vec(c.data.conductor[h.index()].eta, eta);
        EXPECT_NEAR(c.data.conductor[h.index()].alpha, 0.2f, 1e-6f);
        EXPECT_TRUE(has_warning(c, "coatedconductor approximated by its conductor"));
    }
    {
        LoadedScene ls = load("named", R"(MakeNamedMaterial "red" "string type" "diffuse" "rgb reflectance" [0.8 0 0]
MakeNamedMaterial "glass" "string type" "dielectric"
MakeNamedMaterial "both" "string type" "mix" "string materials" ["red" "glass"] "float amount" 0.8
Material "diffuse"
AttributeBegin
  NamedMaterial "both"
  Shape "sphere"
AttributeEnd
AttributeBegin
  NamedMaterial "red"
  Translate 5 0 0
  Shape "sphere"
AttributeEnd
AttributeBegin
  Material "interface"
  Shape "sphere" "float radius" 3
AttributeEnd
)");
        EXPECT_EQ(ls.data.num_primitives, 2u);  // the interface sphere has no surface
        int dielectric = 0, red = 0;
        for (const U4& i : ls.data.info) {
            MatHandle m{i.y};
            if (m.type() == MatType::Dielectric) ++dielectric;
            if (m.type() == MatType::Lambert && ls.data.lambert[m.index()].albedo == vec3(0.8f, 0, 0)) ++red;
        }
        EXPECT_EQ(dielectric, 1);  // mix with amount 0.8: the second material
        EXPECT_EQ(red, 1);
        EXPECT_TRUE(has_warning(ls, "mix material not supported: 'glass'"));
    }
}

TEST(PbrtMaterials, ImageAndScaleTexturesForReflectance) {
    // a 2x2 PFM (linear): its texels become the texture; "scale" multiplies the albedo factor
    std::string img = tmp("tex.pfm");
    {
        std::ofstream f(img, std::ios::binary);
        f << "PF\n2 2\n-1\n";
        float px[12] = {0.2f, 0.4f, 0.6f, 0.2f, 0.4f, 0.6f, 0.2f, 0.4f, 0.6f, 0.2f, 0.4f, 0.6f};
        f.write(reinterpret_cast<const char*>(px), sizeof px);
    }
    LoadedScene ls = load("tex", R"(Texture "img" "spectrum" "imagemap" "string filename" "pbrt-tex.pfm"
Texture "half" "spectrum" "scale" "texture tex" "img" "float scale" 0.5
Material "diffuse" "texture reflectance" "half"
Shape "trianglemesh" "point3 P" [0 0 0  1 0 0  0 1 0] "point2 uv" [0 0  1 0  0 1]
)");
    ASSERT_EQ(ls.data.textures.size(), 1u);
    EXPECT_EQ(ls.data.textures[0].width, 2u);
    EXPECT_NEAR(ls.data.tex_texels[0].y, 0.4f, 1e-6f);
    MatHandle m{ls.data.info[0].y};
    ASSERT_EQ(m.type(), MatType::Lambert);
    EXPECT_EQ(ls.data.lambert[m.index()].albedo_tex, 0u);
    expect_vec(ls.data.lambert[m.index()].albedo, vec3(0.5f));
    // the uvs: v flipped (pbrt's v runs up, ours down)
    const F4* a = &ls.data.attr[4 * ls.data.info[0].w];
    EXPECT_FLOAT_EQ(a[3].x, 1.0f);  // corner 0: v = 0 -> 1
    EXPECT_FLOAT_EQ(a[3].z, 0.0f);  // corner 2: v = 1 -> 0
    EXPECT_NE(error_of("notex", std::string(kHeader) + "Material \"diffuse\" \"texture reflectance\" \"nope\"")
                  .find("no spectrum texture named 'nope'"),
              std::string::npos);
}

// ------------------------------------------------------------------------------------------------ lights, shapes
TEST(PbrtLights, AreaLightsAndInfiniteLights) {
    LoadedScene ls = load("area", R"(AttributeBegin
  AreaLightSource "diffuse" "rgb L" [1 2 3] "float scale" 2 "bool twosided" true
  Shape "bilinearmesh" "point3 P" [0 0 0  1 0 0  0 1 0  1 1 0]
AttributeEnd
AttributeBegin
  AreaLightSource "diffuse" "blackbody L" 6500
  Translate 0 0 -3
  Shape "sphere"
AttributeEnd
LightSource "infinite" "rgb L" [0.1 0.2 0.3]
LightSource "point" "point3 from" [0 1 0]
)");
    ASSERT_EQ(ls.data.lights.size(), 2u);
    bool quad = false, sphere = false;
    for (const Light& l : ls.data.lights) {
        uint32_t type = 0;
        for (size_t i = 0; i < ls.data.info.size(); ++i)
            if (ls.data.info[i].z != kInvalid && &ls.data.lights[ls.data.info[i].z] == &l) type = ls.data.info[i].x;
        if (type == uint32_t(ShapeType::Quad)) {
            quad = true;
            expect_vec(l.Le, vec3(2, 4, 6));
            EXPECT_EQ(l.two_sided, 1u);
        } else {
            sphere = true;
            EXPECT_NEAR(luminance(l.Le), 1.0f, 1e-3f);  // a blackbody: luminance 1, near white at 6500 K
            EXPECT_NEAR(l.Le.x / l.Le.z, 1.0f, 0.1f);
            EXPECT_EQ(l.two_sided, 0u);
        }
    }
    EXPECT_TRUE(quad && sphere);
    expect_vec(ls.data.background, vec3(0.1f, 0.2f, 0.3f));
    EXPECT_TRUE(has_warning(ls, "light \"point\" not supported"));
    EXPECT_NE(ls.warnings[0].find("pbrt-area.pbrt:"), std::string::npos) << ls.warnings[0];

    // power: radiance = power / (pi area) for a one-sided light
    LoadedScene pw = load("power", R"(AreaLightSource "diffuse" "float power" 10
Shape "bilinearmesh" "point3 P" [0 0 0  2 0 0  0 1 0  2 1 0])");
    ASSERT_EQ(pw.data.lights.size(), 1u);
    EXPECT_NEAR(pw.data.lights[0].Le.x, 10.0f / (kPi * 2.0f), 1e-4f);
}

TEST(PbrtLights, EqualAreaEnvironmentMapResampledToLatLong) {
    // an 8x8 equal-area map, bright (10) in its central 4x4 texels: the direction +z of the light's frame
    std::string img = tmp("env.pfm");
    {
        std::ofstream f(img, std::ios::binary);
        f << "PF\n8 8\n-1\n";
        for (int y = 0; y < 8; ++y)
            for (int x = 0; x < 8; ++x) {
                float v = x >= 2 && x <= 5 && y >= 2 && y <= 5 ? 10.0f : 0.0f;
                float px[3] = {v, v, v};
                f.write(reinterpret_cast<const char*>(px), sizeof px);
            }
    }
    auto env_at = [](const SceneData& d, vec3 dir) {  // our lat-long lookup (kernels/scene_view.h's EnvView)
        float u = 0.5f + std::atan2(dir.x, -dir.z) / (2.0f * kPi), v = std::acos(dir.y) / kPi;
        uint32_t x = std::min(uint32_t(u * d.env_width), d.env_width - 1);
        uint32_t y = std::min(uint32_t(v * d.env_height), d.env_height - 1);
        return d.env_texels[size_t(y) * d.env_width + x].x;
    };
    LoadedScene ls = load(
        "env", "LightSource \"infinite\" \"string filename\" \"pbrt-env.pfm\" \"float scale\" 2\nShape \"sphere\"\n");
    ASSERT_EQ(ls.data.env_width, 16u);
    ASSERT_EQ(ls.data.env_height, 8u);
    EXPECT_NEAR(env_at(ls.data, vec3(0, 0, 1)), 20.0f, 1e-4f);
    EXPECT_EQ(env_at(ls.data, vec3(0, 0, -1)), 0.0f);
    EXPECT_EQ(env_at(ls.data, vec3(1, 0, 0)), 0.0f);
    // rotated -90 about x, the light frame's +z is world +y (the usual z-up to y-up turn)
    LoadedScene r = load("env-rot",
                         "AttributeBegin Rotate -90 1 0 0 LightSource \"infinite\" \"string filename\" "
                         "\"pbrt-env.pfm\" AttributeEnd\nShape \"sphere\"\n");
    EXPECT_NEAR(env_at(r.data, vec3(0, 1, 0)), 10.0f, 1e-4f);
    EXPECT_EQ(env_at(r.data, vec3(0, 0, 1)), 0.0f);
}

TEST(PbrtShapes, SphereDiskMeshesAndPly) {
    LoadedScene ls = load("shapes", R"(AttributeBegin
  Translate 1 2 3
  Scale 2 2 2
  Shape "sphere" "float radius" 0.5
AttributeEnd
Shape "disk" "float radius" 2 "float height" 1
Shape "trianglemesh" "point3 P" [0 0 0  1 0 0  1 1 0  0 1 0] "integer indices" [0 1 2  0 2 3]
Shape "cylinder"
)");
    int spheres = 0, tris = 0;
    double disk_area = 0;
    for (size_t i : distinct_slots(ls.data)) {
        if (ls.data.info[i].x == uint32_t(ShapeType::Sphere)) {
            ++spheres;
            expect_vec(v3(ls.data.geom[3 * i]), vec3(1, 2, 3));
            EXPECT_NEAR(ls.data.geom[3 * i + 1].x, 1.0f, 1e-6f);  // radius 0.5 x scale 2
        } else if (ls.data.info[i].x == uint32_t(ShapeType::Triangle)) {
            ++tris;
            vec3 a = v3(ls.data.geom[3 * i]);
            vec3 n = glm::cross(v3(ls.data.geom[3 * i + 1]), v3(ls.data.geom[3 * i + 2]));
            if (std::fabs(a.z - 1.0f) < 1e-6f) {
                disk_area += 0.5 * glm::length(n);
                EXPECT_GT(n.z, 0.0f);  // a disk faces +z
            }
        }
    }
    EXPECT_EQ(spheres, 1);
    EXPECT_EQ(ls.data.num_primitives, 1u + 128u + 2u);
    EXPECT_NEAR(disk_area, kPi * 4.0, 1e-3);
    EXPECT_TRUE(has_warning(ls, "shape \"cylinder\" not supported: skipped"));
    // plymesh through our PLY reader, relative to the scene's folder
    write_text("quad.ply",
               "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float "
               "z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n1 1 "
               "0\n0 1 0\n4 0 1 2 3\n");
    LoadedScene p = load("ply", "Translate 0 0 2\nShape \"plymesh\" \"string filename\" \"pbrt-quad.ply\"\n");
    EXPECT_EQ(p.data.num_primitives, 2u);
    EXPECT_NEAR(p.data.geom[0].z, 2.0f, 1e-6f);
    EXPECT_NE(error_of("ply-missing", std::string(kHeader) + "Shape \"plymesh\" \"string filename\" \"nope.ply\"")
                  .find("pbrt-ply-missing.pbrt:5:17: "),
              std::string::npos);
}

// ------------------------------------------------------------------------------------------------ errors
TEST(PbrtErrors, FileLineColumnForEachProblem) {
    auto expect_error = [](const std::string& name, const std::string& text, const std::string& where,
                           const std::string& what) {
        std::string m = error_of(name, text);
        EXPECT_EQ(m.rfind(tmp(name + ".pbrt") + ":" + where + ": ", 0), 0u) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    };
    expect_error("e-string", "WorldBegin\nShape \"sphere\" \"float radius [1]\n", "2:16", "unterminated string");
    expect_error("e-directive", "WorldBegin\n  Shap \"sphere\"\n", "2:3", "unknown directive 'Shap'");
    expect_error("e-type", "WorldBegin\nShape \"sphere\" \"float radius\" \"big\"\n", "2:31", "expected a number");
    expect_error("e-decl", "WorldBegin\nShape \"sphere\" \"flot radius\" 1\n", "2:16", "unknown parameter type 'flot'");
    expect_error("e-mismatch", "WorldBegin\nShape \"sphere\" \"integer radius\" 1\n", "2:16",
                 "parameter 'radius' must be float, not integer");
    expect_error("e-param", "WorldBegin\nShape \"sphere\" \"float radios\" 1\n", "2:16",
                 "unknown parameter 'radios' for Shape \"sphere\"");
    expect_error("e-include", "WorldBegin\n\n   Include \"missing.pbrt\"\n", "3:4", "cannot open included file");
    expect_error("e-shape", "WorldBegin\nShape \"cube\"\n", "2:1", "unknown shape 'cube'");
    expect_error("e-before", "Shape \"sphere\"\nWorldBegin\n", "1:1", "before WorldBegin");
    expect_error("e-rgb", "WorldBegin\nMaterial \"diffuse\" \"rgb reflectance\" [1 2]\n", "2:20", "expected 3 values");
    expect_error("e-bracket", "WorldBegin\nShape \"sphere\" \"float radius\" [ 1\n", "2:31", "without a closing ']'");
    expect_error("e-attr", "WorldBegin\nAttributeBegin\nShape \"sphere\"\n", "2:1",
                 "AttributeBegin without a matching");
    expect_error("e-named", "WorldBegin\nNamedMaterial \"x\"\n", "2:1", "no material named 'x'");
    expect_error("e-noworld", "LookAt 0 0 5  0 0 0  0 1 0\n", "2:1", "no WorldBegin");
    expect_error("e-eof", "WorldBegin Shape", "1:12", "expected a quoted string, the file ends");
    // an error inside an included file names that file
    write_text("inc-bad.pbrt", "\n Bogus\n");
    std::string m = error_of("e-inc2", "WorldBegin\nInclude \"pbrt-inc-bad.pbrt\"\n");
    EXPECT_EQ(m.rfind(tmp("inc-bad.pbrt") + ":2:2: unknown directive 'Bogus'", 0), 0u) << m;
    // a file that includes itself stops
    std::string self = error_of("self", "Include \"pbrt-self.pbrt\"\n");
    EXPECT_NE(self.find("nested more than 32 deep"), std::string::npos) << self;
}

TEST(PbrtErrors, UnsupportedIsAWarningAndAnErrorWhenStrict) {
    const std::string body =
        "MakeNamedMedium \"fog\" \"string type\" \"homogeneous\"\nShape \"sphere\" \"float alpha\" 0.5\n";
    LoadedScene ls = load("warn", body);
    EXPECT_TRUE(has_warning(ls, "pbrt-warn.pbrt:5:1: participating media not supported"));
    EXPECT_TRUE(has_warning(ls, "pbrt-warn.pbrt:6:16: parameter 'alpha' of Shape \"sphere\" not supported"));
    EXPECT_EQ(ls.data.num_primitives, 1u);
    std::string m = error_of("warn-strict", std::string(kHeader) + body, true);
    EXPECT_EQ(m.rfind(tmp("warn-strict.pbrt") + ":5:1: participating media not supported", 0), 0u) << m;
    // through the format dispatch of load_scene_json
    LoadedScene d = load_scene_json(tmp("warn.pbrt"));
    EXPECT_EQ(d.data.num_primitives, 1u);
}

TEST(PbrtErrors, NonFiniteValuesUnderTheTransformAreErrors) {
    // 1e38 x 1e38 overflows float: each shape says so instead of handing infinities to the tree builder
    for (const char* shape :
         {"Shape \"sphere\"", "Shape \"disk\"", "Shape \"trianglemesh\" \"point3 P\" [0 0 0  1 0 0  0 1 0]",
          "Shape \"trianglemesh\" \"point3 P\" [0 0 0  1e-38 0 0  0 1e-38 0] \"normal N\" [0 0 1  0 0 "
          "1  0 0 1]"}) {
        std::string m = error_of("inf", std::string(kHeader) + "Scale 1e38 1e38 1e38\nTranslate 1e38 0 0\n" + shape);
        EXPECT_NE(m.find("finite"), std::string::npos) << shape << ": " << m;
    }
}
