// pbrt-v4's layered BSDF (kernels/layered.h): its components' sampling against their pdfs (chi-square), the walk's
// sampling against its evaluation (the same BSDF, cell by cell), an analytic albedo (a smooth coating over a
// Lambertian base), a white furnace through the renderer, and the pbrt-v4 importer's parameters.
#include <gtest/gtest.h>
#include <cmath>
#include <functional>
#include <random>
#include <vector>
#include "host/render/render.h"
#include "host/scene/scene_pbrt.h"
#include "kernels/stages.h"
#include "tests/chi2.h"
using namespace wp;
using wp_test::chi2_crit;

namespace {
vec3 dir_from(float cos_t, float phi) {
    float s = safe_sqrt(1 - cos_t * cos_t);
    return vec3(s * cosf(phi), s * sinf(phi), cos_t);
}

// Chi-square of a sampler against a pdf over the whole sphere (nt x np cells of equal dz dphi).
struct SphereChi2 {
    double stat = 0, integral = 0;
    int dof = 0;
};
SphereChi2 sphere_chi2(const std::function<bool(std::mt19937&, vec3&)>& sample, const std::function<double(vec3)>& pdf,
                       int n, int nt = 20, int np = 40) {
    std::mt19937 rng(4321);
    std::vector<double> obs(nt * np, 0.0), expct(nt * np, 0.0);
    for (int i = 0; i < n; ++i) {
        vec3 w;
        if (!sample(rng, w)) continue;
        float ct = glm::clamp(w.z, -1.0f, 1.0f);
        int it = glm::min(nt - 1, int((1.0f - ct) * 0.5f * nt));
        float phi = atan2f(w.y, w.x);
        if (phi < 0) phi += 2 * kPi;
        int ip = glm::min(np - 1, int(phi / (2 * kPi) * np));
        obs[it * np + ip] += 1;
    }
    const int sub = 10;
    SphereChi2 r;
    for (int it = 0; it < nt; ++it)
        for (int ip = 0; ip < np; ++ip) {
            double acc = 0;
            for (int a = 0; a < sub; ++a)
                for (int b = 0; b < sub; ++b) {
                    float z = 1.0f - 2.0f * (it + (a + 0.5f) / sub) / nt;
                    float phi = 2 * kPi * (ip + (b + 0.5f) / sub) / np;
                    acc += pdf(dir_from(z, phi));
                }
            double cell = (2.0 / nt) * (2 * kPi / np) / (sub * sub);
            expct[it * np + ip] = acc * cell * n;
            r.integral += acc * cell;
        }
    const wp_test::Chi2 c = wp_test::pearson_chi2(obs, expct);
    r.stat = c.stat;
    r.dof = c.dof;
    return r;
}

struct CoatCase {
    float alpha, eta, cos_o;
    uint32_t lobes;
    bool radiance;
};
class CoatChi2 : public ::testing::TestWithParam<CoatCase> {};

// The coating's sampling, from either side and restricted to reflection or transmission as the walk asks.
TEST_P(CoatChi2, SamplesFollowPdf) {
    const CoatCase c = GetParam();
    const Coat coat{c.eta, c.alpha};
    const vec3 wo = glm::normalize(dir_from(c.cos_o, 0.4f));
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    auto smp = [&](std::mt19937& g, vec3& w) {
        LayerSample s;
        const float uc = U(g);
        const vec2 u(U(g), U(g));
        if (!coat_sample(coat, wo, uc, u, c.radiance, c.lobes, s)) return false;
        // the sample's own pdf and f agree with the evaluation
        const float p = coat_pdf(coat, wo, s.wi, c.lobes);
        EXPECT_NEAR(s.pdf, p, 2e-3f * std::max(1.0f, p));
        const float f = coat_f(coat, wo, s.wi, c.radiance);
        EXPECT_NEAR(s.f.x, f, 2e-3f * std::max(1.0f, f));
        w = s.wi;
        return true;
    };
    const SphereChi2 r = sphere_chi2(
        smp, [&](vec3 w) { return coat_pdf(coat, wo, w, c.lobes); }, 300000);
    ASSERT_GT(r.dof, 10);
    EXPECT_LT(r.stat, chi2_crit(r.dof)) << "dof " << r.dof;
    EXPECT_LE(r.integral, 1.02);
    EXPECT_GT(r.integral, 0.1);  // from below, much is totally reflected (and not asked for)
}
INSTANTIATE_TEST_SUITE_P(
    Layered, CoatChi2,
    ::testing::Values(CoatCase{0.3f, 1.5f, 0.8f, kLobeAll, true}, CoatCase{0.3f, 1.5f, -0.6f, kLobeAll, true},
                      CoatCase{0.2f, 1.5f, 0.7f, kLobeTrans, true}, CoatCase{0.2f, 1.5f, 0.5f, kLobeTrans, false},
                      CoatCase{0.4f, 1.33f, -0.9f, kLobeRefl, true}, CoatCase{0.4f, 1.33f, -0.3f, kLobeTrans, true}));

TEST(LayeredComponents, ConductorBaseAndPhaseFunctionFollowTheirPdfs) {
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    const Base b{vec3(0.5f), vec3(0.2f, 0.9f, 1.1f), vec3(3.9f, 2.4f, 2.2f), 0.35f, true};
    const vec3 wo = glm::normalize(dir_from(0.6f, 1.0f));
    auto smp = [&](std::mt19937& g, vec3& w) {
        LayerSample s;
        if (!base_sample(b, wo, vec2(U(g), U(g)), s)) return false;
        EXPECT_NEAR(s.pdf, base_pdf(b, wo, s.wi), 2e-3f * std::max(1.0f, s.pdf));
        w = s.wi;
        return true;
    };
    SphereChi2 r = sphere_chi2(
        smp, [&](vec3 w) { return base_pdf(b, wo, w); }, 300000);
    ASSERT_GT(r.dof, 10);
    EXPECT_LT(r.stat, chi2_crit(r.dof));
    for (float g : {-0.7f, 0.0f, 0.5f, 0.9f}) {
        const vec3 w0 = glm::normalize(vec3(0.3f, -0.2f, 0.9f));
        auto hs = [&](std::mt19937& gen, vec3& w) {
            float pdf;
            w = hg_sample(w0, g, vec2(U(gen), U(gen)), pdf);
            EXPECT_NEAR(pdf, hg_phase(glm::dot(w0, w), g), 1e-3f * std::max(1.0f, pdf));
            return true;
        };
        r = sphere_chi2(
            hs, [&](vec3 w) { return hg_phase(glm::dot(w0, w), g); }, 300000);
        ASSERT_GT(r.dof, 10) << "g " << g;
        EXPECT_LT(r.stat, chi2_crit(r.dof)) << "g " << g;
        EXPECT_NEAR(r.integral, 1.0, 0.02) << "g " << g;
    }
    // g > 0 scatters forward: wi (pointing away) opposite to wo on average
    float pdf;
    vec3 mean(0.0f);
    std::mt19937 gen(7);
    for (int i = 0; i < 20000; ++i) mean += hg_sample(vec3(0, 0, 1), 0.6f, vec2(U(gen), U(gen)), pdf);
    EXPECT_NEAR(mean.z / 20000.0f, -0.6f, 0.02f);
}

LayeredData coated_diffuse(vec3 r, float alpha, float thickness, vec3 albedo = vec3(0.0f), float g = 0.0f,
                           uint32_t depth = 10) {
    LayeredData d{};
    d.reflectance = r;
    d.reflectance_tex = kNoTexture;
    d.coat_eta = 1.5f;
    d.coat_alpha = alpha;
    d.thickness = thickness;
    d.albedo = albedo;
    d.g = g;
    d.max_depth = depth;
    d.nsamples = 1;
    return d;
}
MatParams layered_mat(const LayeredData& d) {
    MatParams m{};
    m.type = MatType::Layered;
    m.layer = &d;
    m.color = d.reflectance;
    m.ior = d.coat_eta;
    return m;
}

// The directional albedo by sampling: the mean of f |cos| / pdf over walks of distinct keys.
vec3 sampled_albedo(const LayeredData& d, vec3 wo, int n) {
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    MatParams m = layered_mat(d);
    vec3 sum(0.0f);
    for (int i = 0; i < n; ++i) {
        m.walk_key = hash32(uint32_t(i) * 2654435761u + 17u);
        BsdfSample s;
        const float uc = U(rng);
        const vec2 u(U(rng), U(rng));
        if (!bsdf_sample(m, wo, uc, u, s)) continue;
        EXPECT_TRUE(finite3(s.f) && s.pdf > 0.0f);
        sum += s.f * (fabsf(s.wi.z) / s.pdf);
    }
    return sum / float(n);
}

// A smooth coating (eta 1.5) over a Lambertian base of albedo rho, no medium and no thickness: light enters with
// 1 - F(theta_o), the base reflects rho, and each time it meets the coating from inside a fraction Fdr (the
// cosine-weighted average of the Fresnel reflectance from inside) goes back: A = F + (1 - F) rho (1 - Fdr) /
// (1 - rho Fdr). Deep walks (max_depth 200) make the truncation negligible.
TEST(Layered, SmoothCoatedDiffuseMatchesTheAnalyticAlbedo) {
    double fdr = 0;  // 2 int_0^1 F_inside(mu) mu dmu
    const int nq = 20000;
    for (int i = 0; i < nq; ++i) {
        const float mu = (i + 0.5f) / nq;
        fdr += 2.0 * fresnel_dielectric(-mu, 1.5f) * mu / nq;
    }
    EXPECT_NEAR(fdr, 0.596, 0.01);  // the known internal diffuse reflectance at n = 1.5
    for (float rho : {0.25f, 0.8f, 1.0f})
        for (float cos_o : {0.95f, 0.5f, 0.15f}) {
            const LayeredData d = coated_diffuse(vec3(rho), 0.0f, 0.0f, vec3(0.0f), 0.0f, 200);
            const float F = fresnel_dielectric(cos_o, 1.5f);
            const double expect = F + (1 - F) * rho * (1 - fdr) / (1 - rho * fdr);
            const vec3 a = sampled_albedo(d, dir_from(cos_o, 0.2f), 200000);
            EXPECT_NEAR(a.x, expect, 0.01 + 0.01 * expect) << "rho " << rho << " cos " << cos_o;
            // and by evaluation: the integral of f cos over the hemisphere (uniform directions) plus the coating's
            // mirror reflection F, which f leaves to sampling
            std::mt19937 rng(5);
            std::uniform_real_distribution<float> U(0.0f, 1.0f);
            MatParams m = layered_mat(d);
            double sum = 0;
            const int n = 100000;
            for (int i = 0; i < n; ++i) {
                m.walk_key = hash32(uint32_t(i) + 12345u);
                const vec3 wi = dir_from(U(rng), 2 * kPi * U(rng));
                float pdf;
                sum += bsdf_eval(m, dir_from(cos_o, 0.2f), wi, pdf).x * wi.z * 2 * kPi;
                EXPECT_GT(pdf, 0.0f);
            }
            EXPECT_NEAR(F + sum / n, expect, 0.015 + 0.015 * expect) << "eval, rho " << rho << " cos " << cos_o;
        }
}

// Rough coatings, a medium, a conductor base: walks sampled and walks evaluated estimate the same BSDF. Per cell of
// the upper hemisphere, the mean sample weight landing there against the integral of f cos over the cell.
struct WalkCase {
    const char* name;
    LayeredData d;
    float cos_o;
};
class LayeredSampleVsEval : public ::testing::TestWithParam<int> {};
std::vector<WalkCase> walk_cases() {
    std::vector<WalkCase> v;
    v.push_back({"rough coat over diffuse", coated_diffuse(vec3(0.7f, 0.5f, 0.3f), 0.3f, 0.01f), 0.7f});
    v.push_back({"smooth coat, scattering medium", coated_diffuse(vec3(0.6f), 0.0f, 0.3f, vec3(0.8f), 0.4f), 0.5f});
    v.push_back({"rough coat, medium, grazing", coated_diffuse(vec3(0.9f), 0.2f, 0.1f, vec3(0.5f), -0.3f), 0.2f});
    LayeredData c = coated_diffuse(vec3(1.0f), 0.15f, 0.01f);
    c.conductor_base = 1;
    c.eta = vec3(0.2f, 0.9f, 1.1f) / 1.5f;
    c.k = vec3(3.9f, 2.4f, 2.2f) / 1.5f;
    c.base_alpha = 0.3f;
    v.push_back({"rough coat over rough conductor", c, 0.6f});
    return v;
}
TEST_P(LayeredSampleVsEval, SameBsdfCellByCell) {
    const WalkCase wc = walk_cases()[GetParam()];
    const vec3 wo = dir_from(wc.cos_o, 0.5f);
    const int nt = 6, np = 8, nc = nt * np;
    auto cell = [&](vec3 w) {
        const int it = glm::min(nt - 1, int((1.0f - w.z) * nt));
        float phi = atan2f(w.y, w.x);
        if (phi < 0) phi += 2 * kPi;
        return it * np + glm::min(np - 1, int(phi / (2 * kPi) * np));
    };
    // per cell: the sum and the sum of squares of each estimator's values
    std::vector<double> s1(nc, 0.0), s2(nc, 0.0), e1(nc, 0.0), e2(nc, 0.0);
    std::mt19937 rng(2024);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    MatParams m = layered_mat(wc.d);
    const int n = 400000;
    for (int i = 0; i < n; ++i) {  // sampling: the weight f |cos| / pdf of the non-specular samples
        m.walk_key = hash32(uint32_t(i) * 747796405u + 3u);
        BsdfSample s;
        const float uc = U(rng);
        const vec2 u(U(rng), U(rng));
        if (!bsdf_sample(m, wo, uc, u, s) || s.wi.z <= 0.0f || s.delta) continue;
        const double x = s.f.y * fabsf(s.wi.z) / s.pdf;
        s1[cell(s.wi)] += x;
        s2[cell(s.wi)] += x * x;
    }
    for (int i = 0; i < n; ++i) {  // evaluation: f cos over uniformly chosen directions (pdf 1 / 2 pi)
        m.walk_key = hash32(uint32_t(i) * 2891336453u + 99u);
        const vec3 wi = dir_from(U(rng), 2 * kPi * U(rng));
        float pdf;
        const double x = bsdf_eval(m, wo, wi, pdf).y * wi.z * 2 * kPi;
        e1[cell(wi)] += x;
        e2[cell(wi)] += x * x;
    }
    double ts = 0, te = 0, vs = 0, ve = 0;
    int bad = 0;
    for (int c = 0; c < nc; ++c) {
        const double ms = s1[c] / n, me = e1[c] / n;
        const double vms = (s2[c] / n - ms * ms) / n, vme = (e2[c] / n - me * me) / n;
        ts += ms, te += me, vs += vms, ve += vme;
        if (std::fabs(ms - me) > 4.5 * std::sqrt(vms + vme) + 0.02 * me + 1e-4) {
            ++bad;
            ADD_FAILURE() << wc.name << ": cell " << c << " sampled " << ms << " evaluated " << me << " sigma "
                          << std::sqrt(vms + vme);
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_NEAR(ts, te, 4.5 * std::sqrt(vs + ve) + 0.01 * te) << wc.name;
    EXPECT_GT(te, 0.05) << wc.name;
    EXPECT_LT(ts, 1.0) << wc.name;
}
INSTANTIATE_TEST_SUITE_P(Layered, LayeredSampleVsEval, ::testing::Range(0, 4));

// The two-sided material seen from below mirrors the one seen from above.
TEST(Layered, TwoSidedAndOpaque) {
    const LayeredData d = coated_diffuse(vec3(0.5f), 0.2f, 0.01f);
    MatParams m = layered_mat(d);
    m.walk_key = 77;
    const vec3 wo = dir_from(0.6f, 0.1f), wi = dir_from(0.8f, 2.0f);
    float p1, p2, p3;
    const vec3 f1 = bsdf_eval(m, wo, wi, p1), f2 = bsdf_eval(m, -wo, -wi, p2);
    EXPECT_EQ(f1, f2);
    EXPECT_EQ(p1, p2);
    EXPECT_GT(f1.x, 0.0f);
    EXPECT_EQ(bsdf_eval(m, wo, -wi, p3), vec3(0.0f));  // nothing passes through the base
    EXPECT_NEAR(p3, 0.1f / (4 * kPi), 1e-7f);          // the pdf's uniform floor
    EXPECT_FALSE(is_delta(m));
    LayeredData mirror = d;
    mirror.coat_alpha = 0.0f;
    mirror.conductor_base = 1;
    mirror.eta = vec3(0.2f);
    mirror.k = vec3(3.0f);
    mirror.base_alpha = 0.0f;
    m = layered_mat(mirror);
    EXPECT_TRUE(is_delta(m));  // smooth over smooth, no medium: specular only, no light sampling
    mirror.albedo = vec3(0.5f);
    m = layered_mat(mirror);
    EXPECT_FALSE(is_delta(m));
}

// Through the renderer (CPU, both schedules): a coated sphere in a white furnace. With a white base, a smooth coating,
// no medium and no thickness nothing is absorbed, so every pixel sees radiance 1 (light sampling and the walks'
// MIS included). (A rough coating loses energy, as pbrt-v4's does: its microfacets scatter once.)
TEST(Layered, WhiteFurnaceThroughTheRenderer) {
    const char* scene = R"(
        LookAt 0 0 5  0 0 0  0 1 0
        Camera "perspective" "float fov" 30
        Film "rgb" "integer xresolution" 24 "integer yresolution" 24
        Integrator "path" "integer maxdepth" 100
        WorldBegin
        LightSource "infinite" "rgb L" [1 1 1]
        Material "coateddiffuse" "rgb reflectance" [1 1 1] "float roughness" 0 "float thickness" 0
                 "integer maxdepth" 200
        Shape "sphere" "float radius" 1.2
    )";
    LoadedScene ls = load_pbrt_string(scene, "furnace.pbrt", true);
    for (Mode mode : {Mode::Megakernel, Mode::Wavefront}) {
        RenderParams rp = ls.params;
        rp.spp = 64;
        Image img = render_cpu(ls.data, rp, mode);
        double sum = 0;
        for (size_t i = 0; i < img.rgb.size(); ++i) sum += img.rgb[i];
        const double mean = sum / img.rgb.size();
        EXPECT_NEAR(mean, 1.0, 0.01) << (mode == Mode::Megakernel ? "megakernel" : "wavefront");
    }
}

// The importer: pbrt-v4's parameters and defaults reach the material; coatedconductor's conductor index is taken
// relative to the coating's.
TEST(Layered, PbrtParametersAndDefaults) {
    LoadedScene a = load_pbrt_string(R"(
        Camera "perspective"
        WorldBegin
        Material "coateddiffuse"
        Shape "sphere"
        Material "coateddiffuse" "rgb reflectance" [0.2 0.3 0.4] "float roughness" 0.04 "float thickness" 0.5
                 "float eta" 1.33 "rgb albedo" [0.5 0.6 0.7] "float g" 0.3 "integer maxdepth" 7 "integer nsamples" 2
                 "bool remaproughness" false
        Shape "sphere"
        Material "coatedconductor" "float interface.roughness" 0.01 "float conductor.roughness" 0.16
                 "spectrum conductor.eta" "metal-Au-eta" "spectrum conductor.k" "metal-Au-k"
        Shape "sphere"
        Material "coatedconductor" "rgb reflectance" [0.9 0.5 0.2]
        Shape "sphere"
    )",
                                     "coated.pbrt", true);
    ASSERT_EQ(a.data.layered.size(), 4u);
    const LayeredData& d0 = a.data.layered[0];
    EXPECT_EQ(d0.reflectance, vec3(0.5f));
    EXPECT_FLOAT_EQ(d0.thickness, 0.01f);
    EXPECT_FLOAT_EQ(d0.coat_eta, 1.5f);
    EXPECT_EQ(d0.albedo, vec3(0.0f));
    EXPECT_EQ(d0.max_depth, 10u);
    EXPECT_EQ(d0.nsamples, 1u);
    EXPECT_EQ(d0.coat_alpha, 0.0f);
    const LayeredData& d1 = a.data.layered[1];
    EXPECT_EQ(d1.reflectance, vec3(0.2f, 0.3f, 0.4f));
    EXPECT_FLOAT_EQ(d1.coat_alpha, 0.04f);  // not remapped
    EXPECT_FLOAT_EQ(d1.thickness, 0.5f);
    EXPECT_FLOAT_EQ(d1.coat_eta, 1.33f);
    EXPECT_EQ(d1.albedo, vec3(0.5f, 0.6f, 0.7f));
    EXPECT_FLOAT_EQ(d1.g, 0.3f);
    EXPECT_EQ(d1.max_depth, 7u);
    EXPECT_EQ(d1.nsamples, 2u);
    const LayeredData& d2 = a.data.layered[2];
    EXPECT_EQ(d2.conductor_base, 1u);
    EXPECT_FLOAT_EQ(d2.coat_alpha, 0.1f);  // sqrt(0.01)
    EXPECT_FLOAT_EQ(d2.base_alpha, 0.4f);
    vec3 eta, k;
    LoadedScene gold = load_pbrt_string(R"(
        Camera "perspective"
        WorldBegin
        Material "conductor" "spectrum eta" "metal-Au-eta" "spectrum k" "metal-Au-k"
        Shape "sphere"
    )",
                                        "gold.pbrt", true);
    eta = gold.data.conductor[0].eta;
    k = gold.data.conductor[0].k;
    EXPECT_NEAR(d2.eta.x, eta.x / 1.5f, 1e-6f);
    EXPECT_NEAR(d2.k.z, k.z / 1.5f, 1e-6f);
    EXPECT_EQ(a.data.layered[3].conductor_base, 2u);
    EXPECT_EQ(a.data.layered[3].reflectance, vec3(0.9f, 0.5f, 0.2f));
    EXPECT_TRUE(a.data.principled.empty());  // no principled stand-in any more
    // bad values name the place
    EXPECT_THROW(
        load_pbrt_string("Camera \"perspective\"\nWorldBegin\nMaterial \"coateddiffuse\" \"float thickness\" -1\n",
                         "bad.pbrt", false),
        std::exception);
    try {
        load_pbrt_string("Camera \"perspective\"\nWorldBegin\nMaterial \"coateddiffuse\" \"integer maxdepth\" -3\n",
                         "bad.pbrt", false);
        FAIL() << "no error";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("bad.pbrt:3:"), std::string::npos) << e.what();
    }
}
}  // namespace
