// pbrt-v4 scenes: the tokenizer, transforms against hand-computed matrices, the hand-written Cornell box against
// the native one (geometry, camera) and against Mitsuba's reference (CPU render), the fov convention on landscape
// and portrait films, each material's parameters, lights, shapes, and the warnings and errors (file:line:column).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kernels/bsdf.h"
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
#include "host/scene/spectrum_file.h"
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
    // no PixelFilter at all: pbrt-v4's default, a Gaussian of radius 1.5 and sigma 0.5 (was the pixel box)
    LoadedScene none = load_pbrt_scene(write_text("nofilter.pbrt", "WorldBegin Shape \"sphere\""));
    EXPECT_EQ(none.params.filter, uint32_t(kFilterGaussian));
    EXPECT_EQ(none.params.filter_radius, 1.5f);
    EXPECT_EQ(none.params.filter_sigma, 0.5f);
    LoadedScene bd = load_pbrt_scene(
        write_text("bdpt.pbrt", "Integrator \"bdpt\" \"integer maxdepth\" 3 WorldBegin Shape \"sphere\""));
    EXPECT_EQ(bd.params.max_depth, 4u);
    EXPECT_TRUE(has_warning(bd, "integrator \"bdpt\" not supported: rendered with the path tracer"));
    LoadedScene st = load_pbrt_scene(
        write_text("strat.pbrt",
                   "Sampler \"stratified\" \"integer xsamples\" 2 \"integer ysamples\" 3 WorldBegin Shape \"sphere\""));
    EXPECT_EQ(st.params.spp, 6u);
}

// pbrt-v4's Sampler: independent as ours, every low-discrepancy type as our sobol (no Sampler: pbrt-v4's zsobol), with
// a note at FILE:LINE:COLUMN where pbrt-v4's pattern differs from ours (not a warning: --strict lets it pass).
TEST(PbrtCamera, SamplerTypesMapToOurSamplers) {
    const std::pair<const char*, bool> types[] = {{"independent", false}, {"paddedsobol", false}, {"sobol", true},
                                                  {"zsobol", true},       {"halton", true},       {"pmj02bn", true},
                                                  {"stratified", true}};
    for (const auto& [type, noted] : types) {
        const std::string path =
            write_text(std::string("sampler-") + type + ".pbrt",
                       std::string("Film \"rgb\"\n  Sampler \"") + type + "\"\nWorldBegin Shape \"sphere\"");
        testing::internal::CaptureStderr();
        const LoadedScene ls = load_pbrt_scene(path, /*strict=*/true);
        const std::string err = testing::internal::GetCapturedStderr();
        EXPECT_EQ(ls.params.sampler,
                  std::string(type) == "independent" ? uint32_t(kSamplerIndependent) : uint32_t(kSamplerSobol))
            << type;
        EXPECT_TRUE(ls.warnings.empty()) << type;
        if (noted)
            EXPECT_EQ(err, "note: " + path + ":2:3: sampler \"" + type +
                               "\" rendered with wavepath's sobol sampler (Owen-scrambled Sobol padded per bounce, as "
                               "pbrt-v4's paddedsobol): another pattern of the same image\n")
                << type;
        else
            EXPECT_EQ(err, "") << type;
    }
    EXPECT_EQ(load_pbrt_scene(write_text("no-sampler.pbrt", "WorldBegin Shape \"sphere\"")).params.sampler,
              uint32_t(kSamplerSobol));
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
        ASSERT_EQ(m.type(), MatType::Layered);  // pbrt-v4's layered BSDF (kernels/layered.h), no stand-in
        const LayeredData& p = ls.data.layered[m.index()];
        expect_vec(p.reflectance, vec3(0.4f, 0.5f, 0.6f));
        EXPECT_EQ(p.conductor_base, 0u);
        EXPECT_NEAR(p.coat_alpha, 0.25f, 1e-6f);  // alpha = sqrt(0.0625)
        EXPECT_FALSE(has_warning(ls, "approximated"));
        LoadedScene c = load("coatedconductor", R"(Material "coatedconductor" "spectrum conductor.eta" "metal-Ag-eta"
  "spectrum conductor.k" "metal-Ag-k" "float conductor.roughness" 0.04 "float interface.roughness" 0
Shape "sphere")");
        MatHandle h = mat_of(c);
        ASSERT_EQ(h.type(), MatType::Layered);
        vec3 eta, k;
        conductor_preset("Ag", eta, k);
        const LayeredData& q = c.data.layered[h.index()];
        EXPECT_EQ(q.conductor_base, 1u);
        expect_vec(q.eta, eta / 1.5f);  // relative to the coating, as pbrt-v4
        expect_vec(q.k, k / 1.5f);
        EXPECT_NEAR(q.base_alpha, 0.2f, 1e-6f);
        EXPECT_EQ(q.coat_alpha, 0.0f);
        EXPECT_FALSE(has_warning(c, "approximated"));
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

// "displacement": every material pbrt-v4 bump-maps is wrapped in a bump record (MatType::Bumped) of the float
// texture's image, factor and half-texel steps; a displacement that cannot be expressed is a warning at its
// parameter, a constant one changes nothing, and a shape without texture coordinates here (a sphere) is a warning.
TEST(PbrtMaterials, DisplacementBumpMapsEachMaterialOrWarns) {
    {
        std::ofstream f(tmp("bump.pfm"), std::ios::binary);  // 4 x 2, linear
        f << "PF\n4 2\n-1\n";
        for (int i = 0; i < 8; ++i)
            for (int c = 0; c < 3; ++c) {
                const float v = 0.1f * float(i);
                f.write(reinterpret_cast<const char*>(&v), 4);
            }
    }
    const std::string tri =
        "Translate 2 0 0 Shape \"trianglemesh\" \"point3 P\" [0 0 0  1 0 0  0 1 0] \"point2 uv\" [0 0  1 0  0 1]\n";
    LoadedScene ls = load("bumps", R"(Texture "h" "float" "imagemap" "string filename" "pbrt-bump.pfm" "float uscale" 2
Texture "b" "float" "scale" "texture tex" "h" "float scale" 0.25
Texture "m" "float" "mix" "texture tex1" "h" "float tex2" 0
Material "diffuse" "texture displacement" "b"
)" + tri + R"(Material "conductor" "texture displacement" "b"
)" + tri + R"(Material "coateddiffuse" "texture displacement" "b"
)" + tri + R"(Material "diffusetransmission" "texture displacement" "b"
)" + tri + R"(Material "dielectric" "texture displacement" "m"
)" + tri + R"(Material "diffuse" "float displacement" 0.5
)" + tri + R"(Material "diffuse" "texture displacement" "b"
Shape "sphere"
)");
    const SceneData& d = ls.data;
    EXPECT_TRUE(d.features() & kFeatBump);
    EXPECT_TRUE(d.features() & kFeatDiffuseTransmission);  // (seen through its bump record)
    ASSERT_EQ(d.bump.size(), 5u);                          // the four bumped triangles' materials and the sphere's
    const MatType wrapped[5] = {MatType::Lambert, MatType::Conductor, MatType::Layered, MatType::DiffuseTransmission,
                                MatType::Lambert};
    for (size_t i = 0; i < 5; ++i) {
        const BumpData& b = d.bump[i];
        EXPECT_EQ(MatHandle{b.material}.type(), wrapped[i]) << i;
        ASSERT_LT(b.tex, d.textures.size());
        EXPECT_EQ(d.textures[b.tex].kind, kTexMapped);  // the image through its uscale
        EXPECT_FLOAT_EQ(b.scale, 0.25f);
        EXPECT_FLOAT_EQ(b.du, 0.5f / (4 * 2));  // half a texel of the mapped image
        EXPECT_FLOAT_EQ(b.dv, 0.5f / 2);
    }
    size_t bumped = 0, plain = 0;
    for (size_t i : distinct_slots(d)) (MatHandle{d.info[i].y}.type() == MatType::Bumped ? bumped : plain)++;
    EXPECT_EQ(bumped, 5u);
    EXPECT_EQ(plain, 2u);  // the dielectric of the mix texture, the constant displacement
    EXPECT_TRUE(has_warning(ls, "pbrt-bumps.pbrt:16:23: displacement texture 'm' is not pbrt-v4's here"));
    EXPECT_TRUE(has_warning(ls, "pbrt-bumps.pbrt:21:1: bump mapping of a sphere not supported"));
    EXPECT_FALSE(has_warning(ls, "parameter 'displacement'"));  // read, never "ignored"
    EXPECT_EQ(ls.warnings.size(), 3u) << ls.warnings[0];        // and the mix texture's own
    EXPECT_NE(error_of("nodisp", std::string(kHeader) + "Material \"diffuse\" \"texture displacement\" \"nope\"")
                  .find("no float texture named 'nope'"),
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
    ASSERT_EQ(ls.data.lights.size(), 3u);  // the two area lights and the point light
    bool quad = false, sphere = false, point = false;
    for (const Light& l : ls.data.lights) {
        if (l.type == kLightPoint) {
            point = true;
            expect_vec(l.pos, vec3(0, 1, 0));
            continue;
        }
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
    EXPECT_TRUE(quad && sphere && point);
    expect_vec(ls.data.background, vec3(0.1f, 0.2f, 0.3f));
    EXPECT_TRUE(ls.warnings.empty()) << ls.warnings[0];

    // power: radiance = power / (pi area) for a one-sided light
    LoadedScene pw = load("power", R"(AreaLightSource "diffuse" "float power" 10
Shape "bilinearmesh" "point3 P" [0 0 0  2 0 0  0 1 0  2 1 0])");
    ASSERT_EQ(pw.data.lights.size(), 1u);
    EXPECT_NEAR(pw.data.lights[0].Le.x, 10.0f / (kPi * 2.0f), 1e-4f);
}

// ------------------------------------------------------------------------------------------- delta lights
namespace {
// A camera `h` above a Lambert plane z = 0 of reflectance rho (40 x 40), looking down (image up: +y), one bounce
// (pbrt's maxdepth 1: direct light only), and `lights` in the world block.
std::string plane_scene(float h, float fov, float rho, const std::string& lights, int res = 16) {
    const std::string r = std::to_string(rho), n = std::to_string(res);
    return "LookAt 0 0 " + std::to_string(h) + "  0 0 0  0 1 0\nCamera \"perspective\" \"float fov\" " +
           std::to_string(fov) + "\nFilm \"rgb\" \"integer xresolution\" " + n + " \"integer yresolution\" " + n +
           "\nSampler \"independent\" \"integer pixelsamples\" 64\nIntegrator \"path\" \"integer maxdepth\" 1\n"
           "PixelFilter \"box\"\n"  // per-pixel analytic checks (pbrt-v4's default is a Gaussian)
           "WorldBegin\n" +
           lights + "\nMaterial \"diffuse\" \"rgb reflectance\" [" + r + " " + r + " " + r +
           "]\nShape \"bilinearmesh\" \"point3 P\" [-20 -20 0  20 -20 0  -20 20 0  20 20 0]\n";
}
// Each pixel's mean of radiance(p) over the points p where its rays meet z = 0 (generate_path's camera model, an
// 8 x 8 grid of positions in the pixel), against the render: within rel of the value plus abs_tol.
template <class Radiance>
void expect_pixels(const Image& im, const CameraData& c, Radiance radiance, float rel, float abs_tol,
                   const std::string& what) {
    int bad = 0;
    for (uint32_t y = 0; y < im.height; ++y)
        for (uint32_t x = 0; x < im.width; ++x) {
            vec3 mean(0.0f);
            for (int j = 0; j < 8; ++j)
                for (int i = 0; i < 8; ++i) {
                    float px = x + (i + 0.5f) / 8, py = y + (j + 0.5f) / 8;
                    float sx = (2.0f * px / im.width - 1.0f) * c.aspect * c.tan_half_fov_y;
                    float sy = (1.0f - 2.0f * py / im.height) * c.tan_half_fov_y;
                    vec3 d = glm::normalize(sx * c.right + sy * c.up + c.forward);
                    vec3 p = c.pos + d * (-c.pos.z / d.z);
                    mean += radiance(p) / 64.0f;
                }
            const float* got = &im.rgb[3 * (size_t(y) * im.width + x)];
            for (int k = 0; k < 3; ++k)
                if (!(std::fabs(got[k] - mean[k]) <= rel * mean[k] + abs_tol) && bad++ < 5)
                    ADD_FAILURE() << what << ": pixel (" << x << ", " << y << ") channel " << k << ": " << got[k]
                                  << ", expected " << mean[k];
        }
    EXPECT_EQ(bad, 0) << what;
}
}  // namespace

// (1) A point light of intensity I at height d over a Lambert plane of albedo rho: radiance rho / pi I cos / r^2,
// r the distance, cos = d / r (pbrt-v4's I, scale, 'from' under the CTM, and 'power': I = power / 4 pi).
TEST(PbrtLights, PointLightGivesAnalyticIrradiance) {
    const float rho = 0.5f, d = 2.0f;
    const vec3 I(3.0f, 2.0f, 1.0f), at(0.3f, -0.2f, d);
    auto expect = [&](const LoadedScene& ls, vec3 Ieff, const std::string& what) {
        ASSERT_EQ(ls.data.lights.size(), 1u) << what;
        EXPECT_EQ(ls.data.lights[0].type, uint32_t(kLightPoint));
        EXPECT_EQ(ls.data.features() & kFeatDeltaLights, uint32_t(kFeatDeltaLights));
        EXPECT_EQ(ls.data.features() & kFeatEmitters, 0u);  // no emissive primitive
        RenderParams rp = ls.params;
        rp.spp = 1024;  // the pixels' jitter over a radiance that varies up to 20% across a pixel: 0.2% noise
        Image im = render_cpu_megakernel(ls.data, rp);
        expect_pixels(
            im, ls.data.camera,
            [&](vec3 p) {
                vec3 v = at - p;
                float r2 = glm::dot(v, v);
                return rho / kPi * Ieff * (d / std::sqrt(r2)) / r2;
            },
            1e-2f, 1e-6f, what);
        // the brightest pixel, the one under the light (its centre within 0.2 of it): rho / pi I / d^2 to 2.5%
        const float top = *std::max_element(im.rgb.begin(), im.rgb.end()), expect_top = rho / kPi * Ieff.x / (d * d);
        EXPECT_NEAR(top, expect_top, 0.025f * expect_top) << what;
    };
    // 'from' through the CTM: Translate 0.3 -0.2 1, from (0 0 1)
    expect(load_pbrt_string(plane_scene(8, 30, rho,
                                        "AttributeBegin Translate 0.3 -0.2 1 LightSource \"point\" \"rgb I\" [3 2 1] "
                                        "\"point3 from\" [0 0 1] AttributeEnd"),
                            "point.pbrt"),
           I, "point light, I");
    // scale and power (pbrt-v4: I * scale * power / 4 pi; the RGB is not normalized)
    expect(load_pbrt_string(plane_scene(8, 30, rho,
                                        "LightSource \"point\" \"rgb I\" [3 2 1] \"float scale\" 2 \"float power\" 50 "
                                        "\"point3 from\" [0.3 -0.2 2]"),
                            "point-power.pbrt"),
           I * 2.0f * 50.0f / (4.0f * kPi), "point light, power");
}

// (2) A spot light straight down from height d: full intensity inside coneangle - conedeltaangle, none outside
// coneangle, pbrt-v4's smoothstep of the cosine between.
TEST(PbrtLights, SpotLightConeAndFalloff) {
    const float rho = 0.8f, d = 2.0f, I = 5.0f;
    LoadedScene ls = load_pbrt_string(
        plane_scene(8, 24, rho,
                    "LightSource \"spot\" \"rgb I\" [5 5 5] \"point3 from\" [0 0 2] \"point3 to\" [0 0 0] "
                    "\"float coneangle\" 30 \"float conedeltaangle\" 10",
                    32),
        "spot.pbrt");
    ASSERT_EQ(ls.data.lights.size(), 1u);
    const Light& L = ls.data.lights[0];
    EXPECT_EQ(L.type, uint32_t(kLightSpot));
    EXPECT_NEAR(L.cos_end, std::cos(30.0f * kPi / 180.0f), 1e-6f);
    EXPECT_NEAR(L.cos_start, std::cos(20.0f * kPi / 180.0f), 1e-6f);
    const float ce = L.cos_end, cs = L.cos_start;
    auto radiance = [&](vec3 p) {
        vec3 v = vec3(0, 0, d) - p;
        float r2 = glm::dot(v, v), c = d / std::sqrt(r2);
        float t = glm::clamp((c - ce) / (cs - ce), 0.0f, 1.0f);
        return vec3(rho / kPi * I * t * t * (3 - 2 * t) * c / r2);
    };
    RenderParams rp = ls.params;
    rp.spp = 1024;
    Image im = render_cpu_megakernel(ls.data, rp);
    // a pixel's jittered samples average the falloff (up to 40% of the peak across a pixel): 0.4% noise
    const float peak = rho / kPi * I / (d * d);
    expect_pixels(im, ls.data.camera, radiance, 2e-3f, 0.015f * peak, "spot light");
    // and by region: the pixel at the centre is lit fully, the corners (beyond 30 degrees) are black, a pixel at
    // 25 degrees between
    int inner = 0, outer = 0, between = 0;
    for (uint32_t y = 0; y < 32; ++y)
        for (uint32_t x = 0; x < 32; ++x) {
            const CameraData& c = ls.data.camera;
            float sx = (2.0f * (x + 0.5f) / 32 - 1.0f) * c.tan_half_fov_y,
                  sy = (1.0f - 2.0f * (y + 0.5f) / 32) * c.tan_half_fov_y;
            vec3 dd = glm::normalize(sx * c.right + sy * c.up + c.forward);
            vec3 p = c.pos + dd * (-c.pos.z / dd.z);
            float deg = std::atan(glm::length(vec2(p)) / d) * 180.0f / kPi;
            float v = im.rgb[3 * (y * 32 + x)];
            const float r2 = glm::dot(vec2(p), vec2(p)) + d * d, full = rho / kPi * I * (d / std::sqrt(r2)) / r2;
            if (deg < 15) {  // a pixel spans about 1.3 degrees
                ++inner;
                EXPECT_NEAR(v, full, 0.01f * full) << x << " " << y;
            } else if (deg > 32.5f) {
                ++outer;
                EXPECT_EQ(v, 0.0f) << x << " " << y;
            } else if (deg > 23 && deg < 27) {
                ++between;
                EXPECT_GT(v, 0.03f * full) << x << " " << y;
                EXPECT_LT(v, 0.97f * full) << x << " " << y;
            }
        }
    EXPECT_GT(inner, 10);
    EXPECT_GT(outer, 10);
    EXPECT_GT(between, 10);
}

// (3) A distant light of 'illuminance' E (pbrt-v4: L of luminance 1 scaled to E on a plane facing it): a Lambert
// plane facing it has radiance rho E / pi; tilted 60 degrees, rho E cos 60 / pi; from infinitely far: a quad far
// above the plane shadows half of it.
TEST(PbrtLights, DistantLightIlluminance) {
    const float rho = 0.5f, E = 3.0f;
    for (float deg : {0.0f, 60.0f}) {
        const float t = deg * kPi / 180.0f;
        const std::string from = std::to_string(std::sin(t)) + " 0 " + std::to_string(std::cos(t));
        LoadedScene ls = load_pbrt_string(
            plane_scene(8, 30, rho,
                        "LightSource \"distant\" \"blackbody L\" 5000 \"float illuminance\" 3 \"point3 from\" [" +
                            from + "] \"point3 to\" [0 0 0]"),
            "distant.pbrt");
        ASSERT_EQ(ls.data.lights.size(), 1u);
        const Light& L = ls.data.lights[0];
        EXPECT_EQ(L.type, uint32_t(kLightDistant));
        EXPECT_NEAR(luminance(L.Le), E, 1e-4f);  // a blackbody: luminance 1 times the illuminance
        Image im = render_cpu_megakernel(ls.data, ls.params);
        expect_pixels(
            im, ls.data.camera, [&](vec3) { return rho / kPi * L.Le * std::cos(t); }, 1e-4f, 1e-6f,
            "distant light at " + std::to_string(deg) + " degrees");
        double lum = 0;
        for (size_t i = 0; i < im.rgb.size(); i += 3) lum += luminance(vec3(im.rgb[i], im.rgb[i + 1], im.rgb[i + 2]));
        EXPECT_NEAR(lum / (16 * 16), rho / kPi * E * std::cos(t), 1e-4 * E);
    }
    // a black quad 1000 above the plane over x < 0: the shadow ray goes to infinity and finds it
    LoadedScene sh = load_pbrt_string(
        plane_scene(8, 30, rho,
                    "LightSource \"distant\" \"rgb L\" [1 1 1] \"float scale\" 2 \"point3 from\" [0 0 1] \"point3 to\" "
                    "[0 0 0]\n"
                    "AttributeBegin Material \"diffuse\" \"rgb reflectance\" [0 0 0]\n"
                    "Shape \"bilinearmesh\" \"point3 P\" [-1000 -1000 1000  0 -1000 1000  -1000 1000 1000  0 1000 "
                    "1000] AttributeEnd"),
        "distant-shadow.pbrt");
    Image im = render_cpu_megakernel(sh.data, sh.params);
    int shadowed = 0, lit = 0;
    for (uint32_t y = 0; y < 16; ++y)
        for (uint32_t x = 0; x < 16; ++x) {
            const CameraData& c = sh.data.camera;
            float sx = (2.0f * (x + 0.5f) / 16 - 1.0f) * c.tan_half_fov_y,
                  sy = (1.0f - 2.0f * (y + 0.5f) / 16) * c.tan_half_fov_y;
            vec3 dd = glm::normalize(sx * c.right + sy * c.up + c.forward);
            float px = c.pos.x + dd.x * (-c.pos.z / dd.z), v = im.rgb[3 * (y * 16 + x)];
            if (px < -0.3f) {  // a pixel is 0.27 wide
                ++shadowed;
                EXPECT_EQ(v, 0.0f) << x << " " << y;
            }
            if (px > 0.3f) {
                ++lit;
                EXPECT_NEAR(v, rho / kPi * 2.0f, 1e-5f) << x << " " << y;
            }
        }
    EXPECT_GT(shadowed, 50);
    EXPECT_GT(lit, 50);
}

// (4) pbrt-v4's 'power' of point and spot lights and 'illuminance' of distant lights, against hand calculations,
// and the selection probabilities, in proportion to each light's power (pbrt-v4's Phi; a distant light's over the
// scene's bounding sphere of radius r: pi r^2 L).
TEST(PbrtLights, PowerNormalizationAndSelectionByPower) {
    LoadedScene ls = load("delta-power", R"(LightSource "point" "float power" 100
LightSource "point" "blackbody I" 3000 "float power" 100 "float scale" 0.5
LightSource "spot" "float power" 100
LightSource "spot" "rgb I" [2 2 2] "float coneangle" 60 "float conedeltaangle" 60 "float power" 10
LightSource "distant" "rgb L" [1 2 3] "float scale" 2 "float illuminance" 5 "point3 from" [0 1 0] "point3 to" [0 0 0]
AttributeBegin
  AreaLightSource "diffuse" "rgb L" [1 1 1]
  Shape "bilinearmesh" "point3 P" [-1 -1 0  1 -1 0  -1 1 0  1 1 0]
AttributeEnd
)");
    const auto& Ls = ls.data.lights;
    ASSERT_EQ(Ls.size(), 6u);
    EXPECT_EQ(Ls[0].type, uint32_t(kLightArea));  // the area light first, the delta lights in the file's order
    // point: I = power / 4 pi = 7.9577 (the default I, the illuminant, is white of luminance 1)
    EXPECT_EQ(Ls[1].type, uint32_t(kLightPoint));
    expect_vec(Ls[1].Le, vec3(7.957747f), 1e-5f);
    // a blackbody normalized to luminance 1, then power / 4 pi and the scale: luminance 3.97887
    EXPECT_NEAR(luminance(Ls[2].Le), 3.978874f, 1e-4f);
    EXPECT_GT(Ls[2].Le.x, Ls[2].Le.z);  // 3000 K: reddish
    // spot, the defaults (coneangle 30, conedeltaangle 5): k = 2 pi (1 - cos 25 + (cos 25 - cos 30) / 2)
    // = 2 pi (0.0936922 + 0.0201412) = 0.7152364, I = 100 / k = 139.8139
    EXPECT_EQ(Ls[3].type, uint32_t(kLightSpot));
    expect_vec(Ls[3].Le, vec3(139.8139f), 2e-3f);
    EXPECT_NEAR(Ls[3].cos_start, 0.9063078f, 1e-6f);
    EXPECT_NEAR(Ls[3].cos_end, 0.8660254f, 1e-6f);
    expect_vec(Ls[3].dir, vec3(0, 0, 1));
    // spot of 60 degrees all falloff: k = 2 pi (0 + (1 - 0.5) / 2) = pi / 2; the RGB as given: 2 * 10 / (pi / 2)
    expect_vec(Ls[4].Le, vec3(12.732395f), 1e-4f);
    // distant: L * scale * illuminance, from +y
    EXPECT_EQ(Ls[5].type, uint32_t(kLightDistant));
    expect_vec(Ls[5].Le, vec3(10, 20, 30), 1e-4f);
    expect_vec(Ls[5].dir, vec3(0, 1, 0));
    // selection by power (over pi): area L A = 4; point 4 I; spot 2 I (1 - cs + (cs - ce) / 2); distant r^2 L
    // with r = sqrt(2) (the 2 x 2 quad's bounding sphere)
    const float lum5 = luminance(vec3(10, 20, 30));
    const double phi[6] = {4.0,
                           4.0 * 7.957747,
                           4.0 * 3.978874,
                           2.0 * 139.8139 * (1 - 0.9063078 + 0.5 * (0.9063078 - 0.8660254)),
                           2.0 * 12.732395 * 0.25,
                           2.0 * lum5};
    double total = 0;
    for (double p : phi) total += p;
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(Ls[i].select_pdf, phi[i] / total, 1e-4 * phi[i] / total) << i;
    EXPECT_NEAR(phi[1], 100.0 / kPi, 1e-3);  // a point light's power over pi is power / pi, as pbrt-v4 meant
    EXPECT_NEAR(phi[3], 100.0 / kPi, 1e-3);  // the spot's too: its 'power' is what it emits
}

// (5) An area light, a point light and a constant environment: light sampling with MIS (the point light among
// the area light's and environment's selection probabilities) against another estimator: the area light and the
// environment by BSDF sampling alone (no light sampling) plus the point light alone by light sampling.
TEST(PbrtLights, MixedLightsMatchAnotherEstimator) {
    const std::string head = R"(LookAt 0 -4 3  0 0 0.5  0 0 1
Camera "perspective" "float fov" 50
Film "rgb" "integer xresolution" 16 "integer yresolution" 16
Integrator "path" "integer maxdepth" 3
WorldBegin
Material "diffuse" "rgb reflectance" [0.6 0.6 0.6]
Shape "bilinearmesh" "point3 P" [-3 -3 0  3 -3 0  -3 3 0  3 3 0]
AttributeBegin Translate 0.4 0.3 0.6 Shape "sphere" "float radius" 0.6 AttributeEnd
)";
    const std::string area = R"(AttributeBegin
  AreaLightSource "diffuse" "rgb L" [4 3 2] "bool twosided" true
  Shape "bilinearmesh" "point3 P" [-1.5 -0.5 2.5  -0.5 -0.5 2.5  -1.5 0.5 2.5  -0.5 0.5 2.5]
AttributeEnd
LightSource "infinite" "rgb L" [0.2 0.25 0.3]
)";
    const std::string point = R"(LightSource "point" "rgb I" [2 3 4] "point3 from" [1 -1 2]
)";
    LoadedScene all = load_pbrt_string(head + area + point, "mixed.pbrt");
    LoadedScene area_env = load_pbrt_string(head + area, "mixed-area.pbrt");
    LoadedScene point_only = load_pbrt_string(head + point, "mixed-point.pbrt");
    ASSERT_EQ(all.data.lights.size(), 2u);
    EXPECT_GT(all.data.env_select_prob, 0.0f);
    // the mean of each render over seeds, and its standard error
    auto mean = [&](const LoadedScene& ls, uint32_t light_sampling, uint32_t spp, double& se) {
        std::vector<double> m;
        for (uint32_t seed = 1; seed <= 4; ++seed) {
            RenderParams rp = ls.params;
            rp.spp = spp;
            rp.seed = seed;
            rp.light_sampling = light_sampling;
            Image im = render_cpu_megakernel(ls.data, rp);
            double s = 0;
            for (size_t i = 0; i < im.rgb.size(); i += 3) s += luminance(vec3(im.rgb[i], im.rgb[i + 1], im.rgb[i + 2]));
            m.push_back(s / (im.width * im.height));
        }
        double mu = 0, var = 0;
        for (double x : m) mu += x / m.size();
        for (double x : m) var += (x - mu) * (x - mu) / (m.size() - 1);
        se = std::sqrt(var / m.size());
        return mu;
    };
    double se_all, se_bsdf, se_point;
    const double mis = mean(all, 1, 256, se_all);
    const double bsdf = mean(area_env, 0, 1024, se_bsdf), pt = mean(point_only, 1, 256, se_point);
    const double se = std::sqrt(se_all * se_all + se_bsdf * se_bsdf + se_point * se_point);
    EXPECT_LT(se, 0.004 * mis);  // the comparison can tell a bias of 1-2%
    EXPECT_GT(pt, 0.1 * mis);    // the point light is a good part of the image
    EXPECT_NEAR(mis, bsdf + pt, 4.0 * se + 1e-4 * mis)
        << "MIS " << mis << ", BSDF sampling " << bsdf << " + point " << pt;
    // and it would see the bias of an area light's selection probability that left the point light out (1 where
    // the CDF picks it with 0.37): the same renders with that pdf are 6% (25 standard errors) off
    ASSERT_EQ(all.data.lights[0].type, uint32_t(kLightArea));
    LoadedScene wrong = all;
    wrong.data.lights[0].select_pdf = 1.0f;
    double se_wrong;
    const double biased = mean(wrong, 1, 256, se_wrong);
    EXPECT_GT(std::fabs(biased - (bsdf + pt)), 10.0 * se) << "biased " << biased;
}

// Errors in delta lights' parameters name the file, line and column; unsupported light types are warnings there.
TEST(PbrtLights, DeltaLightErrorsAndWarnings) {
    auto expect_error = [](const std::string& name, const std::string& world, const std::string& where,
                           const std::string& what) {
        std::string m = error_of(name, std::string(kHeader) + world);
        EXPECT_EQ(m.rfind(tmp(name + ".pbrt") + ":" + where + ": ", 0), 0u) << m;
        EXPECT_NE(m.find(what), std::string::npos) << m;
    };
    expect_error("e-cone", "LightSource \"spot\" \"float coneangle\" -10\n", "5:20", "coneangle must be in (0, 180]");
    expect_error("e-delta", "Shape \"sphere\"\n  LightSource \"spot\" \"float conedeltaangle\" -1\n", "6:22",
                 "conedeltaangle must be in [0, 360]");
    expect_error("e-negI", "LightSource \"point\" \"rgb I\" [1 -1 1]\n", "5:21", "I must not be negative");
    expect_error("e-negL", "LightSource \"distant\" \"rgb L\" [-1 1 1]\n", "5:23", "L must not be negative");
    expect_error("e-scale", "LightSource \"spot\" \"float scale\" -2\n", "5:20", "'scale' must not be negative");
    expect_error("e-param", "LightSource \"point\" \"point3 to\" [0 0 1]\n", "5:21",
                 "unknown parameter 'to' for LightSource \"point\"");
    expect_error("e-dir", "LightSource \"distant\" \"point3 from\" [1 1 1] \"point3 to\" [1 1 1]\n", "5:1",
                 "no direction");
    expect_error("e-from", "LightSource \"point\" \"point3 from\" [0 0]\n", "5:21", "expected triples");
    // goniometric and projection lights stay unsupported: a warning at the directive, an error with strict
    LoadedScene g = load("gonio", "Shape \"sphere\"\nLightSource \"goniometric\" \"string filename\" \"x.exr\"\n");
    EXPECT_TRUE(has_warning(g, "pbrt-gonio.pbrt:6:1: light \"goniometric\" not supported")) << g.warnings.size();
    EXPECT_TRUE(g.data.lights.empty());
    std::string m = error_of("proj-strict", std::string(kHeader) + "LightSource \"projection\"\n", true);
    EXPECT_EQ(m.rfind(tmp("proj-strict.pbrt") + ":5:1: light \"projection\" not supported", 0), 0u) << m;
    // a spot under a non-uniform scale: a warning; under a uniform scale and rotation: none
    LoadedScene ns = load("spot-scale", "Shape \"sphere\"\nScale 1 2 1 LightSource \"spot\"\n");
    EXPECT_TRUE(has_warning(ns, "pbrt-spot-scale.pbrt:6:13: a spot light under a non-uniform scale"));
    LoadedScene us = load("spot-uniform", "Shape \"sphere\"\nScale 2 2 2 Rotate 30 1 1 0 LightSource \"spot\"\n", true);
    EXPECT_EQ(us.data.lights.size(), 1u);
    // pbrt-v4 reads a conedeltaangle above coneangle as a falloff from |coneangle - conedeltaangle|
    LoadedScene small = load("spot-small", "Shape \"sphere\"\nLightSource \"spot\" \"float coneangle\" 3\n", true);
    EXPECT_NEAR(small.data.lights[0].cos_start, std::cos(2.0f * kPi / 180.0f), 1e-6f);
    // the constant infinite light's illuminance: pi L = E on an upward-facing patch
    LoadedScene inf = load("inf-illum", "Shape \"sphere\"\nLightSource \"infinite\" \"float illuminance\" 2\n", true);
    expect_vec(inf.data.background, vec3(2.0f / kPi));
}

// The native JSON format's "lights": the same three lights, errors at their JSON pointer.
TEST(PbrtLights, NativeJsonPointSpotDistant) {
    const std::string head = R"({"camera": {"position": [0, 0, 5], "target": [0, 0, 0]},
 "materials": {"m": {"type": "lambert", "albedo": 0.5}},
 "objects": [{"type": "sphere", "material": "m", "radius": 1}],
 "lights": [)";
    LoadedScene ls = load_scene_json(write_text("lights.json", head + R"(
  {"type": "point", "position": [0, 2, 0], "intensity": [1, 2, 3]},
  {"type": "spot", "position": [0, 0, 3], "target": [0, 0, 0], "intensity": 4, "cone_angle": 40, "cone_delta_angle": 10},
  {"type": "distant", "direction": [0, 0, 2], "irradiance": 2}]})"));
    ASSERT_EQ(ls.data.lights.size(), 3u);
    EXPECT_EQ(ls.data.lights[0].type, uint32_t(kLightPoint));
    expect_vec(ls.data.lights[0].pos, vec3(0, 2, 0));
    expect_vec(ls.data.lights[0].Le, vec3(1, 2, 3));
    EXPECT_EQ(ls.data.lights[1].type, uint32_t(kLightSpot));
    expect_vec(ls.data.lights[1].dir, vec3(0, 0, -1));
    EXPECT_NEAR(ls.data.lights[1].cos_start, std::cos(30.0f * kPi / 180.0f), 1e-6f);
    EXPECT_NEAR(ls.data.lights[1].cos_end, std::cos(40.0f * kPi / 180.0f), 1e-6f);
    EXPECT_EQ(ls.data.lights[2].type, uint32_t(kLightDistant));
    expect_vec(ls.data.lights[2].dir, vec3(0, 0, 1));
    expect_vec(ls.data.lights[2].Le, vec3(2));
    auto err = [&](const std::string& name, const std::string& light) {
        try {
            load_scene_json(write_text(name, head + light + "]}"));
        } catch (const SceneError& e) { return std::string(e.what()); }
        ADD_FAILURE() << name << ": no error";
        return std::string();
    };
    EXPECT_NE(err("l1.json", R"({"type": "spot", "position": [0, 0, 1], "target": [0, 0, 0], "intensity": 1,
 "cone_angle": -5})")
                  .find("/lights/0/cone_angle: must be in (0, 180]"),
              std::string::npos);
    EXPECT_NE(err("l2.json", R"({"type": "point", "position": [0, 0, 1], "intensity": -1})")
                  .find("/lights/0/intensity: must not be negative"),
              std::string::npos);
    EXPECT_NE(err("l3.json", R"({"type": "laser"})").find("/lights/0/type: unknown light type 'laser'"),
              std::string::npos);
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
    expect_error("e-int-range", "Sampler \"halton\" \"integer pixelsamples\" 1099511627776\nWorldBegin\n", "1:41",
                 "parameter 'pixelsamples' (integer): 1099511627776 is out of range (an integer of pbrt-v4 is 32-bit: "
                 "-2147483648 to 2147483647)");
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
    // a file that includes itself, or includes a file that includes it again: the cycle, at the Include that
    // closes it (FILE:LINE:COL of that Include)
    const std::string self_path = tmp("self.pbrt");
    std::string self = error_of("self", "Include \"pbrt-self.pbrt\"\n");
    EXPECT_EQ(self, self_path + ":1:1: include cycle: " + self_path + " -> " + self_path);
    write_text("cycle-b.pbrt", "# b\n  Include \"pbrt-cycle-a.pbrt\"\n");
    std::string cycle = error_of("cycle-a", "LookAt 0 0 5  0 0 0  0 1 0\nInclude \"pbrt-cycle-b.pbrt\"\nWorldBegin\n");
    EXPECT_EQ(cycle, tmp("cycle-b.pbrt") + ":2:3: include cycle: " + tmp("cycle-a.pbrt") + " -> " +
                         tmp("cycle-b.pbrt") + " -> " + tmp("cycle-a.pbrt"));
    // the same file included twice, one after the other, is no cycle
    write_text("twice.pbrt", "# nothing\n");
    EXPECT_EQ(load("twice-main", "Include \"pbrt-twice.pbrt\"\nInclude \"pbrt-twice.pbrt\"\nShape \"sphere\"\n")
                  .data.num_primitives,
              1u);
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

// Sampled spectra: reflectances projected onto sRGB through the CIE observer under a white (a flat spectrum is
// exactly grey, a red one red), emission normalised to luminance 1; a conductor's eta and k still sampled at
// 650/550/450 nm. Point sampling made the Cornell box's red wall 4.7% too red against pbrt-v4 (parity suite).
TEST(PbrtSpectra, SampledReflectancesAndEmissionAreProjected) {
    LoadedScene ls = load_pbrt_string(R"(
        Camera "perspective"
        WorldBegin
        Material "diffuse" "spectrum reflectance" [360 0.5 500 0.5 600 0.5 830 0.5]
        Shape "sphere"
        Material "diffuse" "spectrum reflectance" [360 0.05 580 0.05 600 0.8 830 0.8]
        Shape "sphere"
        AttributeBegin
          AreaLightSource "diffuse" "spectrum L" [360 1 830 1]
          Shape "sphere" "float radius" 0.1
        AttributeEnd
    )",
                                      "spectra.pbrt", true);
    ASSERT_GE(ls.data.lambert.size(), 2u);
    const vec3 grey = ls.data.lambert[0].albedo, red = ls.data.lambert[1].albedo;
    EXPECT_NEAR(grey.x, 0.5f, 1e-4f);
    EXPECT_NEAR(grey.y, 0.5f, 1e-4f);
    EXPECT_NEAR(grey.z, 0.5f, 1e-4f);
    EXPECT_GT(red.x, 0.6f);
    EXPECT_LT(red.z, 0.08f);
    EXPECT_GT(red.x, red.y);
    ASSERT_FALSE(ls.data.lights.empty());
    EXPECT_NEAR(luminance(ls.data.lights[0].Le), 1.0f, 1e-3f);  // an equal-energy emitter, luminance 1
}

TEST(PbrtSpectra, SpectrumFileReaderPairsCommentsAndErrors) {
    std::vector<double> pairs;
    std::string error;
    // numbers split by any white space (tabs, CRLF), '#' comments (whole lines and after numbers), exponents
    const std::string good = write_text("good.spd", "# Au, eta\n\n400\t1.5 # violet\r\n5e2 1.25\n  600 1.0e0\n");
    ASSERT_TRUE(read_spectrum_file(good, pairs, error)) << error;
    EXPECT_EQ(pairs, (std::vector<double>{400, 1.5, 500, 1.25, 600, 1.0}));
    // each error names the file and, where there is one, the line
    auto fails = [&](const std::string& name, const std::string& text, const std::string& want) {
        const std::string p = write_text(name, text);
        pairs.assign(1, 7.0);
        EXPECT_FALSE(read_spectrum_file(p, pairs, error)) << name;
        EXPECT_EQ(error.rfind(p + want, 0), 0u) << error;
        EXPECT_TRUE(pairs.empty()) << name;
    };
    fails("malformed.spd", "400 1.5\n# a comment\n500 abc\n", ":3: malformed number 'abc'");
    fails("comma.spd", "400 1.5, 500 1.2\n", ":1: malformed number '1.5,'");
    fails("nan.spd", "400 nan\n", ":1: malformed number 'nan'");
    fails("odd.spd", "400 1.5\n500 1.2\n600\n\n# end\n", ":3: an odd count of numbers (5)");
    fails("order.spd", "400 1.5\n500 1.2\n500 1.0\n", ":3: wavelength 500 is not greater than the one before it (500)");
    fails("down.spd", "400 1.5\n380 1.2\n", ":2: wavelength 380 is not greater than the one before it (400)");
    fails("empty.spd", "# nothing but a comment\n\n", ": no numbers in the spectrum file");
    EXPECT_FALSE(read_spectrum_file(tmp("does-not-exist.spd"), pairs, error));
    EXPECT_EQ(error.rfind(tmp("does-not-exist.spd") + ": cannot open the spectrum file", 0), 0u) << error;
}

TEST(PbrtSpectra, SpectrumFilesConvertAsTheSamePairsInline) {
    // a conductor's eta and k from files (relative to the scene's folder, not the working directory) against the
    // same samples inline: the same RGB, bit for bit
    const std::string eta_pairs = "400 1.6 450 1.44 550 0.37 650 0.14 700 0.13", k_pairs = "450 1.6 550 2.39 650 3.98";
    write_text("au.eta.spd", "# wavelength value\n" + eta_pairs + "\n");
    write_text("au.k.spd", k_pairs + "\n");
    const ConductorData file =
        load("spd-file",
             "Material \"conductor\" \"spectrum eta\" \"pbrt-au.eta.spd\" \"spectrum k\" \"pbrt-au.k.spd\"\n"
             "Shape \"sphere\"\n",
             true)
            .data.conductor.at(0);
    const ConductorData inl = load("spd-inline", "Material \"conductor\" \"spectrum eta\" [" + eta_pairs +
                                                     "] \"spectrum k\" [" + k_pairs + "]\nShape \"sphere\"\n")
                                  .data.conductor.at(0);
    EXPECT_EQ(file.eta, inl.eta);
    EXPECT_EQ(file.k, inl.k);
    EXPECT_EQ(file.use_complex_ior, 1u);
    // a reflectance and an emission from files: as the same pairs inline (grey 0.5; luminance 1)
    write_text("grey.spd", "360 0.5 500 0.5 600 0.5 830 0.5\n");
    write_text("flat.spd", "360 3 830 3\n");
    LoadedScene ls = load("spd-refl", R"(Material "diffuse" "spectrum reflectance" "pbrt-grey.spd"
Shape "sphere"
AttributeBegin
  AreaLightSource "diffuse" "spectrum L" "pbrt-flat.spd"
  Shape "sphere" "float radius" 0.1
AttributeEnd
)");
    expect_vec(ls.data.lambert.at(0).albedo, vec3(0.5f), 1e-4f);
    ASSERT_FALSE(ls.data.lights.empty());
    EXPECT_NEAR(luminance(ls.data.lights[0].Le), 1.0f, 1e-3f);
    // errors: the scene's FILE:LINE:COLUMN, then the spectrum file's own FILE:LINE
    write_text("bad.spd", "400 1.5\n\n500 x\n");
    std::string m = error_of("spd-bad", std::string(kHeader) +
                                            "Material \"conductor\" \"spectrum eta\" \"pbrt-bad.spd\"\n"
                                            "Shape \"sphere\"\n");
    EXPECT_EQ(m.rfind(tmp("spd-bad.pbrt") + ":5:22: parameter 'eta' (spectrum file \"pbrt-bad.spd\"): " +
                          tmp("bad.spd") + ":3: malformed number 'x'",
                      0),
              0u)
        << m;
    m = error_of("spd-missing", std::string(kHeader) +
                                    "Material \"conductor\" \"spectrum k\" \"spds/none.spd\"\n"
                                    "Shape \"sphere\"\n");
    EXPECT_EQ(m.rfind(tmp("spd-missing.pbrt") + ":5:22: parameter 'k' (spectrum file \"spds/none.spd\"): " +
                          wp_test::temp_dir() + "spds/none.spd: cannot open the spectrum file",
                      0),
              0u)
        << m;
    // a name with neither '.' nor '/' is a named spectrum: one we do not know is a warning, as before
    LoadedScene u = load("spd-unknown", "Material \"conductor\" \"spectrum eta\" \"metal-Zz-eta\"\nShape \"sphere\"\n");
    EXPECT_TRUE(has_warning(u, "spectrum 'metal-Zz-eta' not known here"));
}

TEST(PbrtSpectra, SampledConductorsFitTheSpectralFresnelReflectance) {
    // flat spectra: the fit gives back their eta and k in every channel
    const ConductorData flat = load("fit-flat",
                                    "Material \"conductor\" \"spectrum eta\" [400 0.2 700 0.2] "
                                    "\"spectrum k\" [400 3.9 700 3.9]\nShape \"sphere\"\n")
                                   .data.conductor.at(0);
    expect_vec(flat.eta, vec3(0.2f), 2e-3f);
    expect_vec(flat.k, vec3(3.9f), 2e-3f);
    // gold (every fourth sample of pbrt-v4's Au.eta.spd and Au.k.spd, 344 to 775 nm): the fitted eta and k's
    // Fresnel reflectance against the spectral reflectance projected to sRGB as wavepath projects a reflectance
    // (CIE 1931 multi-lobe fit, a 6504 K white; computed outside the renderer), at normal incidence and at 60
    // degrees. Sampling eta and k at 650, 550 and 450 nm instead is 6% low in red, 6% high in green and 11% high in
    // blue at normal incidence.
    const std::string au = R"(Material "conductor" "float roughness" 0
  "spectrum eta" [344.4 1.766 364.7 1.716 387.5 1.674 413.3 1.636 442.8 1.562 476.9 1.242 516.6 0.608 563.6 0.306
                  619.9 0.194 688.8 0.16 774.9 0.176]
  "spectrum k" [344.4 1.846 364.7 1.862 387.5 1.936 413.3 1.958 442.8 1.904 476.9 1.796 516.6 2.12 563.6 2.88
                619.9 3.06 688.8 3.8 774.9 4.86]
Shape "sphere"
)";
    // under a coating the fit is of eta and k relative to the coating's index, as pbrt-v4 divides the spectra
    LoadedScene coated = load("fit-coated",
                              "Material \"coatedconductor\" \"float interface.eta\" 1.5 "
                              "\"spectrum conductor.eta\" [400 0.3 700 0.3] "
                              "\"spectrum conductor.k\" [400 4.5 700 4.5]\nShape \"sphere\"\n");
    const LayeredData& layer = coated.data.layered.at(0);
    EXPECT_EQ(layer.conductor_base, 1u);
    expect_vec(layer.eta, vec3(0.2f), 2e-3f);
    expect_vec(layer.k, vec3(3.0f), 2e-3f);
    const ConductorData gold = load("fit-gold", au).data.conductor.at(0);
    const vec3 spectral_0(1.0087f, 0.7758f, 0.3494f), spectral_60(0.9947f, 0.7803f, 0.3852f);
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(fresnel_complex1(1.0f, gold.eta[c], gold.k[c]) / spectral_0[c], 1.0f, 0.025f) << c;
        EXPECT_NEAR(fresnel_complex1(0.5f, gold.eta[c], gold.k[c]) / spectral_60[c], 1.0f, 0.025f) << c;
    }
}

// Issue 47: no input gives a non-finite or silently different image. The film's colour transform is checked at the
// parameter that would make it overflow (pbrt-v4 renders every pixel NaN): a white balance to a white below 195.5 K,
// with or without a named sensor, and an imaging ratio past a float; 196 K and 1000 K load, finite.
TEST(PbrtFinite, FilmMatrixIsFiniteOrAnErrorAtItsParameter) {
    for (const char* wb : {"1", "5", "10", "20"})
        for (const std::string sensor : {"", "\"string sensor\" \"canon_eos_100d\" "}) {
            const std::string m =
                error_of("wb", "Film \"rgb\" \"integer xresolution\" 8 \"integer yresolution\" 8 " + sensor +
                                   "\n  \"float whitebalance\" " + wb + "\nWorldBegin\nShape \"sphere\"\n");
            EXPECT_EQ(m.rfind(tmp("wb.pbrt") + ":2:3: whitebalance " + wb +
                                  " K: below 195.5 K the white balance "
                                  "is not finite",
                              0),
                      0u)
                << m;
        }
    // pbrt-v4 renders NaN up to 195 K (our transform stays finite down to about 21 K): refused the same
    EXPECT_NE(error_of("wb195", "Film \"rgb\" \"float whitebalance\" 195\nWorldBegin\nShape \"sphere\"\n")
                  .find(":1:12: whitebalance 195 K: below 195.5 K"),
              std::string::npos);
    EXPECT_NO_THROW(load_pbrt_scene(write_text("wb196.pbrt",
                                               "Film \"rgb\" \"float whitebalance\" 196\n"
                                               "WorldBegin\nShape \"sphere\"\n")));
    const std::string m = error_of("ratio",
                                   "Film \"rgb\" \"float iso\" 1e30 \"float exposuretime\" 1e20\n"
                                   "WorldBegin\nShape \"sphere\"\n");
    EXPECT_NE(m.find("the film's imaging ratio (exposure time x iso / 100) = 1e+48 is not a finite 32-bit float"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.rfind(tmp("ratio.pbrt") + ":1:", 0), 0u) << m;
    // a finite transform whose brightest pixel would overflow (each sample is clamped to 1e6): refused the same
    const std::string big = error_of("ratio-big", "Film \"rgb\" \"float iso\" 1e34\nWorldBegin\nShape \"sphere\"\n");
    EXPECT_NE(big.find(":1:12: the film's colour transform (imaging ratio x sensor x white balance) reaches 1e+32: a "
                       "pixel as bright as the film holds (1e+06, its per-sample clamp) would overflow a float"),
              std::string::npos)
        << big;
    LoadedScene ok = load_pbrt_scene(write_text("wb1000.pbrt",
                                                "Film \"rgb\" \"float whitebalance\" 1000\n"
                                                "WorldBegin\nShape \"sphere\"\n"));
    for (float v : ok.params.film_matrix) EXPECT_TRUE(std::isfinite(v));
}

// Every emission (and every spectrum's values) checked within a float: an RGB of 1e39, L x scale past 3.4e38, a
// point light's I x scale, a spectrum file of 1e300 (pbrt-v4 cannot read it either): errors at the parameter.
TEST(PbrtFinite, EmissionOverflowingAFloatIsAnError) {
    auto area = [](const std::string& L) {
        return std::string(kHeader) + "AttributeBegin\nAreaLightSource \"diffuse\" " + L +
               "\nShape \"sphere\"\nAttributeEnd\n";
    };
    std::string m = error_of("L-rgb", area("\"rgb L\" [1e39 1 1]"));
    EXPECT_EQ(m, tmp("L-rgb.pbrt") +
                     ":6:27: parameter 'L' (rgb) value 0 = 1e+39 is not a finite 32-bit float (at "
                     "most 3.4e+38)");
    m = error_of("L-scale", area("\"rgb L\" [1e30 1 1] \"float scale\" 1e10"));
    EXPECT_EQ(m, tmp("L-scale.pbrt") +
                     ":6:27: 'L' x scale = (1e+40, 1e+10, 1e+10) is not a finite 32-bit float "
                     "(at most 3.4e+38 each)");
    m = error_of("I-scale", std::string(kHeader) +
                                "LightSource \"point\" \"rgb I\" [1e30 1 1] \"float scale\" 1e20\n"
                                "Shape \"sphere\"\n");
    EXPECT_NE(m.find(":5:21: 'I' x scale = (1e+50,"), std::string::npos) << m;
    write_text("huge.spd", "300 1e300\n900 1e300\n");
    m = error_of("L-spd", area("\"spectrum L\" \"pbrt-huge.spd\""));
    EXPECT_NE(m.find(":6:27: parameter 'L' (spectrum file \"pbrt-huge.spd\"): " + tmp("huge.spd") +
                     ":1: '1e300' = 1e+300 is not a finite 32-bit float"),
              std::string::npos)
        << m;
}

// pbrt-v4 refuses an RGB reflectance or albedo outside [0, 1] (coated albedo 2, a negative reflectance): so do we,
// at the parameter; a sampled spectrum's values outside it pbrt-v4 takes, and we clamp with a warning.
TEST(PbrtFinite, ReflectanceOutsideTheUnitRange) {
    std::string m = error_of("albedo2", std::string(kHeader) +
                                            "Material \"coateddiffuse\" \"rgb albedo\" [2 2 2]\n"
                                            "Shape \"sphere\"\n");
    EXPECT_EQ(m, tmp("albedo2.pbrt") +
                     ":5:26: parameter 'albedo' (rgb) = (2, 2, 2): a reflectance (an albedo) must be "
                     "in [0, 1] (pbrt-v4 refuses it too)");
    m = error_of("albedo-neg", std::string(kHeader) +
                                   "Material \"coateddiffuse\" \"rgb albedo\" [-0.5 0.5 0.5]\n"
                                   "Shape \"sphere\"\n");
    EXPECT_NE(m.find(":5:26: parameter 'albedo' (rgb) = (-0.5, 0.5, 0.5): a reflectance"), std::string::npos) << m;
    m = error_of("refl-neg", std::string(kHeader) +
                                 "Material \"diffuse\" \"rgb reflectance\" [-0.5 0.5 0.5]\n"
                                 "Shape \"sphere\"\n");
    EXPECT_NE(m.find(":5:20: parameter 'reflectance' (rgb) = (-0.5, 0.5, 0.5)"), std::string::npos) << m;
    LoadedScene w =
        load("refl-spec2", "Material \"diffuse\" \"spectrum reflectance\" [360 2 830 2]\nShape \"sphere\"\n");
    EXPECT_TRUE(
        has_warning(w, ":5:20: parameter 'reflectance' (spectrum): spectrum values from 2 to 2, outside [0, 1]"));
    expect_vec(w.data.lambert.at(0).albedo, vec3(1.0f), 1e-4f);
}

// A conductor's sampled eta with negative values: pbrt-v4 takes them; the fit here follows their reflectance with a
// positive index, with a warning naming the parameter (an RGB one stays an error, as in pbrt-v4).
TEST(PbrtFinite, NegativeSampledEtaWarns) {
    LoadedScene ls = load("eta-neg",
                          "Material \"conductor\" \"spectrum eta\" [360 -1 830 -1] "
                          "\"spectrum k\" [360 1 830 1]\nShape \"sphere\"\n");
    EXPECT_TRUE(has_warning(ls, ":5:22: parameter 'eta' (spectrum): negative values (down to -1)"));
    const std::string m = error_of("eta-rgb-neg", std::string(kHeader) +
                                                      "Material \"conductor\" \"rgb eta\" [-1 -1 -1]\n"
                                                      "Shape \"sphere\"\n");
    EXPECT_NE(m.find("eta must be > 0"), std::string::npos) << m;
}

// A sampled spectrum is zero beyond its wavelengths (pbrt-v4's PiecewiseLinearSpectrum), not its end values held: a
// white reflectance that ends at 600 nm loses its red, as the same spectrum dropped to zero after 600 nm does.
TEST(PbrtSpectra, ZeroBeyondTheSpectrumsWavelengths) {
    write_text("short.spd", "360 1\n600 1\n");
    const vec3 s = load("short", "Material \"diffuse\" \"spectrum reflectance\" \"pbrt-short.spd\"\nShape \"sphere\"\n")
                       .data.lambert.at(0)
                       .albedo;
    const vec3 z = load("zeroed",
                        "Material \"diffuse\" \"spectrum reflectance\" [360 1 600 1 600.0001 0 830 0]\n"
                        "Shape \"sphere\"\n")
                       .data.lambert.at(0)
                       .albedo;
    expect_vec(s, z, 2e-3f);
    EXPECT_LT(s.x, 0.5f);  // held at 1 beyond 600 nm it was white
}

// The spectrum file reader checks what it is given before reading it: a folder, a device (/dev/zero read 4 GiB
// before), a file past 16 MiB; and reads its values as pbrt-v4 does, as 32-bit floats.
TEST(PbrtSpectra, SpectrumFileIsARegularSmallFileOfFloats) {
    std::vector<double> pairs;
    std::string error;
    const std::string dir = tmp("folder.spd");
    ::mkdir(dir.c_str(), 0755);
    EXPECT_FALSE(read_spectrum_file(dir, pairs, error));
    EXPECT_EQ(error, dir + ": is a folder, not a spectrum file");
    EXPECT_FALSE(read_spectrum_file("/dev/zero", pairs, error));
    EXPECT_EQ(error, "/dev/zero: is a character device, not a spectrum file");
    const std::string big = tmp("big.spd");
    { std::ofstream(big, std::ios::binary) << "400 1\n"; }
    ASSERT_EQ(truncate(big.c_str(), 17 << 20), 0);
    EXPECT_FALSE(read_spectrum_file(big, pairs, error));
    EXPECT_EQ(error, big + ": is 17.0 MiB, larger than a spectrum file may be (at most 16.0 MiB)");
    EXPECT_FALSE(read_spectrum_file(write_text("e39.spd", "400 1\n500 1e39\n"), pairs, error));
    EXPECT_EQ(error, tmp("e39.spd") + ":2: '1e39' = 1e+39 is not a finite 32-bit float (at most 3.4e+38)");
}

// A NUL byte in a quoted name is written as \x00 in the message, which it would otherwise cut off.
TEST(PbrtErrors, NonPrintableBytesInAMessageAreEscaped) {
    const std::string m =
        error_of("nul", std::string(kHeader) + "Material \"dif" + std::string(1, '\0') + "fuse\"\nShape \"sphere\"\n");
    EXPECT_NE(m.find("dif\\x00fuse"), std::string::npos) << m;
    EXPECT_EQ(m.find('\0'), std::string::npos);
}
