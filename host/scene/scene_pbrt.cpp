// pbrt-v4 scenes. Conventions follow pbrt-v4's file format and sources (mmp/pbrt-v4):
//  - transforms post-multiply the current transformation matrix (CTM); Transform/ConcatTransform take 16 numbers
//    column by column (the last four are the translation); Rotate is in degrees about an axis; LookAt is pbrt's
//    camera-from-world matrix; WorldBegin resets the CTM; ObjectInstance applies its CTM on top of the CTMs the
//    object's shapes had when they were declared (flattened here);
//  - the camera: the CTM at Camera is camera-from-world; camera +x is the image's right, +y its top, +z the view
//    direction (a left-handed frame: scenes start with `Scale -1 1 1` to mirror it, which we keep, since the
//    camera's right vector is taken from the matrix as it is); "fov" spans the shorter image axis;
//  - Integrator "maxdepth" counts bounces: our max_depth (path segments) is maxdepth + 1;
//  - roughness: with "remaproughness" (the default) alpha = sqrt(roughness), else alpha = roughness (GGX);
//  - a shape's surface normal (the side a one-sided area light emits to) is cross(p1 - p0, p2 - p0) for
//    triangles, dp/du x dp/dv for bilinear patches, +z for disks, flipped by ReverseOrientation and by a CTM that
//    mirrors; where a mesh has shading normals, the side they point to;
//  - "rgb" emission renders as that RGB (pbrt-v4 normalizes the illuminant); other spectra are normalized to
//    luminance 1 (as pbrt-v4 does), then multiplied by "scale";
//  - texture coordinates: pbrt's v runs upward (v = 0 is the image's bottom row); ours run downward: v -> 1 - v;
//  - infinite-light images are equal-area octahedral maps (square), resampled here to our lat-long map.
#include "host/scene/scene_pbrt.h"
#include "host/scene/render_limits.h"
#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include "host/image/image_load.h"
#include "host/scene/mesh_obj.h"
#include "host/scene/mesh_ply.h"
#include "host/scene/loop_subdiv.h"
#include "host/scene/pbrt_film.h"
#include "host/scene/pbrt_tokenizer.h"
#include "host/scene/spectrum_file.h"
#include "kernels/film.h"
#include <glm/gtc/matrix_transform.hpp>

namespace wp {
namespace {

struct Loc {
    int file = 0, line = 0, col = 0;
};

// One parameter of a parameter list: "type name" value(s). Types are normalized (point -> point3, vector ->
// vector3, normal -> normal3, color -> rgb).
struct Param {
    std::string type, name;
    Loc loc;
    std::vector<double> nums;
    std::vector<std::string> strs;
    std::vector<uint8_t> bools;
    bool used = false;
};
using Params = std::vector<Param>;

bool numeric_type(const std::string& t) {
    return t == "integer" || t == "float" || t == "point2" || t == "vector2" || t == "point3" || t == "vector3" ||
           t == "normal3" || t == "rgb" || t == "blackbody";
}

// The parameters pbrt-v4 knows, per directive and type (pbrt-v4's file format documentation and sources). A
// parameter that nothing here reads is a warning if it is in this list, an error if not.
const std::map<std::string, std::set<std::string>>& known_params() {
    static const std::map<std::string, std::set<std::string>> k = [] {
        std::map<std::string, std::set<std::string>> m;
        auto add = [&](const std::string& key, std::initializer_list<const char*> names) {
            for (const char* n : names) m[key].insert(n);
        };
        const std::initializer_list<const char*> camera = {
            "shutteropen", "shutterclose", "frameaspectratio", "screenwindow", "lensradius", "focaldistance", "fov"};
        add("Camera perspective", camera);
        add("Film rgb", {"xresolution", "yresolution", "filename", "cropwindow", "pixelbounds", "diagonal", "iso",
                         "whitebalance", "sensor", "maxcomponentvalue", "savefp16", "exposuretime"});
        for (const char* s : {"halton", "independent", "pmj02bn", "paddedsobol", "sobol", "stratified", "zsobol"})
            add(std::string("Sampler ") + s,
                {"pixelsamples", "seed", "randomization", "jitter", "xsamples", "ysamples", "dimensions"});
        for (const char* s : {"path", "volpath"})
            add(std::string("Integrator ") + s, {"maxdepth", "regularize", "lightsampler"});
        add("PixelFilter box", {"xradius", "yradius"});
        add("Shape sphere", {"radius", "zmin", "zmax", "phimax", "alpha"});
        add("Shape disk", {"height", "radius", "innerradius", "phimax", "alpha"});
        add("Shape trianglemesh", {"indices", "P", "N", "S", "uv", "faceIndices", "alpha"});
        add("Shape bilinearmesh", {"indices", "P", "N", "uv", "faceIndices", "alpha"});
        add("Shape plymesh", {"filename", "displacement", "edgelength", "alpha"});
        add("Shape loopsubdiv", {"levels", "indices", "P", "scheme", "alpha"});
        const std::initializer_list<const char*> rough = {"roughness", "uroughness", "vroughness", "remaproughness"};
        add("Material diffuse", {"reflectance"});
        add("Material conductor", {"eta", "k", "reflectance"});
        add("Material conductor", rough);
        add("Material dielectric", {"eta"});
        add("Material dielectric", rough);
        add("Material coateddiffuse", {"reflectance", "thickness", "eta", "albedo", "g", "maxdepth", "nsamples"});
        add("Material coateddiffuse", rough);
        add("Material coatedconductor",
            {"interface.roughness", "interface.uroughness", "interface.vroughness", "interface.eta", "thickness",
             "conductor.eta", "conductor.k", "conductor.roughness", "conductor.uroughness", "conductor.vroughness",
             "reflectance", "remaproughness", "albedo", "g", "maxdepth", "nsamples"});
        add("Material mix", {"materials", "amount"});
        add("Material interface", {});
        add("Material thindielectric", {"eta"});
        for (auto& e : m)
            if (e.first.rfind("Material ", 0) == 0) e.second.insert({"displacement", "normalmap", "type"});
        add("Texture imagemap", {"filename", "encoding", "scale", "invert", "filter", "maxanisotropy", "wrap",
                                 "mapping", "uscale", "vscale", "udelta", "vdelta", "v1", "v2"});
        add("Texture scale", {"tex", "scale"});
        add("Texture checkerboard",
            {"tex1", "tex2", "dimension", "mapping", "uscale", "vscale", "udelta", "vdelta", "v1", "v2"});
        add("Texture constant", {"value"});
        add("AreaLightSource diffuse", {"L", "scale", "twosided", "filename", "power"});
        add("LightSource infinite", {"L", "filename", "scale", "illuminance", "portal"});
        add("LightSource point", {"I", "scale", "power", "from"});
        add("LightSource spot", {"I", "scale", "power", "from", "to", "coneangle", "conedeltaangle"});
        add("LightSource distant", {"L", "scale", "illuminance", "from", "to"});
        add("LightSource goniometric", {"I", "scale", "power", "filename"});
        add("LightSource projection", {"I", "scale", "power", "fov", "filename"});
        return m;
    }();
    return k;
}

// Material and texture types, light types etc. that pbrt-v4 has and wavepath does not (a warning, not an error).
bool pbrt_knows(const std::string& what, const std::string& type) {
    static const std::map<std::string, std::set<std::string>> k = {
        {"Camera", {"perspective", "orthographic", "realistic", "spherical"}},
        {"Film", {"rgb", "gbuffer", "spectral"}},
        {"Sampler", {"halton", "independent", "pmj02bn", "paddedsobol", "sobol", "stratified", "zsobol"}},
        {"Integrator",
         {"path", "volpath", "ambientocclusion", "bdpt", "lightpath", "mlt", "simplepath", "randomwalk",
          "simplevolpath", "sppm", "aov", "function"}},
        {"PixelFilter", {"box", "gaussian", "mitchell", "sinc", "triangle"}},
        {"Shape", {"sphere", "disk", "trianglemesh", "bilinearmesh", "plymesh", "cylinder", "curve", "loopsubdiv"}},
        {"Material",
         {"diffuse", "conductor", "dielectric", "coateddiffuse", "coatedconductor", "mix", "interface",
          "thindielectric", "diffusetransmission", "measured", "hair", "subsurface", "none", ""}},
        {"Texture",
         {"imagemap", "scale", "constant", "mix", "checkerboard", "bilerp", "dots", "fbm", "wrinkled", "windy",
          "marble", "ptex", "directionmix"}},
        {"LightSource", {"infinite", "distant", "point", "spot", "goniometric", "projection"}},
        {"AreaLightSource", {"diffuse"}},
        {"Accelerator", {"bvh", "kdtree"}},
    };
    auto it = k.find(what);
    return it != k.end() && it->second.count(type);
}

// Named spectra of pbrt-v4 as RGB (R, G, B at about 650, 550, 450 nm). Conductors map to our presets; glasses
// take their index at the d line (587.6 nm, Schott's catalogue); dispersion is not modelled.
bool named_conductor(const std::string& name, vec3& eta, vec3& k) {
    static const char* metals[] = {"Cu", "Au", "Ag", "Al"};
    for (const char* m : metals)
        if (name == std::string("metal-") + m + "-eta" || name == std::string("metal-") + m + "-k") {
            conductor_preset(m, eta, k);
            return true;
        }
    return false;
}
bool named_glass(const std::string& name, float& ior) {
    static const std::pair<const char*, float> glasses[] = {
        {"glass-BK7", 1.5168f},  {"glass-BAF10", 1.6700f}, {"glass-FK51A", 1.4866f}, {"glass-LASF9", 1.8503f},
        {"glass-F5", 1.6034f},   {"glass-F10", 1.6200f},   {"glass-F11", 1.6200f},   {"glass-SF5", 1.6727f},
        {"glass-SF10", 1.7283f}, {"glass-SF11", 1.7847f},
    };
    for (const auto& g : glasses)
        if (name == g.first) {
            ior = g.second;
            return true;
        }
    return false;
}

// A blackbody of temperature T (kelvin) as linear sRGB of luminance 1: Planck's law against the CIE 1931
// matching functions (the multi-lobe fit of Wyman, Sloan and Shirley 2013), 360-830 nm in 1 nm steps.
vec3 blackbody_rgb(double T) {
    double X = 0, Y = 0, Z = 0;
    for (int l = 360; l <= 830; ++l) {
        double lam = l * 1e-9;
        double B = 1.0 / (std::pow(lam, 5) * (std::exp(1.4387769e-2 / (lam * T)) - 1.0));
        const CieXyz c = cie_xyz_bar(l);
        X += B * c.x;
        Y += B * c.y;
        Z += B * c.z;
    }
    if (!(Y > 0.0) || !std::isfinite(Y)) return vec3(1.0f);
    X /= Y;
    Z /= Y;
    Y = 1.0;
    vec3 rgb(float(3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z),
             float(-0.9692660 * X + 1.8760108 * Y + 0.0415560 * Z),
             float(0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z));
    rgb = glm::max(rgb, vec3(0.0f));
    float lum = luminance(rgb);
    return lum > 0.0f ? rgb / lum : vec3(1.0f);
}

// A sampled spectrum (value(lambda) in nm, 360-830) as linear sRGB, through the CIE 1931 observer (the same
// multi-lobe fit as blackbody_rgb). A reflectance is seen under a white of 6504 K and divided by that white's own
// RGB, so that a flat spectrum is exactly grey (pbrt-v4 renders it under its sRGB illuminant, D65); an emission
// spectrum is normalised to luminance 1, as pbrt-v4 scales illuminants.
template <class F>
vec3 sampled_spectrum_rgb(const F& value, bool reflectance) {
    double S[3] = {0, 0, 0}, W[3] = {0, 0, 0};
    for (int l = 360; l <= 830; ++l) {
        const double lam = l * 1e-9;
        const double B = reflectance ? 1.0 / (std::pow(lam, 5) * (std::exp(1.4387769e-2 / (lam * 6504.0)) - 1.0)) : 1.0;
        const CieXyz c = cie_xyz_bar(l);
        const double xb = c.x, yb = c.y, zb = c.z;
        const double v = value(double(l));
        S[0] += B * v * xb, S[1] += B * v * yb, S[2] += B * v * zb;
        W[0] += B * xb, W[1] += B * yb, W[2] += B * zb;
    }
    auto rgb = [](const double* X) {
        return vec3(float(3.2404542 * X[0] - 1.5371385 * X[1] - 0.4985314 * X[2]),
                    float(-0.9692660 * X[0] + 1.8760108 * X[1] + 0.0415560 * X[2]),
                    float(0.0556434 * X[0] - 0.2040259 * X[1] + 1.0572252 * X[2]));
    };
    if (reflectance) return glm::max(rgb(S) / rgb(W), vec3(0.0f));
    if (!(S[1] > 0.0)) return vec3(0.0f);
    const vec3 c = glm::max(rgb(S) / float(S[1]), vec3(0.0f));
    const float lum = luminance(c);
    return lum > 0.0f ? c / lum : vec3(0.0f);
}

// A sampled spectrum's value at lam (nm): interleaved (wavelength, value) pairs, linear between samples, zero
// outside them (pbrt-v4's PiecewiseLinearSpectrum: a spectrum that ends at 700 nm has nothing beyond it).
double pairs_at(const std::vector<double>& nums, double lam) {
    const size_t n = nums.size() / 2;
    if (lam < nums[0] || lam > nums[2 * n - 2]) return 0.0;
    if (lam == nums[0]) return nums[1];
    for (size_t i = 1; i < n; ++i)
        if (lam <= nums[2 * i]) {
            const double l0 = nums[2 * i - 2], l1 = nums[2 * i], t = l1 > l0 ? (lam - l0) / (l1 - l0) : 1.0;
            return nums[2 * i - 1] * (1 - t) + nums[2 * i + 1] * t;
        }
    return nums[2 * n - 1];
}

// The unpolarised Fresnel reflectance of a conductor of complex index eta + i k (relative to the outside) at the
// incident cosine cos_i: pbrt-v4's FrComplex (kernels/bsdf.h has the same per channel).
double fresnel_complex(double cos_i, double eta, double k) {
    if (eta == 0.0 && k == 0.0) return 1.0;  // the limit (a spectrum's zero beyond its wavelengths: pairs_at)
    const std::complex<double> n(eta, k);
    const double sin2_i = 1.0 - cos_i * cos_i;
    const std::complex<double> cos_t = std::sqrt(1.0 - sin2_i / (n * n));
    const std::complex<double> r_par = (n * cos_i - cos_t) / (n * cos_i + cos_t);
    const std::complex<double> r_perp = (cos_i - n * cos_t) / (cos_i + n * cos_t);
    return 0.5 * (std::norm(r_par) + std::norm(r_perp));
}

// A conductor's spectral eta and k (of the wavelength in nm) as RGB eta and k. pbrt-v4 renders the spectra: the
// conductor's colour is that of its spectral Fresnel reflectance, not of eta and k sampled at three wavelengths
// (which put pbrt-v4's gold 8% low in red and 12% high in blue at normal incidence). Per channel, the (eta, k)
// whose Fresnel reflectance is nearest, in least squares over 20 incident cosines from 0.05 to 1, to the spectral
// reflectance projected as a reflectance is (sampled_spectrum_rgb): a grid over log eta (0.001 to 10) and k (0 to
// 20), then a pattern search from its best point. Gold's reflectance comes within 2.2% of the spectral one at every
// angle (the fit cannot follow red above 1: out of sRGB's gamut).
template <class E, class K>
void fit_conductor_rgb(const E& eta_at, const K& k_at, vec3& eta, vec3& k) {
    constexpr int kAngles = 20;
    vec3 target[kAngles];
    for (int i = 0; i < kAngles; ++i) {
        const double c = double(i + 1) / kAngles;
        target[i] = sampled_spectrum_rgb([&](double nm) { return fresnel_complex(c, eta_at(nm), k_at(nm)); }, true);
    }
    for (int ch = 0; ch < 3; ++ch) {
        auto cost = [&](double log_eta, double kk) {
            const double et = std::pow(10.0, log_eta);
            double e = 0.0;
            for (int i = 0; i < kAngles; ++i) {
                const double d = fresnel_complex(double(i + 1) / kAngles, et, kk) - target[i][ch];
                e += d * d;
            }
            return e;
        };
        double best_le = 0.0, best_k = 0.0, best = cost(0.0, 0.0);
        for (int a = 0; a <= 40; ++a)
            for (int b = 0; b <= 40; ++b) {
                const double le = -3.0 + 4.0 * a / 40.0, kk = 20.0 * b / 40.0, c = cost(le, kk);
                if (c < best) best = c, best_le = le, best_k = kk;
            }
        for (double step_le = 0.1, step_k = 0.5; step_le > 1e-7;) {
            bool moved = false;
            for (int dir = 0; dir < 4; ++dir) {
                const double le = std::clamp(best_le + (dir == 0 ? step_le : dir == 1 ? -step_le : 0.0), -3.0, 1.0);
                const double kk = std::clamp(best_k + (dir == 2 ? step_k : dir == 3 ? -step_k : 0.0), 0.0, 20.0);
                const double c = cost(le, kk);
                if (c < best) best = c, best_le = le, best_k = kk, moved = true;
            }
            if (!moved) step_le *= 0.5, step_k *= 0.5;
        }
        eta[ch] = float(std::pow(10.0, best_le));
        k[ch] = float(best_k);
    }
}

// pbrt-v4's EqualAreaSphereToSquare (Clarberg's equal-area octahedral map), with the exact arctangent.
vec2 equal_area_sphere_to_square(vec3 d) {
    float x = std::fabs(d.x), y = std::fabs(d.y), z = std::fabs(d.z);
    float r = std::sqrt(std::max(0.0f, 1.0f - z));
    float a = std::max(x, y), b = std::min(x, y);
    b = a == 0.0f ? 0.0f : b / a;
    float phi = std::atan(b) * 2.0f / kPi;
    if (x < y) phi = 1.0f - phi;
    float v = phi * r, u = r - v;
    if (d.z < 0.0f) {
        std::swap(u, v);
        u = 1.0f - u;
        v = 1.0f - v;
    }
    u = std::copysign(u, d.x);
    v = std::copysign(v, d.y);
    return vec2(0.5f * (u + 1.0f), 0.5f * (v + 1.0f));
}

struct AreaLight {
    bool on = false;
    vec3 L{1.0f};  // radiance before the shape's area (power) is known: rgb * scale, or normalized spectrum * scale
    bool two_sided = false;
    float power = -1.0f;
};

struct GState {
    mat4 ctm{1.0f};
    bool reverse = false;
    int material = -1;  // index into Loader::mats; -1: pbrt's default (diffuse 0.5)
    AreaLight area;
};

struct MatRec {
    MatHandle h{};
    bool interface = false;  // no surface: the shape is left out
    bool textured = false;
};

struct TexRec {
    uint32_t id = kNoTexture;  // an image, or none (a constant)
    vec3 value{1.0f};          // the constant, or the factor on the image
    vec3 avg{1.0f};            // the constant, or the image's average times the factor
    vec2 texel{0.0f};          // an image's texel in uv (through its mapping's scale); 0: no image
    bool approx = false;       // its Texture directive (or one it uses) warned: not the texture pbrt-v4 has
};

struct ShapeRec {
    std::string type;
    Params params;
    Loc loc;
    mat4 ctm;
    bool reverse;
    int material;
    AreaLight area;
};

struct Tokens {
    std::vector<PbrtToken> t;
    size_t i = 0;
    int file = 0;
    bool end() const { return i >= t.size(); }
    const PbrtToken& peek() const { return t[i]; }
};

// The geometry of one shape in world space, before it goes to the builder.
struct Geometry {
    ObjMesh mesh;  // triangles
    struct Quad {
        vec3 c, eu, ev;
    };
    std::vector<Quad> quads;
    struct Sphere {
        vec3 c;
        float r;
    };
    std::vector<Sphere> spheres;
    float area() const {
        double a = 0;
        for (size_t i = 0; i < mesh.triangles(); ++i)
            a += 0.5 *
                 glm::length(glm::cross(mesh.pos[3 * i + 1] - mesh.pos[3 * i], mesh.pos[3 * i + 2] - mesh.pos[3 * i]));
        for (const Quad& q : quads) a += glm::length(glm::cross(q.eu, q.ev));
        for (const Sphere& s : spheres) a += 4.0 * kPi * s.r * s.r;
        return float(a);
    }
    void triangle(vec3 a, vec3 b, vec3 c) {
        mesh.pos.insert(mesh.pos.end(), {a, b, c});
        mesh.normal.insert(mesh.normal.end(), {vec3(0.0f), vec3(0.0f), vec3(0.0f)});
        mesh.uv.insert(mesh.uv.end(), {vec2(0.0f), vec2(0.0f), vec2(0.0f)});
        mesh.has_normals.push_back(0);
        mesh.has_uv.push_back(0);
        mesh.material.push_back(0);
    }
};

// pbrt's choice of a triangle's side: towards its shading normals where it has them, else cross(p1-p0, p2-p0)
// flipped when `flip` (ReverseOrientation xor a mirroring CTM). Our side is cross(p1-p0, p2-p0): swap corners.
void orient(ObjMesh& m, bool flip) {
    for (size_t i = 0; i < m.triangles(); ++i) {
        bool swap = flip;
        if (m.has_normals[i]) {
            vec3 g = glm::cross(m.pos[3 * i + 1] - m.pos[3 * i], m.pos[3 * i + 2] - m.pos[3 * i]);
            vec3 n = m.normal[3 * i] + m.normal[3 * i + 1] + m.normal[3 * i + 2];
            swap = glm::dot(g, n) < 0.0f;
        }
        if (swap) {
            std::swap(m.pos[3 * i + 1], m.pos[3 * i + 2]);
            std::swap(m.normal[3 * i + 1], m.normal[3 * i + 2]);
            std::swap(m.uv[3 * i + 1], m.uv[3 * i + 2]);
        }
    }
}

bool finite3(vec3 v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

mat4 rotate_deg(float deg, vec3 axis) {  // pbrt's Rotate: counter-clockwise about `axis` (right-hand rule)
    vec3 a = glm::normalize(axis);
    float t = deg * kPi / 180.0f, s = std::sin(t), c = std::cos(t);
    mat4 m(1.0f);
    // m[col][row]
    m[0][0] = a.x * a.x + (1 - a.x * a.x) * c;
    m[1][0] = a.x * a.y * (1 - c) - a.z * s;
    m[2][0] = a.x * a.z * (1 - c) + a.y * s;
    m[0][1] = a.x * a.y * (1 - c) + a.z * s;
    m[1][1] = a.y * a.y + (1 - a.y * a.y) * c;
    m[2][1] = a.y * a.z * (1 - c) - a.x * s;
    m[0][2] = a.x * a.z * (1 - c) - a.y * s;
    m[1][2] = a.y * a.z * (1 - c) + a.x * s;
    m[2][2] = a.z * a.z + (1 - a.z * a.z) * c;
    return m;
}

class Loader {
public:
    explicit Loader(bool strict, const SceneBuildOptions& build = {}) : strict_(strict), build_(build) {}

    void parse_text(const std::string& text, const std::string& name) {
        files_.push_back(name);
        reading_.push_back({canonical(name), name});
        size_t slash = name.find_last_of('/');
        dir_ = slash == std::string::npos ? std::string() : name.substr(0, slash + 1);
        Tokens ts;
        ts.t = pbrt_tokenize(text, name);
        ts.file = 0;
        parse(ts);
        end_loc_ = eof_loc(ts, text);
        if (!stack_.empty()) {
            const Loc& l = stack_.back().second;
            fail(l, std::string(stack_kind_name(stack_.back().first)) + "Begin without a matching " +
                        stack_kind_name(stack_.back().first) + "End");
        }
    }

    mat4 ctm() const { return gs_.ctm; }

    LoadedScene finish() {
        if (!world_) fail(end_loc_, "no WorldBegin (is this a pbrt-v4 scene?)");
        RenderParams& rp = ls_.params;
        rp.width = width_;
        rp.height = height_;
        rp.spp = spp_;
        rp.max_depth = maxdepth_ + 1;
        rp.seed = seed_;
        rp.sampler = sampler_;
        rp.crop_x0 = crop_[0], rp.crop_y0 = crop_[1], rp.crop_x1 = crop_[2], rp.crop_y1 = crop_[3];
        // pbrt-v4's default pixel filter, where the scene names none: a Gaussian of radius 1.5 and sigma 0.5
        if (!filter_given_) set_filter(rp, "gaussian", 1.5f, 0.5f);
        rp.light_sampling = 1;
        camera();
        film_matrix(rp);
        if (shapes_ == 0) fail(end_loc_, "the scene has no shapes");
        if (!env_set_) b_.set_background(background_);
        ls_.data = b_.build(build_, files_.empty() ? std::string("the scene") : files_.front());
        const size_t shown = 50;
        for (size_t i = 0; i < ls_.warnings.size() && i < shown; ++i)
            std::cerr << "warning: " << ls_.warnings[i] << "\n";
        if (ls_.warnings.size() > shown)
            std::cerr << "warning: " << ls_.warnings.size() - shown << " more warnings not shown\n";
        return std::move(ls_);
    }

private:
    bool strict_;
    SceneBuildOptions build_;  // the tree's knobs (LoadOptions::build)
    std::vector<std::string> files_;
    std::string dir_;
    Loc end_loc_;
    SceneBuilder b_;
    LoadedScene ls_;
    std::set<std::string> warned_;
    size_t warn_calls_ = 0;         // warn() calls, repeats included (a texture that warned is an approximation)
    bool filter_given_ = false;     // a PixelFilter directive was read
    bool reflectance_ctx_ = false;  // spectrum() is reading a reflectance (sampled spectra: projected as one)
    GState gs_;
    std::vector<std::pair<char, Loc>> stack_;  // 'A' attributes, 'T' transform, 'O' object
    std::vector<GState> saved_;
    std::map<std::string, mat4> coordsys_;
    std::vector<MatRec> mats_;
    int default_mat_ = -1;
    std::map<std::string, int> named_mats_;
    std::map<std::string, TexRec> float_tex_, spec_tex_;
    std::map<std::string, std::pair<LoadedImage, vec3>> images_;  // file, encoding -> size (no texels), average
    std::map<std::string, uint32_t> image_ids_;
    std::set<uint32_t> checker_ids_;  // the checkerboards' texture ids (a checkerboard's side must be an image)
    std::map<std::string, std::vector<ShapeRec>> objects_;
    std::string object_;  // the object being defined, or empty
    bool in_object_ = false;
    bool world_ = false;
    bool active_start_ = true;
    int include_depth_ = 0;
    // The files being read, outermost first (the scene, then each Include inside the one before): the canonical
    // path (to find a cycle whatever the spelling) and the name as given.
    std::vector<std::pair<std::string, std::string>> reading_;
    static std::string canonical(const std::string& path) {
        char* r = ::realpath(path.c_str(), nullptr);
        if (!r) return path;
        std::string c(r);
        std::free(r);
        return c;
    }
    size_t shapes_ = 0;
    // camera and render settings (pbrt-v4's defaults)
    mat4 cam_ctm_{1.0f};
    Loc cam_loc_;
    float fov_ = 90.0f, lensradius_ = 0.0f, focaldistance_ = 1e6f, frameaspect_ = 0.0f;
    uint32_t width_ = 1280, height_ = 720, spp_ = 16, maxdepth_ = 5, seed_ = 0;
    uint32_t sampler_ = kSamplerSobol;  // pbrt-v4's default, zsobol, as our sobol
    uint32_t crop_[4] = {0, 0, 0, 0};   // the film's pixelbounds or cropwindow, x0, y0, x1, y1 (x1 0: none)
    // the film's sensor (pbrt-v4's PixelSensor::Create): ISO, exposure time (the film's "exposuretime" of earlier
    // pbrt-v4 versions, else the camera's shutter interval), white balance (0: none), sensor
    float iso_ = 100.0f, exposure_ = -1.0f, whitebalance_ = 0.0f, shutter_open_ = 0.0f, shutter_close_ = 1.0f;
    static constexpr float kMinWhiteBalance = 195.5f;  // K (film_sensor)
    std::string sensor_ = "cie1931";
    Loc wb_loc_, ratio_loc_;  // the film's whitebalance, and its iso or exposuretime (the last given), for errors
    vec3 background_{0.0f};
    bool env_set_ = false;

    static const char* stack_kind_name(char k) { return k == 'A' ? "Attribute" : k == 'T' ? "Transform" : "Object"; }

    std::string where(const Loc& l) const {
        return files_[size_t(l.file)] + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": ";
    }
    [[noreturn]] void fail(const Loc& l, const std::string& what) const { throw SceneError(where(l) + what); }
    void warn(const Loc& l, const std::string& what) {
        std::string m = printable(where(l) + what, std::string::npos);
        ++warn_calls_;
        if (strict_) throw SceneError(m + " (a warning, an error with --strict)");
        if (warned_.insert(m).second) ls_.warnings.push_back(m);
    }
    // A line on stderr that is neither an error nor a warning (--strict lets it pass): "note: FILE:LINE:COL: what".
    void note(const Loc& l, const std::string& what) const { std::cerr << "note: " << where(l) << what << "\n"; }
    Loc loc(const Tokens& ts, const PbrtToken& t) const { return Loc{ts.file, t.line, t.col}; }
    static Loc eof_loc(const Tokens& ts, const std::string& text) {
        int line = 1, col = 1;
        for (char c : text) {
            if (c == '\n')
                ++line, col = 1;
            else
                ++col;
        }
        return Loc{ts.file, line, col};
    }

    // ------------------------------------------------------------------------------------------ token reading
    double number(Tokens& ts, const std::string& what, const Loc& at) {
        if (ts.end()) fail(at, what + ": the file ends before all its numbers");
        const PbrtToken& t = ts.peek();
        double v;
        if (t.kind != PbrtToken::Word || !pbrt_number(t.text, v))
            fail(loc(ts, t), what + ": expected a number, got " + describe(t));
        ++ts.i;
        return v;
    }
    // n numbers, optionally in brackets (Transform [ ... ])
    std::vector<double> numbers(Tokens& ts, size_t n, const std::string& what, const Loc& at, bool brackets) {
        bool br = brackets && !ts.end() && ts.peek().kind == PbrtToken::LBracket;
        if (br) ++ts.i;
        std::vector<double> v;
        for (size_t k = 0; k < n; ++k) v.push_back(number(ts, what + " takes " + std::to_string(n) + " numbers", at));
        if (br) {
            if (ts.end() || ts.peek().kind != PbrtToken::RBracket)
                fail(ts.end() ? at : loc(ts, ts.peek()),
                     what + ": expected ']' after " + std::to_string(n) + " numbers");
            ++ts.i;
        }
        return v;
    }
    std::string string_arg(Tokens& ts, const std::string& what, const Loc& at) {
        if (ts.end()) fail(at, what + ": expected a quoted string, the file ends");
        const PbrtToken& t = ts.peek();
        if (t.kind != PbrtToken::String) fail(loc(ts, t), what + ": expected a quoted string, got " + describe(t));
        ++ts.i;
        return t.text;
    }
    static std::string describe(const PbrtToken& t) {
        std::string s = t.text.size() > 40 ? t.text.substr(0, 40) + "..." : t.text;
        switch (t.kind) {
            case PbrtToken::String: return "the string \"" + s + "\"";
            case PbrtToken::LBracket: return "'['";
            case PbrtToken::RBracket: return "']'";
            default: return "'" + s + "'";
        }
    }

    Params params(Tokens& ts) {
        Params ps;
        while (!ts.end() && ts.peek().kind == PbrtToken::String) {
            const PbrtToken& d = ts.peek();
            Param p;
            p.loc = loc(ts, d);
            std::istringstream ss(d.text);
            std::string extra;
            if (!(ss >> p.type >> p.name) || (ss >> extra))
                fail(p.loc, "expected a parameter declaration \"type name\", got \"" + d.text + "\"");
            if (p.type == "point") p.type = "point3";
            if (p.type == "vector") p.type = "vector3";
            if (p.type == "normal") p.type = "normal3";
            if (p.type == "color") p.type = "rgb";
            static const std::set<std::string> types = {"integer", "float",   "point2", "vector2",  "point3",
                                                        "vector3", "normal3", "rgb",    "spectrum", "blackbody",
                                                        "string",  "bool",    "texture"};
            if (!types.count(p.type))
                fail(p.loc, "unknown parameter type '" + p.type + "' in \"" + d.text +
                                "\" (integer, float, point2, vector2, point3, vector3, normal3, rgb, spectrum, "
                                "blackbody, string, bool, texture)");
            ++ts.i;
            if (ts.end()) fail(p.loc, "parameter '" + p.name + "' has no value (the file ends)");
            std::vector<const PbrtToken*> vals;
            if (ts.peek().kind == PbrtToken::LBracket) {
                Loc open = loc(ts, ts.peek());
                ++ts.i;
                for (;;) {
                    if (ts.end()) fail(open, "'[' without a closing ']'");
                    const PbrtToken& t = ts.peek();
                    if (t.kind == PbrtToken::RBracket) break;
                    if (t.kind == PbrtToken::LBracket) fail(loc(ts, t), "'[' inside a parameter's values");
                    vals.push_back(&t);
                    ++ts.i;
                }
                ++ts.i;
                if (vals.empty()) fail(open, "parameter '" + p.name + "' has no values ([])");
            } else if (ts.peek().kind == PbrtToken::RBracket) {
                fail(loc(ts, ts.peek()), "']' without an opening '['");
            } else {
                vals.push_back(&ts.peek());
                ++ts.i;
            }
            check_values(ts, p, vals);
            ps.push_back(std::move(p));
        }
        return ps;
    }
    void check_values(const Tokens& ts, Param& p, const std::vector<const PbrtToken*>& vals) {
        const std::string who = "parameter '" + p.name + "' (" + p.type + ")";
        bool strings =
            p.type == "string" || p.type == "texture" || (p.type == "spectrum" && vals[0]->kind == PbrtToken::String);
        for (const PbrtToken* t : vals) {
            Loc l = loc(ts, *t);
            if (p.type == "bool") {
                std::string s = t->text;
                if (s != "true" && s != "false") fail(l, who + ": expected true or false, got " + describe(*t));
                p.bools.push_back(s == "true");
            } else if (strings) {
                if (t->kind != PbrtToken::String) fail(l, who + ": expected a quoted string, got " + describe(*t));
                p.strs.push_back(t->text);
            } else {
                double v;
                if (t->kind != PbrtToken::Word || !pbrt_number(t->text, v))
                    fail(l, who + ": expected a number, got " + describe(*t));
                if (p.type == "integer" && v != std::floor(v))
                    fail(l, who + ": expected an integer, got " + describe(*t));
                if (p.type == "integer" && !(v >= -2147483648.0 && v <= 2147483647.0))
                    fail(l, who + ": " + t->text +
                                " is out of range (an integer of pbrt-v4 is 32-bit: -2147483648 to 2147483647)");
                p.nums.push_back(v);
            }
        }
        size_t n = vals.size();
        auto need = [&](bool ok, const std::string& what) {
            if (!ok) fail(p.loc, who + ": " + what + ", got " + std::to_string(n) + " values");
        };
        if (p.type == "rgb") need(n == 3, "expected 3 values");
        if (p.type == "blackbody") need(n == 1, "expected 1 value (a temperature in kelvin)");
        if (p.type == "point3" || p.type == "vector3" || p.type == "normal3") need(n % 3 == 0, "expected triples");
        if (p.type == "point2" || p.type == "vector2") need(n % 2 == 0, "expected pairs");
        if (p.type == "spectrum" && strings) need(n == 1, "expected one spectrum name");
        if (p.type == "spectrum" && !strings)
            need(n == 1 || n % 2 == 0, "expected one value or (wavelength, value) pairs");
    }

    // ----------------------------------------------------------------------------------------- parameter use
    static Param* find(Params& ps, const std::string& name) {
        for (size_t i = ps.size(); i-- > 0;)
            if (ps[i].name == name) return &ps[i];
        return nullptr;
    }
    Param* get(Params& ps, const std::string& name, std::initializer_list<const char*> types) {
        Param* p = find(ps, name);
        if (!p) return nullptr;
        bool ok = false;
        std::string list;
        for (const char* t : types) {
            ok = ok || p->type == t;
            list += std::string(list.empty() ? "" : " or ") + t;
        }
        if (!ok) fail(p->loc, "parameter '" + name + "' must be " + list + ", not " + p->type);
        p->used = true;
        return p;
    }
    float f1(Params& ps, const std::string& name, float def) {
        Param* p = get(ps, name, {"float"});
        if (!p) return def;
        if (p->nums.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        if (std::fabs(p->nums[0]) > 3.0e38) fail(p->loc, "parameter '" + name + "' is out of float range");
        return float(p->nums[0]);
    }
    long long i1(Params& ps, const std::string& name, long long def, long long lo, long long hi) {
        Param* p = get(ps, name, {"integer"});
        if (!p) return def;
        if (p->nums.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        long long v = (long long)p->nums[0];
        if (v < lo || v > hi)
            fail(p->loc, "parameter '" + name + "' = " + std::to_string(v) + " out of range (" + std::to_string(lo) +
                             " to " + std::to_string(hi) + ")");
        return v;
    }
    bool b1(Params& ps, const std::string& name, bool def) {
        Param* p = get(ps, name, {"bool"});
        if (!p) return def;
        if (p->bools.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        return p->bools[0] != 0;
    }
    std::string s1(Params& ps, const std::string& name, const std::string& def) {
        Param* p = get(ps, name, {"string"});
        if (!p) return def;
        if (p->strs.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        return p->strs[0];
    }
    // A spectrum as RGB. `normalized` is set for spectra that are not "rgb" (illuminants are then scaled to
    // luminance 1, as pbrt-v4 does); `named` receives a named spectrum's name ("metal-Cu-eta"). A string that names
    // a file (it has a '.' or a '/': "spds/Au.eta.spd") is a spectrum file, read relative to the scene's folder as
    // pbrt-v4 does and converted as the same (wavelength, value) pairs given inline would be.
    // Every spectrum's numbers and its RGB are checked within a 32-bit float (render_limits.h:
    // float_range_problem): an overflowing emission made a black image, an overflowing reflectance a NaN one.
    vec3 spectrum(Param& p, bool* normalized = nullptr, std::string* named = nullptr) {
        const std::string who = "parameter '" + p.name + "' (" + p.type + ")";
        for (size_t i = 0; i < p.nums.size(); ++i)
            if (std::string why = float_range_problem(who + " value " + std::to_string(i), p.nums[i]); !why.empty())
                fail(p.loc, why);
        const vec3 v = spectrum_rgb(p, normalized, named);
        if (std::string why = float_range_problem(who + " as RGB", v.x, v.y, v.z); !why.empty()) fail(p.loc, why);
        return v;
    }
    vec3 spectrum_rgb(Param& p, bool* normalized, std::string* named) {
        p.used = true;
        if (normalized) *normalized = p.type != "rgb";
        if (p.type == "float") return vec3(float(p.nums[0]));
        if (p.type == "rgb") return vec3(float(p.nums[0]), float(p.nums[1]), float(p.nums[2]));
        if (p.type == "blackbody") {
            if (!(p.nums[0] > 0.0)) fail(p.loc, "blackbody temperature must be > 0");
            return blackbody_rgb(p.nums[0]);
        }
        if (!p.strs.empty()) {
            const std::string& s = p.strs[0];
            vec3 eta, k;
            float ior;
            if (named_conductor(s, eta, k)) {
                if (named) *named = s;
                return s.size() > 4 && s.substr(s.size() - 4) == "-eta" ? eta : k;
            }
            if (named_glass(s, ior)) {
                if (named) *named = s;
                return vec3(ior);
            }
            std::vector<double> pairs;
            if (sampled_pairs(p, pairs)) return sampled_rgb(pairs, normalized != nullptr);
            if (named) *named = s;
            warn(p.loc, "spectrum '" + s +
                            "' not known here (named metals Cu, Au, Ag, Al; glasses; or a spectrum file, a name with "
                            "a '.' or a '/'): using 1");
            return vec3(1.0f);
        }
        if (p.nums.size() == 1) return vec3(float(p.nums[0]));
        return sampled_rgb(p.nums, normalized != nullptr);
    }
    // The (wavelength, value) pairs of a sampled spectrum: a "spectrum" given inline as pairs, or a spectrum file
    // (a name with a '.' or a '/'; pbrt-v4's named spectra have neither). False for every other spectrum.
    bool sampled_pairs(const Param& p, std::vector<double>& pairs) const {
        if (p.type != "spectrum") return false;
        if (p.strs.empty()) {
            if (p.nums.size() < 2) return false;
            pairs = p.nums;
            return true;
        }
        const std::string& s = p.strs[0];
        if (s.find_first_of("./") == std::string::npos) return false;
        std::string error;
        if (!read_spectrum_file(resolve(s), pairs, error))
            fail(p.loc, "parameter '" + p.name + "' (spectrum file \"" + s + "\"): " + error);
        return true;
    }
    // (wavelength, value) pairs: reflectances and emission projected onto sRGB through the CIE observer; other
    // spectra (a conductor's eta and k where not both sampled: conductor_etak) sampled at 650, 550 and 450 nm
    vec3 sampled_rgb(const std::vector<double>& nums, bool emission) const {
        auto at = [&](double lam) { return float(pairs_at(nums, lam)); };
        if (emission || reflectance_ctx_) return sampled_spectrum_rgb(at, reflectance_ctx_);
        return vec3(at(650.0), at(550.0), at(450.0));
    }
    // A conductor's eta and k (parameters en and kn; pbrt-v4's copper where not given): both sampled spectra
    // (inline or files) by the Fresnel fit of fit_conductor_rgb, else each as spectrum() reads it. `outside` is the
    // index of the medium above the conductor (a coating's): the fit is made for eta and k relative to it.
    void conductor_etak(Params& ps, const std::string& en, const std::string& kn, vec3& eta, vec3& k,
                        double outside = 1.0) {
        conductor_preset("Cu", eta, k);
        const Param* pe = find(ps, en);
        const Param* pk = find(ps, kn);
        std::vector<double> ep, kp;
        if (pe && pk && sampled_pairs(*pe, ep) && sampled_pairs(*pk, kp)) {
            get(ps, en, {"spectrum"});
            get(ps, kn, {"spectrum"});
            negative_etak(*pe, ep);
            negative_etak(*pk, kp);
            fit_conductor_rgb([&](double nm) { return pairs_at(ep, nm) / outside; },
                              [&](double nm) { return pairs_at(kp, nm) / outside; }, eta, k);
            eta *= float(outside);
            k *= float(outside);
            return;
        }
        spectrum(ps, en, eta, nullptr, nullptr, true);
        spectrum(ps, kn, k, nullptr, nullptr, true);
    }
    // A conductor's sampled eta or k with negative values: pbrt-v4 takes them (its complex Fresnel of them); the fit
    // here follows the reflectance they give with a positive index, which no longer says what was given: a warning.
    void negative_etak(const Param& p, const std::vector<double>& pairs) {
        double lo = pairs[1];
        for (size_t i = 1; i < pairs.size(); i += 2) lo = std::min(lo, pairs[i]);
        if (lo >= 0.0) return;
        std::ostringstream o;
        o << "parameter '" << p.name << "' (spectrum): negative values (down to " << lo
          << ") are not a physical index: taken as the Fresnel reflectance they give, fitted with eta > 0 and k >= 0 "
             "(pbrt-v4 takes them as given; an RGB one is refused)";
        warn(p.loc, o.str());
    }
    bool spectrum(Params& ps, const std::string& name, vec3& out, bool* normalized = nullptr,
                  std::string* named = nullptr, bool allow_float = false) {
        Param* p = allow_float ? get(ps, name, {"rgb", "spectrum", "blackbody", "float"})
                               : get(ps, name, {"rgb", "spectrum", "blackbody"});
        if (!p) return false;
        if (p->type == "float" && p->nums.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        out = spectrum(*p, normalized, named);
        return true;
    }
    // A reflectance: a spectrum (clamped to [0, 1]) or a spectrum texture.
    TexRec spectex(Params& ps, const std::string& name, vec3 def, Loc* at = nullptr) {
        Param* p = get(ps, name, {"rgb", "spectrum", "blackbody", "texture", "float"});
        TexRec t;
        t.value = t.avg = def;
        if (!p) return t;
        if (at) *at = p->loc;
        if (p->type == "texture") {
            auto it = spec_tex_.find(p->strs[0]);
            if (it == spec_tex_.end()) {
                if (float_tex_.count(p->strs[0])) return float_tex_[p->strs[0]];  // pbrt-v4 refuses; we take it
                fail(p->loc, "no spectrum texture named '" + p->strs[0] + "'");
            }
            return it->second;
        }
        if (p->type == "float" && p->nums.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
        reflectance_ctx_ = true;
        t.value = t.avg = spectrum(*p);
        reflectance_ctx_ = false;
        reflectance_range(*p, t.value);
        return t;
    }
    // A reflectance (an albedo) outside [0, 1]: pbrt-v4 refuses an RGB one ("used as an albedo has > 1 component",
    // "Negative value provided for RGB parameter"), and a float here the same (pbrt-v4 takes none); a sampled
    // spectrum's values it takes as given, which the materials here clamp to [0, 1]: a warning naming it.
    void reflectance_range(const Param& p, vec3 v) {
        std::ostringstream o;
        o << "parameter '" << p.name << "' (" << p.type << ")";
        if (p.type == "rgb" || p.type == "float") {
            if (glm::min(v.x, glm::min(v.y, v.z)) >= 0.0f && glm::max(v.x, glm::max(v.y, v.z)) <= 1.0f) return;
            o << " = (" << v.x << ", " << v.y << ", " << v.z
              << "): a reflectance (an albedo) must be in [0, 1] (pbrt-v4 refuses it too)";
            fail(p.loc, o.str());
        }
        std::vector<double> pairs;
        if (!sampled_pairs(p, pairs)) return;
        double lo = pairs[1], hi = pairs[1];
        for (size_t i = 1; i < pairs.size(); i += 2) lo = std::min(lo, pairs[i]), hi = std::max(hi, pairs[i]);
        if (lo >= 0.0 && hi <= 1.0) return;
        o << ": spectrum values from " << lo << " to " << hi
          << ", outside [0, 1] for a reflectance: its RGB clamped to [0, 1] (pbrt-v4 takes the values as given)";
        warn(p.loc, o.str());
    }
    // A float that may be given as a float texture (its average, with a warning, where no texture is supported).
    float floattex(Params& ps, const std::string& name, float def) {
        Param* p = get(ps, name, {"float", "texture"});
        if (!p) return def;
        if (p->type == "float") {
            if (p->nums.size() != 1) fail(p->loc, "parameter '" + name + "' takes one value");
            return float(p->nums[0]);
        }
        auto it = float_tex_.find(p->strs[0]);
        if (it == float_tex_.end()) fail(p->loc, "no float texture named '" + p->strs[0] + "'");
        if (it->second.id != kNoTexture)
            warn(p->loc,
                 "a texture for '" + name + "' not supported: using its average " + std::to_string(it->second.avg.x));
        return it->second.avg.x;
    }
    // Parameters nothing read: a warning for those pbrt-v4 knows, an error for the others.
    void check_unused(Params& ps, const std::string& what, const std::string& type) {
        auto it = known_params().find(what + " " + type);
        for (Param& p : ps) {
            if (p.used) continue;
            if (it != known_params().end() && it->second.count(p.name))
                warn(p.loc, "parameter '" + p.name + "' of " + what + " \"" + type + "\" not supported: ignored");
            else
                fail(p.loc, "unknown parameter '" + p.name + "' for " + what + " \"" + type + "\"");
        }
    }
    static void use_all(Params& ps) {
        for (Param& p : ps) p.used = true;
    }

    // ------------------------------------------------------------------------------------------------ parsing
    std::string resolve(const std::string& f) const { return !f.empty() && f[0] == '/' ? f : dir_ + f; }

    void need_world(const Loc& l, const std::string& d, bool inside) {
        if (inside && !world_) fail(l, d + " before WorldBegin (it belongs in the world block)");
        if (!inside && world_) fail(l, d + " after WorldBegin (it belongs before it)");
    }

    void apply(const mat4& m, bool concat) {
        if (!active_start_) return;  // only the start time's transform is used (no motion blur)
        gs_.ctm = concat ? gs_.ctm * m : m;
    }

    void parse(Tokens& ts) {
        while (!ts.end()) {
            const PbrtToken& t = ts.peek();
            const Loc l = loc(ts, t);
            if (t.kind != PbrtToken::Word) fail(l, "expected a directive, got " + describe(t));
            const std::string d = t.text;
            ++ts.i;
            directive(ts, d, l);
        }
    }

    // One directive, by kind; an unknown word (or a number where a directive belongs) fails.
    void directive(Tokens& ts, const std::string& d, const Loc& l) {
        if (transform_directive(ts, d, l) || block_directive(ts, d, l) || setting_directive(ts, d, l) ||
            world_directive(ts, d, l))
            return;
        double v;
        if (pbrt_number(d, v)) fail(l, "expected a directive, got the number '" + d + "'");
        fail(l, "unknown directive '" + (d.size() > 40 ? d.substr(0, 40) + "..." : d) + "'");
    }

    // A transform directive (the current transform, named coordinate systems, orientation).
    // False when d is none of them.
    bool transform_directive(Tokens& ts, const std::string& d, const Loc& l) {
        if (d == "Translate") {
            auto v = numbers(ts, 3, d, l, false);
            mat4 m(1.0f);
            m[3] = vec4(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]), 1.0f);
            apply(m, true);
        } else if (d == "Scale") {
            auto v = numbers(ts, 3, d, l, false);
            apply(glm::scale(mat4(1.0f),
                             vec3(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2]))),
                  true);
        } else if (d == "Rotate") {
            auto v = numbers(ts, 4, d, l, false);
            vec3 axis(static_cast<float>(v[1]), static_cast<float>(v[2]), static_cast<float>(v[3]));
            if (!(glm::length(axis) > 0.0f)) fail(l, "Rotate about a zero axis");
            apply(rotate_deg(static_cast<float>(v[0]), axis), true);
        } else if (d == "LookAt") {
            auto v = numbers(ts, 9, d, l, false);
            vec3 pos(static_cast<float>(v[0]), static_cast<float>(v[1]), static_cast<float>(v[2])),
                look(static_cast<float>(v[3]), static_cast<float>(v[4]), static_cast<float>(v[5])),
                up(static_cast<float>(v[6]), static_cast<float>(v[7]), static_cast<float>(v[8]));
            vec3 dir = look - pos;
            if (!(glm::length(dir) > 0.0f)) fail(l, "LookAt: the eye and the look-at point are the same");
            if (!(glm::length(up) > 0.0f)) fail(l, "LookAt: zero up vector");
            dir = glm::normalize(dir);
            vec3 right = glm::cross(glm::normalize(up), dir);
            if (!(glm::length(right) > 1e-6f)) fail(l, "LookAt: the up vector and the viewing direction are parallel");
            right = glm::normalize(right);
            vec3 nup = glm::cross(dir, right);
            mat4 w(1.0f);  // world from camera
            w[0] = vec4(right, 0.0f);
            w[1] = vec4(nup, 0.0f);
            w[2] = vec4(dir, 0.0f);
            w[3] = vec4(pos, 1.0f);
            apply(glm::inverse(w), true);
        } else if (d == "Transform" || d == "ConcatTransform") {
            auto v = numbers(ts, 16, d, l, true);
            mat4 m;
            for (int c = 0; c < 4; ++c)
                for (int r = 0; r < 4; ++r) m[c][r] = static_cast<float>(v[size_t(c * 4 + r)]);
            apply(m, d == "ConcatTransform");
        } else if (d == "Identity") {
            apply(mat4(1.0f), false);
        } else if (d == "CoordinateSystem") {
            coordsys_[string_arg(ts, d, l)] = gs_.ctm;
        } else if (d == "CoordSysTransform") {
            std::string n = string_arg(ts, d, l);
            auto it = coordsys_.find(n);
            if (it == coordsys_.end())
                warn(l, "no coordinate system named '" + n + "': CoordSysTransform ignored");
            else
                apply(it->second, false);
        } else if (d == "TransformTimes") {
            numbers(ts, 2, d, l, false);
            warn(l, "TransformTimes not supported (no motion blur): ignored");
        } else if (d == "ActiveTransform") {
            if (ts.end() || ts.peek().kind != PbrtToken::Word)
                fail(l, "ActiveTransform: expected StartTime, EndTime or All");
            std::string w = ts.peek().text;
            ++ts.i;
            if (w == "StartTime" || w == "All")
                active_start_ = true;
            else if (w == "EndTime")
                active_start_ = false, warn(l, "transforms at EndTime not supported (no motion blur): ignored");
            else
                fail(l, "ActiveTransform: expected StartTime, EndTime or All, got '" + w + "'");
        } else if (d == "ReverseOrientation") {
            gs_.reverse = !gs_.reverse;
        } else {
            return false;
        }
        return true;
    }

    // A directive that opens or closes a block (attributes, objects, the world) or includes a file.
    // False when d is none of them.
    bool block_directive(Tokens& ts, const std::string& d, const Loc& l) {
        if (d == "AttributeBegin" || d == "TransformBegin") {
            if (d == "TransformBegin") warn(l, "TransformBegin is deprecated in pbrt-v4 (read as in pbrt-v3)");
            push(d == "AttributeBegin" ? 'A' : 'T', l);
        } else if (d == "AttributeEnd" || d == "TransformEnd") {
            pop(d == "AttributeEnd" ? 'A' : 'T', l, d);
        } else if (d == "ObjectBegin") {
            need_world(l, d, true);
            std::string n = string_arg(ts, d, l);
            if (in_object_) fail(l, "ObjectBegin inside the definition of object '" + object_ + "'");
            if (objects_.count(n)) warn(l, "a second object named '" + n + "': it replaces the first");
            push('O', l);
            in_object_ = true;
            object_ = n;
            objects_[n].clear();
        } else if (d == "ObjectEnd") {
            if (!in_object_) fail(l, "ObjectEnd without ObjectBegin");
            pop('O', l, d);
            in_object_ = false;
        } else if (d == "ObjectInstance") {
            need_world(l, d, true);
            std::string n = string_arg(ts, d, l);
            if (in_object_) fail(l, "ObjectInstance inside the definition of object '" + object_ + "'");
            auto it = objects_.find(n);
            if (it == objects_.end()) fail(l, "no object named '" + n + "'");
            for (ShapeRec r : it->second) {  // a copy: its parameters are read anew
                r.ctm = gs_.ctm * r.ctm;
                shape(r);
            }
        } else if (d == "Include" || d == "Import") {
            include(ts, d, l);
        } else if (d == "WorldBegin") {
            if (world_) fail(l, "a second WorldBegin");
            world_ = true;
            gs_.ctm = mat4(1.0f);
            coordsys_["world"] = mat4(1.0f);
        } else if (d == "WorldEnd") {
            warn(l, "WorldEnd is pbrt-v3 syntax: ignored");
        } else {
            return false;
        }
        return true;
    }

    // A directive before the world (camera, film, sampler, ...) or one read and ignored (media, options).
    // False when d is none of them.
    bool setting_directive(Tokens& ts, const std::string& d, const Loc& l) {
        if (d == "Camera") {
            need_world(l, d, false);
            camera_directive(ts, l);
        } else if (d == "Film" || d == "Sampler" || d == "Integrator" || d == "PixelFilter" || d == "Accelerator") {
            need_world(l, d, false);
            std::string type = string_arg(ts, d, l);
            Params ps = params(ts);
            options_directive(d, type, ps, l);
        } else if (d == "ColorSpace") {
            std::string n = string_arg(ts, d, l);
            if (n != "srgb") warn(l, "color space '" + n + "' not supported: colors read as linear sRGB");
        } else if (d == "Option") {
            Params ps = params(ts);
            use_all(ps);
            warn(l, "Option not supported: ignored");
        } else if (d == "Attribute") {
            std::string target = string_arg(ts, d, l);
            Params ps = params(ts);
            use_all(ps);
            warn(l, "Attribute \"" + target + "\" (default parameters) not supported: ignored");
        } else if (d == "MakeNamedMedium") {
            string_arg(ts, d, l);
            Params ps = params(ts);
            use_all(ps);
            warn(l, "participating media not supported: MakeNamedMedium ignored");
        } else if (d == "MediumInterface") {
            std::string a = string_arg(ts, d, l);
            std::string b = !ts.end() && ts.peek().kind == PbrtToken::String ? string_arg(ts, d, l) : a;
            if (!a.empty() || !b.empty()) warn(l, "participating media not supported: MediumInterface ignored");
        } else {
            return false;
        }
        return true;
    }

    // A directive of the world block: shapes, materials, textures, lights. False when d is none of them.
    bool world_directive(Tokens& ts, const std::string& d, const Loc& l) {
        if (d == "Shape") {
            need_world(l, d, true);
            ShapeRec r;
            r.type = string_arg(ts, d, l);
            r.params = params(ts);
            r.loc = l;
            r.ctm = gs_.ctm;
            r.reverse = gs_.reverse;
            r.material = gs_.material;
            r.area = gs_.area;
            if (in_object_)
                objects_[object_].push_back(std::move(r));
            else
                shape(r);
        } else if (d == "Material") {
            need_world(l, d, true);
            std::string type = string_arg(ts, d, l);
            Params ps = params(ts);
            gs_.material = material(type, ps, l);
        } else if (d == "MakeNamedMaterial") {
            need_world(l, d, true);
            std::string n = string_arg(ts, d, l);
            Params ps = params(ts);
            Param* tp = get(ps, "type", {"string"});
            if (!tp) fail(l, "MakeNamedMaterial \"" + n + "\" without \"string type\"");
            if (named_mats_.count(n)) warn(l, "a second material named '" + n + "': it replaces the first");
            named_mats_[n] = material(tp->strs[0], ps, l);
        } else if (d == "NamedMaterial") {
            need_world(l, d, true);
            std::string n = string_arg(ts, d, l);
            auto it = named_mats_.find(n);
            if (it == named_mats_.end()) fail(l, "no material named '" + n + "'");
            gs_.material = it->second;
        } else if (d == "Texture") {
            need_world(l, d, true);
            texture_directive(ts, l);
        } else if (d == "LightSource") {
            need_world(l, d, true);
            std::string type = string_arg(ts, d, l);
            Params ps = params(ts);
            light(type, ps, l);
        } else if (d == "AreaLightSource") {
            need_world(l, d, true);
            std::string type = string_arg(ts, d, l);
            Params ps = params(ts);
            area_light(type, ps, l);
        } else {
            return false;
        }
        return true;
    }

    void push(char kind, const Loc& l) {
        stack_.push_back({kind, l});
        saved_.push_back(gs_);
    }
    void pop(char kind, const Loc& l, const std::string& d) {
        if (stack_.empty() || stack_.back().first != kind) {
            if (stack_.empty()) fail(l, d + " without a matching " + stack_kind_name(kind) + "Begin");
            fail(l, d + " closes the " + stack_kind_name(stack_.back().first) + "Begin of line " +
                        std::to_string(stack_.back().second.line) + "");
        }
        if (kind == 'T')
            gs_.ctm = saved_.back().ctm;  // TransformEnd restores the transform only
        else
            gs_ = saved_.back();
        stack_.pop_back();
        saved_.pop_back();
    }

    void include(Tokens& ts, const std::string& d, const Loc& l) {
        std::string f = string_arg(ts, d, l);
        if (f.empty()) fail(l, d + " of an empty file name");
        std::string path = resolve(f);
        if (include_depth_ >= 32) fail(l, d + " nested more than 32 deep (does a file include itself?)");
        struct stat st;
        if (::stat(path.c_str(), &st) != 0) fail(l, "cannot open included file '" + path + "'");
        if (S_ISDIR(st.st_mode)) fail(l, "included file '" + path + "' is a folder, not a scene file");
        if (!S_ISREG(st.st_mode)) fail(l, "included file '" + path + "' is not a regular file");
        const std::string canon = canonical(path);
        for (size_t i = 0; i < reading_.size(); ++i)
            if (reading_[i].first == canon) {  // a file already being read: it would include itself again and again
                std::string chain;
                for (size_t k = i; k < reading_.size(); ++k) chain += reading_[k].second + " -> ";
                fail(l, "include cycle: " + chain + path);
            }
        std::ifstream in(path, std::ios::binary);
        if (!in) fail(l, "cannot open included file '" + path + "'");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        files_.push_back(path);
        Tokens inc;
        inc.file = int(files_.size() - 1);
        inc.t = pbrt_tokenize(text, path);
        ++include_depth_;
        reading_.push_back({canon, path});
        parse(inc);
        reading_.pop_back();
        --include_depth_;
    }

    // ------------------------------------------------------------------------------------- camera and options
    void camera_directive(Tokens& ts, const Loc& l) {
        std::string type = string_arg(ts, "Camera", l);
        Params ps = params(ts);
        cam_ctm_ = gs_.ctm;
        cam_loc_ = l;
        float det = glm::determinant(mat3(cam_ctm_));
        if (!(std::isfinite(det) && std::fabs(det) > 1e-12f)) fail(l, "Camera: the transform is singular");
        coordsys_["camera"] = glm::inverse(cam_ctm_);
        if (type != "perspective") {
            if (!pbrt_knows("Camera", type)) fail(l, "unknown camera type '" + type + "'");
            warn(l, "camera \"" + type + "\" not supported: a perspective camera with the same transform and fov 90");
            use_all(ps);
            return;
        }
        fov_ = f1(ps, "fov", 90.0f);
        if (!(fov_ > 0.0f && fov_ < 180.0f)) fail(find(ps, "fov")->loc, "fov must be in (0, 180) degrees");
        lensradius_ = f1(ps, "lensradius", 0.0f);
        if (lensradius_ < 0.0f) fail(find(ps, "lensradius")->loc, "lensradius must not be negative");
        focaldistance_ = f1(ps, "focaldistance", 1e6f);
        if (!(focaldistance_ > 0.0f)) fail(find(ps, "focaldistance")->loc, "focaldistance must be > 0");
        frameaspect_ = f1(ps, "frameaspectratio", 0.0f);
        if (frameaspect_ < 0.0f) fail(find(ps, "frameaspectratio")->loc, "frameaspectratio must be > 0");
        // no motion blur; the shutter's open time is pbrt-v4's exposure time (the film's imaging ratio)
        shutter_open_ = f1(ps, "shutteropen", 0.0f);
        shutter_close_ = f1(ps, "shutterclose", 1.0f);
        if (!(shutter_close_ - shutter_open_ > 0.0f))
            fail(find(ps, "shutterclose") ? find(ps, "shutterclose")->loc : l,
                 "the shutter times imply that the shutter does not open (shutterclose <= shutteropen)");
        check_unused(ps, "Camera", type);
    }

    void camera() {
        mat4 W = glm::inverse(cam_ctm_);  // world from camera
        CameraData c;
        c.pos = vec3(W * vec4(0, 0, 0, 1));
        c.forward = glm::normalize(vec3(W * vec4(0, 0, 1, 0)));
        vec3 up = vec3(W * vec4(0, 1, 0, 0)), right = vec3(W * vec4(1, 0, 0, 0));
        // an orthonormal frame as the generator expects it, keeping the matrix's handedness
        right = glm::normalize(right - c.forward * glm::dot(c.forward, right));
        up = up - c.forward * glm::dot(c.forward, up) - right * glm::dot(right, up);
        if (!(glm::length(up) > 0.0f) || !finite3(c.pos) || !finite3(c.forward) || !finite3(right) || !finite3(up))
            fail(cam_loc_, "Camera: degenerate transform");
        c.up = glm::normalize(up);
        c.right = right;
        float aspect = frameaspect_ > 0.0f ? frameaspect_ : float(width_) / float(height_);
        // pbrt: the screen window is [-aspect, aspect] x [-1, 1] for landscape, [-1, 1] x [-1/aspect, 1/aspect]
        // for portrait, times tan(fov / 2): the fov spans the shorter axis
        float t = std::tan(0.5f * fov_ * kPi / 180.0f);
        c.tan_half_fov_y = aspect >= 1.0f ? t : t / aspect;
        c.aspect = float(width_) / float(height_);
        if (frameaspect_ > 0.0f && std::fabs(frameaspect_ - c.aspect) > 1e-4f * c.aspect)
            warn(cam_loc_, "frameaspectratio differs from the film's: the image is stretched to the film");
        c.lens_radius = lensradius_;
        c.focus_dist = focaldistance_;
        b_.set_camera(c);
    }

    // The film's "pixelbounds" [x0 x1 y0 y1] (pixels, half-open) or "cropwindow" [x0 x1 y0 y1] (fractions of the
    // image, pixels from ceil(x0 * xresolution) to ceil(x1 * xresolution), as pbrt-v4 computes them): the crop
    // setting (kernels/render_params.h; the output is the crop's size, as pbrt-v4's).
    void film_crop(Params& ps) {
        Param* pb = get(ps, "pixelbounds", {"integer"});
        Param* cw = get(ps, "cropwindow", {"float"});
        if (pb && cw) fail(cw->loc, "a film with both pixelbounds and cropwindow (pbrt-v4 refuses it too)");
        Param* p = pb ? pb : cw;
        if (!p) return;
        if (p->nums.size() != 4) fail(p->loc, "parameter '" + p->name + "' takes four values [x0 x1 y0 y1]");
        double c[4];
        for (int i = 0; i < 4; ++i) {
            const double v = p->nums[size_t(i)];
            if (cw && !(v >= 0.0 && v <= 1.0)) fail(p->loc, "parameter 'cropwindow' takes fractions in [0, 1]");
            c[i] = cw ? std::ceil((i < 2 ? width_ : height_) * v) : v;
        }
        if (!(c[0] >= 0 && c[0] < c[1] && c[1] <= width_ && c[2] >= 0 && c[2] < c[3] && c[3] <= height_))
            fail(p->loc, "the film's " + p->name + " is not a rectangle inside its " + std::to_string(width_) + "x" +
                             std::to_string(height_) + " pixels");
        crop_[0] = uint32_t(c[0]), crop_[1] = uint32_t(c[2]), crop_[2] = uint32_t(c[1]), crop_[3] = uint32_t(c[3]);
    }

    void options_directive(const std::string& d, const std::string& type, Params& ps, const Loc& l) {
        if (!pbrt_knows(d, type)) fail(l, "unknown " + d + " type '" + type + "'");
        if (d == "Accelerator") {
            use_all(ps);  // our own tree; no effect on the image
            return;
        }
        if (d == "Film") {
            if (type != "rgb") warn(l, "film \"" + type + "\" not supported: an RGB film");
            width_ = uint32_t(i1(ps, "xresolution", 1280, 1, 1 << 20));
            height_ = uint32_t(i1(ps, "yresolution", 720, 1, 1 << 20));
            film_crop(ps);
            s1(ps, "filename", "");  // the output file is the command line's (-o; default: the scene's name)
            f1(ps, "diagonal", 35.0f);
            b1(ps, "savefp16", true);
            film_sensor(ps);  // (pbrt-v4's every film has the sensor)
            if (type == "rgb")
                check_unused(ps, d, type);
            else
                use_all(ps);
            return;
        }
        if (d == "Sampler") {
            if (type == "stratified") {
                long long x = i1(ps, "xsamples", 4, 1, 1 << 12), y = i1(ps, "ysamples", 4, 1, 1 << 12);
                spp_ = uint32_t(x * y);
            } else {
                spp_ = uint32_t(i1(ps, "pixelsamples", 16, 1, 1 << 30));
            }
            seed_ = uint32_t(i1(ps, "seed", 0, 0, 2147483647));
            for (Param& p : ps)  // the sampling pattern changes the noise, not the image it converges to
                if (p.name == "randomization" || p.name == "jitter" || p.name == "dimensions") p.used = true;
            // independent as ours; every low-discrepancy sampler as our sobol (Owen-scrambled Sobol padded in 2-D
            // groups per bounce: paddedsobol's pattern); a note where pbrt-v4's pattern differs (global Sobol,
            // Morton-ordered ZSobol, Halton, PMJ02BN, jittered strata), never an error: the same image in the limit
            sampler_ = type == "independent" ? kSamplerIndependent : kSamplerSobol;
            if (type != "independent" && type != "paddedsobol")
                note(l, "sampler \"" + type +
                            "\" rendered with wavepath's sobol sampler (Owen-scrambled Sobol padded per bounce, as "
                            "pbrt-v4's paddedsobol): another pattern of the same image");
            check_unused(ps, d, type);
            return;
        }
        if (d == "Integrator") {
            maxdepth_ = uint32_t(i1(ps, "maxdepth", 5, 0, 1 << 20));
            if (type != "path" && type != "volpath") {
                warn(l, "integrator \"" + type + "\" not supported: rendered with the path tracer (maxdepth " +
                            std::to_string(maxdepth_) + ")");
                use_all(ps);
                return;
            }
            s1(ps, "lightsampler", "bvh");  // light selection changes the noise only
            if (b1(ps, "regularize", false))
                warn(find(ps, "regularize")->loc, "path regularization not supported: ignored");
            check_unused(ps, d, type);
            return;
        }
        // PixelFilter
        filter_given_ = true;
        // pbrt-v4's filters and default radii; ours are separable with one radius (kernels/filter.h)
        static const std::map<std::string, std::pair<const char*, float>> known{{"box", {"box", 0.5f}},
                                                                                {"triangle", {"tent", 2.0f}},
                                                                                {"gaussian", {"gaussian", 1.5f}},
                                                                                {"mitchell", {"mitchell", 2.0f}}};
        auto k = known.find(type);
        if (k != known.end()) {
            float xr = f1(ps, "xradius", k->second.second), yr = f1(ps, "yradius", k->second.second);
            float sigma = type == "gaussian" ? f1(ps, "sigma", 0.5f) : 0.0f;
            if (type == "mitchell") {
                float B = f1(ps, "B", 1.0f / 3.0f), C = f1(ps, "C", 1.0f / 3.0f);
                if (std::fabs(B - 1.0f / 3.0f) > 1e-4f || std::fabs(C - 1.0f / 3.0f) > 1e-4f)
                    warn(l, "Mitchell filter B and C other than 1/3 not supported: 1/3");
            }
            if (xr != yr) warn(l, "filter radii differ in x and y: not supported, xradius for both");
            check_unused(ps, d, type);
            if (std::string why = set_filter(ls_.params, k->second.first, xr, sigma); !why.empty())
                fail(l, "PixelFilter: " + why);
        } else {
            use_all(ps);
            warn(l, "pixel filter \"" + type + "\" not supported: a box filter over each pixel");
        }
    }

    // pbrt-v4's RGB film's sensor parameters, applied when the scene is finished (film_matrix).
    void film_sensor(Params& ps) {
        iso_ = f1(ps, "iso", 100.0f);
        for (const char* n : {"exposuretime", "iso", "whitebalance"})
            if (Param* p = find(ps, n)) (std::string(n) == "whitebalance" ? wb_loc_ : ratio_loc_) = p->loc;
        if (!(iso_ > 0.0f) || !std::isfinite(iso_)) fail(find(ps, "iso")->loc, "iso must be > 0");
        if (find(ps, "exposuretime")) {
            exposure_ = f1(ps, "exposuretime", 1.0f);
            if (!(exposure_ > 0.0f) || !std::isfinite(exposure_))
                fail(find(ps, "exposuretime")->loc, "exposuretime must be > 0");
        }
        whitebalance_ = f1(ps, "whitebalance", 0.0f);
        if (whitebalance_ < 0.0f || !std::isfinite(whitebalance_))
            fail(find(ps, "whitebalance")->loc, "whitebalance must be a temperature in kelvin (or 0: none)");
        // pbrt-v4's white of a blackbody up to 195 K is not a number (its float spectrum overflows) and every pixel
        // of its render NaN (measured: 195 K NaN, 195.5 K not); ours stays finite down to about 21 K, an image pbrt-v4
        // never makes: refused, at the parameter
        if (whitebalance_ > 0.0f && whitebalance_ < kMinWhiteBalance)
            fail(find(ps, "whitebalance")->loc,
                 "whitebalance " + num_text(whitebalance_) +
                     " K: below 195.5 K the white balance is not finite (pbrt-v4's white of a blackbody that cold "
                     "overflows a float and its render is NaN in every pixel): a temperature of at least 195.5 K, or "
                     "0 for none");
        sensor_ = s1(ps, "sensor", "cie1931");
        mat3 m;
        if (sensor_ != "cie1931" && !pbrt_sensor_matrix(sensor_, m))
            warn(find(ps, "sensor")->loc, "sensor '" + sensor_ +
                                              "' not supported (canon_eos_100d is): the CIE 1931 sensor, with the "
                                              "imaging ratio and white balance");
    }
    // The film's colour transform (RenderParams::film_matrix): imaging ratio x sensor x white balance, as pbrt-v4's
    // RGBFilm makes its image from the sensor's RGB (host/scene/pbrt_film.h); none when it is the identity.
    void film_matrix(RenderParams& rp) {
        // pbrt-v4: imagingRatio = exposureTime * ISO / 100, the exposure time the camera's shutter interval
        const float exposure = exposure_ > 0.0f ? exposure_ : shutter_close_ - shutter_open_;
        const double ratio_d = double(exposure) * double(iso_) / 100.0;
        if (std::string why = float_range_problem("the film's imaging ratio (exposure time x iso / 100)", ratio_d);
            !why.empty())
            fail(ratio_loc_, why);
        const float ratio = float(ratio_d);
        mat3 sensor(1.0f), wb(1.0f);
        const bool named = sensor_ != "cie1931" && pbrt_sensor_matrix(sensor_, sensor);
        float kelvin = whitebalance_;
        if (named && kelvin == 0.0f) kelvin = 6500.0f;  // pbrt-v4's default for a named sensor (in its fit)
        if (kelvin > 0.0f) {
            wb = pbrt_white_balance(kelvin);
            if (named) wb = wb * glm::inverse(pbrt_white_balance(6500.0f));  // the fit has 6500 K's in it
        }
        const mat3 m = ratio * sensor * wb;
        film_matrix_check(wb, m);
        if (m == mat3(1.0f)) return;
        rp.film_transform = 1;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) rp.film_matrix[3 * r + c] = m[c][r];
    }

    // The film's colour transform checked finite (render_limits.h: float_range_problem), at the parameter that made
    // it overflow: a white balance to a white too cold for a float's blue (whitebalance 1 to 20 K) or an imaging ratio
    // past a float made every pixel NaN (pbrt-v4's own render of them is NaN too).
    void film_matrix_check(const mat3& wb, const mat3& m) const {
        for (int c = 0; c < 3; ++c)
            if (!finite3(wb[c]))
                fail(wb_loc_, "whitebalance " + num_text(whitebalance_) +
                                  " K: the white balance to a white that cold is not finite in 32-bit floats (its "
                                  "blackbody has no blue in float precision; pbrt-v4 renders every pixel NaN)");
        for (int c = 0; c < 3; ++c)
            if (!finite3(m[c]))
                fail(wb_loc_.line ? wb_loc_ : ratio_loc_,
                     "the film's colour transform (imaging ratio x sensor x white balance) is not finite");
        // a pixel's mean is at most kFilmMaxSample a channel (every sample is clamped to it): a transform of at most
        // FLT_MAX / (4 kFilmMaxSample) keeps every pixel finite (iso 3e38 made Inf pixels of a finite transform)
        float biggest = 0.0f;
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 3; ++r) biggest = std::max(biggest, std::fabs(m[c][r]));
        const float most = 3.4e38f / (4.0f * kFilmMaxSample);
        if (biggest > most)
            fail(ratio_loc_.line ? ratio_loc_ : wb_loc_,
                 "the film's colour transform (imaging ratio x sensor x white balance) reaches " + num_text(biggest) +
                     ": a pixel as bright as the film holds (" + num_text(kFilmMaxSample) +
                     ", its per-sample clamp) would overflow a float (at most " + num_text(most) + ")");
    }
    static std::string num_text(double v) {
        std::ostringstream o;
        o << v;
        return o.str();
    }

    // ----------------------------------------------------------------------------------- textures, materials
    uint32_t image(const std::string& file, bool srgb, const Loc& l, vec3& avg, uint32_t& w, uint32_t& h) {
        std::string key = file + (srgb ? "|srgb" : "|linear");
        auto it = image_ids_.find(key);
        if (it != image_ids_.end()) {
            avg = images_[key].second;
            w = images_[key].first.width, h = images_[key].first.height;
            return it->second;
        }
        struct stat st;
        if (::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail(l, "'" + file + "' is not a regular file");
        LoadedImage im;
        try {
            im = load_image(file, srgb);
        } catch (const ImageError& e) { fail(l, e.what()); }
        if (im.width == 0 || im.height == 0) fail(l, "'" + file + "': empty image");
        vec3 a(0.0f);
        for (const F4& t : im.texels) a += vec3(t.x, t.y, t.z);
        a /= float(im.texels.size());
        uint32_t id = b_.texture(im.texels, im.width, im.height);
        images_[key].second = a;
        image_ids_[key] = id;
        images_[key].first.width = im.width, images_[key].first.height = im.height;
        w = im.width, h = im.height;
        avg = a;
        return id;
    }

    // pbrt-v4's 2D texture mapping (TextureMapping2D::Create): "uv" (the default) maps (u, v) to
    // (su u + du, sv v + dv) in pbrt's own coordinates (v upward); m = (su, du, sv, dv). Other mappings are a warning
    // (uv). Returns whether the mapping is not the identity.
    bool uv_mapping(Params& ps, vec4& m) {
        std::string mapping = s1(ps, "mapping", "uv");
        m = vec4(f1(ps, "uscale", 1.0f), f1(ps, "udelta", 0.0f), f1(ps, "vscale", 1.0f), f1(ps, "vdelta", 0.0f));
        if (mapping != "uv") {
            warn(find(ps, "mapping")->loc, "texture mapping '" + mapping + "' not supported: uv");
            m = vec4(1.0f, 0.0f, 1.0f, 0.0f);
        }
        for (int k = 0; k < 4; ++k)
            if (!std::isfinite(m[k]))
                fail(find(ps, k == 0   ? "uscale"
                              : k == 1 ? "udelta"
                              : k == 2 ? "vscale"
                                       : "vdelta")
                         ->loc,
                     "texture mapping parameters must be finite");
        return m != vec4(1.0f, 0.0f, 1.0f, 0.0f);
    }

    void texture_directive(Tokens& ts, const Loc& l) {
        std::string name = string_arg(ts, "Texture", l);
        std::string kind = string_arg(ts, "Texture", l);
        std::string cls = string_arg(ts, "Texture", l);
        Params ps = params(ts);
        if (kind == "color") kind = "spectrum";
        if (kind != "spectrum" && kind != "float") fail(l, "texture type '" + kind + "' (expected float or spectrum)");
        bool is_float = kind == "float";
        if (!pbrt_knows("Texture", cls)) fail(l, "unknown texture class '" + cls + "'");
        const size_t warns = warn_calls_;
        bool approx = false;  // a texture it uses is an approximation
        TexRec t;
        auto value = [&](const std::string& p, float def) -> TexRec {  // a float/spectrum or a texture
            Param* q = find(ps, p);
            if (q && q->type == "texture") {
                q->used = true;
                auto& m = is_float ? float_tex_ : spec_tex_;
                auto it = m.find(q->strs[0]);
                if (it == m.end()) fail(q->loc, "no " + kind + " texture named '" + q->strs[0] + "'");
                approx = approx || it->second.approx;
                return it->second;
            }
            TexRec r;
            r.value = r.avg = vec3(def);
            if (!q) return r;
            if (is_float || q->type == "float") {
                r.value = r.avg = vec3(f1(ps, p, def));
            } else {
                vec3 v;
                spectrum(ps, p, v);
                r.value = r.avg = v;
            }
            return r;
        };
        if (cls == "imagemap") {
            std::string file = s1(ps, "filename", "");
            if (file.empty()) fail(l, "imagemap texture '" + name + "' without \"string filename\"");
            std::string enc = s1(ps, "encoding", "sRGB");
            if (enc != "sRGB" && enc != "linear")
                warn(find(ps, "encoding")->loc, "encoding '" + enc + "' not supported: sRGB");
            float scale = f1(ps, "scale", 1.0f);
            if (b1(ps, "invert", false)) warn(find(ps, "invert")->loc, "inverted textures not supported: not inverted");
            s1(ps, "filter", "bilinear");  // we filter bilinearly
            f1(ps, "maxanisotropy", 8.0f);
            std::string wrap = s1(ps, "wrap", "repeat");
            if (wrap != "repeat") warn(find(ps, "wrap")->loc, "wrap mode '" + wrap + "' not supported: repeat");
            vec4 m;
            const bool mapped = uv_mapping(ps, m);
            vec3 avg;
            uint32_t w, h;
            t.id = image(resolve(file), enc != "linear", find(ps, "filename")->loc, avg, w, h);
            t.texel = vec2(1.0f / (float(w) * std::fabs(m.x)), 1.0f / (float(h) * std::fabs(m.z)));
            // pbrt-v4 looks images up at (s, 1 - t) from the top row, (s, t) = (su u + du, sv v + dv) with its upward
            // v; our v is 1 - v: the lookup is at (su u + du, sv v + (1 - sv - dv)) in ours
            if (mapped) t.id = b_.texture_mapped(t.id, vec4(m.x, m.y, m.z, 1.0f - m.z - m.w));
            t.value = vec3(scale);
            t.avg = avg * scale;
            if (is_float) t.avg = vec3(luminance(t.avg));
            check_unused(ps, "Texture", cls);
        } else if (cls == "scale") {
            TexRec a = value("tex", 1.0f), s = value("scale", 1.0f);
            if (a.id != kNoTexture && s.id != kNoTexture) {
                warn(l, "scale of two image textures not supported: the first times the second's average");
                s.value = s.avg;
            }
            t.id = a.id != kNoTexture ? a.id : s.id;
            t.texel = a.id != kNoTexture ? a.texel : s.texel;
            t.value = a.value * s.value;
            t.avg = a.avg * s.avg;
            check_unused(ps, "Texture", cls);
        } else if (cls == "constant") {
            t = value("value", 1.0f);
            check_unused(ps, "Texture", cls);
        } else if (cls == "checkerboard") {
            // pbrt-v4's Checkerboard: tex1 where floor(s) + floor(t) is even, (s, t) from the uv mapping
            long long dim = i1(ps, "dimension", 2, 2, 3);
            TexRec a = value("tex1", 1.0f), c = value("tex2", 0.0f);
            vec4 m;
            uv_mapping(ps, m);
            t.value = vec3(1.0f);
            t.avg = 0.5f * (a.avg + c.avg);
            if (dim != 2) {
                warn(find(ps, "dimension")->loc,
                     "3D checkerboard not supported: the constant average of its two textures");
                t.value = t.avg;
            } else if (checker_ids_.count(a.id) || checker_ids_.count(c.id)) {
                warn(l, "a checkerboard of checkerboards not supported: the constant average of its two textures");
                t.value = t.avg;
            } else {
                // pbrt's t = sv v + dv with its upward v = 1 - (our v): t = -sv v + (sv + dv) in ours
                t.id = b_.texture_checker(vec4(m.x, m.y, -m.z, m.z + m.w), a.value, a.id, c.value, c.id);
                t.texel = a.id == kNoTexture ? c.texel : c.id == kNoTexture ? a.texel : glm::min(a.texel, c.texel);
                checker_ids_.insert(t.id);
            }
            check_unused(ps, "Texture", cls);
        } else if (cls == "mix") {
            TexRec a = value("tex1", 0.0f), c = value("tex2", 1.0f);
            float amount = 0.5f;
            if (cls == "mix") {
                Param* q = find(ps, "amount");
                if (q && q->type == "float") amount = f1(ps, "amount", 0.5f);
            }
            use_all(ps);
            t.value = t.avg = a.avg * (1.0f - amount) + c.avg * amount;
            warn(l, cls + " texture not supported: the constant average of its two textures");
        } else {
            use_all(ps);
            t.value = t.avg = vec3(0.5f);
            warn(l, cls + " texture not supported: a constant 0.5");
        }
        t.approx = approx || warn_calls_ > warns;
        (is_float ? float_tex_ : spec_tex_)[name] = t;
    }

    float alpha(Params& ps, const std::string& prefix, float def, bool remap, const Loc& l) {
        float r = floattex(ps, prefix + "roughness", def);
        float u = floattex(ps, prefix + "uroughness", r), v = floattex(ps, prefix + "vroughness", r);
        if (u < 0.0f || v < 0.0f) fail(l, "roughness must not be negative");
        if (std::fabs(u - v) > 1e-6f * std::max(u, v))
            warn(l, "anisotropic roughness not supported: the geometric mean of uroughness and vroughness");
        float a = std::sqrt(u * v);  // u == v: that value
        if (remap) a = std::sqrt(a);
        return a < 1e-3f ? 0.0f : a;  // pbrt-v4 treats alpha below 1e-3 as smooth
    }

    int add_mat(MatHandle h, bool textured = false) {
        mats_.push_back(MatRec{h, false, textured});
        return int(mats_.size() - 1);
    }

    // A coating's index: a float or a spectrum (the index at 550 nm, as for dielectrics); 0 means 1 (pbrt-v4).
    float coat_eta(Params& ps, const std::string& name) {
        Param* e = get(ps, name, {"float", "spectrum", "rgb"});
        if (!e) return 1.5f;
        vec3 v = e->type == "float" ? vec3(float(e->nums.at(0))) : spectrum(*e);
        if (std::fabs(v.x - v.y) > 1e-4f || std::fabs(v.y - v.z) > 1e-4f)
            warn(e->loc, "dispersion not supported: the index at 550 nm");
        if (!(v.y >= 0.0f) || !std::isfinite(v.y)) fail(e->loc, "'" + name + "' must be a finite index >= 0");
        return v.y == 0.0f ? 1.0f : v.y;
    }
    // pbrt-v4's coateddiffuse and coatedconductor: the layered BSDF of kernels/layered.h with pbrt-v4's parameters
    // and defaults (thickness 0.01, eta 1.5, albedo 0, g 0, maxdepth 10, nsamples 1).
    int coated(const std::string& type, Params& ps, const Loc& l, bool remap) {
        LayeredData d{};
        const bool diffuse = type == "coateddiffuse";
        d.coat_alpha = alpha(ps, diffuse ? "" : "interface.", 0.0f, remap, l);
        d.coat_eta = coat_eta(ps, diffuse ? "eta" : "interface.eta");
        d.thickness = floattex(ps, "thickness", 0.01f);
        if (!(d.thickness >= 0.0f) || !std::isfinite(d.thickness))
            fail(find(ps, "thickness")->loc, "thickness must be a finite value >= 0");
        Loc al;
        TexRec a = spectex(ps, "albedo", vec3(0.0f), &al);
        if (a.id != kNoTexture) warn(al, "an albedo texture on a coated material not supported: its average");
        d.albedo = glm::clamp(a.avg, 0.0f, 1.0f);
        d.g = glm::clamp(floattex(ps, "g", 0.0f), -1.0f, 1.0f);
        d.max_depth = uint32_t(i1(ps, "maxdepth", 10, 0, 1000));
        d.nsamples = uint32_t(i1(ps, "nsamples", 1, 1, 1000));
        d.reflectance_tex = kNoTexture;
        bool textured = false;
        if (diffuse) {
            TexRec r = spectex(ps, "reflectance", vec3(0.5f));
            d.reflectance = glm::clamp(r.value, 0.0f, 1.0f);
            d.reflectance_tex = r.id;
            textured = r.id != kNoTexture;
            d.conductor_base = 0;
        } else {
            d.base_alpha = alpha(ps, "conductor.", 0.0f, remap, l);
            if (find(ps, "reflectance")) {  // eta 1, k from the reflectance (made per hit: it may be textured)
                TexRec r = spectex(ps, "reflectance", vec3(1.0f));
                d.reflectance = glm::clamp(r.value, 0.0f, 1.0f);
                d.reflectance_tex = r.id;
                textured = r.id != kNoTexture;
                d.conductor_base = 2;
                for (const char* n : {"conductor.eta", "conductor.k"})
                    if (Param* p = find(ps, n)) {
                        p->used = true;
                        warn(p->loc, std::string("coatedconductor with reflectance: '") + n + "' ignored (as pbrt-v4)");
                    }
            } else {
                vec3 eta, k;
                conductor_etak(ps, "conductor.eta", "conductor.k", eta, k, d.coat_eta);
                if (glm::min(eta.x, glm::min(eta.y, eta.z)) <= 0.0f || glm::min(k.x, glm::min(k.y, k.z)) < 0.0f)
                    fail(l, "conductor.eta must be > 0 and conductor.k not negative");
                d.eta = eta / d.coat_eta;  // pbrt-v4: the conductor's index relative to the coating
                d.k = k / d.coat_eta;
                d.reflectance = vec3(1.0f);
                d.conductor_base = 1;
            }
        }
        return add_mat(b_.layered(d), textured);
    }

    // A material's "displacement" (pbrt-v4 reads it for every material but mix, interface and hair): its float
    // texture, or none where it has no effect here (absent, a constant: a flat surface keeps its normal, as wavepath
    // keeps no normal derivatives) or cannot be expressed (warned).
    TexRec displacement(Params& ps) {
        Param* p = get(ps, "displacement", {"texture", "float"});
        if (!p) return TexRec{};
        if (p->type == "float") {
            if (p->nums.size() != 1) fail(p->loc, "parameter 'displacement' takes one value");
            return TexRec{};
        }
        auto it = float_tex_.find(p->strs[0]);
        if (it == float_tex_.end()) fail(p->loc, "no float texture named '" + p->strs[0] + "'");
        const TexRec& t = it->second;
        if (t.approx)
            warn(p->loc, "displacement texture '" + p->strs[0] +
                             "' is not pbrt-v4's here (see its Texture's warning): " +
                             (t.id == kNoTexture ? "no bump mapping" : "bump-mapped with what it is here"));
        return t;
    }
    // The steps of the bump map's finite differences (kernels/stages.h: bump_shading_normal). pbrt-v4 takes half the
    // ray differentials' footprint in uv (camera rays' differentials scaled by max(1/8, 1/sqrt(spp)); .0005 where
    // there are none); wavepath traces no differentials. Half a texel of the displacement image (through its uv
    // scale): a bilinear image's slope is constant within a texel, so any step below about half a texel differences
    // the same slope, as pbrt-v4's small footprints do. Measured on tex_bump (texel 1/64): half a texel, .0005, .002
    // and .01 give means within 0.06% of each other and relMSE 0.00035-0.00040 against pbrt-v4.
    static vec2 bump_steps(const TexRec& t) {
        auto step = [](float texel) { return texel > 0.0f && std::isfinite(texel) ? 0.5f * texel : 0.0005f; };
        return vec2(step(t.texel.x), step(t.texel.y));
    }

    int material(const std::string& type, Params& ps, const Loc& l) {
        if (!pbrt_knows("Material", type)) fail(l, "unknown material type '" + type + "'");
        const bool bumps = type != "mix" && type != "interface" && type != "none" && !type.empty() && type != "hair";
        const TexRec d = bumps ? displacement(ps) : TexRec{};
        const int idx = material_params(type, ps, l);
        if (d.id != kNoTexture) {
            MatRec& r = mats_[size_t(idx)];
            const vec2 step = bump_steps(d);
            r.h = b_.bumped(r.h, d.id, d.value.x, step.x, step.y);
            r.textured = true;  // (uv on every shape: bilinear patches too)
        }
        return idx;
    }

    int material_params(const std::string& type, Params& ps, const Loc& l) {
        const std::string who = "material \"" + type + "\"";
        if (type == "interface" || type == "none" || type.empty()) {
            check_unused(ps, "Material", "interface");
            MatRec r;
            r.interface = true;
            mats_.push_back(r);
            return int(mats_.size() - 1);
        }
        bool remap = true;  // read by the materials that have roughness
        if (type == "conductor" || type == "dielectric" || type == "coateddiffuse" || type == "coatedconductor")
            remap = b1(ps, "remaproughness", true);
        int idx = -1;
        if (type == "diffuse") {
            TexRec r = spectex(ps, "reflectance", vec3(0.5f));
            idx = add_mat(b_.lambert(glm::clamp(r.value, 0.0f, 1.0f), r.id), r.id != kNoTexture);
        } else if (type == "conductor") {
            float a = alpha(ps, "", 0.0f, remap, l);
            vec3 eta, k;
            Loc rl;
            if (find(ps, "reflectance")) {
                TexRec r = spectex(ps, "reflectance", vec3(1.0f), &rl);
                if (r.id != kNoTexture) warn(rl, "a reflectance texture on a conductor not supported: its average");
                idx = add_mat(b_.conductor(glm::clamp(r.avg, 0.0f, 1.0f), a));
                if (find(ps, "eta") || find(ps, "k")) warn(l, "conductor with reflectance: eta and k ignored");
                use_all(ps);
            } else {
                conductor_etak(ps, "eta", "k", eta, k);
                if (glm::min(eta.x, glm::min(eta.y, eta.z)) <= 0.0f) fail(find(ps, "eta")->loc, "eta must be > 0");
                if (glm::min(k.x, glm::min(k.y, k.z)) < 0.0f) fail(find(ps, "k")->loc, "k must not be negative");
                idx = add_mat(b_.conductor_complex(eta, k, a));
            }
        } else if (type == "dielectric" || type == "thindielectric") {
            float ior = 1.5f;
            Param* e = get(ps, "eta", {"float", "spectrum", "rgb"});
            if (e) {
                vec3 v = e->type == "float" ? vec3(float(e->nums.at(0))) : spectrum(*e);
                if (std::fabs(v.x - v.y) > 1e-4f || std::fabs(v.y - v.z) > 1e-4f)
                    warn(e->loc, "dispersion not supported: the index at 550 nm");
                ior = v.y;
                if (!(ior > 0.0f)) fail(e->loc, "eta must be > 0");
            }
            float a = type == "dielectric" ? alpha(ps, "", 0.0f, remap, l) : 0.0f;
            if (type == "thindielectric")
                warn(l, "thindielectric not supported: a smooth dielectric of its eta (a solid, not a thin sheet)");
            if (ior < 1.0f) {
                warn(e->loc, "eta below 1 taken as 1 / eta (the normal's side is the denser medium here)");
                ior = 1.0f / ior;
            }
            if (ior == 1.0f) ior = 1.0001f;
            idx = add_mat(b_.dielectric(ior, a));
        } else if (type == "coateddiffuse" || type == "coatedconductor") {
            idx = coated(type, ps, l, remap);
        } else if (type == "mix") {
            Param* m = get(ps, "materials", {"string"});
            if (!m || m->strs.size() != 2) fail(m ? m->loc : l, "mix needs \"string materials\" [ \"a\" \"b\" ]");
            float amount = floattex(ps, "amount", 0.5f);
            const std::string& pick = m->strs[amount > 0.5f ? 1 : 0];
            for (const std::string& s : m->strs)
                if (!named_mats_.count(s)) fail(m->loc, "no material named '" + s + "'");
            warn(l, "mix material not supported: '" + pick + "', the one of the larger weight");
            check_unused(ps, "Material", type);
            return named_mats_[pick];
        } else if (type == "diffusetransmission") {
            // pbrt-v4's DiffuseTransmissionMaterial: Lambertian reflection and transmission, each scaled and clamped
            // to [0, 1]
            TexRec r = spectex(ps, "reflectance", vec3(0.25f)), t = spectex(ps, "transmittance", vec3(0.25f));
            const float scale = f1(ps, "scale", 1.0f);
            check_unused(ps, "Material", type);
            return add_mat(b_.diffuse_transmission(glm::clamp(r.value * scale, 0.0f, 1.0f), r.id,
                                                   glm::clamp(t.value * scale, 0.0f, 1.0f), t.id),
                           r.id != kNoTexture || t.id != kNoTexture);
        } else {  // measured, hair, subsurface
            TexRec r = spectex(ps, "reflectance", vec3(0.5f));
            use_all(ps);
            warn(l, who + " not supported: diffuse with its reflectance (or 0.5)");
            return add_mat(b_.lambert(glm::clamp(r.value, 0.0f, 1.0f), r.id), r.id != kNoTexture);
        }
        check_unused(ps, "Material", type);
        return idx;
    }

    // --------------------------------------------------------------------------------------------- lights
    void area_light(const std::string& type, Params& ps, const Loc& l) {
        if (!pbrt_knows("AreaLightSource", type)) fail(l, "unknown area light type '" + type + "'");
        AreaLight a;
        a.on = true;
        bool normalized = false;
        vec3 L(1.0f);
        spectrum(ps, "L", L, &normalized);
        if (glm::min(L.x, glm::min(L.y, L.z)) < 0.0f) fail(find(ps, "L")->loc, "L must not be negative");
        if (normalized) {
            float lum = luminance(L);
            L = lum > 0.0f ? L / lum : L;
        }
        a.L = scaled_emission(ps, "L", L, f1(ps, "scale", 1.0f), l);
        a.two_sided = b1(ps, "twosided", false);
        a.power = f1(ps, "power", -1.0f);
        if (find(ps, "power") && a.power > 0.0f)
            warn(find(ps, "power")->loc, "'power' spread over each shape's whole area (pbrt-v4: per triangle)");
        check_unused(ps, "AreaLightSource", type);
        gs_.area = a;
    }

    // A light's emission spectrum `name` (default: the illuminant, white of luminance 1) as RGB: spectra other than
    // rgb normalized to luminance 1 (pbrt-v4 divides by SpectrumToPhotometric, which for RGB is the illuminant's
    // alone, leaving the RGB as given).
    vec3 emission(Params& ps, const std::string& name) {
        vec3 L(1.0f);
        bool normalized = false;
        if (spectrum(ps, name, L, &normalized)) {
            if (glm::min(L.x, glm::min(L.y, L.z)) < 0.0f) fail(find(ps, name)->loc, name + " must not be negative");
            if (normalized && luminance(L) > 0.0f) L /= luminance(L);
        }
        return L;
    }
    // An emission times its scale (and a power's or an illuminance's factor), checked within a float at the
    // emission's parameter (the directive where it is the default): 1e30 x scale 1e10 made a black image.
    vec3 scaled_emission(Params& ps, const std::string& name, vec3 L, double scale, const Loc& l) {
        const double r = double(L.x) * scale, g = double(L.y) * scale, b = double(L.z) * scale;
        if (std::string why = float_range_problem("'" + name + "' x scale", r, g, b); !why.empty())
            fail(find(ps, name) ? find(ps, name)->loc : l, why);
        return vec3(float(r), float(g), float(b));
    }
    vec3 point_param(Params& ps, const std::string& name, vec3 def) {
        Param* p = get(ps, name, {"point3"});
        if (!p) return def;
        if (p->nums.size() != 3) fail(p->loc, "parameter '" + name + "' takes one point");
        return vec3(float(p->nums[0]), float(p->nums[1]), float(p->nums[2]));
    }
    vec3 world_point(vec3 p, const Loc& l, const std::string& what) {
        vec3 w = vec3(gs_.ctm * vec4(p, 1.0f));
        if (!finite3(w)) fail(l, what + ": its position is not finite under the transform");
        return w;
    }
    vec3 world_dir(vec3 d, const Loc& l, const std::string& what) {
        vec3 w = mat3(gs_.ctm) * d;
        float n = glm::length(w);
        if (!(std::isfinite(n) && n > 0.0f))
            fail(l, what + ": no direction (from and to coincide, or a singular transform)");
        return w / n;
    }
    // pbrt-v4's point, spot and distant lights (lights.cpp's Create functions): I or L times scale; 'power' (point,
    // spot) and 'illuminance' (distant) scale a luminance-1 spectrum to that photometric power or illuminance.
    void delta_light(const std::string& type, Params& ps, const Loc& l) {
        const std::string what = "light \"" + type + "\"";
        float sc = f1(ps, "scale", 1.0f);
        if (sc < 0.0f) fail(find(ps, "scale")->loc, "'scale' must not be negative");
        if (type == "distant") {
            vec3 L = emission(ps, "L");
            vec3 from = point_param(ps, "from", vec3(0.0f)), to = point_param(ps, "to", vec3(0, 0, 1));
            float E = f1(ps, "illuminance", -1.0f);
            if (E > 0.0f) sc *= E;
            check_unused(ps, "LightSource", type);
            b_.distant_light(world_dir(from - to, l, what), scaled_emission(ps, "L", L, sc, l));
            return;
        }
        vec3 I = emission(ps, "I");
        vec3 from = point_param(ps, "from", vec3(0.0f));
        float power = f1(ps, "power", -1.0f);
        if (type == "point") {
            check_unused(ps, "LightSource", type);
            if (power > 0.0f) sc *= power / (4.0f * kPi);
            b_.point_light(world_point(from, l, what), scaled_emission(ps, "I", I, sc, l));
            return;
        }
        vec3 to = point_param(ps, "to", vec3(0, 0, 1));
        float cone = f1(ps, "coneangle", 30.0f), delta = f1(ps, "conedeltaangle", 5.0f);
        if (!(cone > 0.0f && cone <= 180.0f))
            fail(find(ps, "coneangle")->loc, "coneangle must be in (0, 180] degrees, got " + std::to_string(cone));
        if (!(delta >= 0.0f && delta <= 360.0f))
            fail(find(ps, "conedeltaangle")->loc,
                 "conedeltaangle must be in [0, 360] degrees, got " + std::to_string(delta));
        // pbrt-v4 takes the cosine of coneangle - conedeltaangle, so a delta above the cone angle (coneangle 3 with
        // the default delta of 5) starts the falloff at |coneangle - conedeltaangle|; past twice the cone angle that
        // would lie outside the cone, where pbrt's smoothstep turns over: the falloff then spans the whole cone
        float start = std::fabs(cone - delta);
        if (start > cone) {
            warn(find(ps, "conedeltaangle") ? find(ps, "conedeltaangle")->loc : l,
                 "conedeltaangle more than twice coneangle: the falloff spans the whole cone");
            start = 0.0f;
        }
        check_unused(ps, "LightSource", type);
        const float cos_end = std::cos(cone * kPi / 180.0f), cos_start = std::cos(start * kPi / 180.0f);
        if (power > 0.0f) sc *= power / (2.0f * kPi * ((1.0f - cos_start) + 0.5f * (cos_start - cos_end)));
        // the cone is measured about the axis in world space: pbrt-v4 measures it in the light's frame, the same
        // under rotations, translations, uniform scales and mirrors
        mat3 M(gs_.ctm);
        mat3 G = glm::transpose(M) * M;
        float s2 = (G[0][0] + G[1][1] + G[2][2]) / 3.0f, off = 0.0f;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) off = std::max(off, std::fabs(G[i][j] - (i == j ? s2 : 0.0f)));
        if (off > 1e-4f * s2) warn(l, "a spot light under a non-uniform scale or shear: its cone stays circular");
        b_.spot_light(world_point(from, l, what), world_dir(to - from, l, what), scaled_emission(ps, "I", I, sc, l),
                      cos_start, cos_end);
    }

    void light(const std::string& type, Params& ps, const Loc& l) {
        if (!pbrt_knows("LightSource", type)) fail(l, "unknown light type '" + type + "'");
        if (type == "point" || type == "spot" || type == "distant") return delta_light(type, ps, l);
        if (type != "infinite") {
            use_all(ps);
            warn(l, "light \"" + type +
                        "\" not supported (wavepath has area, point, spot and distant lights and an environment): "
                        "skipped");
            return;
        }
        float scale = f1(ps, "scale", 1.0f);
        std::string file = s1(ps, "filename", "");
        Param* illum = find(ps, "illuminance");
        float E = f1(ps, "illuminance", -1.0f);
        vec3 L(1.0f);
        bool normalized = false;
        bool hasL = spectrum(ps, "L", L, &normalized);
        if (normalized && luminance(L) > 0.0f) L /= luminance(L);
        check_unused(ps, "LightSource", type);
        if (hasL && !file.empty()) fail(l, "infinite light with both L and filename");
        if (file.empty()) {
            // pbrt-v4: the illuminance of the uniform radiance on an upward-facing patch is pi L
            if (E > 0.0f) scale *= E / kPi;
            if (env_set_) warn(l, "a constant infinite light with an environment map: the constant ignored");
            background_ += scaled_emission(ps, "L", L, scale, l);
            if (!finite3(background_)) fail(l, "the infinite lights' sum overflows a float");
            return;
        }
        if (illum && E > 0.0f) warn(illum->loc, "'illuminance' of an image infinite light not supported: ignored");
        if (env_set_) warn(l, "a second infinite light with an image: the first one is kept");
        if (env_set_) return;
        Loc fl = find(ps, "filename")->loc;
        std::string path = resolve(file);
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) fail(fl, "'" + path + "' is not a regular file");
        LoadedImage im;
        try {
            im = load_image(path, false);
        } catch (const ImageError& e) { fail(fl, e.what()); }
        if (im.width == 0 || im.width != im.height)
            fail(fl, "'" + path + "' is " + std::to_string(im.width) + "x" + std::to_string(im.height) +
                         ": pbrt-v4's infinite-light images are square (equal-area octahedral maps)");
        if (glm::length(background_) > 0.0f)
            warn(l, "an environment map after a constant infinite light: the constant ignored");
        // resampled to a lat-long map of 2S x S: each texel the mean of 2x2 nearest lookups
        mat3 R(gs_.ctm);
        for (int i = 0; i < 3; ++i) R[i] = glm::length(R[i]) > 0.0f ? glm::normalize(R[i]) : R[i];
        float det = glm::determinant(R);
        if (!(std::isfinite(det) && std::fabs(det) > 1e-6f)) fail(l, "infinite light: singular transform");
        mat3 Ri = glm::inverse(R);
        uint32_t S = std::min<uint32_t>(im.width, 2048), W = 2 * S, H = S;
        std::vector<F4> out(size_t(W) * H);
        for (uint32_t j = 0; j < H; ++j)
            for (uint32_t i = 0; i < W; ++i) {
                vec3 sum(0.0f);
                for (int s = 0; s < 4; ++s) {
                    float u = (i + 0.25f + 0.5f * (s & 1)) / W, v = (j + 0.25f + 0.5f * (s >> 1)) / H;
                    float th = v * kPi, ph = (u - 0.5f) * 2.0f * kPi;
                    vec3 d(std::sin(th) * std::sin(ph), std::cos(th), -std::sin(th) * std::cos(ph));
                    vec3 w = Ri * d;
                    float wl = glm::length(w);
                    vec2 uv = equal_area_sphere_to_square(wl > 0.0f ? w / wl : vec3(0, 0, 1));
                    uint32_t x = std::min(uint32_t(std::max(0.0f, uv.x) * im.width), im.width - 1);
                    uint32_t y = std::min(uint32_t(std::max(0.0f, uv.y) * im.height), im.height - 1);
                    const F4& t = im.texels[size_t(y) * im.width + x];
                    sum += vec3(t.x, t.y, t.z);
                }
                sum *= 0.25f * scale;
                if (!finite3(sum)) fail(fl, "the image's texels x scale overflow a float (an infinite light of Inf)");
                out[size_t(j) * W + i] = F4{sum.x, sum.y, sum.z, 1.0f};
            }
        b_.set_environment(std::move(out), W, H, 0.0f);
        env_set_ = true;
    }

    // --------------------------------------------------------------------------------------------- shapes
    MatRec mat_of(int i) {
        if (i >= 0) return mats_[size_t(i)];
        if (default_mat_ < 0) default_mat_ = add_mat(b_.lambert(vec3(0.5f)));
        return mats_[size_t(default_mat_)];
    }

    // Vertices of a mesh parameter list under M: P (required), N, uv; indices (groups of `per`, optional when
    // P has exactly `per` points).
    struct MeshIn {
        std::vector<vec3> P, N;
        std::vector<vec2> uv;
        std::vector<uint32_t> idx;
    };
    MeshIn mesh_in(ShapeRec& r, int per, const mat4& M) {
        Params& ps = r.params;
        MeshIn m;
        Param* P = get(ps, "P", {"point3"});
        if (!P) fail(r.loc, "Shape \"" + r.type + "\" without \"point3 P\"");
        size_t n = P->nums.size() / 3;
        for (size_t i = 0; i < n; ++i) {
            vec3 p = vec3(M * vec4(float(P->nums[3 * i]), float(P->nums[3 * i + 1]), float(P->nums[3 * i + 2]), 1.0f));
            if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
                fail(P->loc, "vertex " + std::to_string(i) + " is not finite under the transform");
            m.P.push_back(p);
        }
        Param* I = get(ps, "indices", {"integer"});
        if (I) {
            if (I->nums.size() % size_t(per))
                fail(I->loc, "'indices' of a " + r.type + " come in groups of " + std::to_string(per) + ", got " +
                                 std::to_string(I->nums.size()));
            for (double v : I->nums) {
                if (v < 0 || v >= double(n))
                    fail(I->loc, "index " + std::to_string((long long)v) + " out of range (" + std::to_string(n) +
                                     " vertices)");
                m.idx.push_back(uint32_t(v));
            }
        } else {
            if (n != size_t(per))
                fail(r.loc, "Shape \"" + r.type + "\" without \"integer indices\" needs exactly " +
                                std::to_string(per) + " vertices, got " + std::to_string(n));
            for (int k = 0; k < per; ++k) m.idx.push_back(uint32_t(k));
        }
        mat3 Nm = glm::transpose(glm::inverse(mat3(M)));
        if (Param* N = get(ps, "N", {"normal3"})) {
            if (N->nums.size() / 3 != n)
                warn(N->loc, "'N' has " + std::to_string(N->nums.size() / 3) + " normals for " + std::to_string(n) +
                                 " vertices: ignored");
            else
                for (size_t i = 0; i < n; ++i) {
                    vec3 nn = Nm * vec3(float(N->nums[3 * i]), float(N->nums[3 * i + 1]), float(N->nums[3 * i + 2]));
                    if (!finite3(nn))
                        fail(N->loc, "normal " + std::to_string(i) + " is not finite under the transform");
                    m.N.push_back(nn);
                }
        }
        if (Param* U = get(ps, "uv", {"point2"})) {
            if (U->nums.size() / 2 != n)
                warn(U->loc, "'uv' has " + std::to_string(U->nums.size() / 2) + " entries for " + std::to_string(n) +
                                 " vertices: ignored");
            else
                for (size_t i = 0; i < n; ++i) {
                    vec2 t = vec2(float(U->nums[2 * i]), 1.0f - float(U->nums[2 * i + 1]));
                    if (!std::isfinite(t.x) || !std::isfinite(t.y))
                        fail(U->loc, "uv " + std::to_string(i) + " is not finite");
                    m.uv.push_back(t);
                }
        }
        return m;
    }
    static void corner(ObjMesh& o, const MeshIn& m, uint32_t v) {
        o.pos.push_back(m.P[v]);
        vec3 n = m.N.empty() ? vec3(0.0f) : m.N[v];
        float l = glm::length(n);
        o.normal.push_back(l > 0.0f ? n / l : vec3(0.0f));
        o.uv.push_back(m.uv.empty() ? vec2(0.0f) : m.uv[v]);
    }
    static void tri(ObjMesh& o, const MeshIn& m, uint32_t a, uint32_t b, uint32_t c, vec2 d0, vec2 d1, vec2 d2) {
        corner(o, m, a);
        corner(o, m, b);
        corner(o, m, c);
        bool normals = !m.N.empty();
        for (uint32_t v : {a, b, c}) normals = normals && glm::length(m.N[v]) > 0.0f;
        o.has_normals.push_back(normals);
        o.has_uv.push_back(1);
        if (m.uv.empty()) {  // pbrt's default coordinates, v flipped as ours run downward
            size_t k = o.uv.size() - 3;
            o.uv[k] = vec2(d0.x, 1.0f - d0.y);
            o.uv[k + 1] = vec2(d1.x, 1.0f - d1.y);
            o.uv[k + 2] = vec2(d2.x, 1.0f - d2.y);
        }
        o.material.push_back(0);
    }

    // One shape (a Shape directive, or an object instance's): its geometry by type, then added to the scene.
    void shape(ShapeRec& r) {
        const std::string& type = r.type;
        if (!pbrt_knows("Shape", type)) fail(r.loc, "unknown shape '" + type + "'");
        Params& ps = r.params;
        const mat4& M = r.ctm;
        float det = glm::determinant(mat3(M));
        bool mirror = det < 0.0f;
        Geometry g;
        if (type == "trianglemesh") {
            MeshIn m = mesh_in(r, 3, M);
            for (size_t i = 0; i < m.idx.size(); i += 3)
                tri(g.mesh, m, m.idx[i], m.idx[i + 1], m.idx[i + 2], vec2(0, 0), vec2(1, 0), vec2(1, 1));
            orient(g.mesh, r.reverse != mirror);
        } else if (type == "bilinearmesh") {
            shape_bilinear(r, g, mirror);
        } else if (type == "plymesh") {
            shape_ply(r, g, det);
        } else if (type == "loopsubdiv") {
            shape_loopsubdiv(r, g, det, mirror);
        } else if (type == "sphere") {
            shape_sphere(r, g);
        } else if (type == "disk") {
            shape_disk(r, g, det, mirror);
        } else {
            use_all(ps);
            warn(r.loc, "shape \"" + type + "\" not supported: skipped");
            return;
        }
        check_unused(ps, "Shape", type);
        add_shape(r, g);
    }

    // A bilinear mesh: parallelograms as quads where nothing varies across them, other patches as two triangles.
    void shape_bilinear(ShapeRec& r, Geometry& g, bool mirror) {
        const mat4& M = r.ctm;
        MeshIn m = mesh_in(r, 4, M);
        bool plain = m.N.empty() && m.uv.empty() && !mat_of(r.material).textured;
        bool flip = r.reverse != mirror;
        for (size_t i = 0; i < m.idx.size(); i += 4) {
            uint32_t i00 = m.idx[i], i10 = m.idx[i + 1], i01 = m.idx[i + 2], i11 = m.idx[i + 3];
            vec3 p00 = m.P[i00], p10 = m.P[i10], p01 = m.P[i01], p11 = m.P[i11];
            vec3 eu = p10 - p00, ev = p01 - p00;
            float size = glm::length(eu) + glm::length(ev);
            bool parallelogram = glm::length(p11 - (p10 + ev)) <= 1e-5f * size;
            if (plain && parallelogram) {
                if (flip)
                    g.quads.push_back({p00, ev, eu});
                else
                    g.quads.push_back({p00, eu, ev});
                continue;
            }
            if (!parallelogram) warn(r.loc, "a bilinear patch that is not a parallelogram: two triangles");
            ObjMesh part;
            tri(part, m, i00, i10, i11, vec2(0, 0), vec2(1, 0), vec2(1, 1));
            tri(part, m, i00, i11, i01, vec2(0, 0), vec2(1, 1), vec2(0, 1));
            orient(part, flip);
            for (size_t k = 0; k < 6; ++k) {
                g.mesh.pos.push_back(part.pos[k]);
                g.mesh.normal.push_back(part.normal[k]);
                g.mesh.uv.push_back(part.uv[k]);
            }
            for (size_t k = 0; k < 2; ++k) {
                g.mesh.has_normals.push_back(part.has_normals[k]);
                g.mesh.has_uv.push_back(part.has_uv[k]);
                g.mesh.material.push_back(0);
            }
        }
    }

    // A PLY file's mesh under the transform (det: its determinant).
    void shape_ply(ShapeRec& r, Geometry& g, float det) {
        Params& ps = r.params;
        const mat4& M = r.ctm;
        Param* f = get(ps, "filename", {"string"});
        if (!f) fail(r.loc, "Shape \"plymesh\" without \"string filename\"");
        std::string path = resolve(f->strs.at(0));
        if (path.size() > 3 && path.substr(path.size() - 3) == ".gz")
            fail(f->loc, "'" + path + "': compressed PLY files not supported (gunzip it and name the .ply)");
        struct stat st;
        if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
            fail(f->loc, "'" + path + "' is not a regular file");
        if (!(std::isfinite(det) && det != 0.0f)) fail(r.loc, "plymesh under a singular or non-finite transform");
        try {
            g.mesh = load_ply(path, M, false);
        } catch (const MeshError& e) { fail(f->loc, e.what()); }
        for (const std::string& w : g.mesh.warnings) warn(f->loc, w);
        orient(g.mesh, r.reverse);  // load_ply keeps the file's side under a mirroring transform, as pbrt
    }

    // A subdivision's output estimated before it is made (loop_subdivide_estimate): over 2^28 triangles an error,
    // over the memory available (SceneBuildOptions::memory_available, the command layer's) a SceneMemoryError (exit
    // code 3), naming the estimate: 200 triangles at levels 10 ran a minute to 6 GB and a bare std::bad_alloc.
    void loop_memory_check(const Loc& l, size_t vertices, const std::vector<uint32_t>& idx, int levels) const {
        const LoopEstimate est = loop_subdivide_estimate(vertices, idx, levels);
        const std::string what = "loopsubdiv: " + std::to_string(levels) + " levels of " +
                                 std::to_string(idx.size() / 3) + " triangles make " + std::to_string(est.triangles) +
                                 " triangles";
        if (est.triangles > (uint64_t(1) << 28)) fail(l, what + ", more than 2^28");
        if (!build_.memory_available) return;
        const uint64_t available = build_.memory_available();
        if (est.bytes <= available) return;
        char s[160];
        std::snprintf(s, sizeof s, " and %.1f MiB to subdivide and load (estimate), and %.1f MiB are ",
                      double(est.bytes) / 1048576.0, double(available) / 1048576.0);
        throw SceneMemoryError(where(l) + what + s + build_.memory_what + "; nothing was subdivided");
    }

    // A Loop subdivision surface, subdivided here into a triangle mesh (det: the transform's determinant; mirror:
    // it is negative).
    void shape_loopsubdiv(ShapeRec& r, Geometry& g, float det, bool mirror) {
        Params& ps = r.params;
        const mat4& M = r.ctm;
        // pbrt-v4's LoopSubdivide: refined in object space, pushed to the limit surface, with its normals
        // (host/scene/loop_subdiv.h); then a triangle mesh like any other
        const long long levels = i1(ps, "levels", 3, 0, 10);
        const std::string scheme = s1(ps, "scheme", "loop");
        if (scheme != "loop") warn(find(ps, "scheme")->loc, "subdivision scheme '" + scheme + "': loop");
        Param* P = get(ps, "P", {"point3"});
        Param* I = get(ps, "indices", {"integer"});
        if (!P) fail(r.loc, "Shape \"loopsubdiv\" without \"point3 P\"");
        if (!I) fail(r.loc, "Shape \"loopsubdiv\" without \"integer indices\"");
        if (I->nums.size() % 3)
            fail(I->loc, "'indices' of a loopsubdiv come in groups of 3, got " + std::to_string(I->nums.size()));
        std::vector<vec3> p0;
        for (size_t i = 0; i + 2 < P->nums.size(); i += 3)
            p0.push_back(vec3(float(P->nums[i]), float(P->nums[i + 1]), float(P->nums[i + 2])));
        std::vector<uint32_t> idx;
        for (double v : I->nums) {
            if (v < 0 || v >= double(p0.size()))
                fail(I->loc, "index " + std::to_string((long long)v) + " out of range (" + std::to_string(p0.size()) +
                                 " vertices)");
            idx.push_back(uint32_t(v));
        }
        loop_memory_check(find(ps, "levels") ? find(ps, "levels")->loc : r.loc, p0.size(), idx, int(levels));
        LoopMesh lm;
        try {
            lm = loop_subdivide(p0, idx, int(levels));
        } catch (const std::invalid_argument& e) {  // (pbrt-v4's own subdivision is undefined there)
            warn(I->loc, std::string("loopsubdiv: ") + e.what() + ": the control mesh, not subdivided");
            lm.p = p0;
            lm.idx = idx;
            lm.n.assign(p0.size(), vec3(0.0f));  // no shading normals (tri() leaves zero ones out)
        }
        if (!(std::isfinite(det) && det != 0.0f)) fail(r.loc, "loopsubdiv under a singular or non-finite transform");
        MeshIn m;
        const mat3 Nm = glm::transpose(glm::inverse(mat3(M)));
        for (size_t i = 0; i < lm.p.size(); ++i) {
            vec3 q = vec3(M * vec4(lm.p[i], 1.0f)), n = Nm * lm.n[i];
            if (!finite3(q)) fail(P->loc, "a subdivided vertex is not finite under the transform");
            m.P.push_back(q);
            m.N.push_back(r.reverse ? -n : n);  // pbrt-v4's TriangleMesh flips normals under ReverseOrientation
        }
        m.idx = lm.idx;
        for (size_t i = 0; i < m.idx.size(); i += 3)
            tri(g.mesh, m, m.idx[i], m.idx[i + 1], m.idx[i + 2], vec2(0, 0), vec2(1, 0), vec2(1, 1));
        orient(g.mesh, r.reverse != mirror);
    }

    // A whole sphere of the mean radius under the transform.
    void shape_sphere(ShapeRec& r, Geometry& g) {
        Params& ps = r.params;
        const mat4& M = r.ctm;
        float radius = f1(ps, "radius", 1.0f);
        if (!(radius > 0.0f)) fail(r.loc, "sphere radius must be > 0");
        float zmin = f1(ps, "zmin", -radius), zmax = f1(ps, "zmax", radius), phimax = f1(ps, "phimax", 360.0f);
        if (zmin > -radius || zmax < radius || phimax < 360.0f)
            warn(r.loc, "partial spheres (zmin, zmax, phimax) not supported: the whole sphere");
        vec3 s(glm::length(vec3(M[0])), glm::length(vec3(M[1])), glm::length(vec3(M[2])));
        float sc = (s.x + s.y + s.z) / 3.0f;
        if (glm::max(s.x, glm::max(s.y, s.z)) - glm::min(s.x, glm::min(s.y, s.z)) > 1e-5f * sc)
            warn(r.loc, "a sphere under a non-uniform scale: a sphere of the mean radius");
        if (!(sc > 0.0f && std::isfinite(sc))) fail(r.loc, "sphere under a singular or non-finite transform");
        vec3 center = vec3(M * vec4(0, 0, 0, 1));
        if (!finite3(center) || !std::isfinite(radius * sc)) fail(r.loc, "sphere is not finite under the transform");
        g.spheres.push_back({center, radius * sc});
        if (r.reverse && r.area.on && !r.area.two_sided)
            warn(r.loc, "an inward-facing sphere light not supported: it emits outward");
    }

    // A disk or annulus as a fan of 128 triangles of the disk's area.
    void shape_disk(ShapeRec& r, Geometry& g, float det, bool mirror) {
        Params& ps = r.params;
        const mat4& M = r.ctm;
        float h = f1(ps, "height", 0.0f), radius = f1(ps, "radius", 1.0f), ri = f1(ps, "innerradius", 0.0f);
        if (f1(ps, "phimax", 360.0f) < 360.0f) warn(r.loc, "partial disks (phimax) not supported: the whole disk");
        if (!(radius > 0.0f) || ri < 0.0f || ri >= radius) fail(r.loc, "disk needs 0 <= innerradius < radius");
        if (!(std::isfinite(det) && det != 0.0f)) fail(r.loc, "disk under a singular or non-finite transform");
        vec3 c = vec3(M * vec4(0, 0, h, 1)), ex = vec3(M[0]), ey = vec3(M[1]);
        if (!finite3(c) || !finite3(ex * radius) || !finite3(ey * radius))
            fail(r.loc, "disk is not finite under the transform");
        const int N = 128;
        float k = std::sqrt(2.0f * kPi / (N * std::sin(2.0f * kPi / N)));  // the polygon of the disk's area
        auto P = [&](float rad, int i) {
            float a = 2.0f * kPi * float(i % N) / N;
            return c + rad * k * (std::cos(a) * ex + std::sin(a) * ey);
        };
        for (int i = 0; i < N; ++i) {
            if (ri == 0.0f) {
                g.triangle(c, P(radius, i), P(radius, i + 1));
            } else {
                g.triangle(P(ri, i), P(radius, i), P(radius, i + 1));
                g.triangle(P(ri, i), P(radius, i + 1), P(ri, i + 1));
            }
        }
        orient(g.mesh, r.reverse != mirror);  // the fan faces M(x) x M(y); pbrt's disk faces M^-T (0,0,1)
    }

    // Adds a shape's geometry to the scene with its material and, under an area light, its emission.
    void add_shape(ShapeRec& r, Geometry& g) {
        MatRec mr = mat_of(r.material);
        vec3 Le(0.0f);
        if (r.area.on) {
            Le = r.area.L;
            if (r.area.power > 0.0f) {
                float a = g.area();
                if (!(a > 0.0f)) fail(r.loc, "an area light of 'power' on a shape of no area");
                Le *= r.area.power / (kPi * (r.area.two_sided ? 2.0f : 1.0f) * a);
                if (!finite3(Le))
                    fail(r.loc, "the area light's 'power' over the shape's area " + num_text(a) +
                                    " is an emission past a 32-bit float");
            }
        }
        if (mr.interface) {
            if (r.area.on) {
                warn(r.loc, "an emitting shape with the interface material: a black emitter");
                mr.h = b_.lambert(vec3(0.0f));
            } else {
                return;  // no surface (media boundaries only)
            }
        }
        if (mr.h.type() == MatType::Bumped &&
            (!g.spheres.empty() || std::count(g.mesh.has_uv.begin(), g.mesh.has_uv.end(), 0) > 0))
            warn(r.loc, "bump mapping of a " + r.type + " not supported (no texture coordinates here): not bumped");
        ++shapes_;
        bool two = r.area.two_sided;
        for (const Geometry::Quad& q : g.quads) b_.quad(q.c, q.eu, q.ev, mr.h, Le, two);
        for (const Geometry::Sphere& s : g.spheres) b_.sphere(s.c, s.r, mr.h, Le, two);
        if (g.mesh.triangles()) add_mesh(b_, g.mesh, {MeshMaterial{mr.h, Le}}, two);
    }
};

}  // namespace

LoadedScene load_pbrt_string(const std::string& text, const std::string& name, bool strict,
                             const SceneBuildOptions& build) {
    Loader L(strict, build);
    L.parse_text(text, name);
    return L.finish();
}

LoadedScene load_pbrt_scene(const std::string& path, bool strict, const SceneBuildOptions& build) {
    refuse_folder(path);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) throw SceneError(path + ": cannot open scene file");
    if (!S_ISREG(st.st_mode)) throw SceneError(path + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SceneError(path + ": cannot open scene file");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return load_pbrt_string(text, path, strict, build);
}

mat4 pbrt_transform(const std::string& text) {
    Loader L(false);
    L.parse_text(text, "<string>");
    return L.ctm();
}

}  // namespace wp
