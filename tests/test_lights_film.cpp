#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <vector>
#include "kernels/film.h"
#include "kernels/lights.h"
#include "tests/chi2.h"
using namespace wp;

namespace {
// One light, one primitive: a sphere, a quad or a triangle.
struct OneLight {
    std::vector<F4> geom;
    std::vector<U4> info;
    Light light{};
    float cdf = 1.0f;
    SceneView view() {
        SceneView s;
        s.prims.geom = geom.data();
        s.prims.info = info.data();
        s.prims.count = 1;
        s.lights = &light;
        s.light_cdf = &cdf;
        s.num_lights = 1;
        return s;
    }
};
OneLight make(ShapeType t, vec3 a, vec3 b, vec3 c, float area) {
    OneLight o;
    o.geom = {F4{a.x, a.y, a.z, bits_float(uint32_t(t))}, F4{b.x, b.y, b.z, 0}, F4{c.x, c.y, c.z, 0}};
    o.info = {U4{uint32_t(t), 0, 0, kInvalid}};
    o.light = Light{0, area, 1.0f, 1, vec3(1.0f), 0};
    return o;
}
// E[1/pdf] over light samples is the solid angle the light subtends; also checks light_pdf agrees.
double solid_angle_by_light_sampling(OneLight& o, vec3 ref, int n) {
    SceneView s = o.view();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    double acc = 0;
    for (int i = 0; i < n; ++i) {
        LightSample ls;
        if (!sample_light(s, ref, U(rng), vec2(U(rng), U(rng)), ls)) continue;
        float p2 = light_pdf(s, 0, ref, ls.p, ls.n);
        EXPECT_NEAR(p2, ls.pdf, 1e-3f * ls.pdf);
        acc += 1.0 / ls.pdf;
    }
    return acc / n;
}
// Solid angle by uniform direction sampling and ray casting (independent estimate).
double solid_angle_by_rays(OneLight& o, vec3 ref, int n) {
    SceneView s = o.view();
    std::mt19937 rng(13);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    int hits = 0;
    for (int i = 0; i < n; ++i) {
        Hit h{kInf, kInvalid, 0, 0};
        if (intersect_prim(s.prims, 0, Ray{ref, sample_uniform_sphere(vec2(U(rng), U(rng)))}, 0.0f, h)) ++hits;
    }
    return 4.0 * kPi * hits / n;
}
void expect_near3(vec3 a, vec3 b, float tol) {
    EXPECT_NEAR(a.x, b.x, tol);
    EXPECT_NEAR(a.y, b.y, tol);
    EXPECT_NEAR(a.z, b.z, tol);
}
}  // namespace

TEST(Lights, SphereFromOutsideMatchesAnalyticCone) {
    OneLight o = make(ShapeType::Sphere, vec3(0, 0, 0), vec3(0.5f, 0, 0), vec3(0), 4 * kPi * 0.25f);
    vec3 ref(0, 0, 2);
    double expect = 2 * kPi * (1 - std::sqrt(1 - 0.25 / 4.0));
    EXPECT_NEAR(solid_angle_by_light_sampling(o, ref, 100000), expect, 1e-3 * expect);
}
TEST(Lights, SphereFromInsideCoversEverything) {
    OneLight o = make(ShapeType::Sphere, vec3(0, 0, 0), vec3(2.0f, 0, 0), vec3(0), 4 * kPi * 4.0f);
    EXPECT_NEAR(solid_angle_by_light_sampling(o, vec3(0.3f, -0.5f, 0.2f), 400000), 4 * kPi, 0.02 * 4 * kPi);
}
TEST(Lights, QuadAndTriangleMatchRayCasting) {
    OneLight q = make(ShapeType::Quad, vec3(-0.5f, 1, -0.3f), vec3(1, 0, 0), vec3(0, 0, 0.6f), 0.6f);
    vec3 ref(0.2f, 0.0f, 0.1f);
    double a = solid_angle_by_light_sampling(q, ref, 200000), b = solid_angle_by_rays(q, ref, 2000000);
    EXPECT_NEAR(a, b, 0.02 * b);
    OneLight t = make(ShapeType::Triangle, vec3(-0.5f, 1, -0.3f), vec3(1, 0, 0), vec3(0, 0.2f, 0.6f),
                      0.5f * glm::length(glm::cross(vec3(1, 0, 0), vec3(0, 0.2f, 0.6f))));
    a = solid_angle_by_light_sampling(t, ref, 200000);
    b = solid_angle_by_rays(t, ref, 2000000);
    EXPECT_NEAR(a, b, 0.02 * b);
}
namespace {

// Several lights in one view: spheres, quads and triangles, chosen with the probabilities given (their CDF).
struct LightSet {
    std::vector<F4> geom;
    std::vector<U4> info;
    std::vector<Light> lights;
    std::vector<float> cdf;
    void add(ShapeType t, vec3 a, vec3 b, vec3 c, float area, float weight, bool two_sided = true) {
        const uint32_t prim = uint32_t(info.size());
        geom.insert(geom.end(),
                    {F4{a.x, a.y, a.z, bits_float(uint32_t(t))}, F4{b.x, b.y, b.z, 0}, F4{c.x, c.y, c.z, 0}});
        info.push_back(U4{uint32_t(t), 0, 0, kInvalid});
        lights.push_back(Light{prim, area, weight, two_sided ? 1u : 0u, vec3(1.0f), 0});
    }
    void sphere(vec3 c, float r, float weight) {
        add(ShapeType::Sphere, c, vec3(r, 0, 0), vec3(0), 4 * kPi * r * r, weight);
    }
    void quad(vec3 a, vec3 e1, vec3 e2, float weight) {
        add(ShapeType::Quad, a, e1, e2, glm::length(glm::cross(e1, e2)), weight);
    }
    void triangle(vec3 a, vec3 e1, vec3 e2, float weight) {
        add(ShapeType::Triangle, a, e1, e2, 0.5f * glm::length(glm::cross(e1, e2)), weight);
    }
    SceneView view() {
        double total = 0, acc = 0;
        for (const Light& l : lights) total += l.select_pdf;
        cdf.clear();
        for (Light& l : lights) {
            l.select_pdf = float(l.select_pdf / total);
            acc += l.select_pdf;
            cdf.push_back(float(acc));
        }
        cdf.back() = 1.0f;
        SceneView s;
        s.prims.geom = geom.data();
        s.prims.info = info.data();
        s.prims.count = uint32_t(info.size());
        s.lights = lights.data();
        s.light_cdf = cdf.data();
        s.num_lights = uint32_t(lights.size());
        return s;
    }
};

// The density of light sampling's directions at w, from ref: every light the ray (ref, w) meets, at the point where
// it meets it (a sphere from inside: the far side), by light_pdf (selection included).
double direction_density(const SceneView& s, vec3 ref, vec3 w) {
    double pdf = 0;
    for (uint32_t i = 0; i < s.num_lights; ++i) {
        const uint32_t prim = s.lights[i].prim;
        Hit h{kInf, kInvalid, 0, 0};
        if (!intersect_prim(s.prims, prim, Ray{ref, w}, 0.0f, h)) continue;
        const vec3 p = ref + h.t * w;
        const F4 g0 = s.prims.geom[3 * prim], g1 = s.prims.geom[3 * prim + 1], g2 = s.prims.geom[3 * prim + 2];
        const vec3 n = float_bits(g0.w) == uint32_t(ShapeType::Sphere) ? glm::normalize(p - xyz(g0))
                                                                       : glm::normalize(glm::cross(xyz(g1), xyz(g2)));
        pdf += light_pdf(s, i, ref, p, n);
    }
    return pdf;
}

struct DirectionChi2 {
    wp_test::Chi2 c;
    double integral = 0;  // of the density over the cap
    int outside = 0, rejected = 0;
};

// Pearson chi-square of the directions sample(u_select, u, ls) gives from ref against direction_density, over a
// (cos theta, phi) grid in a frame around axis restricted to the cap cos theta >= z_min, which must hold every
// light (a sample outside it is counted, and fails the tests); expected counts by a midpoint rule in each cell.
template <class Sample>
DirectionChi2 direction_chi2(const SceneView& s, vec3 ref, vec3 axis, float z_min, Sample sample, int n = 500000,
                             int nt = 32, int np = 64) {
    const Frame f = Frame::from_normal(glm::normalize(axis));
    const double dz = (1.0 - z_min) / nt, dphi = 2 * kPi / np;
    DirectionChi2 r;
    std::vector<double> obs(nt * np, 0.0), expected(nt * np, 0.0);
    std::mt19937 rng(29);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    for (int k = 0; k < n; ++k) {
        LightSample ls;
        const float usel = U(rng), u0 = U(rng), u1 = U(rng);
        if (!sample(usel, vec2(u0, u1), ls)) {
            ++r.rejected;
            continue;
        }
        const vec3 l = f.to_local(ls.wi);
        if (l.z < z_min) {
            ++r.outside;
            continue;
        }
        float phi = atan2f(l.y, l.x);
        if (phi < 0) phi += 2 * kPi;
        const int it = std::min(nt - 1, int((1.0 - l.z) / dz)), ip = std::min(np - 1, int(phi / dphi));
        obs[it * np + ip] += 1;
    }
    // 64 x 64 points a cell: the lights' silhouettes cut cells, and a coarser rule's error there is what the
    // statistic finds (16 x 16: the three lights' case at 346 against a critical 276; 64 x 64: 202)
    const int sub = 64;
    for (int it = 0; it < nt; ++it)
        for (int ip = 0; ip < np; ++ip) {
            double acc = 0;
            for (int a = 0; a < sub; ++a)
                for (int b = 0; b < sub; ++b) {
                    const double z = 1.0 - dz * (it + (a + 0.5) / sub), phi = dphi * (ip + (b + 0.5) / sub);
                    const double st = std::sqrt(std::max(0.0, 1 - z * z));
                    const vec3 w = f.to_world(vec3(float(st * std::cos(phi)), float(st * std::sin(phi)), float(z)));
                    acc += direction_density(s, ref, glm::normalize(w));
                }
            const double cell = dz * dphi / (sub * sub);  // dz dphi: solid angle
            expected[it * np + ip] = acc * cell * n;
            r.integral += acc * cell;
        }
    r.c = wp_test::pearson_chi2(obs, expected);
    return r;
}

// The smallest cos theta about axis, from ref, over a light's points: a 64 x 64 grid of its parameters (a quad's or a
// triangle's edges), less a margin: the cap for direction_chi2.
float cap_of(vec3 ref, vec3 axis, vec3 a, vec3 e1, vec3 e2, bool triangle) {
    float zmin = 1;
    for (int i = 0; i <= 64; ++i)
        for (int j = 0; j <= 64; ++j) {
            float u = i / 64.0f, v = j / 64.0f;
            if (triangle && u + v > 1) continue;
            zmin = std::min(zmin, glm::dot(glm::normalize(a + u * e1 + v * e2 - ref), glm::normalize(axis)));
        }
    return zmin - 0.01f;
}

void expect_follows_density(const DirectionChi2& r, const char* what) {
    std::printf("%s: chi2 %.1f, dof %d, critical %.1f; density integrates to %.4f\n", what, r.c.stat, r.c.dof,
                wp_test::chi2_crit(r.c.dof), r.integral);
    EXPECT_GT(r.c.dof, 100) << what;  // the lights cover enough of the grid to test their shape
    EXPECT_LT(r.c.stat, wp_test::chi2_crit(r.c.dof)) << what;
    EXPECT_EQ(r.outside, 0) << what;
    EXPECT_NEAR(r.integral, 1.0, 0.003) << what;  // every sample lands on a light: the density is normalised
    EXPECT_LT(r.rejected, 5) << what;
}
}  // namespace

// Light sampling's directions (sample_light: the cone of a sphere seen from outside, the area of a sphere from
// inside, of a quad and of a triangle, and the choice of a light by its CDF) against light_pdf, by chi-square.
TEST(Lights, SampledDirectionsFollowTheLightPdfChi2) {
    struct Case {
        const char* name;
        LightSet set;
        vec3 ref, axis;
        float z_min;
    };
    std::vector<Case> cases;
    {
        Case c{"sphere from outside", {}, vec3(0, 0, 2), vec3(0, 0, -1), std::sqrt(1.0f - 0.25f * 0.25f) - 0.01f};
        c.set.sphere(vec3(0), 0.5f, 1);
        cases.push_back(c);
    }
    {
        Case c{"sphere from inside", {}, vec3(0.3f, -0.5f, 0.2f), vec3(0, 0, 1), -1.0f};
        c.set.sphere(vec3(0), 2.0f, 1);
        cases.push_back(c);
    }
    const vec3 a(-0.5f, 1, -0.3f), e1(1, 0, 0), ref(0.2f, 0.0f, 0.1f);
    {
        const vec3 e2(0, 0, 0.6f), axis = a + 0.5f * (e1 + e2) - ref;
        Case c{"quad", {}, ref, axis, cap_of(ref, axis, a, e1, e2, false)};
        c.set.quad(a, e1, e2, 1);
        cases.push_back(c);
    }
    {
        const vec3 e2(0, 0.2f, 0.6f), axis = a + (e1 + e2) / 3.0f - ref;
        Case c{"triangle", {}, ref, axis, cap_of(ref, axis, a, e1, e2, true)};
        c.set.triangle(a, e1, e2, 1);
        cases.push_back(c);
    }
    {  // three lights around the point, picked 5 : 3 : 2
        Case c{"sphere, quad and triangle by their CDF", {}, ref, vec3(0, 0, 1), -1.0f};
        c.set.sphere(vec3(1.5f, 0.2f, 0.3f), 0.4f, 5);
        c.set.quad(a, e1, vec3(0, 0, 0.6f), 3);
        c.set.triangle(vec3(-0.4f, -1.0f, 0.5f), vec3(0.8f, 0.1f, 0), vec3(0.1f, -0.3f, 0.9f), 2);
        cases.push_back(c);
    }
    for (Case& c : cases) {
        const SceneView s = c.set.view();
        auto sample = [&](float usel, vec2 u, LightSample& ls) { return sample_light(s, c.ref, usel, u, ls); };
        expect_follows_density(direction_chi2(s, c.ref, c.axis, c.z_min, sample, 500000, 32, 64), c.name);
    }
}

// The statistic catches a wrong sampler: a triangle's points by barycentrics (1 - u, u v), the classic mistake
// without the square root (denser toward one corner), against the uniform area density light_pdf describes.
TEST(Lights, DirectionChi2RejectsAWrongTriangleSampler) {
    const vec3 a(-0.5f, 1, -0.3f), e1(1, 0, 0), e2(0, 0.2f, 0.6f), ref(0.2f, 0.0f, 0.1f);
    const vec3 axis = a + (e1 + e2) / 3.0f - ref;
    LightSet set;
    set.triangle(a, e1, e2, 1);
    const SceneView s = set.view();
    auto wrong = [&](float, vec2 u, LightSample& ls) {
        ls.p = a + (1.0f - u.x) * e1 + (u.y * u.x) * e2;
        ls.wi = glm::normalize(ls.p - ref);
        ls.pdf = 1;
        return true;
    };
    const DirectionChi2 r = direction_chi2(s, ref, axis, cap_of(ref, axis, a, e1, e2, true), wrong, 200000, 32, 64);
    EXPECT_EQ(r.outside, 0);
    EXPECT_GT(r.c.stat, 10 * wp_test::chi2_crit(r.c.dof));
}

TEST(Lights, OneSidedEmissionAndSelectionByPower) {
    Light L{0, 1.0f, 1.0f, 0, vec3(2.0f), 0};
    EXPECT_EQ(light_emitted(L, vec3(0, 0, 1), vec3(0, 0, 1)).x, 2.0f);
    EXPECT_EQ(light_emitted(L, vec3(0, 0, 1), vec3(0, 0, -1)).x, 0.0f);
    L.two_sided = 1;
    EXPECT_EQ(light_emitted(L, vec3(0, 0, 1), vec3(0, 0, -1)).x, 2.0f);
    float cdf[3] = {0.2f, 0.7f, 1.0f};
    SceneView s;
    s.light_cdf = cdf;
    s.num_lights = 3;
    int count[3] = {0, 0, 0};
    for (int i = 0; i < 10000; ++i) count[select_light(s, (i + 0.5f) / 10000)]++;
    EXPECT_EQ(count[0], 2000);
    EXPECT_EQ(count[1], 5000);
    EXPECT_EQ(count[2], 3000);
}

// pbrt-v4's delta lights in sample_light: a point light delivers I / d^2 from its position, a spot light also its
// smoothstep falloff about the axis, a distant light its radiance from its direction at infinite distance; the pdf
// is the selection probability alone (the area lights' share, the environment's half taken off), the sample is
// marked delta (no MIS weight), and an area light in the same table is still sampled by solid angle.
TEST(Lights, DeltaLightSamplesPointSpotDistant) {
    LightSet set;
    set.quad(vec3(-0.5f, 3, -0.5f), vec3(1, 0, 0), vec3(0, 0, 1), 1);  // weight 1 of 1 + 2 + 3 + 4
    auto delta = [&](uint32_t type, vec3 Le, vec3 pos, vec3 dir, float cs, float ce, float weight) {
        Light l{kInvalid, 0.0f, weight, 0u, Le, type};
        l.pos = pos, l.dir = dir, l.cos_start = cs, l.cos_end = ce;
        set.lights.push_back(l);
    };
    const float ce = std::cos(30.0f * kPi / 180.0f), cs = std::cos(20.0f * kPi / 180.0f);
    delta(kLightPoint, vec3(8, 4, 2), vec3(0, 0, 2), vec3(0), 1, -1, 2);
    delta(kLightSpot, vec3(8, 4, 2), vec3(0, 0, 2), vec3(0, 0, -1), cs, ce, 3);
    delta(kLightDistant, vec3(1, 2, 3), vec3(0), glm::normalize(vec3(1, 0, 1)), 1, -1, 4);
    SceneView s = set.view();
    s.env.select_prob = 0.5f;  // an environment takes half: the table's pdfs are halved
    auto pick = [&](uint32_t i) { return 0.5f + 0.5f * 0.5f * (s.light_cdf[i] + (i ? s.light_cdf[i - 1] : 0.0f)); };
    LightSample ls;
    // point: from (0.3, 0.4, 0) the light is sqrt(0.25 + 4) away
    const vec3 ref(0.3f, 0.4f, 0.0f);
    ASSERT_TRUE(sample_light(s, ref, pick(1), vec2(0.3f, 0.6f), ls));
    const float d2 = 0.25f + 4.0f;
    EXPECT_TRUE(ls.delta);
    EXPECT_NEAR(ls.pdf, 0.5f * 0.2f, 1e-6f);
    EXPECT_NEAR(ls.dist, std::sqrt(d2), 1e-5f);
    expect_near3(ls.wi, glm::normalize(vec3(0, 0, 2) - ref), 1e-6f);
    expect_near3(ls.Le, vec3(8, 4, 2) / d2, 1e-5f);
    // spot: full inside 20 degrees, none beyond 30, pbrt's smoothstep between (at 25 degrees: t = ...)
    for (float deg : {0.0f, 10.0f, 19.9f, 22.0f, 25.0f, 28.0f, 30.1f, 45.0f}) {
        const float th = deg * kPi / 180.0f, dist = 1.5f;
        const vec3 r = vec3(0, 0, 2) + dist * vec3(std::sin(th), 0, -std::cos(th));
        ASSERT_TRUE(sample_light(s, r, pick(2), vec2(0.5f), ls)) << deg;
        const float c = std::cos(th), t = glm::clamp((c - ce) / (cs - ce), 0.0f, 1.0f);
        const float fall = deg < 20 ? 1.0f : deg > 30 ? 0.0f : t * t * (3 - 2 * t);
        EXPECT_TRUE(ls.delta);
        EXPECT_NEAR(ls.pdf, 0.5f * 0.3f, 1e-6f);
        expect_near3(ls.Le, vec3(8, 4, 2) * (fall / (dist * dist)), 2e-5f);
        if (deg > 20 && deg < 30) EXPECT_TRUE(ls.Le.x > 0 && ls.Le.x < 8 / (dist * dist)) << deg;
        if (deg > 30) EXPECT_EQ(ls.Le.x, 0.0f) << deg;
    }
    // distant: its direction, infinitely far, its radiance unscaled by distance
    ASSERT_TRUE(sample_light(s, vec3(5, -3, 1), pick(3), vec2(0.5f), ls));
    EXPECT_TRUE(ls.delta);
    EXPECT_NEAR(ls.pdf, 0.5f * 0.4f, 1e-6f);
    EXPECT_EQ(ls.dist, kInf);
    expect_near3(ls.wi, glm::normalize(vec3(1, 0, 1)), 1e-6f);
    expect_near3(ls.Le, vec3(1, 2, 3), 0.0f);
    // the area light beside them: by solid angle, its selection 0.1 of the table's half, and light_pdf agrees
    ASSERT_TRUE(sample_light(s, ref, pick(0), vec2(0.3f, 0.6f), ls));
    EXPECT_FALSE(ls.delta);
    EXPECT_NEAR(ls.pdf, light_pdf(s, 0, ref, ls.p, ls.n), 1e-5f * ls.pdf);
    const float c = std::fabs(ls.wi.y);
    EXPECT_NEAR(ls.pdf, 0.5f * 0.1f * ls.dist * ls.dist / c, 1e-4f * ls.pdf);
}

TEST(Film, OrderIndependentAndGuardsNonFinite) {
    const int pixels = 64;
    std::vector<std::pair<uint32_t, vec3>> adds;
    std::mt19937 rng(2);
    std::uniform_real_distribution<float> U(0.0f, 10.0f);
    for (int i = 0; i < 20000; ++i) adds.push_back({uint32_t(i % pixels), vec3(U(rng), U(rng) * 1e-3f, U(rng) * 100)});
    std::vector<unsigned long long> s1(3 * pixels, 0), s2(3 * pixels, 0);
    unsigned long long bad = 0;
    unsigned int first = ~0u;
    FilmView f1{s1.data(), &bad, &first}, f2{s2.data(), &bad, &first};
    for (auto& a : adds) film_add(f1, a.first, a.second);
    std::shuffle(adds.begin(), adds.end(), rng);
    for (auto& a : adds) film_add(f2, a.first, a.second);
    EXPECT_EQ(s1, s2);  // bit-identical whatever the order
    // and close to the float64 sum
    double ref = 0;
    for (auto& a : adds)
        if (a.first == 5) ref += a.second.z;
    EXPECT_NEAR(film_value(s1[3 * 5 + 2], 1), ref, 1e-6 * ref);
    EXPECT_EQ(bad, 0u);
    film_add(f1, 9, vec3(NAN, 1, 1));
    film_add(f1, 4, vec3(1, INFINITY, 1));
    film_add(f1, 7, vec3(1, 1, -INFINITY));
    EXPECT_EQ(bad, 3u);
    EXPECT_EQ(first, 4u);
    EXPECT_EQ(s1[3 * 4 + 0], s2[3 * 4 + 0]);  // nothing of a bad sample reached the film
}
