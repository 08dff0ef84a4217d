#include <gtest/gtest.h>
#include "kernels/geometry.h"
using namespace wp;

TEST(Sphere, HitFromOutside) {
    float t;
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0, 0, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 4.0f, 1e-5f);
}
TEST(Sphere, OriginInsideReturnsFarRoot) {
    float t;
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0.2f, 0, 0), vec3(1, 0, 0)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 0.8f, 1e-5f);
}
TEST(Sphere, MissAndBehind) {
    float t;
    EXPECT_FALSE(intersect_sphere(Ray{vec3(0, 1.01f, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_FALSE(intersect_sphere(Ray{vec3(0, 0, 5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
}
TEST(Sphere, GrazingAndFarAway) {
    float t;
    EXPECT_TRUE(intersect_sphere(Ray{vec3(0, 0.9999f, -5), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    // far origin: the chord form keeps precision where the naive quadratic loses it
    ASSERT_TRUE(intersect_sphere(Ray{vec3(0, 0, -1e5f), vec3(0, 0, 1)}, vec3(0), 1.0f, 0.0f, kInf, t));
    EXPECT_NEAR(t, 1e5f - 1.0f, 1e-1f);
}
TEST(Triangle, HitBarycentricsAndEdges) {
    vec3 v0(0, 0, 0), v1(1, 0, 0), v2(0, 1, 0);
    float t, u, v;
    ASSERT_TRUE(intersect_triangle(Ray{vec3(0.25f, 0.5f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    EXPECT_NEAR(t, 1.0f, 1e-6f);
    EXPECT_NEAR(u, 0.25f, 1e-6f);
    EXPECT_NEAR(v, 0.5f, 1e-6f);
    EXPECT_FALSE(intersect_triangle(Ray{vec3(0.6f, 0.6f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    // parallel (grazing) ray in the plane: no hit, no NaN
    EXPECT_FALSE(intersect_triangle(Ray{vec3(-1, 0.2f, 0), vec3(1, 0, 0)}, v0, v1 - v0, v2 - v0, 0, kInf, t, u, v));
    // tmax clips
    EXPECT_FALSE(intersect_triangle(Ray{vec3(0.25f, 0.25f, 1), vec3(0, 0, -1)}, v0, v1 - v0, v2 - v0, 0, 0.5f, t, u, v));
}
TEST(Quad, HitInsideAndOutside) {
    vec3 p(-1, -1, 0), eu(2, 0, 0), ev(0, 2, 0);
    float t, a, b;
    ASSERT_TRUE(intersect_quad(Ray{vec3(0.5f, -0.5f, 3), vec3(0, 0, -1)}, p, eu, ev, 0, kInf, t, a, b));
    EXPECT_NEAR(t, 3.0f, 1e-6f);
    EXPECT_NEAR(a, 0.75f, 1e-6f);
    EXPECT_NEAR(b, 0.25f, 1e-6f);
    EXPECT_FALSE(intersect_quad(Ray{vec3(1.5f, 0, 3), vec3(0, 0, -1)}, p, eu, ev, 0, kInf, t, a, b));
    EXPECT_FALSE(intersect_quad(Ray{vec3(0, 0, 1), vec3(1, 0, 0)}, p, eu, ev, 0, kInf, t, a, b));  // grazing
    // from behind also hits (two-sided geometry)
    EXPECT_TRUE(intersect_quad(Ray{vec3(0, 0, -2), vec3(0, 0, 1)}, p, eu, ev, 0, kInf, t, a, b));
}
TEST(OffsetRay, MovesAlongNormal) {
    vec3 p(1.0f, 2.0f, -3.0f), n(0, 1, 0);
    vec3 q = offset_ray_origin(p, n);
    EXPECT_GT(q.y, p.y);
    EXPECT_EQ(q.x, p.x);
    EXPECT_LT(q.y - p.y, 1e-4f);
}
