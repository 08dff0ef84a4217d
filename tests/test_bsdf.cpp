// Sampling routines against their own pdfs: chi-square over a (theta, phi) grid, pdf normalisation,
// reciprocity and finite weights.
#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <vector>
#include "kernels/bsdf.h"
#include "tests/chi2.h"
using namespace wp;
using wp_test::chi2_crit;

namespace {
MatParams mat(MatType t, float alpha, float metallic = 0.0f) {
    MatParams m{};
    m.type = t;
    m.color = vec3(0.8f, 0.6f, 0.4f);
    m.alpha = alpha;
    m.ior = 1.5f;
    m.metallic = metallic;
    return m;
}
vec3 dir_from(float cos_t, float phi) {
    float s = safe_sqrt(1 - cos_t * cos_t);
    return vec3(s * cosf(phi), s * sinf(phi), cos_t);
}
// Pearson chi-square over a grid of nt x np cells on the sphere, expected counts by integrating the pdf.
double chi2_stat(const MatParams& m, vec3 wo, int n, int nt, int np, int& dof, double& pdf_integral) {
    std::mt19937 rng(1234);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    std::vector<double> obs(nt * np, 0.0), expct(nt * np, 0.0);
    for (int i = 0; i < n; ++i) {
        BsdfSample s;
        if (!bsdf_sample(m, wo, U(rng), vec2(U(rng), U(rng)), s)) continue;
        float ct = glm::clamp(s.wi.z, -1.0f, 1.0f);
        int it = glm::min(nt - 1, int((1.0f - ct) * 0.5f * nt));
        float phi = atan2f(s.wi.y, s.wi.x);
        if (phi < 0) phi += 2 * kPi;
        int ip = glm::min(np - 1, int(phi / (2 * kPi) * np));
        obs[it * np + ip] += 1;
    }
    const int sub = 12;
    pdf_integral = 0;
    for (int it = 0; it < nt; ++it)
        for (int ip = 0; ip < np; ++ip) {
            double acc = 0;
            for (int a = 0; a < sub; ++a)
                for (int b = 0; b < sub; ++b) {
                    float z = 1.0f - 2.0f * (it + (a + 0.5f) / sub) / nt;
                    float phi = 2 * kPi * (ip + (b + 0.5f) / sub) / np;
                    float pdf;
                    bsdf_eval(m, wo, dir_from(z, phi), pdf);
                    acc += pdf;
                }
            double cell = (2.0 / nt) * (2 * kPi / np) / (sub * sub);  // dz dphi = solid angle
            expct[it * np + ip] = acc * cell * n;
            pdf_integral += acc * cell;
        }
    const wp_test::Chi2 r = wp_test::pearson_chi2(obs, expct);
    dof = r.dof;
    return r.stat;
}
}  // namespace

struct Case {
    MatType t;
    float alpha, metallic, cos_o;
};
class BsdfChi2 : public ::testing::TestWithParam<Case> {};

TEST_P(BsdfChi2, SamplesFollowPdf) {
    Case c = GetParam();
    MatParams m = mat(c.t, c.alpha, c.metallic);
    vec3 wo = glm::normalize(dir_from(c.cos_o, 0.3f));
    int dof;
    double integral;
    double stat = chi2_stat(m, wo, 400000, 20, 40, dof, integral);
    ASSERT_GT(dof, 10);
    EXPECT_LT(stat, chi2_crit(dof)) << "dof " << dof;
    EXPECT_LE(integral, 1.02);  // pdf integrates to at most one (less where samples are rejected)
    EXPECT_GT(integral, 0.5);
}
INSTANTIATE_TEST_SUITE_P(
    All, BsdfChi2,
    ::testing::Values(Case{MatType::Lambert, 0, 0, 0.7f}, Case{MatType::Lambert, 0, 0, 0.1f},
                      Case{MatType::Conductor, 0.2f, 0, 0.9f}, Case{MatType::Conductor, 0.5f, 0, 0.3f},
                      Case{MatType::Conductor, 0.05f, 0, 0.6f}, Case{MatType::Dielectric, 0.3f, 0, 0.8f},
                      Case{MatType::Dielectric, 0.3f, 0, -0.6f}, Case{MatType::Principled, 0.25f, 0.0f, 0.7f},
                      Case{MatType::Principled, 0.5f, 1.0f, 0.4f}));

// pbrt-v4's diffuse transmission: samples follow the pdf (reflection on wo's side, transmission across, from
// either side), the pdf integrates to one over the sphere, and the weights' mean is R + T per channel.
TEST(Bsdf, DiffuseTransmissionSamplesFollowPdfAndWeighReflectancePlusTransmittance) {
    MatParams m = mat(MatType::DiffuseTransmission, 0.0f);
    m.k = vec3(0.3f, 0.5f, 0.2f);
    for (float cos_o : {0.7f, -0.4f}) {
        const vec3 wo = glm::normalize(dir_from(cos_o, 0.3f));
        int dof;
        double integral;
        const double stat = chi2_stat(m, wo, 400000, 20, 40, dof, integral);
        ASSERT_GT(dof, 10);
        EXPECT_LT(stat, chi2_crit(dof)) << "dof " << dof << ", cos_o " << cos_o;
        EXPECT_NEAR(integral, 1.0, 0.01) << cos_o;
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> U(0.0f, 1.0f);
        glm::dvec3 sum(0.0);
        int transmitted = 0;
        const int n = 200000;
        for (int i = 0; i < n; ++i) {
            BsdfSample s;
            ASSERT_TRUE(bsdf_sample(m, wo, U(rng), vec2(U(rng), U(rng)), s));
            sum += glm::dvec3(s.f * fabsf(s.wi.z) / s.pdf);
            transmitted += s.wi.z * wo.z < 0.0f;
            float pdf;
            const vec3 f = bsdf_eval(m, wo, s.wi, pdf);  // evaluation agrees with the sample
            EXPECT_NEAR(pdf, s.pdf, 1e-5f * s.pdf);
            EXPECT_NEAR(f.x, s.f.x, 1e-6f);
        }
        const glm::dvec3 expect = glm::dvec3(m.color + m.k);
        for (int c = 0; c < 3; ++c) EXPECT_NEAR(sum[c] / n, expect[c], 0.01 * expect[c]) << c;
        EXPECT_NEAR(double(transmitted) / n, 0.5 / (0.8 + 0.5), 0.005);  // max(T) / (max(R) + max(T))
    }
    // black: no lobe, no sample
    m.color = m.k = vec3(0.0f);
    BsdfSample s;
    EXPECT_FALSE(bsdf_sample(m, vec3(0, 0, 1), 0.5f, vec2(0.5f), s));
}

TEST(Bsdf, ReciprocityOfReflection) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> U(0.05f, 1.0f), P(0.0f, 6.28f);
    for (MatType t : {MatType::Lambert, MatType::Conductor, MatType::Principled}) {
        MatParams m = mat(t, 0.3f, 0.5f);
        for (int i = 0; i < 1000; ++i) {
            vec3 a = dir_from(U(rng), P(rng)), b = dir_from(U(rng), P(rng));
            float p1, p2;
            vec3 f1 = bsdf_eval(m, a, b, p1), f2 = bsdf_eval(m, b, a, p2);
            for (int k = 0; k < 3; ++k) EXPECT_NEAR(f1[k], f2[k], 1e-4f * (1 + f1[k]));
        }
    }
}

TEST(Bsdf, LambertFurnaceAndFiniteWeights) {
    std::mt19937 rng(99);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    for (MatType t : {MatType::Lambert, MatType::Conductor, MatType::Dielectric, MatType::Principled}) {
        for (float alpha : {0.0f, 0.001f, 0.3f, 1.0f}) {
            MatParams m = mat(t, alpha, 0.5f);
            m.color = vec3(1.0f);
            double sum = 0;
            int n = 200000;
            for (int i = 0; i < n; ++i) {
                vec3 wo = glm::normalize(dir_from(2 * U(rng) - 1, 6.28f * U(rng)));
                if (t != MatType::Dielectric && wo.z <= 0) wo.z = -wo.z;
                BsdfSample s;
                if (!bsdf_sample(m, wo, U(rng), vec2(U(rng), U(rng)), s)) continue;
                vec3 w = s.f * fabsf(s.wi.z) / s.pdf;
                ASSERT_TRUE(finite3(w)) << int(t) << " alpha " << alpha;
                ASSERT_GE(glm::min(w.x, glm::min(w.y, w.z)), 0.0f);
                if (t == MatType::Lambert) { sum += w.x; }
            }
            if (t == MatType::Lambert) EXPECT_NEAR(sum / n, 1.0, 1e-3);  // white Lambert reflects everything
        }
    }
}

TEST(Fresnel, ComplexIorMatchesDielectricWhenKZero) {
    for (float c : {0.1f, 0.5f, 0.9f, 1.0f})
        EXPECT_NEAR(fresnel_complex1(c, 1.5f, 0.0f), fresnel_dielectric(c, 1.5f), 1e-4f);
    EXPECT_NEAR(fresnel_dielectric(1.0f, 1.5f), 0.04f, 1e-4f);
    EXPECT_EQ(fresnel_dielectric(-0.1f, 1.5f), 1.0f);  // total internal reflection leaving glass at grazing
}

// The geometric samplers on their own, by chi-square on equal-area grids: the concentric disk (the thin lens's
// aperture) on rings of equal area (r^2) and sectors, the uniform sphere (a sphere light seen from inside) on bands
// of equal height (z) and sectors; each expects n / cells everywhere.
TEST(Sampling, ConcentricDiskAndUniformSphereAreUniformChi2) {
    const int nr = 16, ns = 32, n = 400000;
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    auto sector = [&](float y, float x) {
        float phi = atan2f(y, x);
        if (phi < 0) phi += 2 * kPi;
        return std::min(ns - 1, int(phi / (2 * kPi) * ns));
    };
    std::vector<double> disk(nr * ns, 0.0), sphere(nr * ns, 0.0), expected(nr * ns, double(n) / (nr * ns));
    for (int i = 0; i < n; ++i) {
        const vec2 d = sample_disk_concentric(vec2(U(rng), U(rng)));
        const float r2 = glm::dot(d, d);
        ASSERT_LE(r2, 1.0f + 1e-6f);
        disk[std::min(nr - 1, int(r2 * nr)) * ns + sector(d.y, d.x)] += 1;
        const vec3 w = sample_uniform_sphere(vec2(U(rng), U(rng)));
        ASSERT_NEAR(glm::length(w), 1.0f, 1e-5f);
        sphere[std::min(nr - 1, int((1 - w.z) * 0.5f * nr)) * ns + sector(w.y, w.x)] += 1;
    }
    for (auto [name, obs] : {std::pair<const char*, const std::vector<double>*>{"disk", &disk}, {"sphere", &sphere}}) {
        const wp_test::Chi2 c = wp_test::pearson_chi2(*obs, expected);
        EXPECT_EQ(c.dof, nr * ns - 1) << name;
        EXPECT_LT(c.stat, chi2_crit(c.dof)) << name;
    }
    // the negative control: the disk's radius taken uniformly (denser toward the centre) fails the same test
    std::vector<double> wrong(nr * ns, 0.0);
    for (int i = 0; i < n; ++i) {
        const float r = U(rng), phi = 2 * kPi * U(rng);
        wrong[std::min(nr - 1, int(r * r * nr)) * ns + sector(sinf(phi), cosf(phi))] += 1;
    }
    EXPECT_GT(wp_test::pearson_chi2(wrong, expected).stat, 10 * chi2_crit(nr * ns - 1));
}

// The smooth dielectric's two delta lobes: reflection chosen with the Fresnel probability (a binomial count within
// 4.5 standard deviations), its pdf F and 1 - F, the mirror direction and Snell's law for the refraction, from both
// sides (inside: total internal reflection past the critical angle); the throughput f |cos| / pdf is the tint (one
// for white glass) apart from the radiance scaling 1 / eta^2.
TEST(Bsdf, SmoothDielectricChoosesByFresnelAndObeysSnell) {
    MatParams m = mat(MatType::Dielectric, 0.0f);
    m.color = vec3(1.0f);
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    for (float cos_o : {0.95f, 0.6f, 0.2f, -0.9f, -0.5f, -0.7f}) {
        const vec3 wo = glm::normalize(dir_from(cos_o, 0.7f));
        const float F = fresnel_dielectric(wo.z, m.ior), etap = wo.z > 0 ? m.ior : 1.0f / m.ior;
        const int n = 200000;
        int reflected = 0;
        for (int i = 0; i < n; ++i) {
            BsdfSample s;
            ASSERT_TRUE(bsdf_sample(m, wo, U(rng), vec2(U(rng), U(rng)), s)) << cos_o;
            ASSERT_TRUE(s.delta);
            const vec3 w = s.f * fabsf(s.wi.z) / s.pdf;
            if (s.wi.z * wo.z > 0) {  // reflection: the mirror direction, pdf F, throughput one
                ++reflected;
                ASSERT_NEAR(s.wi.x, -wo.x, 1e-6f);
                ASSERT_NEAR(s.wi.y, -wo.y, 1e-6f);
                ASSERT_NEAR(s.wi.z, wo.z, 1e-6f);
                ASSERT_NEAR(s.pdf, F, 1e-6f);
                ASSERT_NEAR(w.x, 1.0f, 1e-5f);
            } else {  // refraction: tangential part scaled by 1 / etap and reversed, unit length, pdf 1 - F
                ASSERT_NEAR(s.wi.x, -wo.x / etap, 1e-5f);
                ASSERT_NEAR(s.wi.y, -wo.y / etap, 1e-5f);
                ASSERT_NEAR(glm::length(s.wi), 1.0f, 1e-5f);
                ASSERT_NEAR(s.pdf, 1.0f - F, 1e-6f);
                ASSERT_NEAR(w.x, 1.0f / (etap * etap), 1e-5f);
            }
        }
        const double sd = std::sqrt(double(n) * F * (1 - F)) + 1e-9;
        EXPECT_LE(std::fabs(reflected - double(n) * F), 4.5 * sd + 0.5) << "cos_o " << cos_o << ", F " << F;
        if (cos_o == -0.5f) EXPECT_EQ(F, 1.0f);  // inside glass of 1.5 past the critical angle (cos 0.745)
    }
}
