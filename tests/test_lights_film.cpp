#include <gtest/gtest.h>
#include <algorithm>
#include <random>
#include <vector>
#include "kernels/film.h"
#include "kernels/lights.h"
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
